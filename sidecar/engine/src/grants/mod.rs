//! Signed grants (SPEC §6): keys, issuing, verification at submit time, and the ordered check.

mod cache;
mod check;
mod issue;
mod keys;
mod store;
mod verify;

pub use cache::GrantCache;
pub use check::{ActionBytes, GrantCheck, GrantPolicy};
pub use issue::{GrantRequest, issue_grant, new_jti, sign_claims};
pub use keys::{IssuerKey, KeyError, TrustedKeys, key_id};
pub use store::{ConsumeOutcome, GrantStore, MemoryGrantStore, StoreError};
pub use verify::{VerifiedGrant, verify_token};

#[cfg(test)]
mod tests;
