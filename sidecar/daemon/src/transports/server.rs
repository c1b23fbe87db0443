//! The daemon's HTTP server loop, shared by every listener (TCP or Unix socket): HTTP/1.1 with
//! upgrades, listener hygiene (`Host`/`Origin`, JSON bodies, CORS: [`crate::transports::hygiene`])
//! before any route, the `[limits]` header size and slow-client deadlines on request headers
//! (also of idle keep-alive connections, which are closed), on request bodies (`408`) and on
//! unread responses, and a graceful stop.

use crate::config::Limits;
use crate::transports::hygiene::Hygiene;
use crate::transports::limits::{LimitedListener, header_refusal};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::serve::Listener;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;
use tokio::time::Sleep;
use tower_service::Service;

/// Serves `router` on `listener` until `shutdown` resolves, then lets open requests finish for
/// at most `limits.client_timeout` (upgraded WebSocket connections are not waited for).
///
/// Every connection gets: at most `limits.header_timeout` to send each request's headers,
/// counted from the connection's start or from the end of the previous response (so an idle
/// keep-alive connection is closed after that long); `limits.client_timeout` for each request
/// body, counted from the end of its headers (`408`, then the connection is closed); the header
/// size limit (`431`); `hygiene`'s checks; and the listener's connection cap and unread-response
/// deadline.
pub async fn serve<L>(
    mut listener: LimitedListener<L>,
    router: Router,
    limits: Limits,
    hygiene: Hygiene,
    shutdown: impl Future<Output = ()> + Send,
) where
    L: Listener,
    L::Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    L::Addr: Debug,
{
    let (stop_tx, stop_rx) = watch::channel(());
    let (open_tx, open_rx) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (io, addr) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let service = Guarded {
            router: router.clone(),
            hygiene: hygiene.clone(),
            max_header_bytes: limits.max_header_bytes,
            body_timeout: limits.client_timeout,
        };
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
        let mut stop = stop_rx.clone();
        let open = open_rx.clone();
        tokio::spawn(async move {
            let conn = builder.serve_connection(TokioIo::new(io), service).with_upgrades();
            let mut conn = std::pin::pin!(conn);
            let mut stopping = false;
            loop {
                tokio::select! {
                    result = conn.as_mut() => {
                        if let Err(e) = result {
                            tracing::debug!(?addr, error = %e, "connection ended");
                        }
                        break;
                    }
                    changed = stop.changed(), if !stopping => {
                        stopping = true;
                        if changed.is_ok() {
                            conn.as_mut().graceful_shutdown();
                        }
                    }
                }
            }
            drop(open);
        });
    }
    drop(listener);
    drop(open_rx);
    let _ = stop_tx.send(());
    let _ = tokio::time::timeout(limits.client_timeout, open_tx.closed()).await;
}

/// The answer to a path or alias Blindfold does not serve: HTTP 404 with a JSON-RPC error body
/// (`id` null, `-32601`), which a JSON-RPC client reads as an error rather than failing to parse.
pub fn not_found(message: &str) -> axum::response::Response {
    let body = blindfold_adapters::jsonrpc::error(
        &serde_json::Value::Null,
        blindfold_adapters::jsonrpc::code::METHOD_NOT_FOUND,
        message,
        None,
    );
    let mut r =
        axum::response::IntoResponse::into_response((axum::http::StatusCode::NOT_FOUND, body.to_string()));
    r.headers_mut()
        .insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("application/json"));
    r
}

/// The fallback of every listener's router: [`not_found`] naming the path.
pub async fn no_route(uri: axum::http::Uri) -> Response {
    not_found(&format!("nothing is served at {}", uri.path()))
}

/// The router behind the per-request checks: the header size (`431`), listener hygiene (a
/// refusal, or an `OPTIONS` answered, before any route; CORS on every answer) and the
/// request-body deadline (a body still arriving `body_timeout` after its headers ends the
/// request with `408` naming `limits.client_timeout_s`, and the connection is closed). Checked
/// in the one service hyper calls, before routing, rather than as router middleware.
#[derive(Clone)]
struct Guarded {
    router: Router,
    hygiene: Hygiene,
    max_header_bytes: usize,
    body_timeout: Duration,
}

impl hyper::service::Service<Request<Incoming>> for Guarded {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        if let Some(refusal) = header_refusal(&request, self.max_header_bytes) {
            return Box::pin(std::future::ready(Ok(refusal)));
        }
        let admitted = match self.hygiene.admit(&request) {
            Ok(admitted) => admitted,
            Err(refusal) => {
                return Box::pin(std::future::ready(Ok(refusal.answer_for(request.uri().path()))));
            }
        };
        if let Some(answer) = admitted.options_answer(&request) {
            return Box::pin(std::future::ready(Ok(answer)));
        }
        let mut router = self.router.clone();
        if request.body().is_end_stream() {
            let routed = router.call(request);
            return Box::pin(async move { Ok(admitted.finish(routed.await?)) });
        }
        let fired = Arc::new(AtomicBool::new(false));
        let (parts, body) = request.into_parts();
        let body = DeadlineBody {
            inner: body,
            due: tokio::time::Instant::now() + self.body_timeout,
            deadline: None,
            fired: fired.clone(),
        };
        let routed = router.call(Request::from_parts(parts, Body::new(body)));
        Box::pin(async move {
            let response = routed.await?;
            if !fired.load(Ordering::Acquire) {
                return Ok(admitted.finish(response));
            }
            tracing::warn!("request refused: body not received within limits.client_timeout_s");
            let error = "request body not received in time (limits.client_timeout_s)";
            Ok((
                StatusCode::REQUEST_TIMEOUT,
                [(header::CONNECTION, "close")],
                axum::Json(serde_json::json!({"error": error})),
            )
                .into_response())
        })
    }
}

/// A request body that fails once its deadline passes while the server waits on the client
/// (bytes already received are still delivered). The timer is armed only the first time the
/// body has to wait: a body that came with its headers (the usual small JSON-RPC request)
/// costs no timer.
struct DeadlineBody {
    inner: Incoming,
    /// When the body must be complete (its headers' arrival plus the client timeout).
    due: tokio::time::Instant,
    deadline: Option<Pin<Box<Sleep>>>,
    fired: Arc<AtomicBool>,
}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(axum::Error::new)));
        }
        let due = self.due;
        let deadline = self.deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(due)));
        if deadline.as_mut().poll(cx).is_ready() {
            self.fired.store(true, Ordering::Release);
            let e = std::io::Error::new(std::io::ErrorKind::TimedOut, "request body too slow");
            return Poll::Ready(Some(Err(axum::Error::new(e))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
