//! The agent's side of a forwarded request: reaching its endpoint, reading its answers strictly,
//! reporting what it wrote to the engine and scrubbing identity out for the coordinator.

use super::A2aProxy;
use super::binding::{Binding, RestTarget};
use super::card::fetch_card;
use super::delegation::adopt_aliases;
use crate::config::A2aUpstream;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use blindfold_adapters::a2a;
use blindfold_adapters::sse::SseEvent;
use blindfold_engine::identity::Anonymizer;
use blindfold_schemas::Event;
use serde_json::Value;
use std::sync::Arc;

/// Scrubs one JSON-RPC answer of trajectory `task` for the coordinator: `bytes` as they came
/// when the trajectory's modes are `off` or nothing in them names an identity (so an answer is
/// not re-serialised for nothing), else `parsed` rewritten. `parsed` is the strict parse of
/// `bytes`; an answer that is not JSON is refused (fail closed: never relayed raw).
pub(super) fn scrub(
    p: &A2aProxy,
    task: &str,
    bytes: Bytes,
    parsed: Result<Value, String>,
) -> Result<Bytes, String> {
    scrub_unless(p.transparent_for(task), p, bytes, parsed)
}

/// [`scrub`] with the trajectory's `off` already looked up (`transparent`), for a caller that
/// needs it for other parts of the same answer too.
pub(super) fn scrub_unless(
    transparent: bool,
    p: &A2aProxy,
    bytes: Bytes,
    parsed: Result<Value, String>,
) -> Result<Bytes, String> {
    if transparent {
        return Ok(bytes);
    }
    let v = parsed.map_err(|e| format!("agent answer is not JSON: {e}"))?;
    let anon = p.anon.read().map_err(|_| "identity state unavailable".to_owned())?;
    Ok(scrubbed(&anon, bytes, v))
}

/// `bytes` (whose strict parse is `parsed`) for the coordinator: the very bytes when `anon` finds
/// nothing to rewrite (its edit count is never below the edits made), else `parsed` rewritten.
pub(super) fn scrubbed(anon: &Anonymizer, bytes: Bytes, mut parsed: Value) -> Bytes {
    if strip_verification(&mut parsed) + anon.scrub_a2a(&mut parsed) == 0 {
        return bytes;
    }
    Bytes::from(parsed.to_string())
}

/// Removes Blindfold's verification instruction and every handle from the strings of an answer
/// (the coordinator never sees them; a verdict word may stay). Returns how many strings changed.
fn strip_verification(v: &mut Value) -> usize {
    match v {
        Value::String(s) => match blindfold_engine::verify::strip(s) {
            std::borrow::Cow::Owned(stripped) => {
                *s = stripped;
                1
            }
            std::borrow::Cow::Borrowed(_) => 0,
        },
        Value::Array(items) => items.iter_mut().map(strip_verification).sum(),
        Value::Object(map) => map.values_mut().map(strip_verification).sum(),
        _ => 0,
    }
}

/// SSE event names of A2A streams: `message` (the default) and `error` (a failed stream, as the
/// SDKs read it). Any other name is the agent's own.
pub(super) const A2A_EVENT_NAMES: [&str; 2] = ["message", "error"];

/// The `id:`, `event:` and `retry:` fields of a stream event as the coordinator may see them:
/// the id rewritten as an identity surface (dropped when `anon` is unavailable: fail closed), an
/// event name other than A2A's dropped (the event then dispatches as `message`), and a retry
/// that is not a number of milliseconds dropped. The `data` is not touched.
pub(super) fn scrub_event_fields(anon: Option<&Anonymizer>, ev: &mut SseEvent) {
    ev.event = ev.event.take().filter(|name| A2A_EVENT_NAMES.contains(&name.as_str()));
    ev.retry = crate::transports::proxy::retry_millis(ev.retry.take());
    ev.id = match anon {
        Some(anon) => ev.id.take().map(|id| anon.rewrite_surface(&id).into_owned()),
        None => None,
    };
}

