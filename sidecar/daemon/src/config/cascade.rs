//! The engine's decision sections: `[roles.<agent>]` (stage allowlists and caps), `[stores.<name>]`
//! (restricted memory), `[[rules]]` (argument rules), `[tools.<name>]` (registry overrides),
//! `[cascade]` (windows, expiries, limits), `[preverify]` (language patterns) and `[judge]`
//! (the optional quorum). Every bad value names its field.

use super::error::ConfigError;
use super::judge::{JudgeConfig, JudgeEndpoint};
use blindfold_engine::{ArgRule, EngineConfig, Patterns, Registry, RuleAction};
use blindfold_schemas::{AgentIdentity, Role, StoreAcl, ToolSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// `[[rules]]`: one argument rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// Tool it applies to (`*` for every tool).
    #[serde(default = "any_tool")]
    pub tool: String,
    /// Glob over a normalised target (`*` any run, `?` one character).
    pub pattern: String,
    /// `deny` (never allowed) or `critical` (a human decides, whatever grants exist).
    pub action: String,
}

fn any_tool() -> String {
    "*".to_owned()
}

/// `[cascade]`: windows, expiries and limits of the tool-call and memory checks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCascade {
    /// Window of the cross-event ledger, seconds.
    #[serde(default = "default_ledger_window")]
    pub ledger_window_secs: u64,
    /// Most effectful actions per agent inside the window (0 = no cap).
    #[serde(default)]
    pub ledger_max_actions: u32,
    /// How long an executed action's replay key is remembered, seconds (it expires).
    #[serde(default = "default_replay_expiry")]
    pub replay_expiry_secs: u64,
    /// Deprecated: the same rule as `[limits] max_events_per_trajectory`, which replaces it (the
    /// smaller of the two applies, with a warning at start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
    /// Share (0–1) of a memory record's words that must appear in the trajectory's evidence
    /// (0 = off).
    #[serde(default)]
    pub memory_similarity: f32,
    /// Record fields redacted on memory reads (empty: the built-in list).
    #[serde(default)]
    pub redact_fields: Vec<String>,
    /// Hosts a URL fetch may reach without being `external`.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

impl Default for RawCascade {
    fn default() -> Self {
        Self {
            ledger_window_secs: default_ledger_window(),
            ledger_max_actions: 0,
            replay_expiry_secs: default_replay_expiry(),
            max_events: None,
            memory_similarity: 0.0,
            redact_fields: Vec::new(),
            allowed_hosts: Vec::new(),
        }
    }
}

fn default_ledger_window() -> u64 {
    600
}
fn default_replay_expiry() -> u64 {
    300
}

/// `[preverify]`: extra language patterns (regular expressions, case-insensitive, matched on
/// folded text) added to the built-in language packs, and the verifiers Blindfold may ask itself.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPreverify {
    /// Refusal language ("do not run").
    #[serde(default)]
    pub refuse_patterns: Vec<String>,
    /// Warning words (refusals unless negated).
    #[serde(default)]
    pub warn_patterns: Vec<String>,
    /// No longer read (prose never approves; a verification is a verdict line): accepted so an
    /// old config still loads, with a warning naming the replacement.
    #[serde(default)]
    pub approve_patterns: Vec<String>,
    /// Instruction-like text (refused in memory, neutralised on reads and for judges).
    #[serde(default)]
    pub instruction_patterns: Vec<String>,
    /// `[[preverify.verifiers]]`: agents Blindfold may ask itself for a verdict.
    #[serde(default)]
    pub verifiers: Vec<super::verifiers::RawVerifier>,
    /// How long Blindfold waits for a verifier's verdict, seconds.
    #[serde(default = "default_verify_timeout_s")]
    pub verify_timeout_s: u64,
    /// Most verification requests Blindfold sends per minute.
    #[serde(default = "default_verifier_calls_per_minute")]
    pub verifier_calls_per_minute: u32,
}

impl Default for RawPreverify {
    fn default() -> Self {
        Self {
            refuse_patterns: Vec::new(),
            warn_patterns: Vec::new(),
            approve_patterns: Vec::new(),
            instruction_patterns: Vec::new(),
            verifiers: Vec::new(),
            verify_timeout_s: default_verify_timeout_s(),
            verifier_calls_per_minute: default_verifier_calls_per_minute(),
        }
    }
}

