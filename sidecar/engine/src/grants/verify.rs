//! Signature and issuer verification: EdDSA only, issuer by `kid` from the trusted set.

use super::keys::TrustedKeys;
use blindfold_schemas::{AnyGrantClaims, GrantClaims, Reason};
use jsonwebtoken::{Algorithm, Validation};

/// An exact grant whose signature verified against a trusted key; its claims can be cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedGrant {
    /// The signed claims.
    pub claims: GrantClaims,
    /// The issuer key id that signed it.
    pub kid: String,
}

/// A grant of either kind whose signature verified against a trusted key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The signed claims.
    pub claims: AnyGrantClaims,
    /// The issuer key id that signed it.
    pub kid: String,
}

/// Verifies a compact JWS grant of either kind (SPEC §6 step 3).
///
/// The algorithm is pinned to EdDSA: `none`, HS*, RS* and any header the decoder does not
/// understand are `bad_signature`; a `kid` outside the trusted set (or revoked) is
/// `untrusted_issuer`; claims of neither shape (or of both) are `bad_signature` too — a token
/// that does not say exactly what it allows allows nothing. Time claims are *not* checked here:
/// the ordered check does that with its own explicit leeway, so the decoder's default leeway
/// never applies.
pub fn verify_any(token: &str, keys: &TrustedKeys) -> Result<Verified, Reason> {
    crate::eddsa::install();
    let header = jsonwebtoken::decode_header(token).map_err(|_| Reason::BadSignature)?;
    if header.alg != Algorithm::EdDSA {
        return Err(Reason::BadSignature);
    }
    let kid = header.kid.ok_or(Reason::UntrustedIssuer)?;
    let key = keys.get(&kid).ok_or(Reason::UntrustedIssuer)?;
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.leeway = 0;
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let data =
        jsonwebtoken::decode::<AnyGrantClaims>(token, key, &validation).map_err(|_| Reason::BadSignature)?;
    Ok(Verified { claims: data.claims, kid })
}

/// Verifies an exact grant (one target, exact bytes): a scoped grant is `invalid_schema` here.
pub fn verify_token(token: &str, keys: &TrustedKeys) -> Result<VerifiedGrant, Reason> {
    let v = verify_any(token, keys)?;
    match v.claims {
        AnyGrantClaims::Exact(claims) => Ok(VerifiedGrant { claims, kid: v.kid }),
        AnyGrantClaims::Scoped(_) => Err(Reason::InvalidSchema),
    }
}
