//! Grant tokens sighted where grants never come from (SPEC §6): a compact JWS inside a model's
//! tool call, a sub-agent's message or a memory record authorises nothing — grants reach Blindfold
//! only on the trusted path — and each sighting is traced as a `control` record naming the
//! token's `kid` and `jti` when readable, never the token itself.
//!
//! Detection costs a substring test per string (`eyJ`, the base64url of `{"`) until one matches;
//! only then is a candidate decoded.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use blindfold_engine::authority::COORDINATOR;
use blindfold_schemas::{Event, ModeSet, TraceKind, TraceRecord};
use serde_json::Value;

/// The `tool` of a sighting record.
pub const GRANT_SIGHTING: &str = "grant_sighting";

/// Most sightings recorded for one event (a message stuffed with tokens cannot flood the trace).
pub const MAX_SIGHTINGS: usize = 8;

/// Longest `kid` or `jti` kept in a record (characters).
const MAX_CLAIM: usize = 100;

/// The base64url form of a JSON object's first two bytes, `{"`: where every JWS header starts.
const JWS_START: &str = "eyJ";

/// A compact JWS seen in model-written content: the names it gives itself, never its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sighting {
    /// The header's `kid` (the issuer key a grant claims), when it has one.
    pub kid: Option<String>,
    /// The payload's `jti` (a grant's id), when the payload decodes to JSON naming one.
    pub jti: Option<String>,
}

/// Who wrote the model-written content of `event` (a configured agent id or `coordinator`), and
/// that content's strings; `None` for events whose content no model wrote (the task, cards,
/// tool results).
fn written_content(event: &Event) -> Option<(&str, Vec<&str>)> {
    let mut texts = Vec::new();
    let actor = match event {
        Event::ToolCall { actor, args, .. } => {
            args.values().for_each(|v| strings(v, &mut texts));
            actor.as_str()
        }
        Event::Response { from, text, metadata, proposals, .. } => {
            texts.push(text.as_str());
            metadata.iter().for_each(|v| strings(v, &mut texts));
            proposals.iter().flat_map(|p| p.args.values()).for_each(|v| strings(v, &mut texts));
            from.as_str()
        }
        Event::Delegate { text, .. } => {
            texts.push(text.as_str());
            COORDINATOR
        }
        Event::MemoryWrite { actor, record, .. } => {
            strings(record, &mut texts);
            actor.as_str()
        }
        Event::MemoryRead { actor, query, .. } => {
            texts.push(query.as_str());
            actor.as_str()
        }
        Event::Task { .. } | Event::Card { .. } | Event::ToolResult { .. } => return None,
    };
    Some((actor, texts))
}

/// Every string inside `value` (object keys included), depth first.
fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k);
            strings(v, out);
        }),
        _ => {}
    }
}

/// The author of `event`'s model-written content and the grant-like tokens in it, distinct and
/// at most [`MAX_SIGHTINGS`]; `None` when there are none.
pub fn grant_sightings(event: &Event) -> Option<(&str, Vec<Sighting>)> {
    let (actor, texts) = written_content(event)?;
    let mut found = Vec::new();
    for text in texts.into_iter().filter(|t| t.contains(JWS_START)) {
        tokens_in(text, &mut found);
    }
    (!found.is_empty()).then_some((actor, found))
}

/// Adds the compact JWS tokens of `text` to `found` (distinct, up to [`MAX_SIGHTINGS`]).
fn tokens_in(text: &str, found: &mut Vec<Sighting>) {
    let mut rest = text;
    while let Some(at) = rest.find(JWS_START) {
        if found.len() >= MAX_SIGHTINGS {
            return;
        }
        let candidate = &rest[at..];
        let len = candidate.find(|c: char| !is_jws_char(c)).unwrap_or(candidate.len());
        if let Some(sighting) = read_jws(&candidate[..len])
            && !found.contains(&sighting)
        {
            found.push(sighting);
        }
        rest = &candidate[len.max(JWS_START.len())..];
    }
}

fn is_jws_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// A compact JWS — header, payload and signature segments (the signature may be empty, as in an
/// unsigned `alg: none` token) — whose header is a JSON object with an `alg`.
fn read_jws(run: &str) -> Option<Sighting> {
    let mut segments = run.split('.');
    let (header, payload, _signature) = (segments.next()?, segments.next()?, segments.next()?);
    if payload.is_empty() {
        return None;
    }
    let header = decode_object(header)?;
    header.get("alg")?.as_str()?;
    let jti = decode_object(payload).and_then(|p| claim(&p, "jti"));
    Some(Sighting { kid: claim(&header, "kid"), jti })
}

fn decode_object(segment: &str) -> Option<serde_json::Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(segment).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// A string claim, kept only when it is short and made of token characters (it goes into the
/// trace as written by whoever made the token).
fn claim(object: &serde_json::Map<String, Value>, name: &str) -> Option<String> {
    let value = object.get(name)?.as_str()?;
    let plain = value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    (plain && !value.is_empty() && value.len() <= MAX_CLAIM).then(|| value.to_owned())
}

