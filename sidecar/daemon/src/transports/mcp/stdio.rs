//! The MCP stdio relay: the client speaks to us on stdin/stdout, we speak to the real server
//! (a child process) on its stdin/stdout; newline-delimited JSON-RPC both ways through the
//! gate. The child's stderr passes through. When either side goes away the other follows; a
//! server that goes away first leaves the client an error answer for each pending request.
//!
//! Each direction is one thread doing blocking reads and writes, the gate in between: a frame
//! costs the gate's work and one `write`, with no hand-off between threads on the way (an async
//! stdin/stdout goes through the blocking pool twice per frame).

use super::connection::{FromClient, FromServer, McpConnection, Observation};
use std::io::{BufRead, BufReader, Write};
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the child may take to exit after its stdin closed before it is killed.
const CHILD_GRACE: Duration = Duration::from_secs(5);
/// Read buffer of stdin and of the server's stdout (bytes).
const READ_BUFFER: usize = 64 << 10;
/// Bytes of frames gathered at most before they are written (pipelined input).
const MAX_BATCH: usize = 64 << 10;

/// One line read from a stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line without its newline.
    Frame(Vec<u8>),
    /// A line longer than the limit (its bytes were discarded), with its length.
    TooLarge(usize),
}

/// Reads the next non-empty line of at most `max` bytes; `None` at end of stream.
pub fn read_line<R: BufRead>(r: &mut R, max: usize) -> std::io::Result<Option<Line>> {
    loop {
        let mut buf = Vec::new();
        let mut size = 0usize;
        let mut eof = false;
        loop {
            let available = match r.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                eof = true;
                break;
            }
            let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            size += chunk.len();
            if size <= max {
                buf.extend_from_slice(chunk);
            }
            r.consume(used);
            if done {
                break;
            }
        }
        if size > max {
            return Ok(Some(Line::TooLarge(size)));
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            if eof {
                return Ok(None);
            }
            continue;
        }
        return Ok(Some(Line::Frame(buf)));
    }
}

/// Writes one frame and its newline in one `write`, then flushes.
fn send<W: Write>(w: &mut W, mut frame: Vec<u8>) -> std::io::Result<()> {
    frame.push(b'\n');
    w.write_all(&frame)?;
    w.flush()
}

type Out = Arc<Mutex<std::io::Stdout>>;

fn send_out(out: &Out, frame: Vec<u8>) -> std::io::Result<()> {
    match out.lock() {
        Ok(mut o) => send(&mut *o, frame),
        Err(_) => Err(std::io::Error::other("stdout lock poisoned")),
    }
}

/// True when `buffered` holds a whole non-blank line: [`read_line`] returns another frame
/// (or a too-large line) without waiting for input.
fn frame_buffered(buffered: &[u8]) -> bool {
    buffered
        .iter()
        .rposition(|&b| b == b'\n')
        .is_some_and(|end| buffered[..end].iter().any(|b| !b.is_ascii_whitespace()))
}

/// Frames bound for one side, written together: while another frame is already buffered on the
/// way in (pipelined input), the ones ready go out in one `write` instead of one each. A frame
/// never waits for input that has not arrived.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
}

impl Batch {
    fn push(&mut self, frame: &[u8]) {
        self.bytes.extend_from_slice(frame);
        self.bytes.push(b'\n');
    }

    /// True when what is gathered must go out now: nothing more is ready to read, or it is big.
    fn due(&self, more_ready: bool) -> bool {
        !self.bytes.is_empty() && (!more_ready || self.bytes.len() >= MAX_BATCH)
    }
}

/// What the client loop is bounded by: the frame size, and how long a first `tools/call` to a
/// trusted server waits for the relay's own listing (signalled on `listed`).
struct RelayLimits {
    max_frame: usize,
    listing_wait: Duration,
    listed: std::sync::mpsc::Receiver<()>,
}

