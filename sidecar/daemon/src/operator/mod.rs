//! The operator tier: the command line, the control API and the scenario replay.
pub mod cli;
pub mod console;
pub mod control;
pub mod replay;
pub mod scrape;
