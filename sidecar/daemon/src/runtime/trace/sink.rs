//! The daemon's trace sink: one writer thread, group commit, acknowledgements, live fan-out.
//!
//! Callers submit records in order (sequence numbers are given out under the queue's lock, so the
//! file order is the submission order). A durable record comes back with an acknowledgement the
//! decision waits for, and wakes the writer at once; whatever is queued then is written in one
//! `write` (and one fsync with `durability = "fsync"`), so concurrent decisions share the cost.
//!
//! An informational record (a read allowed, a tool result) does not wake the writer: it lingers
//! in the queue at most [`LINGER`] (or until [`WAKE_AT`] records wait, or a durable one arrives),
//! so a stream of decisions costs one writer wake-up per batch instead of one per record. After
//! a batch the writer keeps watching the queue for [`LINGER`] on its own timer and then takes
//! whatever arrived: a steady stream wakes it once per batch and its submitters never. It is
//! woken only when it sleeps with nothing queued and no watch running. [`TraceSink::flush`]
//! writes everything queued before a process exits. The writer thread runs a little nicer than
//! the threads that decide (`WRITER_NICENESS`), so on busy cores it takes the slack.

use super::writer::TraceWriter;
use blindfold_schemas::TraceRecord;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
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
const QUEUE_WAIT: Duration = Duration::from_secs(10);
/// Longest an informational record waits in the queue before the writer takes it.
pub const LINGER: Duration = Duration::from_millis(2);
/// Queued records that wake a lingering writer before [`LINGER`] is up.
pub const WAKE_AT: usize = 256;
/// Batch buffers keep room for this many records between batches.
const KEEP_JOBS: usize = WAKE_AT;
/// Longest [`TraceSink::flush`] waits for the writer.
const FLUSH_WAIT: Duration = Duration::from_secs(10);

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

fn poisoned() -> TraceWriteError {
    TraceWriteError("trace queue poisoned".into())
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
    /// [`TraceSink::submit_blocking`], which is usable inside a runtime). On a worker of a
    /// multi-threaded runtime the worker is handed over first (`block_in_place`), so the
    /// runtime's other connections go on while this caller waits for the disk (with one worker
    /// they would otherwise all wait); on a current-thread runtime or a plain thread it blocks in
    /// place. A record that needs no acknowledgement returns at once, handing nothing over.
    pub fn written_blocking(self) -> Result<(), TraceWriteError> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        if matches!(self.ack, Pending::None) {
            return Ok(());
        }
        let wait = move || match self.ack {
            Pending::None => Ok(()),
            Pending::Async(rx) => rx.blocking_recv().unwrap_or_else(|_| Err(stopped())),
            Pending::Sync(rx) => rx.recv().unwrap_or_else(|_| Err(stopped())),
        };
        let multi = Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
        if multi { tokio::task::block_in_place(wait) } else { wait() }
    }
}

/// What the writer thread is doing, as far as a submitter needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writer {
    /// Writing, or about to look at the queue: it will see a new record without a wake-up.
    Busy,
    /// Asleep with nothing queued: the next record must wake it.
    Idle,
    /// Asleep until the oldest queued record's [`LINGER`] is up, or until its watch after a batch
    /// ends: only a durable record, a full batch or a flush wakes it earlier.
    Lingering,
}

/// The queue between submitters and the writer thread.
struct Queue {
    /// The `seq` of the next submitted record.
    next_seq: u64,
    jobs: Vec<Job>,
    /// When the oldest queued record was queued.
    oldest: Option<Instant>,
    /// A durable record or a flush waits: write without lingering.
    urgent: bool,
    writer: Writer,
    /// Every record up to this `seq` was handed to the writer's `append` (written or failed).
    done_through: u64,
    /// Submitters waiting for room, flushers waiting for `done_through`.
    waiting: usize,
    /// The sink was dropped: write what is queued, then stop.
    closed: bool,
    /// The writer thread is gone.
    stopped: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    /// The writer sleeps on this.
    wake: Condvar,
    /// Submitters waiting for room and flushers wait on this; the writer notifies it after a batch.
    progress: Condvar,
    /// Batches the writer failed to write.
    failures: std::sync::atomic::AtomicU64,
}

impl Shared {
    fn lock(&self) -> Result<MutexGuard<'_, Queue>, TraceWriteError> {
        self.queue.lock().map_err(|_| poisoned())
    }
}

/// The writer thread's front door.
pub struct TraceSink {
    shared: Arc<Shared>,
    live: broadcast::Sender<Arc<TraceRecord>>,
}

