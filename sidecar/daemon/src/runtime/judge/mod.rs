//! The optional judge quorum (SPEC §7, last and never on the fast path): k of n
//! OpenAI-compatible chat endpoints of different model families read a held proposal (with
//! instruction-like text neutralised) at temperature 0, in bounded time. A judge can only deny
//! or leave the action to a human: it never approves, never overrides a rule's denial and never
//! settles a contradiction. Any error, timeout or unreadable answer is a denial.

mod prompt;
#[cfg(test)]
mod tests;

pub use prompt::{Answer, SYSTEM, parse_answer, request_body, user_message};

use crate::config::{JudgeConfig, JudgeEndpoint};
use crate::runtime::review::{JudgeVerdict, ReviewItem, ReviewJudge};
use axum::http::{HeaderValue, Method, Request, header};
use blindfold_engine::Patterns;
use blindfold_schemas::Reason;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// Largest judge answer read, bytes.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The judge quorum client.
pub struct Judge {
    config: JudgeConfig,
    client: Client<HttpConnector, Full<Bytes>>,
    patterns: Patterns,
}

impl Judge {
    /// A quorum over `config` with the default instruction-like patterns.
    pub fn new(config: JudgeConfig) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(config.timeout));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Self { config, client, patterns: Patterns::defaults() }
    }

    /// Asks every endpoint at once and applies the quorum: any failure denies
    /// (`judge_unavailable`), fewer than k passes deny (`judge_denied`), else a human decides.
    pub async fn consult(&self, item: &ReviewItem) -> JudgeVerdict {
        let user = user_message(item, &self.patterns);
        let answers =
            futures_util::future::join_all(self.config.endpoints.iter().map(|e| self.ask(e, &user))).await;
        let n = answers.len();
        if let Some(why) = answers.iter().find_map(|a| match a {
            Answer::Failed(why) => Some(why.clone()),
            _ => None,
        }) {
            return JudgeVerdict::Deny {
                reason: Reason::JudgeUnavailable,
                detail: format!("a judge failed ({why}); without its answer the action is denied"),
            };
        }
        let passes = answers.iter().filter(|a| **a == Answer::Pass).count();
        if passes >= self.config.required {
            JudgeVerdict::ToHuman
        } else {
            JudgeVerdict::Deny {
                reason: Reason::JudgeDenied,
                detail: format!(
                    "the judge quorum refused the action ({passes} of {n} passed, {} needed)",
                    self.config.required
                ),
            }
        }
    }

    /// One endpoint, bounded by the timeout (head and body together).
    async fn ask(&self, e: &JudgeEndpoint, user: &str) -> Answer {
        let exchange = async {
            let body = request_body(&e.model, user).to_string();
            let mut req = Request::builder()
                .method(Method::POST)
                .uri(e.url.as_str())
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CONTENT_LENGTH, body.len());
            if let Some(key) = &e.api_key {
                let value = HeaderValue::from_str(&format!("Bearer {key}"))
                    .map_err(|_| "the API key is not a valid header value".to_owned())?;
                req = req.header(header::AUTHORIZATION, value);
            }
            let req = req.body(Full::new(Bytes::from(body))).map_err(|e| e.to_string())?;
            let resp = self.client.request(req).await.map_err(|_| "unreachable".to_owned())?;
            if !resp.status().is_success() {
                return Err(format!("HTTP {}", resp.status().as_u16()));
            }
            let bytes = Limited::new(resp.into_body(), MAX_ANSWER_BYTES)
                .collect()
                .await
                .map_err(|_| "the answer broke off or is too large".to_owned())?
                .to_bytes();
            Ok::<Answer, String>(parse_answer(&bytes))
        };
        match tokio::time::timeout(self.config.timeout, exchange).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(why)) => Answer::Failed(why),
            Err(_) => Answer::Failed(format!("no answer within {} ms", self.config.timeout.as_millis())),
        }
    }
}

#[async_trait::async_trait]
impl ReviewJudge for Judge {
    async fn consult(&self, item: &ReviewItem) -> JudgeVerdict {
        Judge::consult(self, item).await
    }
}
