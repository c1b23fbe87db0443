//! The MCP stdio client side of the benchmark: one chain (server, relay + server, or Blindfold +
//! server) driven over its stdin/stdout with blocking I/O, so the client adds as little as
//! possible to what is measured.

use crate::wire;
use serde_json::Value;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A running MCP stdio chain.
pub struct Chain {
    child: Child,
    input: Option<BufWriter<ChildStdin>>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

/// Why a chain misbehaved.
#[derive(Debug)]
pub struct ChainError(pub String);

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn io(e: std::io::Error) -> ChainError {
    ChainError(format!("stdio: {e}"))
}

impl Chain {
    /// Starts `cmd` (stderr discarded unless `show_stderr`) and completes the MCP handshake.
    pub fn start(mut cmd: Command, show_stderr: bool) -> Result<Self, ChainError> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        cmd.stderr(if show_stderr { Stdio::inherit() } else { Stdio::null() });
        let mut child = cmd.spawn().map_err(|e| ChainError(format!("spawn {cmd:?}: {e}")))?;
        let input = Some(BufWriter::new(child.stdin.take().expect("piped stdin")));
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut chain = Self { child, input, output, next_id: 1 };
        chain.send(&wire::mcp_initialize())?;
        let init = chain.recv()?;
        if init.get("result").and_then(|r| r.get("serverInfo")).is_none() {
            return Err(ChainError(format!("initialize answered {init}")));
        }
        chain.send(&wire::mcp_initialized())?;
        Ok(chain)
    }

    fn input(&mut self) -> Result<&mut BufWriter<ChildStdin>, ChainError> {
        self.input.as_mut().ok_or_else(|| ChainError("stdin already closed".into()))
    }

    fn send(&mut self, line: &str) -> Result<(), ChainError> {
        let input = self.input()?;
        input.write_all(line.as_bytes()).map_err(io)?;
        input.write_all(b"\n").map_err(io)?;
        input.flush().map_err(io)
    }

    fn recv_line(&mut self, line: &mut String) -> Result<(), ChainError> {
        line.clear();
        match self.output.read_line(line).map_err(io)? {
            0 => Err(ChainError("the chain closed its stdout".into())),
            _ => Ok(()),
        }
    }

    fn recv(&mut self) -> Result<Value, ChainError> {
        let mut line = String::new();
        self.recv_line(&mut line)?;
        serde_json::from_str(&line).map_err(|e| ChainError(format!("not JSON ({e}): {line}")))
    }

    /// One `tools/call` round trip, checked: the answer has the call's id and the server's text.
    pub fn call(&mut self) -> Result<Duration, ChainError> {
        let id = self.next_id;
        self.next_id += 1;
        let frame = wire::mcp_call(id);
        let mut line = String::with_capacity(256);
        let start = Instant::now();
        self.send(&frame)?;
        self.recv_line(&mut line)?;
        let took = start.elapsed();
        check_answer(&line, id)?;
        Ok(took)
    }

    /// `n` sequential round trips; their latencies.
    pub fn sequential(&mut self, n: usize) -> Result<Vec<Duration>, ChainError> {
        (0..n).map(|_| self.call()).collect()
    }

    /// `n` calls written back to back by a writer thread while this thread reads the answers;
    /// returns calls per second. Every answer is checked.
    pub fn pipelined(&mut self, n: usize) -> Result<f64, ChainError> {
        let first = self.next_id;
        self.next_id += n as u64;
        let frames: Vec<u8> = (first..first + n as u64)
            .flat_map(|id| {
                let mut f = wire::mcp_call(id).into_bytes();
                f.push(b'\n');
                f
            })
            .collect();
        let start = Instant::now();
        let input = self.input.as_mut().ok_or_else(|| ChainError("stdin already closed".into()))?;
        let output = &mut self.output;
        std::thread::scope(|s| {
            let writer = s.spawn(move || -> Result<(), ChainError> {
                for chunk in frames.chunks(16 * 1024) {
                    input.write_all(chunk).map_err(io)?;
                }
                input.flush().map_err(io)
            });
            let mut line = String::with_capacity(256);
            for id in first..first + n as u64 {
                line.clear();
                if output.read_line(&mut line).map_err(io)? == 0 {
                    return Err(ChainError("the chain closed its stdout".into()));
                }
                check_answer(&line, id)?;
            }
            writer.join().map_err(|_| ChainError("writer panicked".into()))?
        })?;
        Ok(n as f64 / start.elapsed().as_secs_f64())
    }

    /// Closes stdin and waits for the chain to exit.
    pub fn finish(mut self) -> Result<(), ChainError> {
        drop(self.input.take());
        let status = self.child.wait().map_err(io)?;
        if status.success() { Ok(()) } else { Err(ChainError(format!("chain exited with {status}"))) }
    }
}

impl Drop for Chain {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Checks a `tools/call` answer line: valid JSON, the expected id, the server's text.
pub fn check_answer(line: &str, id: u64) -> Result<(), ChainError> {
    let v: Value = serde_json::from_str(line).map_err(|e| ChainError(format!("not JSON ({e}): {line}")))?;
    let text = v.pointer("/result/content/0/text").and_then(Value::as_str);
    if v.get("id").and_then(Value::as_u64) != Some(id) || text != Some(wire::MCP_ANSWER) {
        return Err(ChainError(format!("unexpected answer to call {id}: {}", line.trim_end())));
    }
    Ok(())
}
