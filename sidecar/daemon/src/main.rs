//! The `blindfold` binary: parses the command line and hands over to the CLI module.
#![forbid(unsafe_code)]

use clap::Parser;
use std::process::ExitCode;

/// The process allocator: every proxied message allocates and frees many small buffers and
/// JSON values, across threads; mimalloc serves those with far less time than the system
/// allocator (measured on the A2A path: malloc and free were ~15% of the daemon's CPU).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = blindfold_daemon::cli::Cli::parse();
    blindfold_daemon::cli::run(cli)
}