/// The strict parse of one answer (or stream event) from the agent.
pub(super) fn parse_answer(bytes: &[u8]) -> Result<Value, String> {
    blindfold_schemas::strict_json::value_from_slice(bytes).map_err(|e| e.to_string())
}

pub(super) use crate::transports::proxy::is_event_stream;

/// Sends a request to the agent's endpoint of its `binding` (the one its card advertises, learned
/// from the card on first use): a JSON-RPC request is posted to its JSON-RPC URL; a REST request
/// goes with its verb, path and query below its HTTP+JSON base URL.
pub(super) async fn send_to_agent(
    p: &A2aProxy,
    agent: &A2aUpstream,
    binding: &Binding,
    headers: HeaderMap,
    body: Bytes,
) -> Result<axum::http::Response<hyper::body::Incoming>, String> {
    let cached = || match binding {
        Binding::JsonRpc => p.rpc_urls.get(&agent.id).map(|u| u.clone()),
        Binding::Rest(t) => p.rest_urls.get(&agent.id).and_then(|base| rest_uri(&base, t)),
    };
    let uri = match cached() {
        Some(u) => u,
        None => {
            fetch_card(p, agent).await.inspect_err(|_| p.app.metrics.upstream_error(p.app.transport))?;
            cached().ok_or_else(|| {
                let name = if binding.is_rest() { "HTTP+JSON" } else { "JSON-RPC" };
                format!("the agent's card advertises no {name} interface with a valid URL on its origin")
            })?
        }
    };
    let verb = match binding {
        Binding::JsonRpc => Method::POST,
        Binding::Rest(t) => t.verb.clone(),
    };
    p.upstream.send_to(verb, uri, headers, body).await.map_err(|e| {
        p.app.metrics.upstream_error(p.app.transport);
        e.to_string()
    })
}

/// The agent's URL of REST request `target`: its HTTP+JSON `base` with the path and query.
fn rest_uri(base: &str, target: &RestTarget) -> Option<Uri> {
    let query = target.query.as_deref().map(|q| format!("?{q}")).unwrap_or_default();
    format!("{}{}{query}", base.trim_end_matches('/'), target.path).parse().ok()
}

/// Reports what the agent wrote as its `response` event (nothing when it wrote nothing).
pub(super) fn report_answer(p: &A2aProxy, agent: &A2aUpstream, task: &str, answer: a2a::Answer) {
    if answer.is_empty() {
        return;
    }
    adopt_aliases(p, task);
    let event = Event::Response {
        from: agent.id.clone(),
        text: answer.text,
        metadata: None,
        proposals: answer.proposals,
        relations: answer.relations,
        call_id: Some(super::A2A_CHANNEL.to_owned()),
    };
    // Informational: a response is recorded, never blocked; it is applied once the answer is on
    // its way, and before any later step of the trajectory.
    p.app.observe_soon(task, event);
}

/// A streamed answer, gathered event by event and reported as one `response` when the agent's
/// turn ends (before that event is relayed) or the stream does: one answer is one judgement.
pub(super) struct StreamedAnswer {
    pub(super) p: Arc<A2aProxy>,
    pub(super) agent: Arc<A2aUpstream>,
    /// The binding the events arrive in.
    pub(super) binding: Binding,
    pub(super) task: String,
    pub(super) pending: a2a::Answer,
}

impl StreamedAnswer {
    pub(super) fn event(&mut self, event: &Value) {
        let Some(result) = self.binding.result_of(event, true, "") else { return };
        self.pending.extend(a2a::answer(&result));
        if a2a::ends_turn(&result) {
            self.flush();
        }
    }

    pub(super) fn flush(&mut self) {
        let answer = std::mem::take(&mut self.pending);
        report_answer(&self.p, &self.agent, &self.task, answer);
    }
}
