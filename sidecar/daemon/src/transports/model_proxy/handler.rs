//! One model-API request: scrub what the model will read, forward, and pass the answer back with
//! its tool calls decided — streamed answers event by event, upstream errors untouched.

use super::Proxy;
use super::calls::CallDecider;
use super::errors::ProxyError;
use super::stream::relay;
use super::upstream::forwardable;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::response::Response;
use blindfold_adapters::model_api::{self as codec, ModelApi, Scrubber};
use http_body_util::{BodyExt, Limited};

/// Handles one request of `api`.
pub async fn forward(proxy: Proxy, api: ModelApi, req: Request<Body>) -> Response {
    match forward_inner(&proxy, api, req).await {
        Ok(resp) => resp,
        Err(e) => {
            tracing::warn!(api = ?api, error = %e, "model request refused");
            e.response(api)
        }
    }
}

async fn forward_inner(proxy: &Proxy, api: ModelApi, req: Request<Body>) -> Result<Response, ProxyError> {
    let (parts, body) = req.into_parts();
    let body = Limited::new(body, proxy.max_body)
        .collect()
        .await
        .map_err(|_| ProxyError::TooLarge(proxy.max_body))?
        .to_bytes();
    let route = proxy.route(&parts.headers, &body);
    let trajectory = route.trajectory().to_owned();
    let scrubber = proxy.scrubber(&trajectory);
    let rewritten =
        rewrite_request(api, &body, scrubber.as_ref()).map_err(|e| ProxyError::BadRequest(e.to_string()))?;
    let path = parts.uri.path_and_query().map_or(parts.uri.path(), |p| p.as_str());
    tracing::info!(api = ?api, trajectory = %trajectory, rewritten_fields = rewritten.changed, "model request");
    let upstream = proxy.upstream.send(path, &parts.headers, rewritten.body).await.map_err(|e| {
        proxy.app.metrics.upstream_error(proxy.app.transport);
        ProxyError::Unreachable(e.to_string())
    })?;
    let (up_parts, up_body) = upstream.into_parts();
    let mut headers = forwardable(&up_parts.headers);
    if !up_parts.status.is_success() {
        // Upstream errors pass through: same status, same body, streamed as it comes.
        return Ok(respond(up_parts.status, headers, Body::new(up_body)));
    }
    if headers.get(header::CONTENT_ENCODING).is_some_and(|v| v.as_bytes() != b"identity") {
        return Err(ProxyError::BadUpstream(
            "the model API answered with an encoded body Blindfold cannot check".into(),
        ));
    }
    let gate = CallDecider::new(proxy.app.clone(), route, scrubber, proxy.consume_grants);
    if is_event_stream(&headers) {
        headers.remove(header::CONTENT_LENGTH);
        return Ok(respond(up_parts.status, headers, relay(api, up_body, gate)));
    }
    let body = Limited::new(up_body, proxy.max_body)
        .collect()
        .await
        .map_err(|e| ProxyError::BadUpstream(format!("reading the model's answer: {e}")))?
        .to_bytes();
    let mut gate = gate;
    let rewritten = match api {
        ModelApi::ChatCompletions => codec::rewrite_chat_response(&body, &mut gate),
        ModelApi::Responses => codec::rewrite_responses_response(&body, &mut gate),
        ModelApi::Messages => codec::rewrite_messages_response(&body, &mut gate),
    }
    .map_err(|e| ProxyError::BadUpstream(e.to_string()))?;
    headers.remove(header::CONTENT_LENGTH);
    Ok(respond(up_parts.status, headers, Body::from(rewritten.body)))
}

fn rewrite_request(
    api: ModelApi,
    body: &[u8],
    s: &dyn Scrubber,
) -> Result<codec::Rewritten, codec::MalformedBody> {
    match api {
        ModelApi::ChatCompletions => codec::rewrite_chat_request(body, s),
        ModelApi::Responses => codec::rewrite_responses_request(body, s),
        ModelApi::Messages => codec::rewrite_messages_request(body, s),
    }
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}

fn respond(status: StatusCode, headers: HeaderMap, body: Body) -> Response {
    let mut resp = Response::new(body);
    *resp.status_mut() = status;
    *resp.headers_mut() = headers;
    resp
}
