//! A real Redis server for the scale-out tests (Debian's `redis-server`, found or fetched by
//! `scripts/redis-server.sh`), a fleet of `blindfold run` instances sharing it, and a loopback
//! proxy that can delay what passes through (a slow network, injected).

use crate::free_port;
use crate::transports::{Peer, World};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The `redis-server` to run: `$BLINDFOLD_REDIS_SERVER`, else what `scripts/redis-server.sh`
/// prints (one on `PATH`, or Debian's package unpacked into the cache). A missing server is a
/// test failure with the reason, never a skip.
pub fn redis_server_bin() -> PathBuf {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("BLINDFOLD_REDIS_SERVER") {
            let p = PathBuf::from(p);
            assert!(p.is_file(), "BLINDFOLD_REDIS_SERVER={} is not a file", p.display());
            return p;
        }
        let script = crate::workspace_root().join("scripts/redis-server.sh");
        let out = Command::new("bash").arg(&script).output().expect("run scripts/redis-server.sh");
        assert!(
            out.status.success(),
            "the scale-out tests need a real redis-server and none was found or fetched \
             (`make deps` provides one):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    })
    .clone()
}

/// A Redis server on a free loopback port with its data in `dir`, killed on drop.
pub struct RedisServer {
    child: Option<Child>,
    /// Its port.
    pub port: u16,
    dir: PathBuf,
    args: Vec<String>,
}

impl RedisServer {
    /// Starts one that keeps every write on disk before answering (`appendonly yes`,
    /// `appendfsync always`), as Blindfold requires.
    pub fn start(dir: &Path) -> RedisServer {
        Self::start_with(dir, &["--appendonly", "yes", "--appendfsync", "always"])
    }

    /// Starts one with these extra arguments.
    pub fn start_with(dir: &Path, extra: &[&str]) -> RedisServer {
        std::fs::create_dir_all(dir).expect("redis dir");
        let mut server = RedisServer {
            child: None,
            port: free_port(),
            dir: dir.to_path_buf(),
            args: extra.iter().map(|s| (*s).to_owned()).collect(),
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let bin = redis_server_bin();
        let child = Command::new(&bin)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", ""])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--daemonize", "no", "--loglevel", "warning"])
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", bin.display()));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not answer on port {}", self.port);
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// True when it answers `PING`.
    pub fn ping(&self) -> bool {
        self.connection().and_then(|mut c| redis::cmd("PING").query::<String>(&mut c)).is_ok()
    }

    /// A plain connection for the test to look at what Blindfold wrote.
    pub fn connection(&self) -> redis::RedisResult<redis::Connection> {
        let client = redis::Client::open(self.url())?;
        client.get_connection_with_timeout(Duration::from_secs(2))
    }

    /// Kills it (`SIGKILL`: no shutdown, no last save) and waits for it to go.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port and data directory.
    pub fn restart(&mut self) {
        self.kill9();
        self.spawn();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// `[state]` of a Blindfold on `url` (key prefix `prefix`), with extra `[state.redis]` lines.
pub fn state_toml(url: &str, prefix: &str, extra: &str) -> String {
    format!(
        "[state]\nbackend = \"redis\"\n\n[state.redis]\nurl = {url:?}\nkey_prefix = {prefix:?}\n{extra}\n"
    )
}

/// Starts `n` `blindfold run` instances of world `w`, each with its own state directory and
/// `extra` TOML (e.g. [`state_toml`]): `(process, port, state dir)` each.
pub fn fleet(w: &World, n: usize, extra: &str) -> Vec<(Peer, u16, PathBuf)> {
    let base = std::fs::read_to_string(&w.config).expect("config");
    let keys_and_rest = base.split_once("\n\n").map_or(base.as_str(), |(_, rest)| rest);
    (0..n)
        .map(|i| {
            let port = free_port();
            let state = w.path(&format!("state-{i}"));
            let cfg = w.path(&format!("fleet-{i}.toml"));
            let text = format!(
                "[server]\nlisten = \"127.0.0.1:{port}\"\n\n{keys_and_rest}\n{}\n",
                extra.replacen("[state]\n", &format!("[state]\ndir = {state:?}\n"), 1)
            );
            std::fs::write(&cfg, text).expect("write config");
            let child = crate::blindfold()
                .arg("run")
                .arg("--config")
                .arg(&cfg)
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawn blindfold run");
            let mut peer = Peer(child);
            wait_healthy(&mut peer, port);
            (peer, port, state)
        })
        .collect()
}

fn wait_healthy(peer: &mut Peer, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(status) = peer.0.try_wait().expect("wait") {
            panic!("blindfold run exited early: {status}");
        }
        if crate::http_get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("blindfold did not answer /healthz in time");
}

/// A TCP proxy on loopback in front of `upstream` that can hold every byte for a while.
pub struct DelayProxy {
    /// Its port.
    pub port: u16,
    delay_ms: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl DelayProxy {
    /// Starts it, passing bytes through at once.
    pub fn start(upstream: u16) -> DelayProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let port = listener.local_addr().expect("addr").port();
        let delay_ms = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (d, s) = (delay_ms.clone(), stop.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else { continue };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (c2, s2) = (client.try_clone().expect("clone"), server.try_clone().expect("clone"));
                let (d1, d2) = (d.clone(), d.clone());
                std::thread::spawn(move || pipe(client, server, &d1));
                std::thread::spawn(move || pipe(s2, c2, &d2));
            }
        });
        DelayProxy { port, delay_ms, stop }
    }

    /// Holds every chunk for `delay` before passing it on (0 for none).
    pub fn set_delay(&self, delay: Duration) {
        self.delay_ms.store(delay.as_millis() as u64, Ordering::Relaxed);
    }

    /// `redis://127.0.0.1:PORT/0` through the proxy.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream, delay_ms: &AtomicU64) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let delay = delay_ms.load(Ordering::Relaxed);
        if delay > 0 {
            std::thread::sleep(Duration::from_millis(delay));
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

/// Signs a grant (the CLI, the trusted path) for `write_file` of `path` with `content` in `task`,
/// usable `uses` times for ten minutes.
pub fn issue_write(w: &World, task: &str, path: &str, content: &str, uses: u32) -> String {
    let artifact = w.path(&format!("artifact-{}", TAG.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&artifact, content).expect("artifact");
    let out = crate::blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&w.key)
        .args(["--task", task, "--op", "write_file", "--target", path, "--artifact"])
        .arg(&artifact)
        .args(["--ttl", "600", "--max-uses", &uses.to_string()])
        .output()
        .expect("grant issue");
    assert!(out.status.success(), "grant issue: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf8").trim().to_owned()
}

static TAG: AtomicU64 = AtomicU64::new(0);

/// The operator token of the instance whose state directory is `state`.
pub fn operator_token(state: &Path) -> String {
    std::fs::read_to_string(state.join("operator.token")).expect("operator token").trim().to_owned()
}
