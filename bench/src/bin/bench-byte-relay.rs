//! The floor of the MCP stdio workload: one extra process hop and nothing else. Runs
//! `bench-byte-relay CMD ARGS…` and copies bytes stdin → child and child → stdout as they come.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

fn pump(mut from: impl Read, mut to: impl Write) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
                    return;
                }
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((program, rest)) = args.split_first() else {
        eprintln!("usage: bench-byte-relay CMD [ARGS…]");
        std::process::exit(64);
    };
    let mut child =
        Command::new(program).args(rest).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap_or_else(
            |e| {
                eprintln!("bench-byte-relay: cannot start {program}: {e}");
                std::process::exit(127)
            },
        );
    let child_in = child.stdin.take().expect("piped stdin");
    let child_out = child.stdout.take().expect("piped stdout");
    let up = std::thread::spawn(move || pump(std::io::stdin().lock(), child_in));
    pump(child_out, std::io::stdout().lock());
    let _ = up.join();
    let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
    std::process::exit(code);
}
