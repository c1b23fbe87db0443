//! Issuing grants: only on a trusted path (the CLI, the review queue, the control API).

use super::keys::IssuerKey;
use crate::canonical::{args_sha256, sha256_hex};
use blindfold_schemas::{GrantClaims, ScopeEntry, ScopedGrantClaims};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value};

/// What an issuer approves: one operation on one target with these exact bytes.
#[derive(Debug, Clone)]
pub struct GrantRequest {
    /// The trajectory (task) id.
    pub task_id: String,
    /// The operation (tool name).
    pub operation: String,
    /// The target.
    pub target: String,
    /// The exact artifact bytes approved.
    pub artifact: Vec<u8>,
    /// The other arguments approved (`{}` when none).
    pub args: Map<String, Value>,
    /// Lifetime in seconds.
    pub ttl_s: u64,
    /// Issue time, seconds since the Unix epoch.
    pub now: u64,
    /// Optional not-before, seconds since the Unix epoch.
    pub nbf: Option<u64>,
    /// Optional number of uses (default 1).
    pub max_uses: Option<u32>,
    /// Review-queue item answered by this grant.
    pub review_id: Option<String>,
    /// Grant id; random when `None`.
    pub jti: Option<String>,
    /// Authorization version (default: the issue time).
    pub version: Option<u64>,
}

/// What an issuer allows within a scope: standing authority for a task.
#[derive(Debug, Clone)]
pub struct ScopedGrantRequest {
    /// The trajectory (task) id.
    pub task_id: String,
    /// The scope entries.
    pub scope: Vec<ScopeEntry>,
    /// Largest artifact per operation, bytes.
    pub max_bytes: std::collections::BTreeMap<String, u64>,
    /// Lifetime in seconds.
    pub ttl_s: u64,
    /// Issue time, seconds since the Unix epoch.
    pub now: u64,
    /// Optional not-before.
    pub nbf: Option<u64>,
    /// Actions it may authorise in all (default 1).
    pub max_uses: Option<u32>,
    /// Authorization version (default: the issue time).
    pub version: Option<u64>,
    /// Review-queue item answered by this grant.
    pub review_id: Option<String>,
    /// Grant id; random when `None`.
    pub jti: Option<String>,
}

/// Signs a scoped grant after checking that its scope compiles (a scope Blindfold would refuse
/// is never issued).
pub fn issue_scoped(
    key: &IssuerKey,
    req: &ScopedGrantRequest,
) -> Result<(String, ScopedGrantClaims), String> {
    let claims = ScopedGrantClaims {
        task_id: req.task_id.clone(),
        scope: req.scope.clone(),
        max_bytes: req.max_bytes.clone(),
        exp: req.now.saturating_add(req.ttl_s),
        iat: req.now,
        jti: req.jti.clone().unwrap_or_else(random_jti),
        nbf: req.nbf,
        max_uses: req.max_uses,
        version: req.version,
        review_id: req.review_id.clone(),
    };
    super::scope::CompiledScope::compile(&claims).map_err(|e| e.to_string())?;
    let token = sign_any(key, &claims)?;
    Ok((token, claims))
}

/// Signs a grant: a compact EdDSA JWS with the issuer's RFC 7638 `kid` in its header.
pub fn issue_grant(key: &IssuerKey, req: &GrantRequest) -> Result<(String, GrantClaims), String> {
    let claims = GrantClaims {
        task_id: req.task_id.clone(),
        operation: req.operation.clone(),
        target: req.target.clone(),
        artifact_sha256: sha256_hex(&req.artifact),
        args_sha256: args_sha256(&req.args),
        exp: req.now.saturating_add(req.ttl_s),
        iat: req.now,
        jti: req.jti.clone().unwrap_or_else(random_jti),
        nbf: req.nbf,
        max_uses: req.max_uses,
        review_id: req.review_id.clone(),
        version: req.version,
    };
    let token = sign_claims(key, &claims)?;
    Ok((token, claims))
}

/// Signs claims built elsewhere (the review queue binds a grant to the digests of a held
/// proposal): a compact EdDSA JWS with the issuer's RFC 7638 `kid` in its header.
pub fn sign_claims(key: &IssuerKey, claims: &GrantClaims) -> Result<String, String> {
    sign_any(key, claims)
}

/// Signs any claims: a compact EdDSA JWS with the issuer's `kid`.
fn sign_any(key: &IssuerKey, claims: &impl serde::Serialize) -> Result<String, String> {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(key.kid().to_owned());
    header.typ = Some("JWT".to_owned());
    let der = key.pkcs8_der().map_err(|e| e.to_string())?;
    crate::eddsa::install();
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_ed_der(&der))
        .map_err(|e| format!("cannot sign grant: {e}"))
}

/// A random grant id (128 bits, hex).
pub fn new_jti() -> String {
    random_jti()
}

fn random_jti() -> String {
    let bytes: [u8; 16] = rand::random();
    hex::encode(bytes)
}
