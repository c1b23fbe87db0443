//! Text analysis over attacker-influenceable content: targets named in text, refusal and
//! approval language with negation, and instruction-like content. Everything here is
//! deterministic pattern matching (layer `content_dependent`).

pub mod instruction;
pub mod polarity;
pub mod target;
#[cfg(test)]
mod target_oracle;

pub use polarity::{Patterns, PatternsError, Polarity};
pub use target::Target;
