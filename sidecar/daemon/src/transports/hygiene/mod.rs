//! Listener hygiene, the same on every HTTP listener of the daemon and in every mode (`off`
//! too: it protects Blindfold and the peers behind it, it is not policy): a request must name
//! Blindfold by a loopback or configured host (one `Host`), come from no browser origin or an
//! allowed one (one `Origin`) — the DNS-rebinding defence the MCP spec asks of local servers —
//! and send a body only as JSON (`application/json` or a `+json` type). CORS is answered here
//! for the allowed origins, preflights included. Every refusal is a [`Refusal`], rendered in
//! one place ([`Refusal::into_response`]).

mod cors;
mod names;

pub use names::{host_of, is_loopback, origin_of};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The names and origins one daemon answers to (from `[server] allowed_hosts` and
/// `allowed_origins`, besides loopback).
#[derive(Debug, Clone, Default)]
pub struct Hygiene {
    inner: Arc<Allowed>,
}

#[derive(Debug, Default)]
struct Allowed {
    hosts: Vec<String>,
    origins: Vec<String>,
}

/// What a request that passed may need on its way back: the CORS headers of its origin.
#[derive(Debug, Default)]
pub struct Admitted {
    origin: Option<HeaderValue>,
}

/// Why a request was refused before anything else looked at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No `Host` header (HTTP/1.1 requires one).
    MissingHost,
    /// More than one `Host` header.
    SeveralHosts,
    /// A host name that is neither loopback nor configured.
    HostNotAllowed(String),
    /// More than one `Origin` header.
    SeveralOrigins,
    /// A browser origin that is neither loopback nor configured.
    OriginNotAllowed(String),
    /// A body whose `Content-Type` is not JSON (the value, when there was one).
    NotJson(Option<String>),
}

impl Hygiene {
    /// The checks with the configured extra `hosts` (host names, lower-case) and `origins`
    /// (serialised origins, lower-case).
    pub fn new(hosts: Vec<String>, origins: Vec<String>) -> Self {
        Self { inner: Arc::new(Allowed { hosts, origins }) }
    }

    /// The checks of a configuration.
    pub fn from_config(config: &crate::config::Config) -> Self {
        Self::new(config.server.allowed_hosts.clone(), config.server.allowed_origins.clone())
    }

    /// Admits or refuses a request by its head.
    pub fn admit<B>(&self, request: &Request<B>) -> Result<Admitted, Refusal> {
        self.check_host(request)?;
        let origin = self.check_origin(request.headers())?;
        check_media_type(request.headers())?;
        Ok(Admitted { origin })
    }

    /// One `Host`, loopback or configured; a request in absolute form names its host in the
    /// target too, and that one must pass as well.
    fn check_host<B>(&self, request: &Request<B>) -> Result<(), Refusal> {
        let mut values = request.headers().get_all(header::HOST).iter();
        let host = values.next().ok_or(Refusal::MissingHost)?;
        if values.next().is_some() {
            return Err(Refusal::SeveralHosts);
        }
        let text = host.to_str().unwrap_or("");
        self.allowed_host(text)?;
        match request.uri().authority() {
            Some(target) => self.allowed_host(target.as_str()),
            None => Ok(()),
        }
    }

    fn allowed_host(&self, authority: &str) -> Result<(), Refusal> {
        let refused = || Refusal::HostNotAllowed(authority.chars().take(200).collect());
        let host = host_of(authority).ok_or_else(refused)?;
        if is_loopback(&host) || self.inner.hosts.contains(&host) { Ok(()) } else { Err(refused()) }
    }

    /// No `Origin` (not a browser), or exactly one that is loopback or configured.
    fn check_origin(&self, headers: &HeaderMap) -> Result<Option<HeaderValue>, Refusal> {
        let mut values = headers.get_all(header::ORIGIN).iter();
        let Some(value) = values.next() else { return Ok(None) };
        if values.next().is_some() {
            return Err(Refusal::SeveralOrigins);
        }
        let text = value.to_str().unwrap_or("");
        let refused = || Refusal::OriginNotAllowed(text.chars().take(200).collect());
        let origin = origin_of(text).ok_or_else(refused)?;
        if is_loopback(&origin.host) || self.inner.origins.contains(&origin.serialised) {
            Ok(Some(value.clone()))
        } else {
            Err(refused())
        }
    }
}

/// True when `headers` hold exactly one `Origin` and it is one of `allowed` (serialised,
/// lower-case): the stricter rule of the control API and the WebSocket relay, which loopback
/// origins pass only when configured.
pub fn configured_origin(allowed: &[String], headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::ORIGIN).iter();
    let (Some(value), None) = (values.next(), values.next()) else { return false };
    let origin = value.to_str().ok().and_then(origin_of);
    origin.is_some_and(|o| allowed.contains(&o.serialised))
}

/// A request that carries a body must say it is JSON.
fn check_media_type(headers: &HeaderMap) -> Result<(), Refusal> {
    let declared_length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let has_body = declared_length.is_some_and(|n| n > 0) || headers.contains_key(header::TRANSFER_ENCODING);
    if !has_body {
        return Ok(());
    }
    let value = headers.get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("").to_owned());
    match &value {
        Some(v) if is_json_media_type(v) => Ok(()),
        _ => Err(Refusal::NotJson(value.map(|v| v.chars().take(200).collect()))),
    }
}

