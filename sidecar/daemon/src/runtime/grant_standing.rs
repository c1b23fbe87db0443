//! Whether a grant held in the cache can still allow anything: the one answer both the relays'
//! grant files and the control API's `grant.forget` prune by.

use crate::runtime::app::App;
use blindfold_engine::grants::{ConsumeOutcome, GrantRef};

/// How a cached grant stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// It can still allow a use.
    Active,
    /// Every allowed use is taken.
    Spent,
    /// A revocation in force covers it.
    Revoked,
    /// Its expiry (with the configured leeway) has passed.
    Expired,
    /// The cache does not hold it (already dropped): it allows nothing here.
    Unknown,
}

impl Standing {
    /// The name the control API answers with.
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Active => "active",
            Standing::Spent => "spent",
            Standing::Revoked => "revoked",
            Standing::Expired => "expired",
            Standing::Unknown => "unknown",
        }
    }
}

/// How grant `jti` (expiring at `exp`, allowing `max_uses`) stands at `now`, asked without
/// taking a use. A store that cannot answer counts as active: a grant kept in the cache is
/// still checked in full at each decision.
pub fn standing(app: &App, jti: &str, exp: u64, max_uses: u32, now: u64) -> Standing {
    let keep_until = exp.saturating_add(app.config.grants.policy.leeway_s);
    if keep_until <= now {
        return Standing::Expired;
    }
    // The cache knows the revocation key (issuer key, task, version).
    let Some((kid, task_id, version)) = app.grants.grant_ref(jti) else { return Standing::Unknown };
    let grant = GrantRef { jti, kid: &kid, task_id: &task_id, version };
    match app.store.consume(&grant, max_uses, keep_until, now, true) {
        Ok(ConsumeOutcome::Replayed) => Standing::Spent,
        Ok(ConsumeOutcome::Revoked) => Standing::Revoked,
        Ok(ConsumeOutcome::Consumed) | Err(_) => Standing::Active,
    }
}
