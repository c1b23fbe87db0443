//! The `blindfold` binary: parses the command line and hands over to the CLI module.
#![forbid(unsafe_code)]

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = blindfold_daemon::cli::Cli::parse();
    blindfold_daemon::cli::run(cli)
}