/// `application/json` or an `application/…+json` type, parameters (`charset`) allowed.
pub fn is_json_media_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match essence.split_once('/') {
        Some(("application", subtype)) => {
            subtype == "json" || (subtype.len() > 5 && subtype.ends_with("+json"))
        }
        _ => false,
    }
}

impl Admitted {
    /// The answer to an `OPTIONS` request, when this is one: a CORS preflight answered for the
    /// admitted origin, or the methods an `OPTIONS` without origin asks about.
    pub fn options_answer<B>(&self, request: &Request<B>) -> Option<Response> {
        (request.method() == Method::OPTIONS)
            .then(|| cors::preflight(self.origin.as_ref(), request.headers()))
    }

    /// The response as the client gets it: the upstream's own CORS headers replaced by
    /// Blindfold's for the admitted origin (none for a request without one).
    pub fn finish(&self, mut response: Response) -> Response {
        cors::decorate(response.headers_mut(), self.origin.as_ref());
        response
    }
}

impl Refusal {
    /// The name of the hygiene check that refused, as logs and traces give it.
    pub fn check(&self) -> &'static str {
        match self {
            Refusal::MissingHost | Refusal::SeveralHosts | Refusal::HostNotAllowed(_) => "listener.host",
            Refusal::SeveralOrigins | Refusal::OriginNotAllowed(_) => "listener.origin",
            Refusal::NotJson(_) => "listener.media_type",
        }
    }

    /// The HTTP status: 403 for a name Blindfold does not answer to, 400 for a malformed
    /// request, 415 for a body that is not JSON.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::HostNotAllowed(_) | Refusal::OriginNotAllowed(_) => StatusCode::FORBIDDEN,
            Refusal::MissingHost | Refusal::SeveralHosts | Refusal::SeveralOrigins => StatusCode::BAD_REQUEST,
            Refusal::NotJson(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        }
    }

    /// What the client is told (nothing hints at a way around the check).
    pub fn message(&self) -> String {
        match self {
            Refusal::MissingHost => "the request has no Host header".into(),
            Refusal::SeveralHosts => "the request has more than one Host header".into(),
            Refusal::HostNotAllowed(h) => {
                format!("host {h:?} is not a name of this Blindfold (loopback or server.allowed_hosts)")
            }
            Refusal::SeveralOrigins => "the request has more than one Origin header".into(),
            Refusal::OriginNotAllowed(o) => {
                format!("origin {o:?} is not allowed (loopback or server.allowed_origins)")
            }
            Refusal::NotJson(Some(t)) => format!("the body is {t:?}; send it as application/json"),
            Refusal::NotJson(None) => "the body has no Content-Type; send it as application/json".into(),
        }
    }
}

impl Refusal {
    /// The refusal as the client of `path` reads it: on an operation of the A2A HTTP+JSON binding
    /// (`/a2a/<alias>/<operation>`) that binding's error body (`google.rpc.Status` shape, its
    /// `ErrorInfo` reason `CONTENT_TYPE_NOT_SUPPORTED` for a body that is not JSON, else
    /// `INVALID_REQUEST`); a body that is not JSON on another A2A path A2A's
    /// `ContentTypeNotSupportedError` (-32005, with its `ErrorInfo`); elsewhere
    /// [`IntoResponse::into_response`].
    pub fn answer_for(self, path: &str) -> Response {
        let not_json = matches!(self, Refusal::NotJson(_));
        let a2a = path == "/a2a" || path.starts_with("/a2a/");
        let rest = blindfold_adapters::a2a::rest::is_alias_rest_path(path);
        if !(rest || a2a && not_json) {
            return self.into_response();
        }
        let message = self.message();
        tracing::warn!(check = self.check(), status = self.status().as_u16(), %message, "request refused");
        let body = if rest {
            let reason = if not_json { "CONTENT_TYPE_NOT_SUPPORTED" } else { "INVALID_REQUEST" };
            blindfold_adapters::a2a::rest::error_body(self.status().as_u16(), reason, &message)
        } else {
            blindfold_adapters::a2a::content_type_not_supported(&serde_json::Value::Null, &message)
        };
        let mut r = Response::new(Body::from(body.to_string()));
        *r.status_mut() = self.status();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r
    }
}

impl IntoResponse for Refusal {
    /// The one rendering of a hygiene refusal: its status and a JSON-RPC error body (`id` null,
    /// `-32600`), which JSON-RPC clients read as an error and HTTP clients as `error.message`.
    fn into_response(self) -> Response {
        let message = self.message();
        tracing::warn!(check = self.check(), status = self.status().as_u16(), %message, "request refused");
        let body = blindfold_adapters::jsonrpc::error(
            &serde_json::Value::Null,
            blindfold_adapters::jsonrpc::code::INVALID_REQUEST,
            &message,
            None,
        );
        let mut r = Response::new(Body::from(body.to_string()));
        *r.status_mut() = self.status();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r
    }
}

#[cfg(test)]
mod tests;
