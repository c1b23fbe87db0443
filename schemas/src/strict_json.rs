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
pub fn value_from_slice(bytes: &[u8]) -> Result<Value, StrictJsonError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = StrictValue { depth: 0, max: max_depth() }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Parses `text` as a JSON value, rejecting duplicate keys (see [`value_from_slice`]).
pub fn value_from_str(text: &str) -> Result<Value, StrictJsonError> {
    value_from_slice(text.as_bytes())
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
