//! Text analysis over attacker-influenceable content: targets named in text, refusal and
//! warning language (language packs over folded text), and instruction-like content. Everything
//! here is deterministic pattern matching (layer `content_dependent`).

pub mod instruction;
pub mod packs;
pub mod polarity;
pub mod target;
#[cfg(test)]
mod target_oracle;

pub use packs::{Judgement, Packs};
pub use polarity::{Patterns, PatternsError, Polarity, Segment};
pub use target::Target;
