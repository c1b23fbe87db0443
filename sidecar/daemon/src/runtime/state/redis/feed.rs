//! The feed every Blindfold follows: revocations (numbered, so a gap shows — plain pub/sub could
//! not tell a lost message) and answered reviews, read with `XREAD BLOCK` on a connection of its
//! own. It catches up from an atomic snapshot at every (re)connection and whenever it sees a
//! gap; until it has, the backend is not ready and effects are refused. It re-checks Redis's
//! durability settings at every connection, and forgets expired revocations now and then.

use super::RedisState;
use super::client::BackendError;
use super::scripts::{SNAPSHOT, SWEEP};
use super::settings::{int, text};
use redis::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one `XREAD` waits for news (a quiet feed still proves the connection every time).
const BLOCK: Duration = Duration::from_millis(1000);
/// Entries read per `XREAD`.
const BATCH: usize = 512;
/// How often expired revocations are forgotten.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Longest pause between two reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// A review answered on some Blindfold of the fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewEvent {
    /// The review id.
    pub id: String,
    /// Its new status (`approved`, `rejected`, `expired`, `withdrawn`).
    pub status: String,
}

/// Starts following on the client's runtime; runs for the life of the process.
pub fn start(state: Arc<RedisState>) {
    let runtime = state.client.runtime().clone();
    runtime.spawn(async move {
        let mut backoff = Duration::from_millis(50);
        loop {
            let e = follow(&state).await;
            state.health.set_lost(e);
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    });
}

/// Where the feed stands.
struct Position {
    seq: u64,
    revocations: String,
    reviews: String,
}

/// Follows until something fails; the error says what.
async fn follow(state: &Arc<RedisState>) -> BackendError {
    if let Err(e) = super::settings::check(&state.client, &state.config).await {
        return e;
    }
    let mut conn = match state.client.dedicated(BLOCK).await {
        Ok(c) => c,
        Err(e) => return e,
    };
    let mut position = match catch_up(state, None).await {
        Ok(p) => p,
        Err(e) => return e,
    };
    let mut swept = Instant::now();
    loop {
        let read = read_batch(state, &mut conn, &position).await;
        let entries = match read {
            Ok(entries) => entries,
            Err(e) => return e,
        };
        for (stream, id, fields) in entries {
            if stream == state.keys.review_stream() {
                position.reviews = id;
                publish_review(state, &fields);
                continue;
            }
            position.revocations = id;
            match apply_revocation(state, &fields, position.seq) {
                Applied::Next(seq) => {
                    position.seq = seq;
                    state.health.set_ready(seq);
                }
                Applied::Old => {}
                Applied::Gap(seq) => {
                    state.health.gaps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    state.health.set_lost(state.client.not_ready(format!(
                        "the revocation feed skipped from {} to {seq}; catching up",
                        position.seq
                    )));
                    position = match catch_up(state, Some(position.reviews.clone())).await {
                        Ok(p) => p,
                        Err(e) => return e,
                    };
                    break;
                }
            }
        }
        if swept.elapsed() >= SWEEP_EVERY {
            swept = Instant::now();
            let now = crate::unix_now().to_string();
            if let Err(e) = SWEEP.run(&state.client, &[&state.keys.revoked()], &[&now]).await {
                tracing::warn!(error = %e, "expired revocations not swept");
            }
        }
    }
}

/// Reads everything in force from the snapshot and marks the backend ready at its sequence
/// number. Answered reviews go on from `reviews` when given (a gap in revocations says nothing
/// about reviews), else from the stream's end.
async fn catch_up(state: &Arc<RedisState>, reviews: Option<String>) -> Result<Position, BackendError> {
    let k = &state.keys;
    let keys = [k.revoked(), k.revocation_seq(), k.revocation_stream(), k.review_stream()];
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let answer = SNAPSHOT.run(&state.client, &keys, &[]).await?;
    let bad = || state.client.bad("the feed snapshot");
    let Value::Array(parts) = answer else { return Err(bad()) };
    let [seq, revocations, last_review, hash] = parts.as_slice() else { return Err(bad()) };
    let seq = int(seq).and_then(|n| u64::try_from(n).ok()).ok_or_else(bad)?;
    let Value::Array(flat) = hash else { return Err(bad()) };
    let mut all = std::collections::HashMap::new();
    for pair in flat.chunks(2) {
        let (Some(f), Some(v)) = (pair.first().and_then(text), pair.get(1).and_then(text)) else {
            return Err(bad());
        };
        if let Some(jti) = f.strip_prefix("jti:") {
            state.revoked_grant(jti);
        }
        all.insert(f, v);
    }
    state.health.remember_all(all);
    let before = state.health.applied_seq();
    if seq < before {
        tracing::error!(
            before,
            now = seq,
            "the revocation sequence went back: Redis lost state it had acknowledged"
        );
    }
    state.health.set_ready(seq);
    Ok(Position {
        seq,
        revocations: text(revocations).ok_or_else(bad)?,
        reviews: match reviews {
            Some(r) => r,
            None => text(last_review).ok_or_else(bad)?,
        },
    })
}

/// One `XREAD BLOCK` of both streams: `(stream, entry id, fields)` in order.
async fn read_batch(
    state: &RedisState,
    conn: &mut redis::aio::MultiplexedConnection,
    at: &Position,
) -> Result<Vec<(String, String, Vec<(String, String)>)>, BackendError> {
    let mut cmd = redis::cmd("XREAD");
    cmd.arg("COUNT").arg(BATCH).arg("BLOCK").arg(BLOCK.as_millis() as u64).arg("STREAMS");
    cmd.arg(state.keys.revocation_stream()).arg(state.keys.review_stream());
    cmd.arg(&at.revocations).arg(&at.reviews);
    let limit = BLOCK + state.client.bound();
    let answer = match tokio::time::timeout(limit, cmd.query_async::<Value>(conn)).await {
        Err(_) => return Err(state.client.slow()),
        Ok(Err(e)) => return Err(state.client.classify(&e)),
        Ok(Ok(v)) => v,
    };
    let bad = || state.client.bad("an XREAD answer");
    let mut out = Vec::new();
    let streams = match answer {
        Value::Nil => return Ok(out),
        Value::Array(s) => s,
        Value::Map(m) => m.into_iter().map(|(k, v)| Value::Array(vec![k, v])).collect(),
        _ => return Err(bad()),
    };
    for stream in streams {
        let Value::Array(pair) = stream else { return Err(bad()) };
        let (Some(name), Some(Value::Array(entries))) = (pair.first().and_then(text), pair.get(1)) else {
            return Err(bad());
        };
        for entry in entries {
            let Value::Array(e) = entry else { return Err(bad()) };
            let (Some(id), Some(Value::Array(flat))) = (e.first().and_then(text), e.get(1)) else {
                return Err(bad());
            };
            let fields = flat.chunks(2).filter_map(|p| Some((text(p.first()?)?, text(p.get(1)?)?))).collect();
            out.push((name.clone(), id, fields));
        }
    }
    // Both streams came in one answer: revocations first is as good as any order (they are
    // independent), but within a stream the order is kept.
    Ok(out)
}

/// What one revocation entry did.
enum Applied {
    /// It was the next one: applied, at this sequence number.
    Next(u64),
    /// Already applied (it came in the snapshot).
    Old,
    /// One or more before it are missing.
    Gap(u64),
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn apply_revocation(state: &RedisState, fields: &[(String, String)], applied: u64) -> Applied {
    let Some(seq) = field(fields, "seq").and_then(|s| s.parse::<u64>().ok()) else {
        // An entry without a number cannot be placed: treat it as a gap and catch up.
        return Applied::Gap(applied.saturating_add(2));
    };
    if seq <= applied {
        return Applied::Old;
    }
    if seq != applied + 1 {
        return Applied::Gap(seq);
    }
    if let (Some(f), Some(v)) = (field(fields, "field"), field(fields, "value")) {
        state.health.remember(f, v);
        if let Some(jti) = f.strip_prefix("jti:") {
            state.revoked_grant(jti);
        }
    }
    Applied::Next(seq)
}

fn publish_review(state: &RedisState, fields: &[(String, String)]) {
    if let (Some(id), Some(status)) = (field(fields, "id"), field(fields, "status")) {
        let _ = state.reviews.send(ReviewEvent { id: id.to_owned(), status: status.to_owned() });
    }
}
