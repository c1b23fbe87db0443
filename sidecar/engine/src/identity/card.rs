//! A2A AgentCard rewriting (v1.0 and v0.3 shapes): alias name, capability text kept minus
//! identity words, vendor fields removed, interfaces pointing at Blindfold, optional re-signing.

use super::anonymizer::Anonymizer;
use super::sign::{CardSignError, sign_card};
use super::text::Field;
use crate::grants::IssuerKey;
use serde_json::{Map, Value, json};

/// The version every rewritten card shows (`version` is required; the real one is a fingerprint).
pub const NEUTRAL_CARD_VERSION: &str = "1.0.0";

/// The transport binding every rewritten card advertises (Blindfold's A2A proxy speaks it).
pub const PROXY_BINDING: &str = "JSONRPC";

/// The binding a rewritten card advertises besides, when Blindfold relays the agent's HTTP+JSON
/// interface ([`CardTarget::rest_url`]). gRPC is never advertised: Blindfold does not serve it.
pub const REST_BINDING: &str = "HTTP+JSON";

const KEPT_CAPABILITIES: [&str; 3] = ["streaming", "extendedAgentCard", "stateTransitionHistory"];

/// The capability every rewritten card denies: Blindfold refuses push-notification configs, so an
/// agent never posts tasks to a coordinator's webhook past the scrub and the engine.
const PUSH_NOTIFICATIONS: &str = "pushNotifications";
const KEPT_AS_IS: [&str; 6] = [
    "defaultInputModes",
    "defaultOutputModes",
    "securityRequirements",
    "security",
    "supportsAuthenticatedExtendedCard",
    "protocolVersion",
];
const KEPT_SKILL_FIELDS: [&str; 4] = ["inputModes", "outputModes", "securityRequirements", "security"];

/// Where a rewritten card points and how it is signed.
#[derive(Clone, Copy)]
pub struct CardTarget<'a> {
    /// Blindfold's URL for this agent (replaces every interface URL and security-scheme URL).
    pub interface_url: &'a str,
    /// Blindfold's URL of the agent's HTTP+JSON interface, when it relays one (a v1.0 card then
    /// lists it after the JSON-RPC interface).
    pub rest_url: Option<&'a str>,
    /// Re-sign the redacted card with this key; `None` drops `signatures`.
    pub signer: Option<&'a IssuerKey>,
}

/// A card could not be rewritten (fail closed: relay nothing).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CardError {
    /// The card is not a JSON object.
    #[error("agent card is not a JSON object")]
    NotAnObject,
    /// The agent has no alias in this trajectory.
    #[error("agent {0:?} has no alias")]
    UnknownAgent(String),
    /// Re-signing failed.
    #[error(transparent)]
    Sign(#[from] CardSignError),
}

