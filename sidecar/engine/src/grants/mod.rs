//! Signed grants (SPEC §6): keys, issuing, verification at submit time, exact and scoped
//! grants, the ordered check, and the use and revocation store behind it.

mod cache;
mod check;
mod critical;
mod facts;
mod issue;
mod keys;
mod paths;
mod scope;
mod scope_syntax;
mod store;
mod verify;

pub use cache::{GrantCache, GrantInfo, ScopedGrant, UNSEEN_PATHS};
pub use check::{ActionBytes, GrantAction, GrantCheck, GrantPolicy};
pub use critical::critical;
pub use facts::{ActionFacts, Resource};
pub use issue::{GrantRequest, ScopedGrantRequest, issue_grant, issue_scoped, new_jti, sign_claims};
pub use keys::{IssuerKey, KeyError, TrustedKeys, key_id};
pub use paths::{NoWorkspace, PATH_ARGS, PathFact, Root, Workspaces, anchor, is_path_arg};
pub use scope::{CompiledScope, ScopeError, describe};
pub use scope_syntax::{SHELL_OPERATIONS, parse_scope_arg, parse_scope_args};
pub use store::{ConsumeOutcome, GrantRef, GrantStore, MemoryGrantStore, Revocation, StoreError, outcome_of};
pub use verify::{Verified, VerifiedGrant, verify_any, verify_token};

#[cfg(test)]
mod scope_tests;
#[cfg(test)]
mod tests;
