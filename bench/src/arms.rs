//! The arms of every workload — direct, through the floor, through Blindfold — as processes of
//! one tree: the MCP stdio chains, and the HTTP topology (one fast upstream, one floor relay and
//! one `blindfold run` serving the A2A proxy, the model-API proxy and the control API).

use crate::loadgen::{LoadResult, LoadSpec, Payload};
use crate::mcp::{Chain, ChainError};
use crate::proc::{Guard, blindfold_config, free_port, sibling, wait_port};
use crate::stats::Summary;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Which path a workload takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arm {
    /// Client straight to the peer.
    Direct,
    /// Through the minimal relay (one extra hop and nothing else).
    Floor,
    /// Through Blindfold.
    Blindfold,
}

impl Arm {
    /// All arms, in their base order.
    pub const ALL: [Arm; 3] = [Arm::Direct, Arm::Floor, Arm::Blindfold];

    /// The arms of round `r`, rotated so no arm always runs first (alternation).
    pub fn order(r: usize) -> [Arm; 3] {
        let mut a = Self::ALL;
        a.rotate_left(r % 3);
        a
    }

    /// Its name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Arm::Direct => "direct",
            Arm::Floor => "floor",
            Arm::Blindfold => "blindfold",
        }
    }
}

/// One MCP stdio round of one arm.
#[derive(Debug, Clone, Copy)]
pub struct McpRound {
    /// Sequential `tools/call` round trips.
    pub sequential: Summary,
    /// Pipelined calls per second.
    pub pipelined_per_s: f64,
}

/// The command of an MCP chain for `arm` (`blindfold mcp-stdio` on the configuration `config`).
pub fn mcp_command(arm: Arm, blindfold: &Path, config: &Path) -> Command {
    let server = sibling("bench-mcp-server");
    match arm {
        Arm::Direct => Command::new(server),
        Arm::Floor => {
            let mut c = Command::new(sibling("bench-byte-relay"));
            c.arg(server);
            c
        }
        Arm::Blindfold => {
            let mut c = Command::new(blindfold);
            c.arg("mcp-stdio")
                .arg("--config")
                .arg(config)
                .arg("--task")
                .arg("bench-mcp")
                .arg("--")
                .arg(server);
            c
        }
    }
}

/// Runs `sequential` round trips (after `sequential / 10` unmeasured) and `pipelined` calls.
pub fn mcp_round(
    arm: Arm,
    blindfold: &Path,
    config: &Path,
    sequential: usize,
    pipelined: usize,
) -> Result<McpRound, ChainError> {
    let mut chain = Chain::start(mcp_command(arm, blindfold, config), false)?;
    chain.sequential(sequential / 10 + 1)?;
    let seq = chain.sequential(sequential)?;
    let per_s = if pipelined > 0 { chain.pipelined(pipelined)? } else { 0.0 };
    chain.finish()?;
    Ok(McpRound { sequential: Summary::of(&seq), pipelined_per_s: per_s })
}

/// The HTTP side of a run: upstream, floor relay and Blindfold, started once.
pub struct HttpTopology {
    _upstream: Guard,
    _relay: Guard,
    blindfold: Guard,
    /// The upstream's port.
    pub upstream_port: u16,
    /// The floor relay's port.
    pub relay_port: u16,
    /// Blindfold's server port (A2A proxy, control API).
    pub blindfold_port: u16,
    /// Blindfold's model-API proxy port.
    pub model_port: u16,
    /// Blindfold's path for the agent (`/a2a/<alias>`).
    pub a2a_path: String,
    /// Blindfold's state directory (adapter token).
    pub state_dir: PathBuf,
}

/// Starts the HTTP topology under `dir` with the `blindfold` binary.
pub fn start_http(dir: &Path, blindfold: &Path) -> Result<HttpTopology, String> {
    start_http_with(dir, blindfold, "")
}

