//! Processes of a run: where the binaries are, ports, readiness, resident memory, and children
//! that are killed when dropped (one process tree per run, nothing left behind).

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The directory of the running executable's sibling binaries (`target/<profile>/`); from a test
/// executable in `deps/`, its parent.
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current executable");
    let dir = exe.parent().expect("executable directory").to_path_buf();
    if dir.ends_with("deps") { dir.parent().expect("profile directory").to_path_buf() } else { dir }
}

/// A binary next to the running one.
pub fn sibling(name: &str) -> PathBuf {
    bin_dir().join(name)
}

/// A loopback port free right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

/// Waits until something accepts on `port`; false after `within`.
pub fn wait_port(port: u16, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Resident set size of process `pid`, KiB (`VmRSS`), if it is alive.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let mut s = String::new();
    std::fs::File::open(format!("/proc/{pid}/status")).ok()?.read_to_string(&mut s).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A child process killed (and reaped) when dropped.
pub struct Guard(pub Child);

impl Guard {
    /// Starts `cmd` with null stdin, stdout and stderr inherited unless set on `cmd`.
    pub fn spawn(cmd: &mut Command) -> std::io::Result<Self> {
        cmd.stdin(Stdio::null()).spawn().map(Guard)
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Writes a Blindfold configuration file under `dir` (state and trace inside it) with `extra`
/// TOML appended; returns its path.
pub fn blindfold_config(dir: &Path, listen_port: u16, extra: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("config directory");
    let state = dir.join("state");
    let path = dir.join("blindfold.toml");
    let text = format!(
        "[server]\nlisten = \"127.0.0.1:{listen_port}\"\n[state]\ndir = \"{}\"\n{extra}\n",
        state.display()
    );
    std::fs::write(&path, text).expect("write config");
    path
}
