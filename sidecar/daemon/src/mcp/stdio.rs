//! The MCP stdio relay: the client speaks to us on stdin/stdout, we speak to the real server
//! (a child process) on its stdin/stdout; newline-delimited JSON-RPC both ways through the
//! gate. The child's stderr passes through. When either side goes away the other follows; a
//! server that goes away first leaves the client an error answer for each pending request.

use super::gate::{ClientVerdict, McpGate, ServerVerdict};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::Child;

/// How long the child may take to exit after its stdin closed before it is killed.
const CHILD_GRACE: Duration = Duration::from_secs(5);

/// One line read from a stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line without its newline.
    Frame(Vec<u8>),
    /// A line longer than the limit (its bytes were discarded), with its length.
    TooLarge(usize),
}

/// Reads the next non-empty line of at most `max` bytes; `None` at end of stream.
pub async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R, max: usize) -> std::io::Result<Option<Line>> {
    loop {
        let mut buf = Vec::new();
        let mut size = 0usize;
        let mut eof = false;
        loop {
            let available = r.fill_buf().await?;
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

type Out = Arc<tokio::sync::Mutex<tokio::io::Stdout>>;

async fn send<W: AsyncWrite + Unpin>(w: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(bytes).await?;
    w.write_all(b"\n").await?;
    w.flush().await
}

async fn send_out(out: &Out, bytes: &[u8]) -> std::io::Result<()> {
    send(&mut *out.lock().await, bytes).await
}

fn too_large(size: usize, max: usize) -> Value {
    let e = blindfold_adapters::jsonrpc::FrameError::TooLarge { size, limit: max };
    blindfold_adapters::jsonrpc::refusal_frame(&[], &e)
}

/// Relays until one side goes away; returns the exit code (the child's when it exited).
pub async fn relay(gate: McpGate, mut child: Child, max_frame: usize) -> i32 {
    let (Some(mut child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        eprintln!("blindfold: the MCP server's stdio is not available");
        return 1;
    };
    let gate = Arc::new(Mutex::new(gate));
    let out: Out = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));

    let client_gate = gate.clone();
    let client_out = out.clone();
    let (end_gate, end_out) = (gate.clone(), out.clone());
    let client = async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        while let Ok(Some(line)) = read_line(&mut stdin, max_frame).await {
            let verdict = match line {
                Line::TooLarge(size) => ClientVerdict::Answer(too_large(size, max_frame)),
                Line::Frame(bytes) => match client_gate.lock() {
                    Ok(mut g) => g.from_client(&bytes),
                    Err(_) => break,
                },
            };
            let sent = match verdict {
                ClientVerdict::Forward(bytes) => send(&mut child_in, &bytes).await,
                ClientVerdict::Answer(v) => send_out(&client_out, v.to_string().as_bytes()).await,
            };
            if sent.is_err() {
                break;
            }
        }
        // Dropping the child's stdin tells it the client went away.
    };

    let server = async move {
        let mut reader = BufReader::new(child_out);
        while let Ok(Some(line)) = read_line(&mut reader, max_frame).await {
            let verdict = match line {
                Line::TooLarge(size) => {
                    eprintln!(
                        "blindfold: dropped a {size}-byte message from the MCP server (limit {max_frame})"
                    );
                    ServerVerdict::Drop(None)
                }
                Line::Frame(bytes) => match gate.lock() {
                    Ok(mut g) => g.from_server(&bytes),
                    Err(_) => break,
                },
            };
            let sent = match verdict {
                ServerVerdict::Forward(bytes) => send_out(&out, &bytes).await,
                ServerVerdict::Drop(Some(v)) => send_out(&out, v.to_string().as_bytes()).await,
                ServerVerdict::Drop(None) => Ok(()),
            };
            if sent.is_err() {
                break;
            }
        }
    };

    let server_ended = tokio::select! {
        () = client => false,
        () = server => true,
    };
    if server_ended {
        let orphaned = end_gate.lock().map(|mut g| g.abandon_pending()).unwrap_or_default();
        for answer in orphaned {
            if send_out(&end_out, answer.to_string().as_bytes()).await.is_err() {
                break;
            }
        }
    }
    let status = match tokio::time::timeout(CHILD_GRACE, child.wait()).await {
        Ok(Ok(s)) => s.code(),
        _ => {
            let _ = child.kill().await;
            None
        }
    };
    status.unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded_and_blank_lines_skipped() {
        let data: &[u8] = b"{\"a\":1}\r\n\n   \n0123456789ABCDEF\n{}";
        let mut r = BufReader::with_capacity(4, data);
        assert_eq!(read_line(&mut r, 10).await.expect("io"), Some(Line::Frame(b"{\"a\":1}".to_vec())));
        assert_eq!(read_line(&mut r, 10).await.expect("io"), Some(Line::TooLarge(16)));
        assert_eq!(read_line(&mut r, 10).await.expect("io"), Some(Line::Frame(b"{}".to_vec())));
        assert_eq!(read_line(&mut r, 10).await.expect("io"), None);
    }
}