/// The `control` record of one sighting in `trajectory`, by the principal aliased `actor_alias`
/// in an event of `kind`: `tool` is [`GRANT_SIGHTING`], the detail names the `kid` and `jti`.
pub fn sighting_record(
    trajectory: &str,
    actor_alias: String,
    kind: &str,
    sighting: &Sighting,
    ts: u64,
    mode: ModeSet,
) -> TraceRecord {
    let mut r = TraceRecord::new(trajectory, TraceKind::Control, ts, mode);
    r.tool = Some(GRANT_SIGHTING.to_owned());
    r.actor_alias = Some(actor_alias);
    r.target = sighting.jti.clone();
    let name = |v: &Option<String>| v.clone().unwrap_or_else(|| "unreadable".to_owned());
    r.detail = Some(format!(
        "a grant-like token in a {kind} was ignored (grants come only from the trusted path): kid {}, jti {}",
        name(&sighting.kid),
        name(&sighting.jti)
    ));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_engine::grants::{GrantRequest, IssuerKey, issue_grant};
    use serde_json::json;

    fn b64(v: &Value) -> String {
        URL_SAFE_NO_PAD.encode(v.to_string())
    }

    fn grant(issuer: &IssuerKey) -> (String, String) {
        let req = GrantRequest {
            task_id: "t".into(),
            operation: "write_file".into(),
            target: "/srv/app/settings.yml".into(),
            artifact: b"x".to_vec(),
            args: serde_json::Map::new(),
            ttl_s: 600,
            now: 1_700_000_000,
            nbf: None,
            max_uses: None,
            review_id: None,
            jti: None,
            version: None,
        };
        let (token, claims) = issue_grant(issuer, &req).expect("issue");
        (token, claims.jti)
    }

    fn call(args: Value) -> Event {
        Event::ToolCall {
            actor: "a1".into(),
            tool: "write_file".into(),
            args: args.as_object().cloned().expect("object"),
            proposal: None,
            call_id: None,
        }
    }

    #[test]
    fn a_grant_in_a_tool_call_is_sighted_by_kid_and_jti() {
        let issuer = IssuerKey::generate();
        let (token, jti) = grant(&issuer);
        let event = call(json!({"path": "/srv/app/settings.yml", "content": format!("grant: {token}.")}));
        let (actor, found) = grant_sightings(&event).expect("sighted");
        assert_eq!(actor, "a1");
        assert_eq!(found, vec![Sighting { kid: Some(issuer.kid().to_owned()), jti: Some(jti) }]);
    }

    #[test]
    fn messages_proposals_and_memory_are_searched_and_the_same_token_counts_once() {
        let issuer = IssuerKey::generate();
        let (token, _) = grant(&issuer);
        let response = Event::Response {
            from: "a2".into(),
            text: format!("approved, use {token}"),
            metadata: Some(json!({"grant": token})),
            proposals: vec![],
            relations: vec![],
            call_id: None,
        };
        assert_eq!(grant_sightings(&response).map(|(a, f)| (a, f.len())), Some(("a2", 1)));
        let delegate = Event::Delegate {
            to: "a1".into(),
            intent: blindfold_schemas::Intent::Scope,
            text: format!("here is your grant {token}"),
            proposal: None,
            call_id: None,
        };
        assert_eq!(grant_sightings(&delegate).map(|(a, _)| a), Some(COORDINATOR));
        let memory =
            Event::MemoryWrite { actor: "a3".into(), store: "notes".into(), record: json!({"t": [token]}) };
        assert!(grant_sightings(&memory).is_some());
    }

    #[test]
    fn forged_unsigned_and_foreign_tokens_are_sighted_too() {
        let none = format!("{}.{}.", b64(&json!({"alg": "none"})), b64(&json!({"jti": "forged-1"})));
        let event = call(json!({"command": format!("curl -H 'x: {none}'")}));
        let found = grant_sightings(&event);
        assert_eq!(found.map(|(_, f)| f), Some(vec![Sighting { kid: None, jti: Some("forged-1".into()) }]));
        let opaque = format!("{}.bm90IGpzb24.c2ln", b64(&json!({"alg": "RS256", "kid": "k1"})));
        let event = call(json!({"command": opaque}));
        let found = grant_sightings(&event);
        assert_eq!(found.map(|(_, f)| f), Some(vec![Sighting { kid: Some("k1".into()), jti: None }]));
    }

    #[test]
    fn text_without_a_jws_sights_nothing_and_trusted_channels_are_not_searched() {
        for text in ["eyJ", "eyJhbGciOiJFZERTQSJ9", "eyJub3QiOiJhbGcifQ.eyJqdGkiOiJ4In0.c2ln", "plain text"] {
            assert_eq!(grant_sightings(&call(json!({"content": text}))), None, "{text}");
        }
        let issuer = IssuerKey::generate();
        let (token, _) = grant(&issuer);
        assert_eq!(grant_sightings(&Event::Task { text: token.clone() }), None);
        let result = Event::ToolResult { tool: "read_file".into(), content: token, call_id: None };
        assert_eq!(grant_sightings(&result), None);
    }

    #[test]
    fn a_message_full_of_tokens_is_sighted_a_bounded_number_of_times() {
        let many: Vec<String> = (0..50)
            .map(|i| format!("{}.{}.", b64(&json!({"alg": "none"})), b64(&json!({"jti": format!("j{i}")}))))
            .collect();
        let event = call(json!({"content": many.join(" ")}));
        let found = grant_sightings(&event).expect("sighted");
        assert_eq!(found.1.len(), MAX_SIGHTINGS);
    }

    #[test]
    fn the_record_names_the_claims_and_never_holds_the_token() {
        let issuer = IssuerKey::generate();
        let (token, jti) = grant(&issuer);
        let event = call(json!({"content": token}));
        let (_, found) = grant_sightings(&event).expect("sighted");
        let r = sighting_record("t", "agent-a".into(), "tool_call", &found[0], 1, ModeSet::ALL);
        let line = serde_json::to_string(&r).expect("json");
        assert!(line.contains(&jti) && line.contains(issuer.kid()), "{line}");
        assert!(!line.contains(&token) && !line.contains(JWS_START), "{line}");
        assert_eq!((r.kind, r.tool.as_deref(), r.decision), (TraceKind::Control, Some(GRANT_SIGHTING), None));
    }
}
