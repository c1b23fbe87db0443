//! The review queue's own approval key: what the console signs an operator's approval with. Its
//! grants are accepted as review approvals only — the queue verifies approvals against the
//! trusted issuers plus this key, while `submit_grant`, grant files and the engine know only
//! `[grants] trusted_keys` — so the key can approve exactly a held item and nothing else.

use crate::config::ConsoleConfig;
use crate::runtime::state::{check_private_file, create_private_once};
use blindfold_engine::grants::{IssuerKey, TrustedKeys, new_jti, sign_claims};
use blindfold_schemas::GrantClaims;

/// Loads `[console] approval_key`, generating the state dir's default (0600) at first start.
pub fn load(cfg: &ConsoleConfig) -> Result<IssuerKey, String> {
    let path = &cfg.approval_key;
    if cfg.approval_key_generated && !path.exists() {
        let key = IssuerKey::generate();
        let private = key.private_pem().map_err(|e| e.to_string())?;
        if create_private_once(path, private.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))? {
            return Ok(key);
        }
        // Another process starting at the same moment created it first: theirs is read below.
    }
    check_private_file(path).map_err(|e| format!("console.approval_key: {e}"))?;
    let pem = std::fs::read_to_string(path)
        .map_err(|e| format!("console.approval_key: {}: {e}", path.display()))?;
    IssuerKey::from_pem(&pem).map_err(|e| format!("console.approval_key: {}: {e}", path.display()))
}

/// The keys approvals are verified with: the trusted issuers and `approver`, unless its key id
/// is among `revoked_kids`.
pub fn approval_keys(trusted: &TrustedKeys, approver: &IssuerKey, revoked_kids: &[String]) -> TrustedKeys {
    let mut keys = trusted.clone();
    keys.add(&approver.verifying_key());
    if revoked_kids.iter().any(|k| k == approver.kid()) {
        keys.revoke(approver.kid());
    }
    keys
}

/// A grant signed by `key`, bound to exactly the held item `item` (its task, operation, target,
/// the digests of its bytes and other arguments, and its review id), valid `ttl_s` from `now`.
pub fn sign_approval(
    key: &IssuerKey,
    item: &super::ReviewItem,
    ttl_s: u64,
    now: u64,
) -> Result<(String, GrantClaims), String> {
    let claims = GrantClaims {
        task_id: item.proposal.task_id.clone(),
        operation: item.proposal.operation.clone(),
        target: item.proposal.target.clone(),
        artifact_sha256: item.artifact_sha256.clone(),
        args_sha256: item.args_sha256.clone(),
        exp: now.saturating_add(ttl_s),
        iat: now,
        jti: new_jti(),
        nbf: None,
        max_uses: None,
        review_id: Some(item.id.clone()),
        version: None,
    };
    let token = sign_claims(key, &claims)?;
    Ok((token, claims))
}
