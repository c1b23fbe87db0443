//! `[preverify] verifiers`, validated: the agents Blindfold may ask itself for a verdict on an
//! effectful action that arrived unverified (an A2A agent or an OpenAI-compatible chat
//! endpoint, each with its true model family), how long it waits and how often it may ask.

use super::error::ConfigError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One `[[preverify.verifiers]]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVerifier {
    /// The verifier's agent id (how traces and the review queue name it).
    #[serde(default)]
    pub id: String,
    /// An A2A agent's JSON-RPC endpoint (`http://host:port/a2a/jsonrpc`).
    #[serde(default)]
    pub a2a_url: String,
    /// An OpenAI-compatible chat completions URL (`http://host:port/v1/chat/completions`).
    #[serde(default)]
    pub chat_url: String,
    /// The model (sent on chat requests; its true model either way).
    #[serde(default)]
    pub model: String,
    /// Its true model family: it never verifies an action of its own family.
    #[serde(default)]
    pub family: String,
    /// Environment variable holding the API key (chat endpoints; empty: none sent).
    #[serde(default)]
    pub api_key_env: String,
}

/// Where a verifier is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifierEndpoint {
    /// An A2A agent (JSON-RPC `SendMessage`, protocol 1.0).
    A2a {
        /// Its JSON-RPC URL.
        url: String,
    },
    /// An OpenAI-compatible chat completions endpoint.
    Chat {
        /// Its URL.
        url: String,
        /// The API key read at start, if any.
        api_key: Option<String>,
    },
}

/// One verifier, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    /// Its agent id.
    pub id: String,
    /// Its true model family (lower case).
    pub family: String,
    /// Its model.
    pub model: String,
    /// Where it is asked.
    pub endpoint: VerifierEndpoint,
}

/// `[preverify]`'s verifier settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiersConfig {
    /// The verifiers, in the order they are preferred.
    pub verifiers: Vec<Verifier>,
    /// How long Blindfold waits for a verdict; past it the action goes to review.
    pub timeout: Duration,
    /// Most verification requests sent per minute (a verifier may be a paid model); past it
    /// actions go to review unasked.
    pub calls_per_minute: u32,
}

impl VerifiersConfig {
    /// The verifiers' true identities not already among `known` (configured agents): the
    /// engine judges their independence by family. A verifier whose id names a configured
    /// agent of another family is an error.
    pub fn identities(
        &self,
        known: &[(String, blindfold_schemas::AgentIdentity)],
    ) -> Result<Vec<(String, blindfold_schemas::AgentIdentity)>, ConfigError> {
        let mut out = Vec::new();
        for (i, v) in self.verifiers.iter().enumerate() {
            match known.iter().find(|(id, _)| *id == v.id) {
                Some((_, a)) if a.family.to_ascii_lowercase() == v.family => {}
                Some(_) => {
                    return Err(ConfigError::field(
                        format!("preverify.verifiers[{i}].family"),
                        format!("`{}` is configured elsewhere with another family", v.id),
                    ));
                }
                None => out.push((
                    v.id.clone(),
                    blindfold_schemas::AgentIdentity {
                        model: v.model.clone(),
                        family: v.family.clone(),
                        ..Default::default()
                    },
                )),
            }
        }
        Ok(out)
    }
}

/// Longest verification wait accepted (5 minutes).
const MAX_TIMEOUT_S: u64 = 300;

fn http_url(field: &str, url: &str) -> Result<String, ConfigError> {
    let ok =
        url.strip_prefix("http://").is_some_and(|rest| !rest.is_empty()) && url.parse::<hyper::Uri>().is_ok();
    if !ok {
        return Err(ConfigError::field(
            field,
            format!("not an http:// URL (put a TLS-originating forwarder on loopback for https): {url:?}"),
        ));
    }
    Ok(url.to_owned())
}

