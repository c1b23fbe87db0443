//! The operator tier: the command line, the control API and the scenario replay.
pub mod cli;
pub mod control;
pub mod replay;
