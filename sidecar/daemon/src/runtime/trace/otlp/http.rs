//! The export request: one `POST` of a JSON body to the collector's `/v1/traces`, with hyper's
//! HTTP/1.1 client (the one the proxies already use), connections kept alive between exports.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Uri;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::time::Duration;

/// Where and how to post.
pub struct Target {
    uri: Uri,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl Target {
    /// An `http://host:port/path` URL (OTLP/HTTP; put a collector on loopback or a TLS-terminating
    /// sidecar in front of a remote one).
    pub fn parse(url: &str) -> std::io::Result<Self> {
        let uri: Uri = url.parse().map_err(|e| std::io::Error::other(format!("{url}: {e}")))?;
        if uri.scheme_str() != Some("http") || uri.host().is_none_or(str::is_empty) {
            return Err(std::io::Error::other(format!("not an http:// URL: {url}")));
        }
        let client = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
        Ok(Self { uri, client })
    }

    /// Posts `body`; Ok for a 2xx answer within `limit`.
    pub async fn post(&self, body: String, limit: Duration) -> std::io::Result<()> {
        let request = hyper::Request::post(self.uri.clone())
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(std::io::Error::other)?;
        let exchange = async {
            let response = self.client.request(request).await.map_err(std::io::Error::other)?;
            let status = response.status();
            // Read the answer to the end so the connection can be used again.
            let _ = response.into_body().collect().await;
            if status.is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!("collector answered {status}")))
            }
        };
        tokio::time::timeout(limit, exchange)
            .await
            .map_err(|_| std::io::Error::other("collector timed out"))?
    }
}
