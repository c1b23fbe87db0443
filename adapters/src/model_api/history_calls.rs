//! The calls a model-API request's history holds, by id, for all three request shapes: which
//! results answer a delegation, and which answer no call of the request at all (not shown to be
//! tool content, so scrubbed as a delegation's result is).

use std::collections::HashSet;

/// The call ids of a request's history.
#[derive(Debug, Default)]
pub(super) struct HistoryCalls {
    /// Every call id.
    all: HashSet<String>,
    /// Ids of calls to a delegation tool.
    agent: HashSet<String>,
    /// Earlier items are stored upstream (a Responses `previous_response_id` or `conversation`):
    /// a call missing here may be one of them.
    stored: bool,
}

impl HistoryCalls {
    /// An empty set; `stored` when earlier items of the conversation are kept upstream.
    pub(super) fn new(stored: bool) -> Self {
        Self { stored, ..Self::default() }
    }

    /// Records call `id`, a delegation when `agent`.
    pub(super) fn record(&mut self, id: &str, agent: bool) {
        if agent {
            self.agent.insert(id.to_owned());
        }
        self.all.insert(id.to_owned());
    }

    /// True when the result answering call `id` is scrubbed as a delegation's: it answers a
    /// delegation, or (nothing stored upstream) no call of the request at all.
    pub(super) fn scrubbed(&self, id: &str) -> bool {
        self.agent.contains(id) || (!self.stored && !self.all.contains(id))
    }
}
