//! The process's JWT cryptography: Ed25519 (`EdDSA`, through ed25519-dalek) and nothing else.
//!
//! Grants and signed cards use only EdDSA, so `jsonwebtoken` is built without a crypto backend
//! (its bundled one compiles RSA, ECDSA and HMAC in, RSA with RUSTSEC-2023-0071) and this module
//! installs a provider that signs and verifies Ed25519 and refuses every other algorithm: a
//! token that names any other algorithm cannot verify, whatever key it is checked against.

use ed25519_dalek::pkcs8::DecodePrivateKey;
use ed25519_dalek::{Signature, SigningKey, VerifyingKey};
use jsonwebtoken::crypto::{CryptoProvider, JwkUtils, JwtSigner, JwtVerifier};
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey};
use std::sync::Once;

static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: new_signer,
    verifier_factory: new_verifier,
    jwk_utils: JwkUtils::new_unimplemented(),
};

/// Installs the EdDSA-only provider for this process (idempotent; every signing and verifying
/// entry point of the engine calls it first).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err means a provider is already installed; only this module installs one.
        let _ = PROVIDER.install_default();
    });
}

struct Ed25519Signer(SigningKey);

impl signature::Signer<Vec<u8>> for Ed25519Signer {
    fn try_sign(&self, msg: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        Ok(self.0.sign(msg).to_bytes().to_vec())
    }
}

impl JwtSigner for Ed25519Signer {
    fn algorithm(&self) -> Algorithm {
        Algorithm::EdDSA
    }
}

struct Ed25519Verifier(VerifyingKey);

impl signature::Verifier<Vec<u8>> for Ed25519Verifier {
    fn verify(&self, msg: &[u8], sig: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        self.0.verify(msg, &Signature::from_slice(sig)?)
    }
}

impl JwtVerifier for Ed25519Verifier {
    fn algorithm(&self) -> Algorithm {
        Algorithm::EdDSA
    }
}

fn new_signer(alg: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    if *alg != Algorithm::EdDSA || key.family() != AlgorithmFamily::Ed {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    let key = SigningKey::from_pkcs8_der(key.inner()).map_err(|_| ErrorKind::InvalidEddsaKey)?;
    Ok(Box::new(Ed25519Signer(key)))
}

fn new_verifier(alg: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    if *alg != Algorithm::EdDSA || key.family() != AlgorithmFamily::Ed {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    let raw = key.as_bytes().get(..32).ok_or(ErrorKind::InvalidEddsaKey)?;
    let bytes: &[u8; 32] = raw.try_into().map_err(|_| ErrorKind::InvalidEddsaKey)?;
    let key = VerifyingKey::from_bytes(bytes).map_err(|_| ErrorKind::InvalidEddsaKey)?;
    Ok(Box::new(Ed25519Verifier(key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_algorithms_are_refused_for_signing_and_verifying() {
        install();
        let secret = EncodingKey::from_secret(b"k");
        assert!(jsonwebtoken::crypto::sign(b"m", &secret, Algorithm::HS256).is_err());
        let public = DecodingKey::from_secret(b"k");
        assert!(jsonwebtoken::crypto::verify("AAAA", b"m", &public, Algorithm::HS256).is_err());
    }
}
