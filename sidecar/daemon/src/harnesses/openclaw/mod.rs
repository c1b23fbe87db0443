//! The OpenClaw plugin's daemon side: what its tool-result middleware may show the coordinator
//! (identity keys dropped, agent ids and session keys aliased, agent text rewritten — also inside
//! JSON carried as text) and the aliases in the coordinator's tool parameters mapped back.
//! Decisions and evidence use the generic `check_action` / `report_event` methods.

mod scrub;

pub use scrub::{scrub, unalias};
