//! Listener-level limits shared by every server of the daemon: open connections (with the
//! eviction of the oldest connection still sending its headers when all are taken,
//! [`crate::transports::slots`]), slow clients (headers that never finish, responses never read)
//! and the request header size — each refused with a clear error naming the `[limits]` key.
//! Request bodies and idle keep-alive connections are bounded by the server loop
//! (`crate::transports::server`).

use crate::config::Limits;
use crate::transports::slots::{Slot, Slots};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpListener;
use tokio::time::Sleep;
use tokio_util::sync::WaitForCancellationFutureOwned;

/// A listener (TCP by default, or a Unix socket) that holds at most `max_connections`
/// connections open and gives each the slow-client deadlines of [`LimitedIo`].
pub struct LimitedListener<L = TcpListener> {
    inner: L,
    slots: Arc<Slots>,
    limits: Limits,
}

impl<L> LimitedListener<L> {
    /// Wraps a bound listener.
    pub fn new(inner: L, limits: Limits) -> Self {
        Self { inner, slots: Slots::new(limits.max_connections), limits }
    }

    /// How many connections it holds open, asked at any time (`blindfold_open_connections`).
    pub fn open_count(&self) -> Box<dyn Fn() -> usize + Send + Sync> {
        let slots = self.slots.clone();
        Box::new(move || slots.open())
    }
}

/// A TCP listener whose accepted connections have `TCP_NODELAY` set ([`nodelay`]).
pub type NodelayListener = axum::serve::TapIo<TcpListener, fn(&mut tokio::net::TcpStream)>;

impl LimitedListener<NodelayListener> {
    /// Wraps a bound TCP listener, every accepted connection with [`nodelay`].
    pub fn tcp(inner: TcpListener, limits: Limits) -> Self {
        let tapped = axum::serve::ListenerExt::tap_io(inner, nodelay as fn(&mut tokio::net::TcpStream));
        Self::new(tapped, limits)
    }
}

/// Sets `TCP_NODELAY` on an accepted connection (`listener.tap_io(nodelay)`): small writes (SSE
/// events, WebSocket frames, JSON-RPC answers) go out at once instead of waiting on Nagle's
/// algorithm against the peer's delayed ACK (up to 40 ms per exchange).
pub fn nodelay(stream: &mut tokio::net::TcpStream) {
    let _ = stream.set_nodelay(true);
}

