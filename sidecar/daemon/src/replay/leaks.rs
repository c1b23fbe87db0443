//! The identity-leak count of SPEC §4/§11: identity values, case-insensitive and as whole words,
//! in what the coordinator received.

/// Counts occurrences of the tokens in `text`, case-insensitively, only where a match is not part
/// of a longer word (letters, digits, `_` around it), and without counting overlapping matches
/// twice (`wrenlet-2` is one leak, not also `wrenlet`): longer matches win.
pub fn count_leaks<'a>(text: &str, tokens: impl IntoIterator<Item = &'a str>) -> usize {
    let hay = text.to_lowercase();
    let mut unique: Vec<String> =
        tokens.into_iter().map(str::to_lowercase).filter(|t| !t.trim().is_empty()).collect();
    unique.sort();
    unique.dedup();
    let mut spans: Vec<(usize, usize)> = unique.iter().flat_map(|t| word_spans(&hay, t)).collect();
    spans.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut count = 0;
    let mut covered = 0;
    for (start, end) in spans {
        if start >= covered {
            count += 1;
            covered = end;
        }
    }
    count
}

fn is_word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn word_spans(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back();
        let after = hay[end..].chars().next();
        if !is_word_char(before) && !is_word_char(after) {
            out.push((start, end));
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::count_leaks;

    #[test]
    fn counts_whole_words_case_insensitively() {
        assert_eq!(count_leaks("Made by Corvid; corvid-7 runs.", ["corvid", "corvid-7"]), 2);
        assert_eq!(count_leaks("corvids and precorvid", ["corvid"]), 0);
        assert_eq!(count_leaks("an Efficient plan, efficiently", ["efficient"]), 1);
        assert_eq!(count_leaks("nothing here", ["", "  "]), 0);
    }
}
