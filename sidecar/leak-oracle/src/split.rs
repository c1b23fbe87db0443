//! The oracle's own word splitting: whole words are runs of letters and digits; identifiers are
//! also read split (`_`, camelCase humps, letters against digits), so a name inside a compound is
//! a word of its own.

/// True for characters of scripts written without spaces (searched as substrings).
pub(crate) fn unspaced(c: char) -> bool {
    let n = c as u32;
    (0x1100..=0x11FF).contains(&n)
        || (0x2E80..=0x9FFF).contains(&n)
        || (0xA960..=0xA97F).contains(&n)
        || (0xAC00..=0xD7FF).contains(&n)
        || (0xF900..=0xFAFF).contains(&n)
        || (0xFF66..=0xFF9F).contains(&n)
        || (0x20000..=0x3FFFF).contains(&n)
}

/// `text` with a space at every identifier boundary: before a capital that follows a small
/// letter, before the last capital of a run that a small letter follows, between letters and
/// digits.
pub(crate) fn split_identifiers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 {
            let p = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let hump = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower);
            let digits = (p.is_alphabetic() && c.is_numeric()) || (p.is_numeric() && c.is_alphabetic());
            if hump || digits {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out
}

/// `text` with a space wherever a script without spaces meets another one (`我是m-large-2模型`
/// holds the whole word `m-large-2`).
pub(crate) fn space_scripts(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<bool> = None;
    for c in text.chars() {
        let u = unspaced(c);
        if prev.is_some_and(|p| p != u) && c.is_alphanumeric() {
            out.push(' ');
        }
        prev = c.is_alphanumeric().then_some(u);
        out.push(c);
    }
    out
}

/// The whole words of `text`: maximal runs of letters and digits.
pub(crate) fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

/// Occurrences of the word sequence `needle` in `hay` (consecutive words).
pub(crate) fn count_sequence(hay: &[&str], needle: &[String]) -> usize {
    if needle.is_empty() || needle.len() > hay.len() {
        return 0;
    }
    hay.windows(needle.len()).filter(|w| w.iter().zip(needle).all(|(a, b)| *a == b)).count()
}
