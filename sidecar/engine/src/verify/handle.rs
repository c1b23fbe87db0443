//! Handle issuance: `bf-` and twelve base-32 characters of a keyed hash over everything the
//! handle is bound to, so nobody without the engine's secret can guess one.

use super::{HANDLE_LEN, HANDLE_PREFIX};
use sha2::{Digest, Sha256};

/// One issued handle, as the trajectory's state keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandleRec {
    /// The handle (`bf-…`).
    pub handle: String,
    /// The proposal under review.
    pub proposal: String,
    /// The fingerprint of exactly the action under review.
    pub fingerprint: String,
    /// The agent the request went to.
    pub to: String,
    /// Its true family when the handle was issued.
    pub family: String,
    /// The delegation's channel id (`Delegate::call_id`).
    pub call_id: String,
}

/// A handle as the transport relaying the request needs it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IssuedHandle {
    /// The handle.
    pub handle: String,
    /// The proposal it is for.
    pub proposal: String,
    /// The tool of the action.
    pub tool: String,
    /// A short rendering of the action (what the verifier judges).
    pub action: String,
}

/// What a delegation that asks to verify carries back to its transport: the fixed instruction
/// to add to what the verifier receives, and the handles it names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerificationRequest {
    /// The instruction (one text block, [`super::BEGIN`] … [`super::END`]).
    pub instruction: String,
    /// The handles, one per action under review.
    pub handles: Vec<IssuedHandle>,
}

/// The handle for `rec` (its `handle` field is ignored), `counter` making each issue distinct,
/// under the engine's `secret`, in `trajectory`.
pub fn issue_handle(secret: &[u8; 32], trajectory: &str, rec: &HandleRec, counter: u64) -> String {
    let mut h = Sha256::new();
    h.update(secret);
    for part in [trajectory, &rec.proposal, &rec.fingerprint, &rec.to, &rec.family, &rec.call_id] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(counter.to_le_bytes());
    let digest = h.finalize();
    const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bits: u64 = 0;
    for b in &digest[..8] {
        bits = (bits << 8) | u64::from(*b);
    }
    let mut out = String::from(HANDLE_PREFIX);
    for i in 0..HANDLE_LEN {
        out.push(char::from(ALPHABET[((bits >> (59 - 5 * i)) & 31) as usize]));
    }
    out
}
