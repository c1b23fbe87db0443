//! Number literals a JSON parse would change: decisions, fingerprints and grants see numbers as
//! IEEE doubles (JCS, RFC 8785), so a literal that is not the shortest form of its double
//! (`100000000000000000000000000001`, `0.10000000000000000001`) would be decided as another value
//! than the one a peer reading the same bytes exactly would act on.

/// The first number literal in the JSON text `text` (outside strings) whose value a double does
/// not hold exactly; `None` when every number round-trips. `text` is assumed to be valid JSON
/// (run it after the strict parse).
pub fn first_inexact_number(text: &str) -> Option<&str> {
    number_literals(text).find(|l| !is_exact(l))
}

/// Every number literal in the JSON text `text` (outside strings) whose value a double does not
/// hold exactly, in order (see [`first_inexact_number`]).
pub fn inexact_numbers(text: &str) -> impl Iterator<Item = &str> {
    number_literals(text).filter(|l| !is_exact(l))
}

/// The number literals of the JSON text `text`, outside strings.
fn number_literals(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            match bytes[i] {
                b'"' => i = string_end(bytes, i + 1),
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i < bytes.len()
                        && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                    return Some(&text[start..i]);
                }
                _ => i += 1,
            }
        }
        None
    })
}

/// The index just past the string whose contents start at `i`.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// True when `literal` names the same number as the shortest decimal form of the double it parses
/// to (`1.50`, `1.5e0` and `0.1` do; a 30-digit integer does not, nor does `2^70` written out,
/// whose shortest form is `1.1805916207174113e21`). Two literals that pass and parse to one double
/// are the same number, so deciding on doubles tells apart every pair of them.
fn is_exact(literal: &str) -> bool {
    let Ok(value) = literal.parse::<f64>() else { return false };
    if !value.is_finite() {
        return false;
    }
    decimal(literal) == decimal(&format!("{value:e}"))
}

/// A decimal literal as (negative, significant digits without leading or trailing zeros, the
/// power of ten of the first of them); zero is `(false, "", 0)` whatever its sign.
fn decimal(literal: &str) -> (bool, String, i64) {
    let (negative, rest) = match literal.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, literal),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().unwrap_or(0)),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = int.chars().chain(frac.chars()).collect();
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_owned();
    if digits.is_empty() {
        return (false, String::new(), 0);
    }
    let first_power = exponent + int.len() as i64 - 1 - leading as i64;
    (negative, digits, first_power)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_a_double_holds_pass() {
        for t in [
            r#"{"a":1,"b":-3,"c":1.5,"d":1.50,"e":0.1,"f":1e29,"g":-0,"h":0.0}"#,
            r#"[9007199254740992, -9007199254740991, 1.7976931348623157e308]"#,
            r#"{"s":"100000000000000000000000000001 in a string","t":"\"1.00000000000000000001\""}"#,
            r#"[2.5E-3, 12345.678]"#,
        ] {
            assert_eq!(first_inexact_number(t), None, "{t}");
        }
    }

    #[test]
    fn numbers_a_double_would_change_are_named() {
        assert_eq!(
            first_inexact_number(r#"{"amount":100000000000000000000000000001}"#),
            Some("100000000000000000000000000001")
        );
        assert_eq!(first_inexact_number(r#"[1, 0.10000000000000000001]"#), Some("0.10000000000000000001"));
        assert_eq!(first_inexact_number(r#"{"x":"\\","n":9007199254740993}"#), Some("9007199254740993"));
        assert_eq!(first_inexact_number("[1e400]"), Some("1e400"));
        let all: Vec<&str> =
            inexact_numbers(r#"[1, 9007199254740993, "2", 0.30000000000000000001, 3]"#).collect();
        assert_eq!(all, ["9007199254740993", "0.30000000000000000001"]);
        // Beyond 2^53 an integer is held only as its double's shortest form, so two integers
        // rounding to one double could not be told apart (even one the double holds exactly).
        for big in ["123456789012345678", "18446744073709551615", "1180591620717411303424"] {
            assert_eq!(first_inexact_number(&format!("[{big}]")), Some(big));
        }
    }
}
