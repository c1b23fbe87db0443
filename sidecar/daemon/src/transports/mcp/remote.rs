//! Decisions from a running daemon: a relay started next to `blindfold run` (e.g.
//! `blindfold mcp-stdio --daemon ws://127.0.0.1:7700`) asks the daemon's control API
//! (`check_action`, `report_event`, with the adapter token) instead of deciding alone, so
//! trajectories, grants, replay state and the trace are the daemon's. A daemon that cannot be
//! reached, or answers badly, is a denial with the reason (fail closed).

use crate::runtime::permit::RemoteDecider;
use blindfold_adapters::refusal::Refusal;
use blindfold_schemas::{CheckId, Decision, Event, Facts, Reason};
use serde_json::{Value, json};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{self, Message, WebSocket};

/// A blocking JSON-RPC client of the daemon's control API (`/v1/control`), reconnecting once per
/// call when the connection dropped.
pub struct RemoteControl {
    url: String,
    addr: String,
    token: String,
    operator: Option<String>,
    timeout: Duration,
    conn: Option<WebSocket<TcpStream>>,
    next_id: u64,
}

impl RemoteControl {
    /// A client of the daemon at `url` (`ws://host:port`, path `/v1/control` implied) with the
    /// adapter `token`; `operator` (optional) submits grant files; `timeout` bounds every call.
    pub fn new(
        url: &str,
        token: String,
        operator: Option<String>,
        timeout: Duration,
    ) -> Result<Self, String> {
        let rest =
            url.strip_prefix("ws://").ok_or_else(|| format!("--daemon {url:?}: expected ws://host:port"))?;
        let (addr, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let path = if path.is_empty() { "v1/control" } else { path };
        Ok(Self {
            url: format!("ws://{addr}/{path}"),
            addr: addr.to_owned(),
            token,
            operator,
            timeout,
            conn: None,
            next_id: 1,
        })
    }

    /// The daemon's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn connect(&self, token: &str) -> Result<WebSocket<TcpStream>, String> {
        let addrs: Vec<SocketAddr> = self.addr.to_socket_addrs().map_err(|e| e.to_string())?.collect();
        let addr = addrs.first().ok_or("no address")?;
        let stream = TcpStream::connect_timeout(addr, self.timeout).map_err(|e| e.to_string())?;
        stream.set_read_timeout(Some(self.timeout)).map_err(|e| e.to_string())?;
        stream.set_write_timeout(Some(self.timeout)).map_err(|e| e.to_string())?;
        let mut req = self.url.as_str().into_client_request().map_err(|e| e.to_string())?;
        let bearer = format!("Bearer {token}").parse().map_err(|_| "token is not a header value")?;
        req.headers_mut().insert("authorization", bearer);
        tungstenite::client::client(req, stream).map(|(ws, _)| ws).map_err(|e| e.to_string())
    }

