//! JSON parsing that rejects duplicate object keys (SPEC §1: parsers disagree on which one wins)
//! and nesting deeper than a process-wide limit (`[limits] max_json_depth`).

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Default deepest nesting of arrays and objects accepted.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Hard ceiling on the depth limit (the JSON parser's own recursion guard).
pub const MAX_DEPTH_CEILING: usize = 127;

static MAX_DEPTH: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_DEPTH);

/// Sets the deepest nesting accepted by every strict parse in this process (clamped to
/// 1..=[`MAX_DEPTH_CEILING`]); the daemon calls it once from its config at start.
pub fn set_max_depth(depth: usize) {
    MAX_DEPTH.store(depth.clamp(1, MAX_DEPTH_CEILING), Ordering::Relaxed);
}

/// The deepest nesting accepted now.
pub fn max_depth() -> usize {
    MAX_DEPTH.load(Ordering::Relaxed)
}

/// A strict-parse failure: malformed JSON, a duplicate key, or a shape mismatch.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StrictJsonError(#[from] serde_json::Error);

/// Parses `bytes` as JSON, rejecting duplicate keys at any depth, then converts to `T`.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StrictJsonError> {
    let value = value_from_slice(bytes)?;
    Ok(serde_json::from_value(value)?)
}

/// Parses `bytes` as a JSON value, rejecting duplicate keys at any depth and trailing bytes.
/// UTF-8 is checked once for the whole input (JSON text is UTF-8); input that is not is parsed
/// byte-wise so its error names the place, as before.
pub fn value_from_slice(bytes: &[u8]) -> Result<Value, StrictJsonError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => value_from_str(text),
        Err(_) => strict(serde_json::Deserializer::from_slice(bytes)),
    }
}

/// Parses `text` as a JSON value, rejecting duplicate keys (see [`value_from_slice`]); its
/// strings are not validated again one by one.
pub fn value_from_str(text: &str) -> Result<Value, StrictJsonError> {
    strict(serde_json::Deserializer::from_str(text))
}

fn strict<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> Result<Value, StrictJsonError> {
    let value = StrictValue { depth: 0, max: max_depth() }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

#[derive(Clone, Copy)]
struct StrictValue {
    depth: usize,
    max: usize,
}

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor(self))
    }
}

impl StrictValue {
    /// The seed for the values inside a container at this depth, or the depth error.
    fn nested<E: de::Error>(self) -> Result<StrictValue, E> {
        if self.depth >= self.max {
            return Err(E::custom(format_args!(
                "JSON nested deeper than {} levels (limits.max_json_depth)",
                self.max
            )));
        }
        Ok(StrictValue { depth: self.depth + 1, max: self.max })
    }
}

struct StrictVisitor(StrictValue);

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.0.nested()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.0.nested()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One lookup finds both the duplicate and the place of a new key.
            match out.entry(key) {
                serde_json::map::Entry::Occupied(e) => {
                    return Err(de::Error::custom(format_args!("duplicate key `{}`", e.key())));
                }
                serde_json::map::Entry::Vacant(e) => {
                    e.insert(map.next_value_seed(inner)?);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The parse before UTF-8 was checked once: byte-wise throughout.
    fn bytewise(bytes: &[u8]) -> Result<Value, StrictJsonError> {
        strict(serde_json::Deserializer::from_slice(bytes))
    }

    /// JSON-like bytes: structure, strings with escapes, duplicate keys, non-ASCII and bytes that
    /// are not UTF-8.
    fn jsonish() -> impl Strategy<Value = Vec<u8>> {
        let pieces = prop::sample::select(vec![
            &b"{"[..],
            b"}",
            b"[",
            b"]",
            b",",
            b":",
            b"\"",
            b"\"a\"",
            b"\"\\u00e9\"",
            b"\"\\n\"",
            b"1",
            b"-2.5e3",
            b"true",
            b"null",
            b" ",
            "é".as_bytes(),
            "名".as_bytes(),
            b"\xff",
            b"\xc3",
            b"\\",
        ]);
        prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
    }

    /// Any JSON value (keys and strings of any characters, escapes included).
    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<String>().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn any_value_parses_back_to_itself(v in any_value()) {
            let text = serde_json::to_vec(&v).expect("serialise");
            prop_assert_eq!(value_from_slice(&text).expect("valid JSON"), v.clone());
            prop_assert_eq!(bytewise(&text).expect("valid JSON"), v);
        }

        #[test]
        fn checking_utf8_once_parses_as_before(bytes in jsonish()) {
            match (value_from_slice(&bytes), bytewise(&bytes)) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                (Err(_), Err(_)) => {}
                (a, b) => prop_assert!(false, "{:?} gave {:?} against {:?}", bytes, a, b),
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_naming_the_place() {
        let e = value_from_slice(b"{\"a\":\"\xff\"}").expect_err("not UTF-8");
        assert!(e.to_string().contains("line 1"), "{e}");
        assert!(value_from_slice(b"\xff").is_err());
        assert_eq!(value_from_slice("{\"a\":\"é\"}".as_bytes()).expect("UTF-8")["a"], "é");
    }

    #[test]
    fn rejects_duplicate_keys_at_any_depth() {
        assert!(value_from_str(r#"{"a":1,"a":2}"#).is_err());
        assert!(value_from_str(r#"{"x":[{"b":1,"b":1}]}"#).is_err());
        assert!(value_from_str(r#"{"a":1,"b":{"a":2}}"#).is_ok());
    }

    #[test]
    fn rejects_trailing_bytes_and_keeps_values() {
        assert!(value_from_str(r#"{"a":1} x"#).is_err());
        let v = value_from_str(r#"{"n":-3,"f":1.5,"s":"é","l":[true,null]}"#).expect("valid");
        assert_eq!(v["n"], -3);
        assert_eq!(v["s"], "é");
    }

    #[test]
    fn rejects_nesting_past_the_depth_limit_with_a_clear_error() {
        let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(value_from_str(&nested(DEFAULT_MAX_DEPTH)).is_ok(), "the limit itself is accepted");
        let e = value_from_str(&nested(DEFAULT_MAX_DEPTH + 1)).expect_err("one level deeper");
        assert!(e.to_string().contains("nested deeper than 64 levels"), "{e}");
        let objects =
            format!("{}1{}", "{\"a\":".repeat(DEFAULT_MAX_DEPTH + 1), "}".repeat(DEFAULT_MAX_DEPTH + 1));
        assert!(value_from_str(&objects).is_err(), "objects count too");
        assert!(
            value_from_str(&nested(100_000)).is_err(),
            "very deep input is refused, not a stack overflow"
        );
    }
}