impl TraceSink {
    /// Starts the writer thread over `writer`.
    pub fn start(writer: TraceWriter) -> std::io::Result<Arc<Self>> {
        let (live, _) = broadcast::channel(LIVE_BUFFER);
        let next_seq = writer.next_seq();
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                next_seq,
                jobs: Vec::new(),
                oldest: None,
                urgent: false,
                writer: Writer::Busy,
                done_through: next_seq.saturating_sub(1),
                waiting: 0,
                closed: false,
                stopped: false,
            }),
            wake: Condvar::new(),
            progress: Condvar::new(),
            failures: std::sync::atomic::AtomicU64::new(0),
        });
        let (s, l) = (shared.clone(), live.clone());
        std::thread::Builder::new().name("blindfold-trace".into()).spawn(move || {
            yield_to_deciders();
            run(writer, &s, &l)
        })?;
        Ok(Arc::new(Self { shared, live }))
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

    /// Queues `job`, waiting while the queue is full; a queue still full after [`QUEUE_WAIT`] is
    /// an error, never a silently dropped record.
    fn enqueue(
        &self,
        mut record: TraceRecord,
        ack: Option<Ack>,
        pending: Pending,
    ) -> Result<Submitted, TraceWriteError> {
        let durable = ack.is_some();
        let mut q = self.shared.lock()?;
        if q.jobs.len() >= QUEUE_CAP {
            q = self.wait_for_room(q)?;
        }
        if q.stopped || q.closed {
            return Err(stopped());
        }
        record.seq = q.next_seq;
        let seq = record.seq;
        q.next_seq += 1;
        if q.jobs.is_empty() {
            q.oldest = Some(Instant::now());
        }
        q.jobs.push(Job { record, ack });
        q.urgent |= durable;
        let wake = match q.writer {
            Writer::Busy => false,
            Writer::Idle => true,
            Writer::Lingering => durable || q.jobs.len() >= WAKE_AT,
        };
        if wake {
            q.writer = Writer::Busy;
            drop(q);
            self.shared.wake.notify_one();
        }
        Ok(Submitted { seq, ack: pending })
    }

    fn wait_for_room<'a>(
        &'a self,
        mut q: MutexGuard<'a, Queue>,
    ) -> Result<MutexGuard<'a, Queue>, TraceWriteError> {
        let deadline = Instant::now() + QUEUE_WAIT;
        q.urgent = true;
        if q.writer != Writer::Busy {
            q.writer = Writer::Busy;
            self.shared.wake.notify_one();
        }
        q.waiting += 1;
        while q.jobs.len() >= QUEUE_CAP && !q.stopped {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                q.waiting -= 1;
                tracing::error!(records = QUEUE_CAP, "trace queue full: the writer is not keeping up");
                return Err(TraceWriteError(format!(
                    "trace queue full ({QUEUE_CAP} records waiting for the writer)"
                )));
            }
            q = self.shared.progress.wait_timeout(q, left).map_err(|_| poisoned())?.0;
        }
        q.waiting -= 1;
        Ok(q)
    }

    /// Writes every record submitted so far (without waiting for [`LINGER`]) and returns once the
    /// writer has handled them; for a process about to exit. Bounded: an error after a while.
    pub fn flush(&self) -> Result<(), TraceWriteError> {
        let mut q = self.shared.lock()?;
        let target = q.next_seq.saturating_sub(1);
        if q.done_through >= target {
            return Ok(());
        }
        q.urgent = true;
        if q.writer != Writer::Busy {
            q.writer = Writer::Busy;
            self.shared.wake.notify_one();
        }
        let deadline = Instant::now() + FLUSH_WAIT;
        q.waiting += 1;
        while q.done_through < target && !q.stopped {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            q = self.shared.progress.wait_timeout(q, left).map_err(|_| poisoned())?.0;
        }
        q.waiting -= 1;
        if q.done_through >= target { Ok(()) } else { Err(stopped()) }
    }

    /// Records submitted and not yet written (the writer's lag), for metrics.
    pub fn queued(&self) -> usize {
        self.shared.lock().map_or(0, |q| q.jobs.len())
    }

    /// Batches the writer failed to write since it started.
    pub fn failures(&self) -> u64 {
        self.shared.failures.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A receiver of every record written from now on (live subscribers of the control API).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<TraceRecord>> {
        self.live.subscribe()
    }
}

impl Drop for TraceSink {
    /// The writer writes what is queued, then stops.
    fn drop(&mut self) {
        if let Ok(mut q) = self.shared.queue.lock() {
            q.closed = true;
            q.writer = Writer::Busy;
        }
        self.shared.wake.notify_one();
    }
}

/// How much nicer than the process the writer thread runs.
const WRITER_NICENESS: i32 = 5;

/// Lowers the calling (writer) thread's scheduling priority: on a busy machine the threads that
/// decide and relay run first, and the writer takes the slack (it batches anyway; a durable
/// record's decision still waits for its write, which a lower priority delays only while the
/// CPU is contended, never indefinitely). Best effort: nothing changes where it is not allowed.
fn yield_to_deciders() {
    let me = Some(rustix::thread::gettid());
    if let Ok(now) = rustix::process::getpriority_process(me) {
        let _ = rustix::process::setpriority_process(me, (now + WRITER_NICENESS).min(19));
    }
}

