//! The `pi --mode rpc` driver: relays an embedder's JSON lines to a child `pi` and its events
//! back, with strict `\n` framing (a `\r` or U+2028 is data, never a separator) and a size bound
//! per line. A malformed or oversized command is answered with a failed `response` and never
//! forwarded; the embedder's own `bash` command (which runs without any tool hook) is decided
//! by the engine first. Tool calls inside the session are gated by the Pi extension, which this
//! driver's control API serves.

use crate::harnesses::pi::hooks::block_reason;
use crate::runtime::app::App;
use blindfold_schemas::{Event, strict_json};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::mpsc;

/// The actor of commands the embedder sends itself.
pub const EMBEDDER: &str = "user";

/// One line read with strict `\n` framing.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line (without its `\n`).
    Data(Vec<u8>),
    /// A line longer than the bound (discarded up to its `\n`).
    TooLong,
    /// End of input.
    Eof,
}

/// Reads one line, splitting on `\n` only and never holding more than `max` bytes of it.
pub async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R, max: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::Eof,
                (false, false) => Line::Data(line),
            });
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > max {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Data(line) });
        }
    }
}

/// A failed RPC `response` for `command` (echoing `id` when there is one).
pub fn failure(id: Option<&Value>, command: &str, error: &str) -> Vec<u8> {
    let mut v = json!({"type": "response", "command": command, "success": false, "error": error});
    if let (Some(id), Some(o)) = (id, v.as_object_mut()) {
        o.insert("id".into(), id.clone());
    }
    let mut out = v.to_string().into_bytes();
    out.push(b'\n');
    out
}

/// What to do with one embedder line: forward it, or answer it here.
pub fn check_command(app: &App, trajectory: &str, line: &[u8]) -> Result<(), Vec<u8>> {
    let value = strict_json::value_from_slice(line)
        .map_err(|e| failure(None, "parse", &format!("Blindfold: not a JSON command: {e}")))?;
    let Some(obj) = value.as_object() else {
        return Err(failure(None, "parse", "Blindfold: a command is a JSON object"));
    };
    let id = obj.get("id");
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return Err(failure(id, "parse", "Blindfold: a command needs a string \"type\""));
    };
    if kind != "bash" {
        return Ok(());
    }
    let Some(command) = obj.get("command").and_then(Value::as_str) else {
        return Err(failure(id, "bash", "Blindfold: bash needs a string \"command\""));
    };
    let mut args = Map::new();
    args.insert("command".into(), Value::String(command.to_owned()));
    let event =
        Event::ToolCall { actor: EMBEDDER.into(), tool: "bash".into(), args, proposal: None, call_id: None };
    let step = app.decide(trajectory, &event, true);
    if !step.blocks() {
        return Ok(());
    }
    let reason = step.decision.as_ref().map_or_else(|| "Blindfold: denied".to_owned(), block_reason);
    Err(failure(id, "bash", &reason))
}

/// Relays `client_in` → `pi`'s stdin and `pi`'s stdout → `client_out` until `pi` exits; returns
/// its exit code (1 when it could not be told).
pub async fn relay<I, O>(
    app: App,
    trajectory: String,
    mut child: Child,
    client_in: I,
    client_out: O,
    max: usize,
) -> i32
where
    I: AsyncBufRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (Some(mut pi_in), Some(pi_out)) = (child.stdin.take(), child.stdout.take()) else {
        return 1;
    };
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        let mut out = client_out;
        while let Some(line) = rx.recv().await {
            if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let to_client = tx.clone();
    let events = tokio::spawn(async move {
        let mut pi_out = tokio::io::BufReader::new(pi_out);
        loop {
            match read_line(&mut pi_out, max).await {
                Ok(Line::Data(mut line)) => {
                    if strict_json::value_from_slice(&line).is_err() {
                        tracing::warn!("pi wrote a line that is not JSON; dropped");
                        continue;
                    }
                    line.push(b'\n');
                    if to_client.send(line).await.is_err() {
                        break;
                    }
                }
                Ok(Line::TooLong) => tracing::warn!(max, "pi wrote an oversized line; dropped"),
                Ok(Line::Eof) | Err(_) => break,
            }
        }
    });
    let commands = tokio::spawn(async move {
        let mut client_in = client_in;
        loop {
            let reply = match read_line(&mut client_in, max).await {
                Ok(Line::Data(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Line::Data(mut line)) => match check_command(&app, &trajectory, &line) {
                    Ok(()) => {
                        line.push(b'\n');
                        if pi_in.write_all(&line).await.is_err() || pi_in.flush().await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Err(reply) => reply,
                },
                Ok(Line::TooLong) => {
                    failure(None, "parse", &format!("Blindfold: command longer than {max} bytes"))
                }
                Ok(Line::Eof) | Err(_) => break,
            };
            if tx.send(reply).await.is_err() {
                break;
            }
        }
        // Dropping pi's stdin tells it the embedder is gone.
    });
    let status = child.wait().await;
    commands.abort();
    let _ = events.await;
    let _ = writer.await;
    status.ok().and_then(|s| s.code()).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_split_on_newline_only_and_are_bounded() {
        let data = b"{\"a\":\"x\ry\xe2\x80\xa8z\"}\n0123456789abcdefghijklmn\nlast".to_vec();
        let mut r = tokio::io::BufReader::with_capacity(4, &data[..]);
        assert_eq!(
            read_line(&mut r, 20).await.expect("io"),
            Line::Data(b"{\"a\":\"x\ry\xe2\x80\xa8z\"}".to_vec())
        );
        assert_eq!(read_line(&mut r, 20).await.expect("io"), Line::TooLong);
        assert_eq!(read_line(&mut r, 20).await.expect("io"), Line::Data(b"last".to_vec()));
        assert_eq!(read_line(&mut r, 20).await.expect("io"), Line::Eof);
    }

    #[test]
    fn failures_echo_the_id() {
        let v: Value = serde_json::from_slice(&failure(Some(&json!("b1")), "bash", "no")).expect("json");
        assert_eq!(
            v,
            json!({"type": "response", "command": "bash", "success": false, "error": "no", "id": "b1"})
        );
    }
}
