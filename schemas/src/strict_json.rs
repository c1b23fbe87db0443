//! JSON parsing that rejects duplicate object keys (SPEC §1: parsers disagree on which one wins).

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

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
    let value = StrictValue.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Parses `text` as a JSON value, rejecting duplicate keys (see [`value_from_slice`]).
pub fn value_from_str(text: &str) -> Result<Value, StrictJsonError> {
    value_from_slice(text.as_bytes())
}

struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

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
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element_seed(StrictValue)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let value = map.next_value_seed(StrictValue)?;
            out.insert(key, value);
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
}
