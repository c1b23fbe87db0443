//! Asking one verifier: an A2A agent (JSON-RPC `SendMessage`, protocol 1.0, waiting for the
//! task to finish) or an OpenAI-compatible chat endpoint (temperature 0), bounded in time and
//! size. What comes back is the answer's text; a verdict in an A2A `blindfold/verdict` data
//! part is read as the verdict line it stands for.

use crate::config::{Verifier, VerifierEndpoint};
use axum::http::{HeaderValue, Method, Request, header};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use std::time::Duration;

/// Largest answer read, bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// The HTTP client verifiers are asked with.
pub(super) type Client = hyper_util::client::legacy::Client<HttpConnector, Full<Bytes>>;

/// Why a verifier gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    /// No answer within the wait.
    #[error("no answer within {0} s")]
    Timeout(u64),
    /// The connection failed.
    #[error("unreachable")]
    Unreachable,
    /// An answer that is not one (HTTP error, not JSON, an error object, no text).
    #[error("{0}")]
    Bad(String),
}

/// A client that keeps no idle connections (requests are rare, and a caller without a runtime
/// of its own asks on a runtime that ends with its request).
pub(super) fn client(timeout: Duration) -> Client {
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(timeout));
    connector.set_nodelay(true);
    hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(0)
        .build(connector)
}

/// Asks `v` with `system` (chat only) and `user`, within `timeout`: the answer's text.
pub(super) async fn ask(
    client: &Client,
    v: &Verifier,
    system: &str,
    user: &str,
    timeout: Duration,
) -> Result<String, AskError> {
    let exchange = async {
        match &v.endpoint {
            VerifierEndpoint::A2a { url } => {
                let body = a2a_request(user);
                let answer = post(client, url, &body, None, &[("A2A-Version", "1.0")]).await?;
                a2a_text(&answer)
            }
            VerifierEndpoint::Chat { url, api_key } => {
                let body = json!({
                    "model": v.model,
                    "temperature": 0,
                    "stream": false,
                    "messages": [
                        {"role": "system", "content": system},
                        {"role": "user", "content": user},
                    ],
                });
                let answer = post(client, url, &body, api_key.as_deref(), &[]).await?;
                answer
                    .pointer("/choices/0/message/content")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| AskError::Bad("the answer has no message content".into()))
            }
        }
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(answer) => answer,
        Err(_) => Err(AskError::Timeout(timeout.as_secs())),
    }
}

/// One POST of `body`; the answer as JSON.
async fn post(
    client: &Client,
    url: &str,
    body: &Value,
    api_key: Option<&str>,
    headers: &[(&str, &str)],
) -> Result<Value, AskError> {
    let body = body.to_string();
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(url)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CONTENT_LENGTH, body.len());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if let Some(key) = api_key {
        let value = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| AskError::Bad("the API key is not a valid header value".into()))?;
        req = req.header(header::AUTHORIZATION, value);
    }
    let req = req.body(Full::new(Bytes::from(body))).map_err(|e| AskError::Bad(e.to_string()))?;
    let resp = client.request(req).await.map_err(|_| AskError::Unreachable)?;
    if !resp.status().is_success() {
        return Err(AskError::Bad(format!("HTTP {}", resp.status().as_u16())));
    }
    let bytes = Limited::new(resp.into_body(), MAX_ANSWER_BYTES)
        .collect()
        .await
        .map_err(|_| AskError::Bad("the answer broke off or is too large".into()))?
        .to_bytes();
    serde_json::from_slice(&bytes).map_err(|_| AskError::Bad("the answer is not JSON".into()))
}

/// A blocking A2A 1.0 `SendMessage` of `text` in a fresh context.
fn a2a_request(text: &str) -> Value {
    let id = format!("bf-msg-{}", blindfold_engine::grants::new_jti());
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": id, "role": "ROLE_USER", "parts": [{"text": text}]},
        "configuration": {"returnImmediately": false}
    }})
}

/// The text an A2A answer carries: every text part of the task's artifacts, its status message
/// and history from the agent, or of a direct message; a `blindfold/verdict` data part as the
/// verdict line it stands for.
fn a2a_text(answer: &Value) -> Result<String, AskError> {
    if let Some(e) = answer.get("error") {
        return Err(AskError::Bad(format!("the agent answered an error: {e}")));
    }
    let result = answer.get("result").ok_or_else(|| AskError::Bad("the answer has no result".into()))?;
    let mut parts: Vec<&Value> = Vec::new();
    let task = result.get("task").unwrap_or(result);
    for artifact in task.get("artifacts").and_then(Value::as_array).into_iter().flatten() {
        parts.extend(artifact.get("parts").and_then(Value::as_array).into_iter().flatten());
    }
    if let Some(msg) = result.get("message") {
        parts.extend(msg.get("parts").and_then(Value::as_array).into_iter().flatten());
    }
    let mut out = Vec::new();
    for part in parts {
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            out.push(t.to_owned());
        }
        if let Some(v) = part.pointer("/data/blindfold~1verdict") {
            let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            out.push(format!("VERDICT {}: {} - {}", field("handle"), field("verdict"), field("reason")));
        }
    }
    if out.is_empty() {
        let state = task.pointer("/status/state").and_then(Value::as_str).unwrap_or("unknown");
        return Err(AskError::Bad(format!("the agent's answer has no text (task state {state})")));
    }
    Ok(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a2a_answers_give_their_text_and_data_verdicts() {
        let task = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"parts": [{"text": "Fine."},
                {"data": {"blindfold/verdict": {"handle": "bf-abcdefghjkmn", "verdict": "approve", "reason": "ok"}}}]}]}}});
        assert_eq!(a2a_text(&task).expect("text"), "Fine.\nVERDICT bf-abcdefghjkmn: approve - ok");
        let msg = json!({"result": {"message": {"parts": [{"text": "No."}]}}});
        assert_eq!(a2a_text(&msg).expect("text"), "No.");
        let empty = json!({"result": {"task": {"status": {"state": "TASK_STATE_WORKING"}}}});
        assert!(matches!(a2a_text(&empty), Err(AskError::Bad(m)) if m.contains("TASK_STATE_WORKING")));
        assert!(matches!(a2a_text(&json!({"error": {"code": -32600}})), Err(AskError::Bad(_))));
    }
}