    fn exchange(ws: &mut WebSocket<TcpStream>, id: u64, frame: &Value) -> Result<Value, String> {
        ws.send(Message::text(frame.to_string())).map_err(|e| e.to_string())?;
        loop {
            match ws.read().map_err(|e| e.to_string())? {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(&t).map_err(|e| format!("bad answer: {e}"))?;
                    if v["id"] == json!(id) {
                        return Ok(v);
                    }
                }
                Message::Close(_) => return Err("the daemon closed the connection".into()),
                _ => {}
            }
        }
    }

    /// One call with the adapter token (a broken connection is reopened once).
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        for attempt in 0..2 {
            if self.conn.is_none() {
                self.conn = Some(self.connect(&self.token.clone())?);
            }
            let Some(ws) = self.conn.as_mut() else { continue };
            match Self::exchange(ws, id, &frame) {
                Ok(v) => return answer(v),
                Err(e) if attempt == 1 => return Err(e),
                Err(_) => self.conn = None,
            }
        }
        Err("no connection".into())
    }

    /// Submits a grant token on the trusted path (operator token; a separate connection).
    pub fn submit_grant(&self, token: &str) -> Result<Value, String> {
        self.operator_call("submit_grant", json!({"token": token}))
    }

    /// Asks the daemon to forget those of the grants `jtis` that can no longer allow anything
    /// (`grant.forget`, operator token): `{grants: [{jti, status, forgotten}]}`.
    pub fn forget_grants(&self, jtis: &[String]) -> Result<Value, String> {
        self.operator_call("grant.forget", json!({"jtis": jtis}))
    }

    /// One call with the operator token, on a connection of its own.
    fn operator_call(&self, method: &str, params: Value) -> Result<Value, String> {
        let operator = self.operator.as_deref().ok_or("no operator token to submit grants with")?;
        let mut ws = self.connect(operator)?;
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let v = Self::exchange(&mut ws, 1, &frame);
        let _ = ws.close(None);
        answer(v?)
    }

    /// Asks the daemon to decide a tool call of `trajectory` with the facts this relay saw of it
    /// (consuming a grant's use: this is the moment of forwarding). Any failure is a refusal
    /// naming it.
    pub fn check(&mut self, trajectory: &str, event: &Event, facts: &Facts) -> Result<(), Refusal> {
        let Event::ToolCall { actor, tool, args, call_id, .. } = event else {
            return Ok(());
        };
        let params = json!({"trajectory": trajectory, "actor": actor, "tool": tool, "args": args,
                            "call_id": call_id, "consume": true, "facts": facts});
        match self.call("check_action", params) {
            Ok(r) if r["allowed"] == json!(true) => Ok(()),
            Ok(r) => match serde_json::from_value::<Decision>(r["decision"].clone()) {
                Ok(decision) => Err(Refusal {
                    decision,
                    needed_grant: r.pointer("/refusal/detail/needed_grant").cloned().filter(|g| !g.is_null()),
                }),
                Err(e) => Err(self.unavailable(&format!("unreadable decision: {e}"))),
            },
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    /// Reports an informational event (a tool result); a failure is logged, never fatal.
    pub fn report(&mut self, trajectory: &str, event: &Event) {
        if let Err(e) = self.call("report_event", json!({"trajectory": trajectory, "event": event})) {
            eprintln!("blindfold: event not reported to the daemon at {}: {e}", self.url);
        }
    }

    fn unavailable(&self, why: &str) -> Refusal {
        let d = Decision::deny(Reason::InternalError, CheckId::Daemon)
            .with_detail(format!("the Blindfold daemon at {} could not decide: {why}", self.url));
        Refusal::plain(d)
    }
}

impl RemoteDecider for RemoteControl {
    fn decide(&mut self, trajectory: &str, event: &Event, facts: &Facts) -> Result<(), Refusal> {
        self.check(trajectory, event, facts)
    }
}

fn answer(v: Value) -> Result<Value, String> {
    match (v.get("result"), v.get("error")) {
        (Some(r), _) => Ok(r.clone()),
        (None, Some(e)) => Err(format!("the daemon refused the call: {e}")),
        _ => Err("the daemon's answer has neither result nor error".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_daemon_refuses_every_call() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("port");
        let mut r =
            RemoteControl::new(&format!("ws://127.0.0.1:{port}"), "t".into(), None, Duration::from_secs(2))
                .expect("url");
        let event = Event::ToolCall {
            actor: "coordinator".into(),
            tool: "read_file".into(),
            args: serde_json::Map::new(),
            proposal: None,
            call_id: Some("1".into()),
        };
        match r.check("t1", &event, &Facts::default()) {
            Err(refusal) => {
                assert_eq!(
                    (refusal.decision.reason, refusal.decision.check),
                    (Reason::InternalError, CheckId::Daemon)
                );
                assert!(refusal.decision.detail.unwrap_or_default().contains("could not decide"));
            }
            Ok(()) => panic!("an unreachable daemon allowed a call"),
        }
        assert!(RemoteControl::new("http://x", "t".into(), None, Duration::from_secs(1)).is_err());
    }
}