/// The answer to a connection over `max_connections` (then the connection is closed).
fn over_capacity(max: usize) -> Vec<u8> {
    let body = format!("{{\"error\":\"too many connections: the limit is {max} (limits.max_connections)\"}}");
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl<L> axum::serve::Listener for LimitedListener<L>
where
    L: axum::serve::Listener,
    L::Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    L::Addr: std::fmt::Debug,
{
    type Io = LimitedIo<L::Io>;
    type Addr = L::Addr;

    async fn accept(&mut self) -> (LimitedIo<L::Io>, L::Addr) {
        loop {
            // axum's listeners retry failed accepts themselves.
            let (mut stream, addr) = self.inner.accept().await;
            match self.slots.admit() {
                Some(slot) => return (LimitedIo::new(stream, slot, &self.limits), addr),
                None => {
                    let max = self.limits.max_connections;
                    tracing::warn!(?addr, max, "connection refused: limits.max_connections reached");
                    tokio::spawn(async move {
                        let answer = over_capacity(max);
                        let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(&answer)).await;
                        let _ = stream.shutdown().await;
                        // Read what the client sent before closing: closing with unread bytes
                        // resets the connection, and the client may lose the answer.
                        let mut sink = [0u8; 1024];
                        let _ = tokio::time::timeout(Duration::from_secs(1), async {
                            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
                        })
                        .await;
                    });
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<L::Addr> {
        self.inner.local_addr()
    }
}

/// One accepted connection: its slot is released when it closes; a client that has not sent
/// its first request's complete headers within the header timeout gets `408` and is closed (as
/// is one evicted for a newer connection while still sending them, with `503`), and one that
/// leaves a response unread for the client timeout is closed.
pub struct LimitedIo<S = tokio::net::TcpStream> {
    stream: S,
    slot: Slot,
    timeout: Duration,
    /// Running until the first header block is complete.
    header_deadline: Option<Pin<Box<Sleep>>>,
    /// Resolves when the connection is evicted; polled until the first header block is complete.
    evicted: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    /// The last bytes seen, to find `\r\n\r\n` across reads.
    tail: [u8; 3],
    /// Running while a write is blocked on the client.
    write_deadline: Option<Pin<Box<Sleep>>>,
}

impl<S> LimitedIo<S> {
    fn new(stream: S, slot: Slot, limits: &Limits) -> Self {
        let evicted = Box::pin(slot.evicted.clone().cancelled_owned());
        Self {
            stream,
            slot,
            timeout: limits.client_timeout,
            header_deadline: Some(Box::pin(tokio::time::sleep(limits.header_timeout))),
            evicted: Some(evicted),
            tail: [0; 3],
            write_deadline: None,
        }
    }

    /// Notes bytes read; stops the header deadline (and the connection's evictability) once a
    /// blank line ends the headers.
    fn scan(&mut self, bytes: &[u8]) {
        let mut window: Vec<u8> = self.tail.to_vec();
        window.extend_from_slice(bytes);
        if window.windows(4).any(|w| w == b"\r\n\r\n") {
            self.header_deadline = None;
            self.evicted = None;
            self.slot.headers_done();
        }
        let n = window.len();
        self.tail.copy_from_slice(&window[n - 3..]);
    }
}

const REQUEST_TIMEOUT: &[u8] = b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n\
connection: close\r\ncontent-length: 74\r\n\r\n{\"error\":\"request headers not received in time (limits.header_timeout_s)\"}";

const EVICTED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
retry-after: 1\r\nconnection: close\r\ncontent-length: 93\r\n\r\n\
{\"error\":\"closed to admit a newer connection: all slots were taken (limits.max_connections)\"}";

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for LimitedIo<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(deadline) = this.header_deadline.as_mut()
            && deadline.as_mut().poll(cx).is_ready()
        {
            this.header_deadline = None;
            this.evicted = None;
            tracing::warn!("connection closed: request headers not received within limits.header_timeout_s");
            // Best effort: the client is slow, not necessarily gone; then end of stream.
            let _ = Pin::new(&mut this.stream).poll_write(cx, REQUEST_TIMEOUT);
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "client too slow")));
        }
        if let Some(evicted) = this.evicted.as_mut()
            && evicted.as_mut().poll(cx).is_ready()
        {
            this.header_deadline = None;
            this.evicted = None;
            tracing::warn!(
                "connection closed while sending its headers: its slot went to a newer connection (limits.max_connections)"
            );
            let _ = Pin::new(&mut this.stream).poll_write(cx, EVICTED);
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::ConnectionAborted, "evicted")));
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.stream).poll_read(cx, buf))?;
        if this.header_deadline.is_some() {
            let new = buf.filled()[before..].to_vec();
            this.scan(&new);
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for LimitedIo<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_write(cx, data) {
            Poll::Ready(r) => {
                this.write_deadline = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let timeout = this.timeout;
                let deadline =
                    this.write_deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                if deadline.as_mut().poll(cx).is_ready() {
                    tracing::warn!("connection closed: client did not read within limits.client_timeout_s");
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "client not reading")));
                }
                Poll::Pending
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The `431` answer to a request whose request line and headers exceed `max_header_bytes` (a
/// JSON error naming the limit), or `None` when they fit. The server checks every request
/// with it before routing.
pub fn header_refusal<B>(request: &axum::http::Request<B>, max: usize) -> Option<Response> {
    let size = uri_len(request.uri())
        + request.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum::<usize>();
    if size <= max {
        return None;
    }
    tracing::warn!(size, max, "request refused: limits.max_header_bytes");
    let error =
        format!("request headers of {size} bytes exceed the limit of {max} (limits.max_header_bytes)");
    Some(
        (StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, axum::Json(serde_json::json!({"error": error})))
            .into_response(),
    )
}

/// The length of `uri` as written on the request line, without building the string.
fn uri_len(uri: &axum::http::Uri) -> usize {
    let scheme = uri.scheme_str().map_or(0, |s| s.len() + "://".len());
    let authority = uri.authority().map_or(0, |a| a.as_str().len());
    let path = uri.path_and_query().map_or(0, |p| p.as_str().len());
    scheme + authority + path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_len_is_the_written_length() {
        for text in ["/a2a/x?A2A-Version=1.0", "/", "http://127.0.0.1:8080/v1/control?x=1", "*"] {
            let uri: axum::http::Uri = text.parse().expect("uri");
            assert_eq!(uri_len(&uri), uri.to_string().len(), "{text}");
        }
    }

    #[test]
    fn the_408_body_length_is_exact() {
        let text = std::str::from_utf8(REQUEST_TIMEOUT).expect("ascii");
        let (_, body) = text.split_once("\r\n\r\n").expect("head and body");
        assert!(text.contains(&format!("content-length: {}\r\n", body.len())), "{text}");
    }

    #[test]
    fn the_eviction_503_body_length_is_exact() {
        let text = std::str::from_utf8(EVICTED).expect("ascii");
        let (_, body) = text.split_once("\r\n\r\n").expect("head and body");
        assert!(text.contains(&format!("content-length: {}\r\n", body.len())), "{text}");
    }

    #[test]
    fn the_503_names_the_limit() {
        let text = String::from_utf8(over_capacity(3)).expect("ascii");
        assert!(text.starts_with("HTTP/1.1 503"));
        assert!(text.contains("limits.max_connections"));
        let (_, body) = text.split_once("\r\n\r\n").expect("head and body");
        assert!(text.contains(&format!("content-length: {}\r\n", body.len())));
    }
}
