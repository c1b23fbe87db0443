//! The console's live feeds, as server-sent events: the pending reviews (a fresh list whenever
//! the queue changes — told by the queue's change feed, and looked at every few seconds too, so a
//! queue shared by several daemons shows items another one holds), and one trajectory's new trace
//! records. A feed ends when its session does. The trace is subscribed to only while a
//! trajectory page is open, so nobody watching costs the writer nothing.

use super::{ApiError, Console, session, trajectories};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde_json::json;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How often the review feed looks at the queue without being told of a change.
const REVIEW_POLL: Duration = Duration::from_secs(3);

type Events = axum::response::Response;
type EventStream = std::pin::Pin<Box<dyn Stream<Item = Result<Event, Infallible>> + Send>>;

/// `GET /console/api/events`: `reviews` events, each the list of pending items.
pub async fn reviews(State(c): State<Arc<Console>>, headers: HeaderMap) -> Result<Events, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let changes = c.app.reviews().subscribe();
    let state = ReviewFeed { console: c, headers, changes, last: None, first: true };
    let stream = futures_util::stream::unfold(state, |mut feed| async move {
        let event = feed.next().await?;
        Some((Ok(event), feed))
    });
    let stream: EventStream = Box::pin(stream);
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()).into_response())
}

struct ReviewFeed {
    console: Arc<Console>,
    headers: HeaderMap,
    changes: broadcast::Receiver<crate::runtime::review::ReviewChange>,
    last: Option<String>,
    first: bool,
}

impl ReviewFeed {
    /// The next list that differs from the last one sent; `None` once the session has ended.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if !self.first {
                tokio::select! {
                    _ = self.changes.recv() => {}
                    () = tokio::time::sleep(REVIEW_POLL) => {}
                }
            }
            self.first = false;
            self.console.sessions.session(&self.headers).ok()?;
            let app = self.console.app.clone();
            let listed = tokio::task::spawn_blocking(move || {
                super::api::review_summaries(&app, Some(crate::runtime::review::ReviewStatus::Pending))
            })
            .await
            .ok()?;
            let data = match listed {
                Ok(list) => json!({"reviews": list}).to_string(),
                Err(e) => json!({"error": e.1}).to_string(),
            };
            if self.last.as_deref() != Some(data.as_str()) {
                self.last = Some(data.clone());
                return Some(Event::default().event("reviews").data(data));
            }
        }
    }
}

/// `GET /console/api/trajectories/{id}/events`: a `record` event per new trace record of the
/// trajectory (a row as the trajectory page draws it), `resync` when the feed fell behind.
pub async fn trajectory(
    State(c): State<Arc<Console>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Events, ApiError> {
    session::guard(&c.app, &headers)?;
    c.sessions.session(&headers)?;
    let trace = c.app.trace.clone().ok_or_else(|| {
        ApiError(axum::http::StatusCode::CONFLICT, "tracing is off ([trace] enabled = false)".into())
    })?;
    let rx = trace.sink().subscribe();
    let feed = TraceFeed { console: c, headers, rx, trajectory: id };
    let stream = futures_util::stream::unfold(feed, |mut feed| async move {
        let event = feed.next().await?;
        Some((Ok(event), feed))
    });
    let stream: EventStream = Box::pin(stream);
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()).into_response())
}

struct TraceFeed {
    console: Arc<Console>,
    headers: HeaderMap,
    rx: broadcast::Receiver<Arc<blindfold_schemas::TraceRecord>>,
    trajectory: String,
}

impl TraceFeed {
    async fn next(&mut self) -> Option<Event> {
        loop {
            let got = tokio::time::timeout(REVIEW_POLL, self.rx.recv()).await;
            self.console.sessions.session(&self.headers).ok()?;
            match got {
                Err(_) => continue,
                Ok(Ok(record)) if record.trajectory == self.trajectory => {
                    let row = trajectories::row(&record);
                    return Some(Event::default().event("record").data(row.to_string()));
                }
                Ok(Ok(_)) => continue,
                Ok(Err(broadcast::error::RecvError::Lagged(missed))) => {
                    return Some(
                        Event::default().event("resync").data(json!({"missed": missed}).to_string()),
                    );
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            }
        }
    }
}
