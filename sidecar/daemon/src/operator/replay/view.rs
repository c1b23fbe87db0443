//! What the coordinator receives from each step, rewritten as the transports rewrite it: with
//! `anonymize` (or `attest`, where nothing in a scenario is signed, so no displayed claim is
//! verified) cards, responses and metadata go through the identity engine's anonymizer; tool
//! content is relayed unmodified (SPEC §4).

use blindfold_engine::identity::{AliasMap, Anonymizer, CardTarget, Lexicon};
use blindfold_leak_oracle::LeakOracle;
use blindfold_schemas::{Event, ModeSet, Scenario};
use serde_json::Value;

/// The coordinator's side of one replayed trajectory.
pub struct CoordinatorView {
    anonymizer: Option<Anonymizer>,
    scanner: LeakOracle,
}

/// Seed of the alias order: fixed per scenario so replays are reproducible.
fn alias_seed(scenario: &Scenario) -> u64 {
    scenario
        .id
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

impl CoordinatorView {
    /// A view for `scenario` under `modes`. The leak oracle counts every true and displayed
    /// identity value; the anonymizer knows only what Blindfold would know (true identities from
    /// config, displayed ones as they show up in cards and text).
    pub fn new(scenario: &Scenario, modes: ModeSet) -> Self {
        let mut tokens: Vec<&str> = Vec::new();
        for agent in &scenario.agents {
            tokens.extend(agent.true_identity.tokens());
            tokens.extend(agent.displayed.iter().flat_map(|d| d.tokens()));
        }
        let anonymizer = (modes.anonymize || modes.attest).then(|| {
            let mut lexicon = Lexicon::builder();
            for agent in &scenario.agents {
                lexicon.agent(&agent.id, &agent.true_identity);
            }
            let aliases = AliasMap::new(alias_seed(scenario), scenario.agents.iter().map(|a| a.id.clone()));
            Anonymizer::new(lexicon.build(), aliases)
        });
        Self { anonymizer, scanner: LeakOracle::new(tokens) }
    }

    /// The name under which the coordinator knows `agent`: its alias with identity stripping on,
    /// its configured id otherwise.
    pub fn key(&self, agent: &str) -> String {
        self.anonymizer.as_ref().and_then(|a| a.aliases().alias_of(agent)).unwrap_or(agent).to_owned()
    }

    /// The leak oracle over every true and displayed identity value of the scenario (it shares no
    /// code with the anonymizer).
    pub fn scanner(&self) -> &LeakOracle {
        &self.scanner
    }

    /// Identity tokens in what the coordinator receives from `event` (0 for events it sends).
    /// A card that cannot be rewritten is not relayed (fail closed), so it leaks nothing.
    pub fn leaks(&mut self, event: &Event) -> usize {
        match event {
            Event::Card { agent, card } => match &mut self.anonymizer {
                None => self.scanner.count_json(card),
                Some(anon) => {
                    anon.observe_card(agent, card);
                    let target = CardTarget {
                        interface_url: "http://127.0.0.1:7700/a2a",
                        rest_url: None,
                        signer: None,
                    };
                    anon.rewrite_card(agent, card, target).map_or(0, |c| self.scanner.count_json(&c))
                }
            },
            Event::Response { text, metadata, .. } => {
                let mut meta = metadata.clone().unwrap_or(Value::Null);
                match &mut self.anonymizer {
                    None => self.scanner.count_text(text) + self.scanner.count_json(&meta),
                    Some(anon) => {
                        anon.observe_text(text);
                        anon.scrub_metadata(&mut meta);
                        self.scanner.count_text(&anon.rewrite_text(text)) + self.scanner.count_json(&meta)
                    }
                }
            }
            Event::ToolResult { content, .. } => self.scanner.count_text(content),
            _ => 0,
        }
    }
}