/// [`start_http`] with `extra` added to Blindfold's configuration (whole TOML tables).
pub fn start_http_with(dir: &Path, blindfold: &Path, extra: &str) -> Result<HttpTopology, String> {
    let (up, relay, bf, mp) = (free_port(), free_port(), free_port(), free_port());
    let upstream = Guard::spawn(Command::new(sibling("bench-upstream")).arg(up.to_string()))
        .map_err(|e| format!("bench-upstream: {e}"))?;
    let relay_g =
        Guard::spawn(Command::new(sibling("bench-http-relay")).args([relay.to_string(), up.to_string()]))
            .map_err(|e| format!("bench-http-relay: {e}"))?;
    let extra = format!(
        "{extra}\n[model_proxy]\nupstream = \"http://127.0.0.1:{up}\"\nlisten = \"127.0.0.1:{mp}\"\n\n\
         [[a2a.upstreams]]\nid = \"bench\"\nurl = \"http://127.0.0.1:{up}\"\nmodel = \"bench-model-7\"\nprovider = \"Benchco\"\n"
    );
    let config = blindfold_config(dir, bf, &extra);
    let blindfold_g = Guard::spawn(
        Command::new(blindfold)
            .arg("run")
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )
    .map_err(|e| format!("blindfold run: {e}"))?;
    for (name, port) in [("upstream", up), ("relay", relay), ("blindfold", bf), ("model proxy", mp)] {
        if !wait_port(port, Duration::from_secs(30)) {
            return Err(format!("{name} did not listen on {port}"));
        }
    }
    let alias = first_alias(bf)?;
    Ok(HttpTopology {
        _upstream: upstream,
        _relay: relay_g,
        blindfold: blindfold_g,
        upstream_port: up,
        relay_port: relay,
        blindfold_port: bf,
        model_port: mp,
        a2a_path: format!("/a2a/{alias}"),
        state_dir: dir.join("state"),
    })
}

fn first_alias(port: u16) -> Result<String, String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async {
        let mut c = crate::http::connect(port).await.map_err(|e| e.to_string())?;
        let req = hyper::Request::get("/a2a")
            .header("host", "127.0.0.1")
            .body(http_body_util::Full::default())
            .map_err(|e| e.to_string())?;
        let resp = c.send_request(req).await.map_err(|e| e.to_string())?;
        let body = crate::http::body_bytes(resp.into_body()).await.map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        v.pointer("/agents/0/alias")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or(format!("no agent in {v}"))
    })
}

impl HttpTopology {
    /// Blindfold's process id.
    pub fn blindfold_pid(&self) -> u32 {
        self.blindfold.pid()
    }

    /// Where `arm` is reached for `payload`.
    pub fn target(&self, arm: Arm, payload: Payload) -> (u16, String) {
        let chat = payload == Payload::Chat;
        let path = if chat { "/v1/chat/completions".to_owned() } else { "/rpc".to_owned() };
        match arm {
            Arm::Direct => (self.upstream_port, path),
            Arm::Floor => (self.relay_port, path),
            Arm::Blindfold if chat => (self.model_port, path),
            Arm::Blindfold => (self.blindfold_port, self.a2a_path.clone()),
        }
    }

    /// Runs `bench-load` against `arm` (a process of its own, one thread).
    pub fn load(
        &self,
        arm: Arm,
        payload: Payload,
        rate: f64,
        conns: usize,
        secs: f64,
    ) -> Result<LoadResult, String> {
        let (port, path) = self.target(arm, payload);
        let spec = LoadSpec {
            port,
            path,
            payload,
            rate,
            conns,
            duration: Duration::from_secs_f64(secs),
            warmup: Duration::from_secs_f64((secs / 4.0).min(0.5)),
        };
        run_load(&spec)
    }
}

/// Runs one load in a `bench-load` process and reads its JSON.
pub fn run_load(spec: &LoadSpec) -> Result<LoadResult, String> {
    let payload = match spec.payload {
        Payload::A2aSend => "a2a",
        Payload::A2aStream => "a2a-stream",
        Payload::Chat => "chat",
    };
    let out = Command::new(sibling("bench-load"))
        .args([
            spec.port.to_string(),
            spec.path.clone(),
            payload.to_owned(),
            spec.rate.to_string(),
            spec.conns.to_string(),
            spec.duration.as_secs_f64().to_string(),
            spec.warmup.as_secs_f64().to_string(),
        ])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("bench-load: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("bench-load printed {text:?}: {e}"))?;
    Ok(LoadResult::from_json(&v))
}