/// Client → server: every frame from stdin through the gate to the child's stdin.
fn client_loop(gate: &Mutex<McpConnection>, mut child_in: impl Write, out: &Out, limits: RelayLimits) {
    let max_frame = limits.max_frame;
    use std::os::fd::AsFd;
    // Our own buffer over stdin (a duplicate of its descriptor), so what is already read can be
    // looked at without blocking.
    let stdin = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => std::fs::File::from(fd),
        Err(e) => {
            eprintln!("blindfold: cannot read stdin: {e}");
            return;
        }
    };
    let mut stdin = BufReader::with_capacity(READ_BUFFER, stdin);
    let mut batch = Batch::default();
    while let Ok(Some(line)) = read_line(&mut stdin, max_frame) {
        if let Line::Frame(bytes) = &line
            && !list_tools_first(gate, bytes, &mut child_in, &mut batch, &limits)
        {
            break;
        }
        let Ok(mut g) = gate.lock() else { break };
        let verdict = match line {
            Line::TooLarge(size) => g.oversized_request(size),
            Line::Frame(bytes) => g.from_client(&bytes),
        };
        drop(g);
        let sent = match verdict {
            FromClient::Forward(bytes) => {
                batch.push(bytes.get());
                Ok(())
            }
            FromClient::Answer(v) => send_out(out, v.to_string().into_bytes()),
        };
        if sent.is_err() {
            break;
        }
        if batch.due(frame_buffered(stdin.buffer())) {
            if child_in.write_all(&batch.bytes).and_then(|()| child_in.flush()).is_err() {
                break;
            }
            batch.bytes.clear();
        }
    }
    // Dropping the child's stdin tells it the client went away.
}

/// Before the client frame `bytes` is decided, the relay's own listing of a trusted server's
/// tools, page by page while the gate asks for one ([`McpConnection::listing_request`]):
/// everything read so far goes first, then each request; the call waits (bounded per page)
/// until the server's answer taught the gate. False when the server's stdin is gone.
fn list_tools_first(
    gate: &Mutex<McpConnection>,
    bytes: &[u8],
    child_in: &mut impl Write,
    batch: &mut Batch,
    limits: &RelayLimits,
) -> bool {
    while let Some(listing) = gate.lock().ok().and_then(|mut g| g.listing_request(bytes)) {
        // A signal left by an answer that came after its wait ended must not stand in for this
        // page's answer.
        while limits.listed.try_recv().is_ok() {}
        batch.push(&listing);
        let written = child_in.write_all(&batch.bytes).and_then(|()| child_in.flush());
        batch.bytes.clear();
        if written.is_err() {
            return false;
        }
        let _ = limits.listed.recv_timeout(limits.listing_wait);
    }
    true
}

/// Server → client: every frame from the child's stdout through the gate to stdout.
fn server_loop(
    gate: &Mutex<McpConnection>,
    child_out: impl std::io::Read,
    out: &Out,
    max_frame: usize,
    listed: std::sync::mpsc::Sender<()>,
) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, child_out);
    let mut batch = Batch::default();
    let mut observed: Option<Observation> = None;
    while let Ok(Some(line)) = read_line(&mut reader, max_frame) {
        let (verdict, observation) = match line {
            Line::TooLarge(size) => match gate.lock() {
                Ok(mut g) => {
                    eprintln!(
                        "blindfold: dropped a {size}-byte message from the MCP server (limit {max_frame})"
                    );
                    (g.oversized_answer(size), None)
                }
                Err(_) => break,
            },
            Line::Frame(bytes) => match gate.lock() {
                Ok(mut g) if g.is_listing_answer(&bytes) => {
                    g.learn_listing(&bytes);
                    let _ = listed.send(());
                    continue;
                }
                Ok(mut g) => g.from_server_deferred(&bytes),
                Err(_) => break,
            },
        };
        match verdict {
            FromServer::Forward(bytes) => batch.push(bytes.get()),
            FromServer::Drop(Some(v)) => batch.push(v.to_string().as_bytes()),
            FromServer::Drop(None) => {}
        }
        match (&mut observed, observation) {
            (Some(o), Some(later)) => o.merge(later),
            (None, later) => observed = later,
            (Some(_), None) => {}
        }
        if batch.due(frame_buffered(reader.buffer())) && deliver(out, &mut batch, observed.take()).is_err() {
            break;
        }
    }
    let _ = deliver(out, &mut batch, observed.take());
}

/// Writes the gathered answers to stdout; their tool results are recorded right after they
/// are out (the gate's lock is free for the next call meanwhile; the trajectory's is held, so
/// that call's decision sees them).
fn deliver(out: &Out, batch: &mut Batch, observed: Option<Observation>) -> std::io::Result<()> {
    let mut write = || {
        if batch.bytes.is_empty() {
            return Ok(());
        }
        let sent = match out.lock() {
            Ok(mut o) => o.write_all(&batch.bytes).and_then(|()| o.flush()),
            Err(_) => Err(std::io::Error::other("stdout lock poisoned")),
        };
        batch.bytes.clear();
        sent
    };
    match observed {
        Some(o) => o.around(write),
        None => write(),
    }
}

