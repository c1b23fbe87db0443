//! Digits written for letters inside a word (`Gr0k`, `L1ama`, `C1aude`): a digit standing between
//! two letters is read as the letter the UTS #39 confusables table says it looks like (`0` is
//! `O`, `1` is `l`). Only those two: the table maps no other ASCII digit to a letter, and a digit
//! at a word's edge is a version (`gpt4o`, `o1-mini` keep theirs). The reading is a second one
//! beside the text as written, never instead of it (`o1preview` is still read as `o1 preview`).

/// `text` with every `0`/`1` that stands between two ASCII letters replaced by `o`/`l` (same
/// byte offsets), or `None` when there is none. Only in a word whose every digit is such a one
/// (`Gr0k`, `L1ama`): a word with other digits is a hash, an id or a version (`3f1b0c2e`,
/// `gpt4o1`), read as written only.
pub fn digits_as_letters(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut start = 0;
    while start < bytes.len() {
        if !bytes[start].is_ascii_alphanumeric() {
            start += 1;
            continue;
        }
        let end = start + bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        let word = &bytes[start..end];
        let between = |i: usize| {
            i > 0
                && i + 1 < word.len()
                && word[i - 1].is_ascii_alphabetic()
                && word[i + 1].is_ascii_alphabetic()
        };
        let digits: Vec<usize> = (0..word.len()).filter(|&i| word[i].is_ascii_digit()).collect();
        let letters_for_digits =
            !digits.is_empty() && digits.iter().all(|&i| matches!(word[i], b'0' | b'1') && between(i));
        // A multi-byte letter right before or after the run makes it part of a longer word.
        let whole =
            (start == 0 || bytes[start - 1].is_ascii()) && (end == bytes.len() || bytes[end].is_ascii());
        if letters_for_digits && whole {
            let copy = out.get_or_insert_with(|| bytes.to_vec());
            for i in digits {
                copy[start + i] = if word[i] == b'0' { b'o' } else { b'l' };
            }
        }
        start = end;
    }
    // Only ASCII bytes were replaced by ASCII bytes, so the text is still UTF-8.
    out.map(|b| String::from_utf8(b).expect("ASCII replaced by ASCII"))
}

#[cfg(test)]
mod tests {
    use super::digits_as_letters;

    #[test]
    fn a_zero_or_one_between_letters_reads_as_a_letter() {
        assert_eq!(digits_as_letters("Gr0k-3 and L1ama-3").as_deref(), Some("Grok-3 and Llama-3"));
        assert_eq!(digits_as_letters("Gé1n").as_deref(), None, "a multi-byte letter is no ASCII letter");
    }

    #[test]
    fn versions_and_other_digits_stay() {
        for text in
            ["gpt4o", "o1-mini", "GPT-4", "Qwen1.5", "10 items", "a 1 b", "h2o", "x3y", "3f1b0c2e", "ab1c2d"]
        {
            assert_eq!(digits_as_letters(text), None, "{text}");
        }
    }
}
