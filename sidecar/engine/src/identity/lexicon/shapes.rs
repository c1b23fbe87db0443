//! Shapes that name a model by where they stand rather than by a word of the lexicon: a
//! parameter count standing alone (`the 70B variant`), a short code in parentheses right after
//! a model id (`… (R1)`), and the variant words of scripts written without spaces after a
//! transliterated family (`미스트랄 라지가`, `ミストラル・ラージ`), whose word ends only where the
//! script does or a particle of the data's `unspaced_after` follows.

use super::Lexicon;
use crate::fold::{Folded, Gap, Word, WordClass};
use unicode_script::{Script, UnicodeScript};

/// Most characters of a code in parentheses (`R1`, `V3`, `K2`, `4o`, `X1`).
const MAX_CODE_CHARS: usize = 4;

/// Where a parameter count starting at word `i` ends: a number (`70`, `1.5` written with a
/// point, `8x7` of a mixture) with `b` or `m` written right after it (`70B`, `1.5b`, `8x7B`,
/// `350M`), standing as a word of its own — not glued to letters before it, not continued by
/// letters or digits after it, not the tail of a longer dotted number. `None` otherwise.
pub(super) fn parameter_count_at(text: &str, words: &[Word], i: usize) -> Option<usize> {
    let s = |w: &Word| &text[w.range.clone()];
    let gap = |w: &Word| &text[w.gap_range.clone()];
    let digits = |j: usize| words.get(j).is_some_and(|w| w.class == WordClass::Digits);
    let first = words.get(i)?;
    if first.class != WordClass::Digits || first.gap == Gap::Split {
        return None;
    }
    if i > 0 && matches!(gap(first), "." | ",") && digits(i - 1) {
        return None;
    }
    let mut j = i + 1;
    // A decimal part (`1.5`) or a mixture's count (`8x7`).
    if digits(j) && gap(&words[j]) == "." {
        j += 1;
    } else if words.get(j).is_some_and(|w| w.gap == Gap::Split && s(w) == "x")
        && digits(j + 1)
        && words[j + 1].gap == Gap::Split
    {
        j += 2;
    }
    let unit = words.get(j)?;
    if unit.gap != Gap::Split || !matches!(s(unit), "b" | "m") {
        return None;
    }
    let continued = words.get(j + 1).is_some_and(|w| w.gap == Gap::Split);
    (!continued).then_some(j + 1)
}

/// True when `digits` reads as a model release's date: `YYMM` or `YYYYMMDD` of the years 2023 to
/// 2029 with a real month (`2506`, `20250219`); a year (`1905`, `2024`) or a count is not.
fn release_code(digits: &str) -> bool {
    let n = |s: &str| s.parse::<u32>().ok();
    let month = |m: Option<u32>| m.is_some_and(|m| (1..=12).contains(&m));
    let year = |y: Option<u32>, from: u32| y.is_some_and(|y| (from..from + 7).contains(&y));
    digits.chars().all(|c| c.is_ascii_digit())
        && match digits.len() {
            4 => year(n(&digits[..2]), 23) && month(n(&digits[2..])),
            8 => {
                year(n(&digits[..4]), 2023)
                    && month(n(&digits[4..6]))
                    && n(&digits[6..]).is_some_and(|d| (1..=31).contains(&d))
            }
            _ => false,
        }
}