impl Anonymizer {
    /// The card of `agent` as the coordinator may see it: `name` → alias; `description` and
    /// skills' `name`/`description`/`examples` rewritten as free text (capability text kept);
    /// skill `id`/`tags` rewritten strictly (tags that held identity words dropped); `version`
    /// neutral; `capabilities` reduced to the boolean flags, `pushNotifications` always `false`;
    /// `provider`, `iconUrl`, `documentationUrl`, vendor `capabilities.extensions` and
    /// every unknown field removed; interfaces reduced to one JSON-RPC interface at
    /// `target.interface_url` (v1.0 `supportedInterfaces`, v0.3 `url`/`preferredTransport`/
    /// `additionalInterfaces`) and, with `target.rest_url`, a v1.0 HTTP+JSON one; URLs in
    /// `securitySchemes` replaced by it; `signatures` dropped or
    /// replaced by Blindfold's own.
    pub fn rewrite_card(
        &self,
        agent: &str,
        card: &Value,
        target: CardTarget<'_>,
    ) -> Result<Value, CardError> {
        let src = card.as_object().ok_or(CardError::NotAnObject)?;
        let alias =
            self.aliases().alias_of(agent).ok_or_else(|| CardError::UnknownAgent(agent.to_owned()))?;
        let this = self.in_definition(card_fields(src));
        let this = &this;
        let mut out = Map::new();
        out.insert("name".into(), json!(alias));
        let description = src.get("description").and_then(Value::as_str).unwrap_or_default();
        out.insert("description".into(), json!(this.rewrite(description, Field::Profile)));
        out.insert("version".into(), json!(NEUTRAL_CARD_VERSION));
        self.interfaces(src, &mut out, target.interface_url);
        if let (Some(rest), Some(Value::Array(list))) = (target.rest_url, out.get_mut("supportedInterfaces"))
        {
            list.push(json!({"url": rest, "protocolBinding": REST_BINDING, "protocolVersion": "1.0"}));
        }
        out.insert("capabilities".into(), Value::Object(kept_capabilities(src)));
        if let Some(schemes) = src.get("securitySchemes") {
            let mut schemes = schemes.clone();
            self.neutralise_urls(&mut schemes, target.interface_url);
            out.insert("securitySchemes".into(), schemes);
        }
        for key in KEPT_AS_IS {
            if let Some(v) = src.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
        let skills: Vec<Value> = src
            .get("skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|s| this.rewrite_skill(s))
            .collect();
        out.insert("skills".into(), Value::Array(skills));
        let mut card = Value::Object(out);
        if let Some(key) = target.signer {
            sign_card(&mut card, key)?;
        }
        Ok(card)
    }

    fn interfaces(&self, src: &Map<String, Value>, out: &mut Map<String, Value>, url: &str) {
        if let Some(list) = src.get("supportedInterfaces").and_then(Value::as_array) {
            let version = list
                .iter()
                .find(|i| i.get("protocolBinding").and_then(Value::as_str) == Some(PROXY_BINDING))
                .or(list.first())
                .and_then(|i| i.get("protocolVersion"))
                .cloned()
                .unwrap_or_else(|| json!("1.0"));
            let iface = json!({"url": url, "protocolBinding": PROXY_BINDING, "protocolVersion": version});
            out.insert("supportedInterfaces".into(), json!([iface]));
        }
        if src.contains_key("url")
            || src.contains_key("preferredTransport")
            || src.contains_key("additionalInterfaces")
        {
            out.insert("url".into(), json!(url));
            out.insert("preferredTransport".into(), json!(PROXY_BINDING));
            if src.contains_key("additionalInterfaces") {
                out.insert("additionalInterfaces".into(), json!([{"url": url, "transport": PROXY_BINDING}]));
            }
        }
        if !out.contains_key("supportedInterfaces") && !out.contains_key("url") {
            let iface = json!({"url": url, "protocolBinding": PROXY_BINDING, "protocolVersion": "1.0"});
            out.insert("supportedInterfaces".into(), json!([iface]));
        }
    }

    fn neutralise_urls(&self, v: &mut Value, url: &str) {
        match v {
            Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => *s = url.to_owned(),
            Value::String(_) => {
                self.rewrite_json_strings(v, Field::Surface);
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.neutralise_urls(i, url)),
            Value::Object(map) => map.values_mut().for_each(|i| self.neutralise_urls(i, url)),
            _ => {}
        }
    }

    fn rewrite_skill(&self, skill: &Value) -> Value {
        let mut out = Map::new();
        let text = |k: &str| skill.get(k).and_then(Value::as_str).unwrap_or_default();
        out.insert("id".into(), json!(self.rewrite_surface(text("id"))));
        out.insert("name".into(), json!(self.rewrite(text("name"), Field::Profile)));
        out.insert("description".into(), json!(self.rewrite(text("description"), Field::Profile)));
        let tags: Vec<&str> = skill
            .get("tags")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|t| !self.carries_identity(t, Field::Profile))
            .collect();
        out.insert("tags".into(), json!(tags));
        if let Some(examples) = skill.get("examples").and_then(Value::as_array) {
            let ex: Vec<Value> = examples
                .iter()
                .filter_map(Value::as_str)
                .map(|e| json!(self.rewrite(e, Field::Profile)))
                .collect();
            out.insert("examples".into(), Value::Array(ex));
        }
        for key in KEPT_SKILL_FIELDS {
            if let Some(v) = skill.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
        Value::Object(out)
    }
}

/// The text fields of a card as one definition (see [`Anonymizer::in_definition`]): its name and
/// each skill's id as free text, its description and each skill's name, description, tags and
/// examples as self-description. A word that is identity in one of them is identity in all; an
/// ordinary word of a name or an id ("haiku" of `haiku_writer`) spreads nothing by itself.
fn card_fields(src: &Map<String, Value>) -> Vec<(&str, Field)> {
    fn text(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str)
    }
    let mut fields: Vec<(&str, Field)> = Vec::new();
    fields.extend(text(src.get("name")).map(|t| (t, Field::Text)));
    fields.extend(text(src.get("description")).map(|t| (t, Field::Profile)));
    for skill in src.get("skills").and_then(Value::as_array).into_iter().flatten() {
        fields.extend(text(skill.get("id")).map(|t| (t, Field::Text)));
        for key in ["name", "description"] {
            fields.extend(text(skill.get(key)).map(|t| (t, Field::Profile)));
        }
        for key in ["tags", "examples"] {
            let list = skill.get(key).and_then(Value::as_array).into_iter().flatten();
            fields.extend(list.filter_map(Value::as_str).map(|t| (t, Field::Profile)));
        }
    }
    fields
}

/// The card's boolean capability flags Blindfold keeps, with `pushNotifications: false` whatever
/// the agent claimed (vendor `extensions` and unknown flags dropped).
fn kept_capabilities(src: &Map<String, Value>) -> Map<String, Value> {
    let mut kept: Map<String, Value> = src
        .get("capabilities")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, v)| KEPT_CAPABILITIES.contains(&k.as_str()) && v.is_boolean())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    kept.insert(PUSH_NOTIFICATIONS.into(), Value::Bool(false));
    kept
}