fn default_verify_timeout_s() -> u64 {
    4
}
fn default_verifier_calls_per_minute() -> u32 {
    30
}

/// `[judge]`: the optional quorum.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJudge {
    /// Off by default: without a judge, held actions wait for a human.
    #[serde(default)]
    pub enabled: bool,
    /// How many judges must PASS for the action to reach a human (k of n).
    #[serde(default)]
    pub required: u32,
    /// Time allowed per judge, milliseconds.
    #[serde(default)]
    pub timeout_ms: u64,
    /// `[[judge.endpoints]]`.
    #[serde(default)]
    pub endpoints: Vec<RawJudgeEndpoint>,
}

/// One `[[judge.endpoints]]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJudgeEndpoint {
    /// Chat completions URL (`http://host:port/v1/chat/completions`).
    pub url: String,
    /// Model name.
    pub model: String,
    /// True model family (pairwise different across endpoints).
    pub family: String,
    /// Environment variable holding the API key (empty: none sent).
    #[serde(default)]
    pub api_key_env: String,
}

/// Longest judge timeout accepted (2 minutes).
const MAX_JUDGE_TIMEOUT_MS: u64 = 120_000;

/// Everything above, as written in the file.
pub struct CascadeSections<'a> {
    /// `[roles]`.
    pub roles: &'a BTreeMap<String, Role>,
    /// `[stores]`.
    pub stores: &'a BTreeMap<String, StoreAcl>,
    /// `[[rules]]`.
    pub rules: &'a [RawRule],
    /// `[tools]`.
    pub tools: &'a BTreeMap<String, ToolSpec>,
    /// `[cascade]`.
    pub cascade: &'a RawCascade,
    /// `[preverify]`.
    pub preverify: &'a RawPreverify,
    /// `[judge]`.
    pub judge: &'a RawJudge,
}