/// Which side went away first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Client,
    Server,
}

/// Relays until one side goes away; returns the exit code (the child's when it exited). The
/// two directions run on their own threads inside the current runtime's context (so the gate
/// may hand work to the runtime), which this future keeps driving while it waits.
pub async fn relay(gate: McpConnection, mut child: Child, max_frame: usize, listing_wait: Duration) -> i32 {
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        eprintln!("blindfold: the MCP server's stdio is not available");
        return 1;
    };
    let gate = Arc::new(Mutex::new(gate));
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let (ended, mut first) = tokio::sync::mpsc::unbounded_channel::<Side>();
    let runtime = tokio::runtime::Handle::current();
    let spawn = |name: &str, side: Side, work: Box<dyn FnOnce() + Send>| {
        let (ended, runtime) = (ended.clone(), runtime.clone());
        std::thread::Builder::new().name(name.into()).spawn(move || {
            let _context = runtime.enter();
            work();
            let _ = ended.send(side);
        })
    };
    let (listed_tx, listed) = std::sync::mpsc::channel();
    let limits = RelayLimits { max_frame, listing_wait, listed };
    let (g, o) = (gate.clone(), out.clone());
    let client = spawn("mcp-client", Side::Client, Box::new(move || client_loop(&g, child_in, &o, limits)));
    let (g, o) = (gate.clone(), out.clone());
    let server = spawn(
        "mcp-server",
        Side::Server,
        Box::new(move || server_loop(&g, child_out, &o, max_frame, listed_tx)),
    );
    if client.is_err() || server.is_err() {
        eprintln!("blindfold: cannot start the relay threads");
        let _ = child.kill();
        return 1;
    }
    drop(ended);
    if first.recv().await == Some(Side::Server) {
        let orphaned = gate.lock().map(|mut g| g.abandon_pending()).unwrap_or_default();
        for answer in orphaned {
            if send_out(&out, answer.to_string().into_bytes()).is_err() {
                break;
            }
        }
    }
    wait_child(&mut child).await
}

/// The child's exit code once it exits; killed (exit code 1) when it is still running after
/// [`CHILD_GRACE`].
async fn wait_child(child: &mut Child) -> i32 {
    let deadline = Instant::now() + CHILD_GRACE;
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.code().unwrap_or(1),
            Ok(None) if Instant::now() < deadline => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_blank_lines_skipped() {
        let data: &[u8] = b"{\"a\":1}\r\n\n   \n0123456789ABCDEF\n{}";
        let mut r = BufReader::with_capacity(4, data);
        assert_eq!(read_line(&mut r, 10).expect("io"), Some(Line::Frame(b"{\"a\":1}".to_vec())));
        assert_eq!(read_line(&mut r, 10).expect("io"), Some(Line::TooLarge(16)));
        assert_eq!(read_line(&mut r, 10).expect("io"), Some(Line::Frame(b"{}".to_vec())));
        assert_eq!(read_line(&mut r, 10).expect("io"), None);
    }

    #[test]
    fn gathered_frames_wait_only_for_frames_already_read() {
        assert!(!frame_buffered(b""));
        assert!(!frame_buffered(b"{\"id\":2}"), "a partial line would wait for input");
        assert!(!frame_buffered(b"\n  \r\n"), "blank lines are skipped, then input is waited for");
        assert!(frame_buffered(b"{\"id\":2}\n{\"id\""));
        assert!(frame_buffered(b"\n{}\n"));
        let mut batch = Batch::default();
        assert!(!batch.due(false), "nothing gathered");
        batch.push(b"{}");
        assert!(batch.due(false), "nothing more ready: out now");
        assert!(!batch.due(true), "another frame is ready: gather it too");
        batch.push(&vec![b' '; MAX_BATCH]);
        assert!(batch.due(true), "big enough");
        assert_eq!(&batch.bytes[..3], b"{}\n");
    }

    #[test]
    fn a_frame_goes_out_with_its_newline() {
        let mut w = Vec::new();
        send(&mut w, b"{\"id\":1}".to_vec()).expect("write");
        assert_eq!(w, b"{\"id\":1}\n");
    }
}
