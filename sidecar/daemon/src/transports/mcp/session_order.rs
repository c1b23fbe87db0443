//! A Streamable HTTP session's order toward the upstream. A server may send its own requests
//! (sampling, elicitation) and notifications on the session's standalone GET stream only; one it
//! sends while that stream is not open is lost. A client opens the stream right after the
//! handshake but does not wait for it, so its next request can overtake the GET — in a relay
//! more easily than directly. So once `notifications/initialized` is answered, Blindfold opens
//! the standalone stream upstream itself, before it forwards any later request of the session,
//! and hands that stream to the client's GET when it comes (the server's messages wait in it
//! meanwhile). A GET of the client's own (another stream, or a resumption with `Last-Event-ID`)
//! holds the session the same way until the upstream has answered its headers.

use crate::transports::proxy::{Upstream, is_event_stream};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use dashmap::DashMap;
use hyper::body::Incoming;
use std::sync::Arc;
use tokio::sync::{Mutex, OwnedRwLockWriteGuard, RwLock};

type UpstreamResponse = axum::http::Response<Incoming>;

/// The order of every session of one `/mcp` proxy.
#[derive(Default)]
pub(super) struct SessionOrder {
    turns: DashMap<String, Arc<RwLock<()>>>,
    /// Standalone streams opened upstream for a session, until its client's GET takes them.
    standalone: DashMap<String, Arc<Mutex<Option<UpstreamResponse>>>>,
}

impl SessionOrder {
    /// Waits until a request of `session` may be forwarded: after every GET of the session that
    /// came before it has its upstream headers. A GET holds the session until its own headers
    /// are in: drop the returned guard then.
    pub async fn wait_turn(
        &self,
        session: Option<&str>,
        method: &Method,
    ) -> Option<OwnedRwLockWriteGuard<()>> {
        let turn = self.turn(session?);
        if method == Method::GET {
            return Some(turn.write_owned().await);
        }
        drop(turn.read().await);
        None
    }

    fn turn(&self, session: &str) -> Arc<RwLock<()>> {
        self.turns.entry(session.to_owned()).or_default().clone()
    }

    /// Opens `session`'s standalone stream at the upstream `url` (with the headers of the
    /// client's `notifications/initialized`, as a GET asking for an event stream). Returns once
    /// the session is held: no later request of it is forwarded before the stream's headers are
    /// in.
    pub async fn open_standalone(
        &self,
        session: &str,
        upstream: &Upstream,
        url: &str,
        mut headers: HeaderMap,
    ) {
        let held = self.turn(session).write_owned().await;
        let slot = Arc::new(Mutex::new(None));
        let Ok(mut filling) = slot.clone().try_lock_owned() else { return };
        self.standalone.insert(session.to_owned(), slot);
        headers.remove(header::CONTENT_TYPE);
        headers.remove(header::CONTENT_LENGTH);
        headers.insert(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let (upstream, url) = (upstream.clone(), url.to_owned());
        tokio::spawn(async move {
            let answer = upstream.send(Method::GET, &url, headers, Default::default()).await;
            let stream = answer.ok().filter(|r| r.status().is_success() && is_event_stream(r.headers()));
            *filling = stream;
            drop(filling);
            drop(held);
        });
    }

    /// The standalone stream opened for `session`, for the client's first GET without
    /// `Last-Event-ID` (waiting while it is still opening); `None` when there is none (the
    /// upstream refused it, or it was taken).
    pub async fn take_standalone(
        &self,
        session: Option<&str>,
        headers: &HeaderMap,
    ) -> Option<UpstreamResponse> {
        if headers.contains_key("last-event-id") {
            return None;
        }
        let (_, slot) = self.standalone.remove(session?)?;
        let mut opened = slot.lock().await;
        opened.take()
    }

    /// Forgets an ended session.
    pub fn end(&self, session: &str) {
        self.turns.remove(session);
        self.standalone.remove(session);
    }
}