impl CascadeSections<'_> {
    /// The engine configuration these sections describe, with the agents' true identities
    /// (`[identity] agents` and A2A upstreams) and the judge quorum, if on.
    pub fn validate(
        &self,
        agents: Vec<(String, AgentIdentity)>,
    ) -> Result<(EngineConfig, Option<JudgeConfig>), ConfigError> {
        let c = self.cascade;
        if c.ledger_window_secs == 0 {
            return Err(ConfigError::field("cascade.ledger_window_secs", "at least 1 second"));
        }
        if c.replay_expiry_secs == 0 {
            return Err(ConfigError::field(
                "cascade.replay_expiry_secs",
                "at least 1 second (keys must expire)",
            ));
        }
        if c.max_events == Some(0) {
            return Err(ConfigError::field("cascade.max_events", "at least 1"));
        }
        if !(0.0..=1.0).contains(&c.memory_similarity) {
            return Err(ConfigError::field("cascade.memory_similarity", "between 0 and 1"));
        }
        let mut arg_rules = Vec::new();
        for (i, r) in self.rules.iter().enumerate() {
            let action = match r.action.as_str() {
                "deny" => RuleAction::Deny,
                "critical" => RuleAction::Critical,
                other => {
                    return Err(ConfigError::field(
                        format!("rules[{i}].action"),
                        format!("\"deny\" or \"critical\", not {other:?}"),
                    ));
                }
            };
            if r.pattern.trim().is_empty() || r.tool.trim().is_empty() {
                return Err(ConfigError::field(format!("rules[{i}]"), "tool and pattern must not be empty"));
            }
            arg_rules.push(ArgRule { tool: r.tool.clone(), pattern: r.pattern.clone(), action });
        }
        for (agent, role) in self.roles {
            if role.max_actions == Some(0) {
                return Err(ConfigError::field(
                    format!("roles.{agent}.max_actions"),
                    "at least 1 (omit for no cap)",
                ));
            }
        }
        let p = self.preverify;
        let patterns =
            Patterns::new(&p.refuse_patterns, &p.warn_patterns, &p.instruction_patterns).map_err(|e| {
                ConfigError::field("preverify", format!("pattern {:?}: {}", e.pattern, e.message))
            })?;
        let mut registry = Registry::defaults();
        for (name, spec) in self.tools {
            registry.insert(name.clone(), spec.clone());
        }
        registry.set_allowed_hosts(c.allowed_hosts.clone());
        let judge = self.validate_judge()?;
        let defaults = EngineConfig::default();
        let engine = EngineConfig {
            registry,
            agents: agents.into_iter().collect(),
            roles: self.roles.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            stores: self.stores.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            arg_rules,
            patterns,
            ledger_window_ms: c.ledger_window_secs.saturating_mul(1000),
            ledger_max_actions: c.ledger_max_actions,
            replay_expiry_ms: c.replay_expiry_secs.saturating_mul(1000),
            memory_similarity: c.memory_similarity,
            redact_fields: if c.redact_fields.is_empty() {
                defaults.redact_fields.clone()
            } else {
                c.redact_fields.clone()
            },
            judge_enabled: judge.is_some(),
            ..defaults
        };
        Ok((engine, judge))
    }

    fn validate_judge(&self) -> Result<Option<JudgeConfig>, ConfigError> {
        let j = self.judge;
        if !j.enabled {
            return Ok(None);
        }
        if j.endpoints.is_empty() {
            return Err(ConfigError::field(
                "judge.endpoints",
                "an enabled judge needs at least one endpoint",
            ));
        }
        let required = usize::try_from(j.required).unwrap_or(usize::MAX);
        if required == 0 || required > j.endpoints.len() {
            return Err(ConfigError::field(
                "judge.required",
                format!("between 1 and the number of endpoints ({})", j.endpoints.len()),
            ));
        }
        if j.timeout_ms == 0 || j.timeout_ms > MAX_JUDGE_TIMEOUT_MS {
            return Err(ConfigError::field(
                "judge.timeout_ms",
                format!("between 1 and {MAX_JUDGE_TIMEOUT_MS}"),
            ));
        }
        let mut endpoints: Vec<JudgeEndpoint> = Vec::new();
        for (i, e) in j.endpoints.iter().enumerate() {
            let field = |k: &str| format!("judge.endpoints[{i}].{k}");
            let ok_url = e.url.strip_prefix("http://").is_some_and(|rest| !rest.is_empty())
                && e.url.parse::<hyper::Uri>().is_ok();
            if !ok_url {
                return Err(ConfigError::field(
                    field("url"),
                    format!(
                        "not an http:// URL (put a TLS-originating forwarder on loopback for https): {:?}",
                        e.url
                    ),
                ));
            }
            if e.model.trim().is_empty() {
                return Err(ConfigError::field(field("model"), "must not be empty"));
            }
            let family = e.family.trim().to_ascii_lowercase();
            if family.is_empty() || endpoints.iter().any(|x| x.family == family) {
                return Err(ConfigError::field(
                    field("family"),
                    "empty or repeated: judges must be of different model families",
                ));
            }
            let api_key = match e.api_key_env.trim() {
                "" => None,
                var => Some(std::env::var(var).map_err(|_| {
                    ConfigError::field(field("api_key_env"), format!("environment variable {var} is not set"))
                })?),
            };
            endpoints.push(JudgeEndpoint { url: e.url.clone(), model: e.model.clone(), family, api_key });
        }
        Ok(Some(JudgeConfig { endpoints, required, timeout: Duration::from_millis(j.timeout_ms) }))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::load;

    fn load_with(extra: &str) -> Result<crate::config::Config, crate::config::ConfigError> {
        let dir = tempfile::tempdir().expect("tmp");
        let file = dir.path().join("c.toml");
        std::fs::write(&file, format!("[state]\ndir = {:?}\n{extra}\n", dir.path().join("s")))
            .expect("write");
        load(Some(&file))
    }

    fn field_of(extra: &str) -> String {
        match load_with(extra) {
            Ok(_) => panic!("accepted: {extra}"),
            Err(e) => e.field,
        }
    }

    #[test]
    fn sections_reach_the_engine_config() {
        let c = load_with(
            "[[identity.agents]]\nid = \"reviewer\"\nfamily = \"q\"\n\
             [roles.reviewer]\ntools = [\"read_file\"]\nmax_actions = 2\n\
             [[rules]]\npattern = \"/etc/*\"\naction = \"deny\"\n\
             [cascade]\nreplay_expiry_secs = 30\nallowed_hosts = [\"docs.example.org\"]\n\
             [preverify]\nrefuse_patterns = [\"\\\\bnein\\\\b\"]\n",
        )
        .expect("valid");
        assert_eq!(c.engine.family("reviewer"), "q");
        assert_eq!(c.engine.roles["reviewer"].max_actions, Some(2));
        assert_eq!(c.engine.arg_rules.len(), 1);
        assert_eq!(c.engine.replay_expiry_ms, 30_000);
        assert!(!c.engine.judge_enabled && c.judge.is_none(), "the judge is off by default");
        assert_eq!(c.engine.grant_policy.max_ttl_s, 86_400);
    }

    #[test]
    fn approve_patterns_still_load_and_name_their_replacement() {
        let c = load_with("[preverify]\napprove_patterns = [\"looks good\"]\n").expect("an old config loads");
        let warnings = &c.deprecations;
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("approve_patterns") && warnings[0].contains("verdict line"));
        let c = load_with("").expect("default");
        assert!(c.deprecations.is_empty());
    }

    #[test]
    fn the_event_limit_has_one_key_and_the_old_one_is_read_with_a_warning_naming_it() {
        let plain = load_with("[limits]\nmax_events_per_trajectory = 50").expect("valid");
        assert_eq!(plain.engine.max_events, 50, "the engine's limit is the [limits] key");
        assert!(plain.deprecations.is_empty(), "{:?}", plain.deprecations);
        let old = load_with("[cascade]\nmax_events = 20").expect("valid");
        assert_eq!(old.engine.max_events, 20, "the older key still bounds the trajectory");
        let [warning] = old.deprecations.as_slice() else { panic!("{:?}", old.deprecations) };
        assert!(
            warning.contains("cascade.max_events") && warning.contains("limits.max_events_per_trajectory")
        );
        let both =
            load_with("[limits]\nmax_events_per_trajectory = 10\n[cascade]\nmax_events = 20").expect("valid");
        assert_eq!(both.engine.max_events, 10, "the smaller of the two applies");
        assert_eq!(field_of("[cascade]\nmax_events = 0"), "cascade.max_events");
    }

    #[test]
    fn bad_values_name_their_field() {
        assert_eq!(field_of("[[rules]]\npattern = \"/x\"\naction = \"maybe\""), "rules[0].action");
        assert_eq!(field_of("[cascade]\nreplay_expiry_secs = 0"), "cascade.replay_expiry_secs");
        assert_eq!(field_of("[cascade]\nmemory_similarity = 1.5"), "cascade.memory_similarity");
        assert_eq!(field_of("[preverify]\nwarn_patterns = [\"(\"]"), "preverify");
        assert_eq!(field_of("[roles.a]\nmax_actions = 0"), "roles.a.max_actions");
        assert_eq!(field_of("[review]\nmax_pending = 0"), "review.max_pending");
        assert_eq!(field_of("[review]\ntimeout_secs = 0"), "review.timeout_secs");
        assert_eq!(field_of("[judge]\nenabled = true"), "judge.endpoints");
        let two = "[judge]\nenabled = true\nrequired = 1\ntimeout_ms = 100\n\
                   [[judge.endpoints]]\nurl = \"http://127.0.0.1:1/v1/chat/completions\"\nmodel = \"a\"\nfamily = \"m\"\n\
                   [[judge.endpoints]]\nurl = \"http://127.0.0.1:1/v1/chat/completions\"\nmodel = \"b\"\nfamily = \"M\"\n";
        assert_eq!(field_of(two), "judge.endpoints[1].family", "judges of one family");
        let https = "[judge]\nenabled = true\nrequired = 1\ntimeout_ms = 100\n\
                     [[judge.endpoints]]\nurl = \"https://api.example.org/v1/chat/completions\"\nmodel = \"a\"\nfamily = \"m\"\n";
        assert_eq!(field_of(https), "judge.endpoints[0].url");
        let k = "[judge]\nenabled = true\nrequired = 2\ntimeout_ms = 100\n\
                 [[judge.endpoints]]\nurl = \"http://127.0.0.1:1/v1/chat/completions\"\nmodel = \"a\"\nfamily = \"m\"\n";
        assert_eq!(field_of(k), "judge.required");
        let key = "[judge]\nenabled = true\nrequired = 1\ntimeout_ms = 100\n\
                   [[judge.endpoints]]\nurl = \"http://127.0.0.1:1/v1/chat/completions\"\nmodel = \"a\"\nfamily = \"m\"\napi_key_env = \"BLINDFOLD_TEST_UNSET_JUDGE_KEY\"\n";
        assert_eq!(field_of(key), "judge.endpoints[0].api_key_env");
    }
}
