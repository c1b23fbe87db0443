//! The scale-out workload's processes: a real Redis server (Debian's `redis-server`, found or
//! fetched by `scripts/redis-server.sh`), an issuer key and grants signed with it (the CLI, the
//! trusted path), and `blindfold run` instances on the embedded store or sharing the Redis.

use crate::proc::{Guard, free_port, wait_port};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The `redis-server` to run: `$BLINDFOLD_REDIS_SERVER`, else what `scripts/redis-server.sh`
/// prints (one on `PATH`, or Debian's package unpacked into the cache).
pub fn redis_server_bin() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("BLINDFOLD_REDIS_SERVER") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("BLINDFOLD_REDIS_SERVER={} is not a file", p.display()))
        };
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/redis-server.sh");
    let out = Command::new("bash").arg(&script).output().map_err(|e| format!("{}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "no redis-server found or fetched (`make deps` provides one): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// A Redis server on a free loopback port with its append-only file on, killed on drop.
pub struct RedisServer {
    _child: Guard,
    /// Its port.
    pub port: u16,
}

impl RedisServer {
    /// Starts one with its data in `dir`, fsyncing its append-only file as `appendfsync` says
    /// (`always`: every write on disk before the answer, as Blindfold requires by default;
    /// `everysec`: once a second, for `durability = "everysec"`).
    pub fn start(dir: &Path, appendfsync: &str) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let bin = redis_server_bin()?;
        let port = free_port();
        let child = Guard::spawn(
            Command::new(&bin)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", ""])
                .arg("--dir")
                .arg(dir)
                .args(["--daemonize", "no", "--loglevel", "warning"])
                .args(["--appendonly", "yes", "--appendfsync", appendfsync])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        )
        .map_err(|e| format!("{}: {e}", bin.display()))?;
        if !wait_port(port, Duration::from_secs(20)) {
            return Err(format!("redis-server did not listen on {port}"));
        }
        Ok(Self { _child: child, port })
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// How many times Redis has run `command` (lowercase, e.g. `evalsha`), from its own
    /// `INFO commandstats`: a count Blindfold does not report.
    pub fn calls(&self, command: &str) -> Result<u64, String> {
        let client = redis::Client::open(self.url()).map_err(|e| e.to_string())?;
        let mut conn = client.get_connection().map_err(|e| format!("redis: {e}"))?;
        let info: String = redis::cmd("INFO")
            .arg("commandstats")
            .query(&mut conn)
            .map_err(|e| format!("redis INFO: {e}"))?;
        Ok(commandstats_calls(&info, command))
    }
}

/// The `calls=` of `cmdstat_<command>` in an `INFO commandstats` answer (0 when never run).
pub fn commandstats_calls(info: &str, command: &str) -> u64 {
    let key = format!("cmdstat_{command}:");
    info.lines()
        .find_map(|l| l.trim().strip_prefix(&key))
        .and_then(|rest| rest.split(',').find_map(|kv| kv.strip_prefix("calls=")))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// An issuer key pair made with `blindfold keygen` under `dir`.
pub struct Issuer {
    blindfold: PathBuf,
    dir: PathBuf,
    /// The private key.
    pub key: PathBuf,
    /// The public key every instance trusts.
    pub public: PathBuf,
}

impl Issuer {
    /// Makes the key pair.
    pub fn new(blindfold: &Path, dir: &Path) -> Result<Self, String> {
        let keys = dir.join("keys");
        let out = Command::new(blindfold)
            .args(["keygen", "--out-dir"])
            .arg(&keys)
            .args(["--name", "issuer"])
            .output()
            .map_err(|e| format!("blindfold keygen: {e}"))?;
        if !out.status.success() {
            return Err(format!("blindfold keygen: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(Self {
            blindfold: blindfold.to_path_buf(),
            dir: dir.to_path_buf(),
            key: keys.join("issuer.key.pem"),
            public: keys.join("issuer.pub.pem"),
        })
    }

    /// A grant to write `content` to `path` in `task`, usable `uses` times for an hour.
    pub fn write_grant(&self, task: &str, path: &str, content: &str, uses: u32) -> Result<String, String> {
        let artifact = self.dir.join(format!("artifact-{task}.txt"));
        std::fs::write(&artifact, content).map_err(|e| e.to_string())?;
        let out = Command::new(&self.blindfold)
            .args(["grant", "issue", "--key"])
            .arg(&self.key)
            .args(["--task", task, "--op", "write_file", "--target", path, "--artifact"])
            .arg(&artifact)
            .args(["--ttl", "3600", "--max-uses", &uses.to_string()])
            .output()
            .map_err(|e| format!("blindfold grant issue: {e}"))?;
        if !out.status.success() {
            return Err(format!("blindfold grant issue: {}", String::from_utf8_lossy(&out.stderr)));
        }
        String::from_utf8(out.stdout).map(|t| t.trim().to_owned()).map_err(|e| e.to_string())
    }
}

/// Where an instance keeps its shared state.
pub enum Backend<'a> {
    /// The state directory's redb files (the default).
    Embedded,
    /// A Redis server.
    Redis {
        /// Its URL.
        url: &'a str,
        /// The key prefix of the fleet.
        prefix: &'a str,
        /// `[state.redis] durability`: `always` or `everysec`.
        durability: &'a str,
    },
}

/// One `blindfold run` instance.
pub struct Instance {
    _child: Guard,
    /// Its server port (control API).
    pub port: u16,
    /// Its state directory.
    pub state_dir: PathBuf,
}

impl Instance {
    /// Starts `blindfold run` under `dir` trusting `issuer`, its state on `backend`.
    pub fn start(
        blindfold: &Path,
        dir: &Path,
        issuer: &Issuer,
        backend: &Backend<'_>,
    ) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let port = free_port();
        let state_dir = dir.join("state");
        let backend = match backend {
            Backend::Redis { url, prefix, durability } => format!(
                "backend = \"redis\"\n\n[state.redis]\nurl = {url:?}\nkey_prefix = {prefix:?}\ndurability = {durability:?}\n"
            ),
            Backend::Embedded => "backend = \"embedded\"\n".to_owned(),
        };
        let text = format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\n\n[grants]\ntrusted_keys = [{:?}]\nleeway_s = 0\n\
             max_ttl_s = 86400\n\n[limits]\nmax_events_per_trajectory = 10000000\n\n[state]\ndir = {:?}\n{backend}",
            issuer.public, state_dir
        );
        let config = dir.join("blindfold.toml");
        std::fs::write(&config, text).map_err(|e| e.to_string())?;
        let child = Guard::spawn(
            Command::new(blindfold)
                .arg("run")
                .arg("--config")
                .arg(&config)
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        )
        .map_err(|e| format!("blindfold run: {e}"))?;
        if !wait_port(port, Duration::from_secs(30)) {
            return Err(format!("blindfold run ({}) did not listen on {port}", dir.display()));
        }
        Ok(Self { _child: child, port, state_dir })
    }

    /// Its operator token (revocations need the operator's scope).
    pub fn operator_token(&self) -> Result<String, String> {
        std::fs::read_to_string(self.state_dir.join("operator.token"))
            .map(|t| t.trim().to_owned())
            .map_err(|e| format!("operator token: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::commandstats_calls;

    #[test]
    fn commandstats_calls_reads_one_command_and_defaults_to_zero() {
        let info = "# Commandstats\r\ncmdstat_evalsha:calls=42,usec=900,usec_per_call=21.43,rejected_calls=0\r\n\
                    cmdstat_xread:calls=7,usec=10\r\n";
        assert_eq!(commandstats_calls(info, "evalsha"), 42);
        assert_eq!(commandstats_calls(info, "xread"), 7);
        assert_eq!(commandstats_calls(info, "eval"), 0);
    }
}