/// Checks the verifiers: each has a unique id, a family, exactly one of `a2a_url` and
/// `chat_url`, a model for a chat endpoint and its key's variable set; the wait is 1–300 s and
/// the rate at least one call a minute.
pub fn validate(
    raw: &[RawVerifier],
    timeout_s: u64,
    calls_per_minute: u32,
) -> Result<VerifiersConfig, ConfigError> {
    if timeout_s == 0 || timeout_s > MAX_TIMEOUT_S {
        return Err(ConfigError::field(
            "preverify.verify_timeout_s",
            format!("between 1 and {MAX_TIMEOUT_S}"),
        ));
    }
    if calls_per_minute == 0 {
        return Err(ConfigError::field("preverify.verifier_calls_per_minute", "at least 1"));
    }
    let mut verifiers: Vec<Verifier> = Vec::new();
    for (i, v) in raw.iter().enumerate() {
        let field = |k: &str| format!("preverify.verifiers[{i}].{k}");
        let id = v.id.trim();
        if id.is_empty() || id == "coordinator" || verifiers.iter().any(|x| x.id == id) {
            return Err(ConfigError::field(field("id"), "empty, `coordinator` or repeated"));
        }
        let family = v.family.trim().to_ascii_lowercase();
        if family.is_empty() {
            return Err(ConfigError::field(field("family"), "its true model family is required"));
        }
        let endpoint = match (v.a2a_url.trim(), v.chat_url.trim()) {
            ("", "") => {
                return Err(ConfigError::field(field("a2a_url"), "set a2a_url or chat_url"));
            }
            (a2a, "") => VerifierEndpoint::A2a { url: http_url(&field("a2a_url"), a2a)? },
            ("", chat) => {
                if v.model.trim().is_empty() {
                    return Err(ConfigError::field(field("model"), "a chat endpoint needs its model"));
                }
                let api_key = match v.api_key_env.trim() {
                    "" => None,
                    var => Some(std::env::var(var).map_err(|_| {
                        ConfigError::field(
                            field("api_key_env"),
                            format!("environment variable {var} is not set"),
                        )
                    })?),
                };
                VerifierEndpoint::Chat { url: http_url(&field("chat_url"), chat)?, api_key }
            }
            _ => return Err(ConfigError::field(field("chat_url"), "set a2a_url or chat_url, not both")),
        };
        verifiers.push(Verifier { id: id.to_owned(), family, model: v.model.trim().to_owned(), endpoint });
    }
    Ok(VerifiersConfig { verifiers, timeout: Duration::from_secs(timeout_s), calls_per_minute })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(id: &str, a2a: &str, chat: &str, family: &str) -> RawVerifier {
        RawVerifier {
            id: id.into(),
            a2a_url: a2a.into(),
            chat_url: chat.into(),
            model: "m".into(),
            family: family.into(),
            api_key_env: String::new(),
        }
    }

    fn field_of(r: Result<VerifiersConfig, ConfigError>) -> String {
        match r {
            Err(ConfigError { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn verifiers_need_one_endpoint_a_family_and_sane_bounds() {
        let ok = validate(&[raw("v", "http://127.0.0.1:1/a2a/jsonrpc", "", "Q")], 30, 10).expect("valid");
        assert_eq!(ok.verifiers[0].family, "q");
        assert!(matches!(ok.verifiers[0].endpoint, VerifierEndpoint::A2a { .. }));
        let both = raw("v", "http://a/", "http://b/", "q");
        assert_eq!(field_of(validate(&[both], 30, 10)), "preverify.verifiers[0].chat_url");
        assert_eq!(field_of(validate(&[raw("v", "", "", "q")], 30, 10)), "preverify.verifiers[0].a2a_url");
        assert_eq!(
            field_of(validate(&[raw("v", "http://a/", "", "")], 30, 10)),
            "preverify.verifiers[0].family"
        );
        assert_eq!(
            field_of(validate(&[raw("v", "https://a/", "", "q")], 30, 10)),
            "preverify.verifiers[0].a2a_url"
        );
        let twice = [raw("v", "http://a/", "", "q"), raw("v", "", "http://b/", "r")];
        assert_eq!(field_of(validate(&twice, 30, 10)), "preverify.verifiers[1].id");
        assert_eq!(field_of(validate(&[], 0, 10)), "preverify.verify_timeout_s");
        assert_eq!(field_of(validate(&[], 30, 0)), "preverify.verifier_calls_per_minute");
        let mut no_model = raw("v", "", "http://b/", "q");
        no_model.model.clear();
        assert_eq!(field_of(validate(&[no_model], 30, 10)), "preverify.verifiers[0].model");
    }
}
