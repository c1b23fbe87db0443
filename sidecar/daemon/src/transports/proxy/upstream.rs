//! The upstream HTTP client (HTTP/1.1, loopback or a TLS-terminating hop) with timeouts and a
//! body-size bound; the header allowlists in each direction.

use axum::body::Bytes;
use axum::http::uri::InvalidUri;
use axum::http::{HeaderMap, HeaderName, Method, Request, Response, Uri, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::time::Duration;

/// Why an upstream exchange failed (the client gets a protocol error, never a hang).
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// Could not connect or send.
    #[error("upstream unreachable: {0}")]
    Unreachable(String),
    /// No answer in time.
    #[error("upstream did not answer within {0:?}")]
    Timeout(Duration),
    /// The answer was larger than the limit.
    #[error("upstream answer exceeds the limit of {0} bytes")]
    TooLarge(usize),
    /// The body broke off.
    #[error("upstream body failed: {0}")]
    Body(String),
}

/// A pooled HTTP/1.1 client with a per-request timeout.
#[derive(Clone)]
pub struct Upstream {
    client: Client<HttpConnector, Full<Bytes>>,
    /// Time allowed for the response head, and between body chunks of a stream.
    pub timeout: Duration,
}

/// Request headers that cross to the upstream (credentials are the upstream's; never logged).
pub(super) static REQUEST_HEADERS: [HeaderName; 11] = [
    header::CONTENT_TYPE,
    header::ACCEPT,
    header::AUTHORIZATION,
    HeaderName::from_static("mcp-session-id"),
    HeaderName::from_static("mcp-protocol-version"),
    HeaderName::from_static("mcp-method"),
    HeaderName::from_static("mcp-name"),
    HeaderName::from_static("last-event-id"),
    HeaderName::from_static("a2a-version"),
    HeaderName::from_static("a2a-extensions"),
    HeaderName::from_static("traceparent"),
];

/// Response headers that cross back (no `Server`, no vendor headers).
pub(super) static RESPONSE_HEADERS: [HeaderName; 5] = [
    header::CONTENT_TYPE,
    HeaderName::from_static("mcp-session-id"),
    header::CACHE_CONTROL,
    HeaderName::from_static("a2a-version"),
    HeaderName::from_static("a2a-extensions"),
];

/// Copies the allowed request headers.
pub fn copy_request_headers(from: &HeaderMap) -> HeaderMap {
    copy(from, &REQUEST_HEADERS)
}

/// Copies the allowed response headers.
pub fn copy_response_headers(from: &HeaderMap) -> HeaderMap {
    copy(from, &RESPONSE_HEADERS)
}

/// The request headers that may cross to the upstream, as an extractor: only the allowlisted
/// headers are copied (the request's whole header map is not cloned first).
pub struct ForwardHeaders(pub HeaderMap);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ForwardHeaders {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Self(copy_request_headers(&parts.headers)))
    }
}

/// The headers of `from` named in `allowed`, in `allowed`'s order (each name's values in their
/// order). The names `from` holds are looked at once (a request carries a few headers, the
/// allowlist is longer), so only the allowed names present are looked up.
fn copy(from: &HeaderMap, allowed: &[HeaderName]) -> HeaderMap {
    debug_assert!(allowed.len() <= 64);
    let mut present = 0u64;
    for name in from.keys() {
        if let Some(i) = allowed.iter().position(|a| a == name) {
            present |= 1 << i;
        }
    }
    let mut out = HeaderMap::new();
    for (i, name) in allowed.iter().enumerate() {
        if present & (1 << i) != 0 {
            for v in from.get_all(name) {
                out.append(name.clone(), v.clone());
            }
        }
    }
    out
}

/// The allowlist copy this one replaced (every allowed name looked up), the test oracle.
#[cfg(test)]
pub(super) fn copy_oracle(from: &HeaderMap, allowed: &[HeaderName]) -> HeaderMap {
    let mut out = HeaderMap::new();
    for name in allowed {
        for v in from.get_all(name) {
            out.append(name.clone(), v.clone());
        }
    }
    out
}

impl Upstream {
    /// A client whose requests time out after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Self { client, timeout }
    }

    /// Sends one request; resolves when the response head arrived.
    pub async fn send(
        &self,
        method: Method,
        url: &str,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response<Incoming>, UpstreamError> {
        let uri: Uri = url.parse().map_err(|e: InvalidUri| UpstreamError::Unreachable(e.to_string()))?;
        self.send_to(method, uri, headers, body).await
    }

    /// [`Upstream::send`] to an already parsed URI (a proxy that forwards every request to the
    /// same endpoint parses it once).
    pub async fn send_to(
        &self,
        method: Method,
        uri: Uri,
        mut headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response<Incoming>, UpstreamError> {
        headers.remove(header::CONTENT_LENGTH);
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = method;
        *req.uri_mut() = uri;
        *req.headers_mut() = headers;
        match tokio::time::timeout(self.timeout, self.client.request(req)).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => Err(UpstreamError::Unreachable(e.to_string())),
            Err(_) => Err(UpstreamError::Timeout(self.timeout)),
        }
    }
}

/// Reads a whole body of at most `max` bytes, each chunk within `timeout`.
pub async fn read_body(body: &mut Incoming, max: usize, timeout: Duration) -> Result<Vec<u8>, UpstreamError> {
    read_body_bytes(body, max, timeout).await.map(Vec::from)
}

/// [`read_body`] as [`Bytes`]: a body that arrives as one data frame (the usual small answer)
/// is returned as that frame, without being copied into a new buffer.
pub async fn read_body_bytes(
    body: &mut Incoming,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, UpstreamError> {
    let mut first = Bytes::new();
    let mut rest: Option<Vec<u8>> = None;
    while let Some(data) = next_data(body, timeout).await? {
        let len = rest.as_ref().map_or(first.len(), Vec::len);
        if len + data.len() > max {
            return Err(UpstreamError::TooLarge(max));
        }
        match &mut rest {
            Some(out) => out.extend_from_slice(&data),
            None if first.is_empty() => first = data,
            None => {
                let mut out = Vec::with_capacity(first.len() + data.len());
                out.extend_from_slice(&first);
                out.extend_from_slice(&data);
                rest = Some(out);
            }
        }
    }
    Ok(rest.map_or(first, Bytes::from))
}

/// The next data frame of `body` (other frames skipped), `None` at its end; each frame within
/// `timeout`.
async fn next_data(body: &mut Incoming, timeout: Duration) -> Result<Option<Bytes>, UpstreamError> {
    loop {
        let frame = match tokio::time::timeout(timeout, body.frame()).await {
            Err(_) => return Err(UpstreamError::Timeout(timeout)),
            Ok(None) => return Ok(None),
            Ok(Some(Err(e))) => return Err(UpstreamError::Body(e.to_string())),
            Ok(Some(Ok(f))) => f,
        };
        if let Ok(data) = frame.into_data() {
            return Ok(Some(data));
        }
    }
}
