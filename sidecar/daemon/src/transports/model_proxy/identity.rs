//! The identity engine behind the model-API proxy: the trajectory's anonymizer scrubs what the
//! model reads and maps the aliases it uses back to real agent names.

use crate::runtime::app::App;
use blindfold_adapters::model_api::Scrubber;
use blindfold_engine::identity::Anonymizer;
use std::borrow::Cow;
use std::sync::Arc;

/// A trajectory's anonymizer as a [`Scrubber`].
struct Anon(Arc<Anonymizer>);

impl Scrubber for Anon {
    /// Agent text, with `- name: description` lines read as an agent list (a harness's delegation
    /// tool lists its sub-agents that way): names become aliases, descriptions lose their tier words.
    fn scrub(&self, text: &str) -> Option<String> {
        match self.0.rewrite_agent_list(text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(s) => Some(s),
        }
    }

    fn real_agent(&self, alias: &str) -> Option<String> {
        self.0.aliases().agent_of(alias).map(str::to_owned)
    }
}

/// The scrubber of `trajectory` (same aliases as every other path of that trajectory).
pub fn scrubber(app: &App, trajectory: &str) -> Arc<dyn Scrubber + Send + Sync> {
    scrubber_of(app.identities.anonymizer(trajectory))
}

/// `anon` as the proxy's [`Scrubber`] (what [`scrubber`] hands the request rewriting).
pub fn scrubber_of(anon: Arc<Anonymizer>) -> Arc<dyn Scrubber + Send + Sync> {
    Arc::new(Anon(anon))
}