/// The next batch to write, once one is due, in `spare` (empty; the queue keeps the other
/// buffer, so neither is allocated again); `None` when the sink is closed and drained. Until
/// `watch_until` (just after a batch) the writer sleeps on its own timer rather than waiting to
/// be woken, and when it is up takes whatever arrived meanwhile (each record younger than
/// [`LINGER`]).
fn next_batch(shared: &Shared, mut spare: Vec<Job>, mut watch_until: Option<Instant>) -> Option<Vec<Job>> {
    let mut q = shared.queue.lock().ok()?;
    loop {
        let now = Instant::now();
        let watch_left = watch_until.map(|t| t.saturating_duration_since(now)).filter(|d| !d.is_zero());
        if !q.jobs.is_empty() {
            let age = q.oldest.map_or(LINGER, |t| now.saturating_duration_since(t));
            let watched = watch_until.is_some() && watch_left.is_none();
            if q.urgent || q.closed || q.jobs.len() >= WAKE_AT || age >= LINGER || watched {
                let jobs = if q.jobs.len() <= MAX_BATCH {
                    std::mem::swap(&mut q.jobs, &mut spare);
                    spare
                } else {
                    q.jobs.drain(..MAX_BATCH).collect()
                };
                if q.jobs.is_empty() {
                    q.oldest = None;
                    q.urgent = false;
                }
                q.writer = Writer::Busy;
                return Some(jobs);
            }
            q.writer = Writer::Lingering;
            let linger = LINGER - age;
            q = shared.wake.wait_timeout(q, watch_left.map_or(linger, |w| w.min(linger))).ok()?.0;
        } else if q.closed {
            return None;
        } else if let Some(left) = watch_left {
            q.writer = Writer::Lingering;
            q = shared.wake.wait_timeout(q, left).ok()?.0;
        } else {
            watch_until = None;
            q.writer = Writer::Idle;
            q = shared.wake.wait(q).ok()?;
        }
        q.writer = Writer::Busy;
    }
}

fn run(mut writer: TraceWriter, shared: &Shared, live: &broadcast::Sender<Arc<TraceRecord>>) {
    let (mut spare, mut records, mut acks) = (Vec::new(), Vec::new(), Vec::new());
    let mut watch_until = None;
    while let Some(mut jobs) = next_batch(shared, spare, watch_until) {
        records.clear();
        acks.clear();
        for j in jobs.drain(..) {
            records.push(j.record);
            acks.push(j.ack);
        }
        spare = jobs;
        // Buffers sized for a steady stream are kept; a burst's are not.
        spare.shrink_to(KEEP_JOBS);
        let result = writer.append(&mut records).map_err(|e| TraceWriteError(e.to_string()));
        if let Err(e) = &result {
            shared.failures.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tracing::error!(error = %e, records = records.len(), "trace write failed; waiting decisions fail closed");
        }
        let last = records.last().map(|r| r.seq);
        if result.is_ok() && live.receiver_count() > 0 {
            for record in records.drain(..) {
                let _ = live.send(Arc::new(record));
            }
        }
        for ack in acks.drain(..).flatten() {
            match ack {
                Ack::Async(tx) => {
                    let _ = tx.send(result.clone());
                }
                Ack::Sync(tx) => {
                    let _ = tx.send(result.clone());
                }
            }
        }
        records.clear();
        records.shrink_to(KEEP_JOBS);
        acks.shrink_to(KEEP_JOBS);
        let Ok(mut q) = shared.queue.lock() else { break };
        if let Some(last) = last {
            q.done_through = q.done_through.max(last);
        }
        if q.waiting > 0 {
            shared.progress.notify_all();
        }
        drop(q);
        watch_until = Some(Instant::now() + LINGER);
    }
    if let Ok(mut q) = shared.queue.lock() {
        q.stopped = true;
        // Records queued after the close are never written: their acknowledgements fail.
        q.jobs.clear();
    }
    shared.progress.notify_all();
}

#[cfg(test)]
mod tests {
    use super::{Pending, Submitted, TraceWriteError};
    use crate::runtime::trace::Queued;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_blocking_wait_for_a_durable_record_hands_a_one_worker_runtime_over() {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).build().expect("runtime");
        // A durable record whose acknowledgement the test gives, when it chooses.
        let (ack, acked) = mpsc::sync_channel::<Result<(), TraceWriteError>>(1);
        let queued = Queued { submitted: Ok(Submitted { seq: 1, ack: Pending::Sync(acked) }), durable: true };
        let (started_tx, started) = mpsc::channel();
        let waiting = runtime.spawn(async move {
            started_tx.send(()).expect("started");
            queued.written_blocking()
        });
        started.recv_timeout(Duration::from_secs(10)).expect("the waiting task runs");
        // The only worker is inside that wait; another task runs only if it was handed over.
        let (ran_tx, ran) = mpsc::channel();
        runtime.spawn(async move { ran_tx.send(()).expect("ran") });
        ran.recv_timeout(Duration::from_secs(10)).expect("another task ran during the wait");
        assert!(!waiting.is_finished(), "still waiting for its acknowledgement");
        ack.send(Ok(())).expect("ack");
        assert_eq!(runtime.block_on(waiting).expect("joined"), Ok(()));
    }
}