impl Lexicon {
    /// Where a code in parentheses right after a model id ending before word `at` ends (the
    /// index past its last word): `(` before it, `)` right after it, at most four letters and
    /// digits with at least one of each, written together, and no lexicon word of its own; or a
    /// release code of digits alone ([`release_code`]: "Magistral Small (2506)").
    pub(super) fn paren_code(&self, folded: &Folded, words: &[Word], at: usize) -> Option<usize> {
        let text = folded.as_str();
        let first = words.get(at)?;
        if text[first.gap_range.clone()].trim_start() != "(" {
            return None;
        }
        let mut end = at + 1;
        while words.get(end).is_some_and(|w| w.gap == Gap::Split && w.class != WordClass::Unspaced) {
            end += 1;
        }
        let code = &words[at..end];
        let chars: usize = code.iter().map(|w| text[w.range.clone()].chars().count()).sum();
        let has = |c: WordClass| code.iter().any(|w| w.class == c);
        let closed = text[code[code.len() - 1].range.end..].starts_with(')');
        let own_word = self.inner.phrases.longest_at(folded, words, at).is_some();
        let mixed = chars <= MAX_CODE_CHARS && has(WordClass::Letters) && has(WordClass::Digits);
        let release = code.len() == 1 && release_code(&text[code[0].range.clone()]);
        (closed && (mixed || release) && !own_word).then_some(end)
    }

    /// Where a variant word written in a script without spaces (`라지`, `ラージ`, `专业版`) starting
    /// at word `j` ends, when its word ends there: at the end of the text, before a space,
    /// punctuation or another script, or before one of the data's `unspaced_after` (a particle,
    /// an edition suffix) that itself ends so. `프로그램` holds no `프로`. Chinese, which marks no
    /// word ends, has whole compounds in the data instead.
    pub(super) fn unspaced_variant(&self, folded: &Folded, words: &[Word], j: usize) -> Option<usize> {
        let (end, _) = self.inner.unspaced_variants.longest_at(folded, words, j)?;
        let text = folded.as_str();
        let at = words[end - 1].range.end;
        let script = script_of(text[..at].chars().next_back()?);
        // Chinese marks no word ends: its variant words are whole compounds ("专业版").
        let ends = |p: usize| {
            script == Script::Han || text[p..].chars().next().is_none_or(|c| script_of(c) != script)
        };
        let followed = self
            .inner
            .unspaced_after
            .iter()
            .any(|f| text[at..].starts_with(f.as_str()) && ends(at + f.len()));
        (ends(at) || followed).then_some(end)
    }
}

/// The script a character is read in for word ends: the katakana prolonged sound mark belongs
/// to katakana, and every script without spaces other than kana and Hangul counts as Han.
fn script_of(c: char) -> Script {
    match c {
        '\u{30FC}' => Script::Katakana,
        c => match c.script() {
            s @ (Script::Katakana | Script::Hiragana | Script::Hangul) => s,
            _ if crate::fold::is_unspaced(c) => Script::Han,
            s => s,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::fold;

    #[test]
    fn a_release_code_is_a_recent_month_or_day() {
        assert!(release_code("2506") && release_code("2312") && release_code("20250219"));
        for other in ["2024", "1905", "2513", "250", "25061", "20221201", "abcd"] {
            assert!(!release_code(other), "{other}");
        }
    }

    fn count(text: &str) -> Option<String> {
        let folded = fold(text);
        let words = folded.words();
        (0..words.len()).find_map(|i| {
            parameter_count_at(folded.as_str(), &words, i)
                .map(|end| folded.as_str()[words[i].range.start..words[end - 1].range.end].to_owned())
        })
    }

    #[test]
    fn parameter_counts_are_numbers_with_a_unit_of_their_own() {
        assert_eq!(count("the 70B one").as_deref(), Some("70b"));
        assert_eq!(count("a 1.5b net").as_deref(), Some("1.5b"));
        assert_eq!(count("an 8x7B mixture").as_deref(), Some("8x7b"));
        assert_eq!(count("a 350M encoder").as_deref(), Some("350m"));
        assert_eq!(count("a 12-row grid").as_deref(), None);
        assert_eq!(count("the v70B tag").as_deref(), None);
        assert_eq!(count("70Bn dollars").as_deref(), None);
        assert_eq!(count("about 12MB of logs").as_deref(), None);
        assert_eq!(count("room 3.14m2").as_deref(), None);
    }
}
