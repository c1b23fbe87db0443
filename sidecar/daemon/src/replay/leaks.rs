//! The identity-leak count of SPEC §4/§11: identity values, case-insensitive and as whole words,
//! in what the coordinator received.

/// Counts occurrences of every token of `tokens` in `text`, case-insensitively and only where
/// the match is not part of a longer word (letters, digits, `_` around it).
pub fn count_leaks<'a>(text: &str, tokens: impl IntoIterator<Item = &'a str>) -> usize {
    let hay = text.to_lowercase();
    let mut unique: Vec<String> = tokens.into_iter().map(str::to_lowercase).filter(|t| !t.trim().is_empty()).collect();
    unique.sort();
    unique.dedup();
    unique.iter().map(|t| count_word(&hay, t)).sum()
}

fn is_word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn count_word(hay: &str, needle: &str) -> usize {
    let mut count = 0;
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back();
        let after = hay[end..].chars().next();
        if !is_word_char(before) && !is_word_char(after) {
            count += 1;
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::count_leaks;

    #[test]
    fn counts_whole_words_case_insensitively() {
        assert_eq!(count_leaks("Made by Corvid; corvid-7 runs.", ["corvid", "corvid-7"]), 3);
        assert_eq!(count_leaks("corvids and precorvid", ["corvid"]), 0);
        assert_eq!(count_leaks("an Efficient plan, efficiently", ["efficient"]), 1);
        assert_eq!(count_leaks("nothing here", ["", "  "]), 0);
    }
}
