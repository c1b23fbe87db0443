//! The `blindfold` binary: parses the command line and hands over to the CLI module.
#![forbid(unsafe_code)]

use clap::Parser;
use std::process::ExitCode;

/// The process allocator: every proxied message allocates and frees many small buffers and
/// JSON values, across threads; mimalloc serves those with far less time than the system
/// allocator (measured on the A2A path: malloc and free were ~15% of the daemon's CPU). Built
/// without transparent huge pages (`no_thp`): mimalloc would otherwise mark its arenas
/// `MADV_HUGEPAGE`, and the first touch of each 2 MiB page zeroes all of it inside whichever
/// request grew the heap (≈ 5 ms on a 2-vCPU VM: the A2A p99 at 5k req/s was 1.8–2.2 ms with
/// them, 0.5–0.7 ms without).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = blindfold_daemon::operator::cli::Cli::parse();
    blindfold_daemon::operator::cli::run(cli)
}
