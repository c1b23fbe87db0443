//! Ed25519 issuer keys: PEM loading, RFC 7638 key ids, the trusted set and key revocation.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{SigningKey, VerifyingKey};
use jsonwebtoken::DecodingKey;
use std::collections::{HashMap, HashSet};

/// A key file could not be read as Ed25519 PEM.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// Not an Ed25519 PKCS#8 private key.
    #[error("not an Ed25519 PKCS#8 private key (PEM): {0}")]
    Private(String),
    /// Not an Ed25519 SPKI public key.
    #[error("not an Ed25519 SPKI public key (PEM): {0}")]
    Public(String),
}

/// The RFC 7638 JWK thumbprint of an Ed25519 public key: the grant header's `kid`.
pub fn key_id(key: &VerifyingKey) -> String {
    let x = URL_SAFE_NO_PAD.encode(key.as_bytes());
    // Members in lexicographic order, no whitespace (RFC 7638 §3.2).
    let jwk = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(<sha2::Sha256 as sha2::Digest>::digest(jwk.as_bytes()))
}

/// An issuer's signing key with its key id.
#[derive(Clone)]
pub struct IssuerKey {
    signing: SigningKey,
    kid: String,
}

impl IssuerKey {
    /// Wraps a signing key.
    pub fn new(signing: SigningKey) -> Self {
        let kid = key_id(&signing.verifying_key());
        Self { signing, kid }
    }

    /// A fresh random key (`blindfold keygen`, demos, ephemeral replay issuers): 32 bytes from
    /// the thread's CSPRNG, which the OS seeds and reseeds.
    pub fn generate() -> Self {
        Self::new(SigningKey::from_bytes(&rand::random::<[u8; 32]>()))
    }

    /// Reads a PKCS#8 PEM private key.
    pub fn from_pem(pem: &str) -> Result<Self, KeyError> {
        SigningKey::from_pkcs8_pem(pem).map(Self::new).map_err(|e| KeyError::Private(e.to_string()))
    }

    /// The PKCS#8 v1 PEM form of the private key (RFC 8410, without the optional public key,
    /// which some readers — Python's `cryptography` among them — refuse).
    pub fn private_pem(&self) -> Result<String, KeyError> {
        ed25519_dalek::pkcs8::KeypairBytes { secret_key: self.signing.to_bytes(), public_key: None }
            .to_pkcs8_pem(Default::default())
            .map(|z| z.to_string())
            .map_err(|e| KeyError::Private(e.to_string()))
    }

    /// The SPKI PEM form of the public key.
    pub fn public_pem(&self) -> Result<String, KeyError> {
        self.signing
            .verifying_key()
            .to_public_key_pem(Default::default())
            .map_err(|e| KeyError::Public(e.to_string()))
    }

    /// The key id (`kid`).
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public half.
    pub fn verifying_key(&self) -> VerifyingKey {
        self.signing.verifying_key()
    }

    /// PKCS#8 DER of the private key, as the JWS encoder wants it.
    pub(crate) fn pkcs8_der(&self) -> Result<Vec<u8>, KeyError> {
        self.signing
            .to_pkcs8_der()
            .map(|d| d.as_bytes().to_vec())
            .map_err(|e| KeyError::Private(e.to_string()))
    }
}

/// Reads an SPKI PEM public key.
pub fn public_key_from_pem(pem: &str) -> Result<VerifyingKey, KeyError> {
    VerifyingKey::from_public_key_pem(pem).map_err(|e| KeyError::Public(e.to_string()))
}

/// The configured set of trusted issuer keys, by `kid`; several may be valid at once (rotation).
#[derive(Clone, Default)]
pub struct TrustedKeys {
    keys: HashMap<String, DecodingKey>,
    revoked: HashSet<String>,
}

impl TrustedKeys {
    /// An empty set: every grant is `untrusted_issuer`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts `key`; returns its key id.
    pub fn add(&mut self, key: &VerifyingKey) -> String {
        let kid = key_id(key);
        let x = URL_SAFE_NO_PAD.encode(key.as_bytes());
        // `from_ed_components` takes the JWK `x` member; it cannot fail for 32 valid bytes.
        if let Ok(dk) = DecodingKey::from_ed_components(&x) {
            self.keys.insert(kid.clone(), dk);
        }
        kid
    }

    /// Trusts the SPKI PEM public key in `pem`.
    pub fn add_pem(&mut self, pem: &str) -> Result<String, KeyError> {
        Ok(self.add(&public_key_from_pem(pem)?))
    }

    /// Revokes a key id: grants it signed are `untrusted_issuer` from now on.
    pub fn revoke(&mut self, kid: &str) {
        self.revoked.insert(kid.to_owned());
    }

    /// The decoding key for `kid`, if trusted and not revoked.
    pub fn get(&self, kid: &str) -> Option<&DecodingKey> {
        if self.revoked.contains(kid) {
            return None;
        }
        self.keys.get(kid)
    }

    /// Number of keys currently trusted (revoked ones excluded).
    pub fn len(&self) -> usize {
        self.keys.keys().filter(|k| !self.revoked.contains(*k)).count()
    }

    /// True when no key is trusted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
