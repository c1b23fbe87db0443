//! The HTTP client side of `opencode serve`: JSON requests with a bound, and the `GET /event`
//! SSE stream (bounded only until its headers arrive; the stream itself stays open). With
//! `OPENCODE_SERVER_PASSWORD` set, OpenCode asks for HTTP basic auth on every route: the client
//! sends it (the password is never logged).

use crate::config::BasicAuth;
use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, HeaderValue};
use hyper::{Method, Request};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::time::Duration;

/// Largest JSON answer read from OpenCode (a session message with its parts).
const MAX_JSON: usize = 16 << 20;
/// Bound on one JSON request (headers and body).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// Bound on the event stream's response headers (then the follower reconnects with backoff): a
/// connection a freshly started `opencode serve` accepted during its startup can stay unanswered
/// for minutes while a new one is served at once. The stream's body has no bound.
const EVENTS_HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// A request to OpenCode that did not give a usable answer.
#[derive(Debug, thiserror::Error)]
#[error("opencode serve {path}: {detail}")]
pub struct ServeError {
    path: String,
    detail: String,
}

/// A client for one `opencode serve` base URL.
#[derive(Clone)]
pub struct Serve {
    base: String,
    client: Client<HttpConnector, Full<Bytes>>,
    /// `Basic …` for OpenCode's server password (marked sensitive: never printed by hyper).
    authorization: Option<HeaderValue>,
}

impl Serve {
    /// A client for `base` (`http://host:port`), with basic auth when `auth` is given.
    pub fn new(base: &str, auth: Option<&BasicAuth>) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(10)));
        // A silently dead peer ends the event stream instead of leaving it open for ever.
        connector.set_keepalive(Some(Duration::from_secs(30)));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        let authorization = auth.and_then(|a| {
            let pair = format!("{}:{}", a.username, a.password.expose());
            let mut value = HeaderValue::from_str(&format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ))
            .ok()?;
            value.set_sensitive(true);
            Some(value)
        });
        Self { base: base.trim_end_matches('/').to_owned(), client, authorization }
    }

    async fn send(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Incoming, ServeError> {
        let err = |detail: String| ServeError { path: path.to_owned(), detail };
        let bytes = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
        let mut req = Request::builder().method(method).uri(format!("{}{path}", self.base));
        if body.is_some() {
            req = req.header("content-type", "application/json");
        }
        if let Some(auth) = &self.authorization {
            req = req.header(AUTHORIZATION, auth.clone());
        }
        let req = req.body(Full::new(bytes)).map_err(|e| err(e.to_string()))?;
        let resp = self.client.request(req).await.map_err(|e| err(e.to_string()))?;
        if !resp.status().is_success() {
            let status = resp.status();
            let text = read_limited(resp.into_body()).await.unwrap_or_default();
            return Err(err(format!("HTTP {status}: {}", String::from_utf8_lossy(&text))));
        }
        Ok(resp.into_body())
    }

    /// `GET path` as JSON.
    pub async fn get(&self, path: &str) -> Result<Value, ServeError> {
        self.json(Method::GET, path, None).await
    }

    /// `POST path` with a JSON body, answer as JSON.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, ServeError> {
        self.json(Method::POST, path, Some(body)).await
    }

    async fn json(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, ServeError> {
        let err = |detail: String| ServeError { path: path.to_owned(), detail };
        let read = async {
            let body = self.send(method, path, body).await?;
            let bytes = read_limited(body).await.map_err(err)?;
            serde_json::from_slice(&bytes).map_err(|e| err(format!("not JSON: {e}")))
        };
        tokio::time::timeout(REQUEST_TIMEOUT, read).await.map_err(|_| err("no answer in time".into()))?
    }

    /// Opens `GET /event` (SSE): bounded until the response headers arrive; the body then
    /// streams until OpenCode closes it or the connection dies.
    pub async fn events(&self) -> Result<Incoming, ServeError> {
        let open = self.send(Method::GET, "/event", None);
        tokio::time::timeout(EVENTS_HEADER_TIMEOUT, open).await.map_err(|_| ServeError {
            path: "/event".into(),
            detail: format!("no response headers within {}s", EVENTS_HEADER_TIMEOUT.as_secs()),
        })?
    }
}

async fn read_limited(body: Incoming) -> Result<Bytes, String> {
    Limited::new(body, MAX_JSON).collect().await.map(|c| c.to_bytes()).map_err(|e| e.to_string())
}
