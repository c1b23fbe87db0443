//! Canonical bytes and digests: RFC 8785 (JCS) forms and lowercase-hex SHA-256.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The RFC 8785 canonical form of a JSON value.
pub fn jcs(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    if write_jcs(value, &mut out) {
        return out;
    }
    // Serialising a `serde_json::Value` cannot fail (keys are strings, numbers are finite).
    serde_json_canonicalizer::to_vec(value).unwrap_or_default()
}

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Largest magnitude up to which every integer is exactly a double (and so prints as itself).
const EXACT_INT: u64 = 1 << 53;

/// Appends the RFC 8785 form of `value` for the shapes tool arguments take — strings, booleans,
/// null, integers of magnitude up to 2^53, arrays and objects of them — byte for byte what the
/// general canonicaliser writes. False (with `out` partly written) for anything else (a
/// fraction, a larger integer), which is left to [`serde_json_canonicalizer`].
pub(crate) fn write_jcs(value: &Value, out: &mut Vec<u8>) -> bool {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) if i.unsigned_abs() <= EXACT_INT => out.extend_from_slice(i.to_string().as_bytes()),
            (_, Some(u)) if u <= EXACT_INT => out.extend_from_slice(u.to_string().as_bytes()),
            _ => return false,
        },
        Value::String(s) => write_jcs_str(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if !write_jcs(item, out) {
                    return false;
                }
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, v)) in jcs_order(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_jcs_str(k, out);
                out.push(b':');
                if !write_jcs(v, out) {
                    return false;
                }
            }
            out.push(b'}');
        }
    }
    true
}

/// An object's members in RFC 8785 order: by the UTF-16 code units of the keys (for ASCII keys
/// that is byte order).
pub(crate) fn jcs_order(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<(&String, &Value)> = map.iter().collect();
    if members.iter().all(|(k, _)| k.is_ascii()) {
        members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    } else {
        members.sort_unstable_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    }
    members
}

/// Appends a JSON string the RFC 8785 way: `"` and `\` escaped, control characters as `\b \t
/// \n \f \r` or `\u00xx` (lowercase hex), everything else as its UTF-8 bytes.
pub(crate) fn write_jcs_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short.is_empty() {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]);
        } else {
            out.extend_from_slice(short);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends `s` as a JSON string: RFC 8785 escaping, which is also byte for byte what
/// `serde_json` writes for a string.
pub fn write_json_str(s: &str, out: &mut Vec<u8>) {
    write_jcs_str(s, out);
}

/// The RFC 8785 canonical form as a string.
pub fn jcs_string(value: &Value) -> String {
    String::from_utf8(jcs(value)).unwrap_or_default()
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    digest_hex(&Sha256::digest(bytes).into())
}

/// Lowercase hex of a SHA-256 digest, written through a table into one buffer (what
/// `hex::encode` returns, without building the string a character at a time).
pub fn digest_hex(digest: &[u8; 32]) -> String {
    let mut out = String::with_capacity(64);
    for &b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
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
    use proptest::prelude::*;
    use serde_json::json;

    fn json_value() -> impl Strategy<Value = Value> {
        let text = prop_oneof![
            any::<String>(),
            "[\\x00-\\x20\"\\\\/a-z\u{7f}\u{e9}\u{e000}-\u{e002}\u{ffff}\u{10000}-\u{10002}]{0,8}",
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-(1i64 << 54)..(1i64 << 54)).prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            text.clone().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((text.clone(), inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn jcs_is_byte_identical_to_the_general_canonicaliser(v in json_value()) {
            let general = serde_json_canonicalizer::to_vec(&v).expect("finite");
            let fast = jcs(&v);
            prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&general));
        }
    }

    proptest! {
        #[test]
        fn digest_hex_is_what_hex_encode_writes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let digest: [u8; 32] = Sha256::digest(&bytes).into();
            prop_assert_eq!(digest_hex(&digest), hex::encode(digest));
            prop_assert_eq!(sha256_hex(&bytes), hex::encode(Sha256::digest(&bytes)));
        }
    }

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
