//! The client side: one pooled HTTP/1.1 client to the model API, the request built from the
//! caller's (headers forwarded untouched except hop-by-hop ones), never logged.

use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Uri, header};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::time::Duration;

/// The header a harness may set to name its trajectory (never forwarded upstream; honoured only
/// with [`TOKEN_HEADER`]).
pub const TASK_HEADER: &str = "x-blindfold-task";
/// The header the OpenCode plugin puts a session tag in (never forwarded upstream).
pub const SESSION_HEADER: &str = "x-blindfold-session";
/// The header an `X-Blindfold-Task` must come with: the adapter (or operator) token.
pub const TOKEN_HEADER: &str = "x-blindfold-token";

/// Headers that belong to one connection (RFC 9110 §7.6.1) or that Blindfold recomputes.
const NOT_FORWARDED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "content-length",
    TASK_HEADER,
    SESSION_HEADER,
    TOKEN_HEADER,
];

/// The model API Blindfold forwards to.
#[derive(Clone)]
pub struct Upstream {
    base: String,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// The upstream could not be reached or did not answer.
#[derive(Debug, thiserror::Error)]
#[error("upstream unreachable: {0}")]
pub struct UpstreamError(String);

impl Upstream {
    /// A client for `base` (`http://host:port[/prefix]`, validated).
    pub fn new(base: &str) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(10)));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Self { base: base.trim_end_matches('/').to_owned(), client }
    }

    /// The base URL requests are forwarded to.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Sends `body` to the same path and query on the upstream, with the caller's headers
    /// (authorization included, untouched) minus connection-level ones. `Accept-Encoding` is
    /// dropped so the answer arrives readable.
    pub async fn send(
        &self,
        path_and_query: &str,
        headers: &HeaderMap,
        body: Vec<u8>,
    ) -> Result<hyper::Response<Incoming>, UpstreamError> {
        let uri: Uri = format!("{}{}", self.base, path_and_query)
            .parse()
            .map_err(|e| UpstreamError(format!("bad upstream URL: {e}")))?;
        let mut req = Request::builder().method(Method::POST).uri(uri);
        if let Some(h) = req.headers_mut() {
            *h = forwardable(headers);
            h.remove(header::ACCEPT_ENCODING);
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        }
        let req = req.body(Full::new(Bytes::from(body))).map_err(|e| UpstreamError(e.to_string()))?;
        // The error's own text can name the URL, never a header: safe to report.
        self.client.request(req).await.map_err(|e| UpstreamError(error_chain(&e)))
    }
}

/// The headers of `from` that may cross the proxy (both directions).
pub fn forwardable(from: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::with_capacity(from.len());
    let listed_in_connection: Vec<HeaderName> = from
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|n| HeaderName::try_from(n.trim()).ok())
        .collect();
    for (name, value) in from {
        if NOT_FORWARDED.contains(&name.as_str()) || listed_in_connection.contains(name) {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    out
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
