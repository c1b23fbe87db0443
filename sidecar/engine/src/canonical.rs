//! Canonical bytes and digests: RFC 8785 (JCS) forms and lowercase-hex SHA-256.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The RFC 8785 canonical form of a JSON value.
pub fn jcs(value: &Value) -> Vec<u8> {
    // Serialising a `serde_json::Value` cannot fail (keys are strings, numbers are finite).
    serde_json_canonicalizer::to_vec(value).unwrap_or_default()
}

/// The RFC 8785 canonical form as a string.
pub fn jcs_string(value: &Value) -> String {
    String::from_utf8(jcs(value)).unwrap_or_default()
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The bytes a grant's `artifact_sha256` covers for an argument value (SPEC §6): a string's
/// UTF-8 bytes after JSON decoding, anything else in its JCS form.
pub fn artifact_bytes(value: &Value) -> Vec<u8> {
    match value {
        Value::String(s) => s.as_bytes().to_vec(),
        other => jcs(other),
    }
}

/// A target as grants compare it: a string as itself, anything else as its JCS form.
pub fn target_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => jcs_string(other),
    }
}

/// `args_sha256`: SHA-256 of the JCS form of the object of remaining arguments.
pub fn args_sha256(args: &Map<String, Value>) -> String {
    sha256_hex(&jcs(&Value::Object(args.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jcs_sorts_keys_and_normalises_numbers() {
        assert_eq!(jcs_string(&json!({"b": 1, "a": [1.0, "x"]})), r#"{"a":[1,"x"],"b":1}"#);
    }

    #[test]
    fn artifact_bytes_of_string_are_its_utf8() {
        assert_eq!(artifact_bytes(&json!("héllo")), "héllo".as_bytes());
        assert_eq!(artifact_bytes(&json!(["a", "b"])), br#"["a","b"]"#);
    }

    #[test]
    fn empty_args_hash_is_hash_of_braces() {
        assert_eq!(args_sha256(&Map::new()), sha256_hex(b"{}"));
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
