//! The one place Blindfold's own failures become protocol-native error bodies (OpenAI's
//! `{"error":{…}}`, Anthropic's `{"type":"error","error":{…}}`), as a response or a stream event.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use blindfold_adapters::model_api::{ModelApi, SseEvent};
use serde_json::{Value, json};

/// A failure of the proxy itself; nothing was forwarded past the point where it happened.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The request body could not be read as the API it is sent to.
    #[error("{0}")]
    BadRequest(String),
    /// The request body is over the configured limit.
    #[error("request body over {0} bytes")]
    TooLarge(usize),
    /// The model API could not be reached.
    #[error("{0}")]
    Unreachable(String),
    /// The model API answered something Blindfold cannot check; nothing of it is passed on.
    #[error("{0}")]
    BadUpstream(String),
}

impl ProxyError {
    fn status(&self) -> StatusCode {
        match self {
            ProxyError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ProxyError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ProxyError::Unreachable(_) | ProxyError::BadUpstream(_) => StatusCode::BAD_GATEWAY,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            ProxyError::BadRequest(_) | ProxyError::TooLarge(_) => "invalid_request_error",
            ProxyError::Unreachable(_) | ProxyError::BadUpstream(_) => "api_error",
        }
    }

    /// The error body in the API's own shape.
    pub fn body(&self, api: ModelApi) -> Value {
        let message = format!("blindfold: {self}");
        match api {
            ModelApi::Messages => {
                json!({"type": "error", "error": {"type": self.kind(), "message": message}})
            }
            ModelApi::ChatCompletions | ModelApi::Responses => {
                json!({"error": {"message": message, "type": self.kind(), "param": null, "code": "blindfold"}})
            }
        }
    }

    /// The error as the last event of a stream already under way.
    pub fn stream_event(&self, api: ModelApi) -> Vec<u8> {
        let body = self.body(api);
        match api {
            ModelApi::Messages => SseEvent::encode(Some("error"), &body.to_string()),
            ModelApi::Responses => {
                let event = json!({"type": "error", "code": "blindfold", "message": body["error"]["message"], "param": null});
                SseEvent::encode(Some("error"), &event.to_string())
            }
            ModelApi::ChatCompletions => SseEvent::encode(None, &body.to_string()),
        }
    }

    /// The error as an HTTP response in the API's own shape.
    pub fn response(&self, api: ModelApi) -> Response {
        (self.status(), [(header::CONTENT_TYPE, "application/json")], self.body(api).to_string())
            .into_response()
    }
}
