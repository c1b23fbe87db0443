//! The daemon's trace sink: one writer thread, group commit, acknowledgements, live fan-out.
//!
//! Callers submit records in order (sequence numbers are given out under one lock, so the file
//! order is the submission order). A durable record comes back with an acknowledgement the
//! decision waits for; whatever is pending when the writer wakes is written in one `write` (and one
//! fsync with `durability = "fsync"`), so concurrent decisions share the cost.

use super::writer::TraceWriter;
use blindfold_schemas::TraceRecord;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, oneshot};

/// Most records written in one batch.
const MAX_BATCH: usize = 4096;
/// Records kept for slow live subscribers before they lag.
const LIVE_BUFFER: usize = 1024;
/// Records queued for the writer at most: past it, submitters wait (backpressure) instead of
/// the queue growing without bound while the disk is slower than the decisions.
const QUEUE_CAP: usize = 8192;
/// How long a submitter waits for room in a full queue before its record fails (a durable one
/// then turns its decision into a denial: never a decision without its record).
const QUEUE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The trace could not be written: a decision waiting for it fails closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("trace not written: {0}")]
pub struct TraceWriteError(pub String);

type Written = Result<(), TraceWriteError>;

/// How a waiting caller is told its record is written.
enum Ack {
    /// An async caller awaits this.
    Async(oneshot::Sender<Written>),
    /// A synchronous caller blocks on this (allowed inside a runtime, unlike a oneshot).
    Sync(mpsc::SyncSender<Written>),
}

struct Job {
    record: TraceRecord,
    ack: Option<Ack>,
}

enum Pending {
    None,
    Async(oneshot::Receiver<Written>),
    Sync(mpsc::Receiver<Written>),
}

/// A submitted record: its sequence number and, for a durable one, the pending acknowledgement.
pub struct Submitted {
    /// The record's `seq`.
    pub seq: u64,
    ack: Pending,
}

fn stopped() -> TraceWriteError {
    TraceWriteError("trace writer stopped".into())
}

impl Submitted {
    /// Waits until the record is on the OS (or fsynced); `Ok` at once for a non-durable record.
    pub async fn written(self) -> Result<(), TraceWriteError> {
        match self.ack {
            Pending::None => Ok(()),
            Pending::Async(rx) => rx.await.unwrap_or_else(|_| Err(stopped())),
            Pending::Sync(rx) => rx.recv().unwrap_or_else(|_| Err(stopped())),
        }
    }

    /// The same, blocking the calling thread (for records submitted with
    /// [`TraceSink::submit_blocking`], which is usable inside a runtime).
    pub fn written_blocking(self) -> Result<(), TraceWriteError> {
        match self.ack {
            Pending::None => Ok(()),
            Pending::Async(rx) => rx.blocking_recv().unwrap_or_else(|_| Err(stopped())),
            Pending::Sync(rx) => rx.recv().unwrap_or_else(|_| Err(stopped())),
        }
    }
}

/// The writer thread's front door.
pub struct TraceSink {
    /// Next sequence number and the queue, behind one lock so seq order is queue order.
    queue: Mutex<(u64, mpsc::SyncSender<Job>)>,
    live: broadcast::Sender<Arc<TraceRecord>>,
}

impl TraceSink {
    /// Starts the writer thread over `writer`.
    pub fn start(writer: TraceWriter) -> std::io::Result<Arc<Self>> {
        let (tx, rx) = mpsc::sync_channel::<Job>(QUEUE_CAP);
        let (live, _) = broadcast::channel(LIVE_BUFFER);
        let sink = Arc::new(Self { queue: Mutex::new((writer.next_seq(), tx)), live: live.clone() });
        std::thread::Builder::new().name("blindfold-trace".into()).spawn(move || run(writer, &rx, &live))?;
        Ok(sink)
    }

    /// Queues `record` (its `seq` is assigned here). With `durable`, the returned value carries an
    /// acknowledgement to `.await` before the decision takes effect.
    pub fn submit(&self, record: TraceRecord, durable: bool) -> Result<Submitted, TraceWriteError> {
        if !durable {
            return self.enqueue(record, None, Pending::None);
        }
        let (tx, rx) = oneshot::channel();
        self.enqueue(record, Some(Ack::Async(tx)), Pending::Async(rx))
    }

    /// The same, for a caller that will block on [`Submitted::written_blocking`].
    pub fn submit_blocking(&self, record: TraceRecord, durable: bool) -> Result<Submitted, TraceWriteError> {
        if !durable {
            return self.enqueue(record, None, Pending::None);
        }
        let (tx, rx) = mpsc::sync_channel(1);
        self.enqueue(record, Some(Ack::Sync(tx)), Pending::Sync(rx))
    }

    fn enqueue(
        &self,
        mut record: TraceRecord,
        ack: Option<Ack>,
        pending: Pending,
    ) -> Result<Submitted, TraceWriteError> {
        let mut queue = self.queue.lock().map_err(|_| TraceWriteError("trace queue poisoned".into()))?;
        record.seq = queue.0;
        let seq = record.seq;
        send_bounded(&queue.1, Job { record, ack })?;
        queue.0 += 1;
        Ok(Submitted { seq, ack: pending })
    }

    /// A receiver of every record written from now on (live subscribers of the control API).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<TraceRecord>> {
        self.live.subscribe()
    }
}

/// Queues `job`, waiting (under the queue lock, so sequence order holds) while the queue is
/// full; a queue still full after [`QUEUE_WAIT`] is an error, never a silently dropped record.
fn send_bounded(tx: &mpsc::SyncSender<Job>, job: Job) -> Result<(), TraceWriteError> {
    let mut job = match tx.try_send(job) {
        Ok(()) => return Ok(()),
        Err(mpsc::TrySendError::Disconnected(_)) => return Err(stopped()),
        Err(mpsc::TrySendError::Full(job)) => job,
    };
    let deadline = std::time::Instant::now() + QUEUE_WAIT;
    let mut pause = std::time::Duration::from_micros(50);
    loop {
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(5));
        job = match tx.try_send(job) {
            Ok(()) => return Ok(()),
            Err(mpsc::TrySendError::Disconnected(_)) => return Err(stopped()),
            Err(mpsc::TrySendError::Full(job)) => job,
        };
        if std::time::Instant::now() >= deadline {
            tracing::error!(records = QUEUE_CAP, "trace queue full: the writer is not keeping up");
            return Err(TraceWriteError(format!(
                "trace queue full ({QUEUE_CAP} records waiting for the writer)"
            )));
        }
    }
}

fn run(mut writer: TraceWriter, rx: &mpsc::Receiver<Job>, live: &broadcast::Sender<Arc<TraceRecord>>) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let (mut records, acks): (Vec<TraceRecord>, Vec<_>) =
            jobs.into_iter().map(|j| (j.record, j.ack)).unzip();
        let result = writer.append(&mut records).map_err(|e| TraceWriteError(e.to_string()));
        if let Err(e) = &result {
            tracing::error!(error = %e, records = records.len(), "trace write failed; waiting decisions fail closed");
        }
        if result.is_ok() && live.receiver_count() > 0 {
            for record in records {
                let _ = live.send(Arc::new(record));
            }
        }
        for ack in acks.into_iter().flatten() {
            match ack {
                Ack::Async(tx) => {
                    let _ = tx.send(result.clone());
                }
                Ack::Sync(tx) => {
                    let _ = tx.send(result.clone());
                }
            }
        }
    }
}
