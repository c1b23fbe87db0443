//! The direct reader against the `serde_json`-based one it stands in front of: same value (and
//! same serialisation) whenever it answers, the same result through [`super::value_from_slice`]
//! for any bytes, and an answer for every well-formed document within the limits.

use super::{StrictValue, fast, value_from_slice};
use proptest::prelude::*;
use serde::de::DeserializeSeed;
use serde_json::Value;

/// The reader as it was before the direct one: `serde_json` driven through the strict visitor.
fn serde_reader(bytes: &[u8], max: usize) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = StrictValue { depth: 0, max }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value)
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::String),
        prop::sample::select(vec![
            "",
            "é",
            "\"q\"",
            "a\\b",
            "\u{1}",
            "\u{7f}",
            "名前",
            "\u{1f600}",
            "tab\there"
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"\\\\é]{0,4}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// JSON-ish byte soup: structure, literals, numbers at every edge, escapes good and bad,
/// control and non-UTF-8 bytes, whitespace JSON does and does not allow.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    let tokens: Vec<&[u8]> = vec![
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"a\"",
        b"\"a\"",
        b"\"b\":",
        b"\"",
        b"\\",
        b"\"\\u00e9\"",
        b"\"\\ud83d\\ude00\"",
        b"\"\\ud800\"",
        b"\"\\x\"",
        b"\"\\n\\t\\/\"",
        b"0",
        b"1",
        b"-",
        b"01",
        b"-0",
        b"1.5",
        b"1e400",
        b"-1e-7",
        b"2.",
        b".5",
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775808",
        b"-9223372036854775809",
        b"true",
        b"false",
        b"null",
        b"nul",
        b"tru",
        b" ",
        b"\n",
        b"\t",
        b"\r",
        b"\x0c",
        b"\x01",
        b"\xff",
        b"\xc3\xa9",
        b"\"\xc3\"",
        b"x",
    ];
    prop::collection::vec(prop::sample::select(tokens), 0..16).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn documents_read_the_same_and_directly(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }
            .expect("serialises");
        let old = serde_reader(text.as_bytes(), 64);
        let new = fast::parse(text.as_bytes(), 64);
        prop_assert!(new.is_some(), "well-formed and shallow: read directly");
        prop_assert_eq!(new.as_ref().map(Value::to_string), old.as_ref().ok().map(Value::to_string));
        prop_assert_eq!(new, old.ok());
    }

    #[test]
    fn any_bytes_give_the_same_result(bytes in soup(), max in 1usize..6) {
        let old = serde_reader(&bytes, max);
        if let Some(v) = fast::parse(&bytes, max) {
            prop_assert_eq!(Ok(v.to_string()), old.clone().map(|o| o.to_string()));
            prop_assert_eq!(Ok(v), old.clone());
        }
        prop_assert_eq!(value_from_slice(&bytes).map_err(|e| e.to_string()).map(|v| v.to_string()), serde_reader(&bytes, super::max_depth()).map(|v| v.to_string()));
    }

    #[test]
    fn edited_documents_give_the_same_result(v in json_value(), at in any::<prop::sample::Index>(), edit in soup()) {
        let mut bytes = serde_json::to_vec(&v).expect("serialises");
        let at = at.index(bytes.len() + 1);
        bytes.splice(at..at, edit);
        let old = serde_reader(&bytes, 64);
        if let Some(v) = fast::parse(&bytes, 64) {
            prop_assert_eq!(Ok(v.to_string()), old.clone().map(|o| o.to_string()));
            prop_assert_eq!(Ok(v), old);
        }
    }
}

#[test]
fn long_strings_are_read_across_their_blocks() {
    for n in [0, 1, 15, 16, 17, 31, 32, 33, 100] {
        for tail in ["", "\\n", "\u{1}", "é"] {
            let s = format!("{}{tail}{}", "a".repeat(n), "b".repeat(n % 7));
            let text = serde_json::to_string(&Value::String(s.clone())).expect("serialises");
            assert_eq!(fast::parse(text.as_bytes(), 64), Some(Value::String(s)), "{text}");
            let raw = format!("\"{}{tail}\"", "a".repeat(n));
            assert_eq!(fast::parse(raw.as_bytes(), 64), serde_reader(raw.as_bytes(), 64).ok(), "{raw:?}");
        }
    }
}

#[test]
fn duplicates_and_depth_still_get_their_errors() {
    assert!(fast::parse(br#"{"a":1,"a":2}"#, 64).is_none());
    let e = value_from_slice(br#"{"a":1,"a":2}"#).expect_err("duplicate");
    assert!(e.to_string().contains("duplicate key `a`"), "{e}");
    assert!(fast::parse(b"[[1]]", 1).is_none(), "at the limit: the fallback owns the error");
    assert_eq!(fast::parse(b"[[1]]", 2), Some(serde_json::json!([[1]])));
    assert_eq!(
        fast::parse(b" {\"id\":7,\"s\":\"\\u00e9\",\"f\":-0} ", 64),
        serde_reader(b"{\"id\":7,\"s\":\"\\u00e9\",\"f\":-0}", 64).ok()
    );
}
