//! Character folding: what one character of the original becomes in the folded text.
//!
//! Per character, in this order: compatibility decomposition (NFKD, so full-width, super- and
//! subscript, circled and mathematical letters become plain ones), lower case, removal of
//! default-ignorable characters (zero-width spaces and joiners, bidi controls, tag characters,
//! variation selectors, the Hangul fillers, …), removal of combining marks where the script of
//! the letter they sit on does not need them (see [`marks_are_decoration`]), and the UTS #39
//! confusables prototype of every character outside ASCII, taken back to the ASCII letter or digit
//! with the same prototype when there is one (Cyrillic `а` → `a`, Greek `ο` → `o`). ASCII text is
//! only lower-cased, so a pattern written in ASCII matches folded ASCII as it reads. Marks a script
//! keeps (Japanese voicing marks, Indic vowel signs) are composed with their letter again (NFC).
//!
//! The data comes from `unicode-normalization` (NFKD, combining marks, composition),
//! `unicode-security` (confusables skeleton, default-ignorable code points) and `unicode-script`.
//! One class neither lists is read from the character names of the Unicode database: the Latin
//! small capitals (`ᴀ ʙ ᴄ … ᴢ`, "LATIN LETTER SMALL CAPITAL X"), which have no decomposition and
//! no confusables entry yet read as the letter they are named after (`ɢᴘᴛ`); see
//! [`small_capital`].

use std::collections::HashMap;
use std::sync::LazyLock;
use unicode_normalization::char::{compose, decompose_compatible, is_combining_mark};
use unicode_script::{Script, UnicodeScript};

/// One character of folded output and what it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Out {
    pub ch: char,
    /// The character it came from was upper-case (for identifier splitting).
    pub upper: bool,
}

/// The fold state carried from one source character to the next: the script of the last letter
/// (whose marks may follow as separate characters) and whether marks on it are kept.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Carry {
    keep_marks: bool,
}

/// True when combining marks on a letter of `script` are decoration a reader can ignore when
/// comparing words (accents on Latin, Greek, Cyrillic, Armenian and Georgian letters, Hebrew and
/// Arabic vowel points) or when there is no letter to carry them. Other scripts — kana voicing
/// marks, Indic and South-East Asian vowel signs — need them, and keep them.
pub fn marks_are_decoration(script: Script) -> bool {
    matches!(
        script,
        Script::Latin
            | Script::Greek
            | Script::Cyrillic
            | Script::Armenian
            | Script::Georgian
            | Script::Hebrew
            | Script::Arabic
            | Script::Common
            | Script::Inherited
            | Script::Unknown
    )
}

/// True for a default-ignorable code point (UTS #39 removes them from a skeleton; so does the fold).
pub fn is_default_ignorable(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    let mut buf = [0u8; 4];
    let s: &str = c.encode_utf8(&mut buf);
    // The skeleton of a lone character is empty exactly when it is default-ignorable.
    unicode_security::skeleton(s).next().is_none()
}

/// The Latin small capitals of the Unicode database and the letter each is named after: every
/// code point named `LATIN LETTER SMALL CAPITAL <A-Z>` (Unicode 14; listed with
/// `python3 -c "import unicodedata as u,re;print([(hex(c),m[1]) for c in range(0x80,0x30000)
/// if (m:=re.fullmatch('LATIN LETTER SMALL CAPITAL ([A-Z])',u.name(chr(c),'')))])"`).
const SMALL_CAPITALS: [(char, char); 25] = [
    ('\u{0262}', 'g'),
    ('\u{026A}', 'i'),
    ('\u{0274}', 'n'),
    ('\u{0280}', 'r'),
    ('\u{028F}', 'y'),
    ('\u{0299}', 'b'),
    ('\u{029C}', 'h'),
    ('\u{029F}', 'l'),
    ('\u{1D00}', 'a'),
    ('\u{1D04}', 'c'),
    ('\u{1D05}', 'd'),
    ('\u{1D07}', 'e'),
    ('\u{1D0A}', 'j'),
    ('\u{1D0B}', 'k'),
    ('\u{1D0D}', 'm'),
    ('\u{1D0F}', 'o'),
    ('\u{1D18}', 'p'),
    ('\u{1D1B}', 't'),
    ('\u{1D1C}', 'u'),
    ('\u{1D20}', 'v'),
    ('\u{1D21}', 'w'),
    ('\u{1D22}', 'z'),
    ('\u{A730}', 'f'),
    ('\u{A731}', 's'),
    ('\u{A7AF}', 'q'),
];

/// The ASCII letter a Latin small capital is named after (`ᴘ` → `p`), if `c` is one.
pub fn small_capital(c: char) -> Option<char> {
    SMALL_CAPITALS.iter().find(|(s, _)| *s == c).map(|(_, a)| *a)
}

/// For each UTS #39 prototype that an ASCII letter or digit has, that character (letters over
/// digits: the prototype of `l` and of `1` is `l`, and it folds to `l`).
static ASCII_BY_PROTOTYPE: LazyLock<HashMap<String, char>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    for c in ('0'..='9').chain('a'..='z') {
        let mut buf = [0u8; 4];
        map.insert(unicode_security::skeleton(c.encode_utf8(&mut buf)).collect::<String>(), c);
    }
    map
});

/// The lower-case ASCII letter or digit a non-ASCII letter or digit is confusable with, as
/// written (before case folding), when its UTS #39 prototype is one.
fn ascii_prototype(c: char) -> Option<char> {
    if c.is_ascii() || !c.is_alphanumeric() {
        return None;
    }
    let mut buf = [0u8; 4];
    let proto: String = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
    let mut chars = proto.chars();
    match (chars.next(), chars.next()) {
        (Some(p), None) if p.is_ascii_alphanumeric() => {
            let lower = p.to_ascii_lowercase();
            let mut b = [0u8; 4];
            let key: String = unicode_security::skeleton(lower.encode_utf8(&mut b)).collect();
            Some(ASCII_BY_PROTOTYPE.get(&key).copied().unwrap_or(lower))
        }
        _ => None,
    }
}

/// The confusables-folded form of one non-ASCII character, pushed to `out`: the ASCII letter or
/// digit it may be mistaken for when its UTS #39 prototype is (or is that of) ASCII text, the
/// character itself otherwise (Han, kana and Cyrillic words stay readable for other detectors).
fn push_prototype(c: char, upper: bool, out: &mut Vec<Out>) {
    let mut buf = [0u8; 4];
    let proto: String = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
    if let Some(&ascii) = ASCII_BY_PROTOTYPE.get(&proto) {
        out.push(Out { ch: ascii, upper });
    } else if proto.is_ascii() && !proto.is_empty() {
        out.extend(proto.chars().map(|p| Out { ch: p.to_ascii_lowercase(), upper }));
    } else {
        out.push(Out { ch: c, upper });
    }
}

/// Folds one source character into `out` (nothing when it is removed; a kept mark may instead be
/// composed into the last character of `out`).
pub(super) fn fold_char(c: char, carry: &mut Carry, out: &mut Vec<Out>) {
    if c.is_ascii() {
        out.push(Out { ch: c.to_ascii_lowercase(), upper: c.is_ascii_uppercase() });
        *carry = Carry { keep_marks: false };
        return;
    }
    let upper = c.is_uppercase();
    if let Some(ascii) = small_capital(c) {
        out.push(Out { ch: ascii, upper: false });
        *carry = Carry { keep_marks: false };
        return;
    }
    // Hangul syllables stay whole (their decomposition is conjoining letters, not marks).
    if ('\u{AC00}'..='\u{D7A3}').contains(&c) {
        out.push(Out { ch: c, upper: false });
        *carry = Carry { keep_marks: false };
        return;
    }
    // A letter whose lower-case form looks like no ASCII letter may still do so as written
    // (Cherokee `Ꮐ` is listed as `G`, its lower case `ꮐ` as nothing). Cyrillic and Greek keep
    // the lower-case path: their words are matched in their own script.
    let mut pieces: Vec<char> = Vec::with_capacity(4);
    decompose_compatible(c, |d| {
        let lowered: Vec<char> = d.to_lowercase().collect();
        let lower_looks_ascii = lowered.iter().all(|&l| l.is_ascii() || ascii_prototype(l).is_some());
        let own_words = matches!(d.script(), Script::Cyrillic | Script::Greek);
        match ascii_prototype(d) {
            Some(ascii) if !lower_looks_ascii && !own_words => pieces.push(ascii),
            _ => pieces.extend(lowered),
        }
    });
    for d in pieces {
        if is_default_ignorable(d) {
            continue;
        }
        if is_combining_mark(d) {
            if carry.keep_marks {
                match out.last_mut().and_then(|last| compose(last.ch, d).map(|ch| (last, ch))) {
                    Some((last, ch)) => last.ch = ch,
                    None => out.push(Out { ch: d, upper: false }),
                }
            }
            continue;
        }
        carry.keep_marks = !marks_are_decoration(d.script());
        if d.is_ascii() {
            out.push(Out { ch: d, upper });
        } else {
            push_prototype(d, upper, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(s: &str) -> String {
        let mut carry = Carry::default();
        let mut out = Vec::new();
        for c in s.chars() {
            fold_char(c, &mut carry, &mut out);
        }
        out.iter().map(|o| o.ch).collect()
    }

    #[test]
    fn ascii_is_only_lower_cased() {
        assert_eq!(fold("GPT-5 rn m l1I0O |"), "gpt-5 rn m l1i0o |");
    }

    #[test]
    fn homoglyphs_fold_to_the_ascii_letter_they_look_like() {
        // Cyrillic а, Greek ο and Ι, Cyrillic С and о, Armenian օ.
        assert_eq!(fold("Cl\u{430}ude"), "claude");
        assert_eq!(fold("GEM\u{399}NI"), "gemini");
        assert_eq!(fold("\u{421}laude \u{3BF}pus \u{585}pus"), "claude opus opus");
    }

    #[test]
    fn compatibility_forms_fold() {
        assert_eq!(fold("Ｃｌａｕｄｅ ＧＰＴ５"), "claude gpt5");
        assert_eq!(fold("\u{1D402}\u{1D425}\u{1D41A}\u{1D42E}\u{1D41D}\u{1D41E}"), "claude");
        assert_eq!(fold("GPT\u{2075}"), "gpt5");
        assert_eq!(fold("\u{24D2}laude"), "claude");
    }

    #[test]
    fn invisible_characters_go() {
        for hidden in [
            "Cl\u{200B}aude",
            "Cl\u{200D}aude",
            "Cl\u{200C}aude",
            "Cl\u{202E}aude",
            "Cl\u{2066}aude\u{2069}",
            "Cl\u{E0061}aude",
            "Cl\u{3164}aude",
            "Cl\u{115F}aude",
            "Cl\u{FE0F}aude",
            "Cl\u{AD}aude",
            "Cl\u{2060}aude",
            "Cl\u{FEFF}aude",
            "Cl\u{34F}aude",
        ] {
            assert_eq!(fold(hidden), "claude", "{hidden:?}");
        }
    }

    #[test]
    fn decorative_marks_go_and_needed_ones_stay() {
        assert_eq!(fold("Cl\u{E1}ude"), "claude");
        assert_eq!(fold("C\u{301}l\u{308}a\u{330}u\u{35C}de"), "claude");
        assert_eq!(fold("Кл\u{301}од"), fold("Клод"));
        // Japanese voicing marks: precomposed, decomposed and half-width forms agree.
        assert_eq!(fold("クロード"), fold("クロ\u{30FC}ト\u{3099}"));
        assert_eq!(fold("ｸﾛｰﾄﾞ"), fold("クロード"));
        assert_eq!(fold("クロード"), "クロード");
        assert_eq!(fold("Клод"), "клoд", "Cyrillic stays Cyrillic but for letters shaped as ASCII");
        // Devanagari vowel signs stay.
        assert_eq!(fold("कि").chars().count(), 2);
    }

    #[test]
    fn hangul_and_han_stay_whole() {
        assert_eq!(fold("클로드"), "클로드");
        assert_eq!(fold("深度求索").chars().count(), 4);
    }

    #[test]
    fn small_capitals_fold_to_the_letter_they_are_named_after() {
        assert_eq!(fold("ᴍɪsᴛʀᴀʟ ᴄᴏᴅᴇsᴛʀᴀʟ"), "mistral codestral");
        assert_eq!(fold("\u{1D0B}\u{026A}\u{1D0D}\u{026A}"), "kimi");
        // Script g (listed by UTS #39) and a small capital in one word.
        assert_eq!(fold("\u{0261}\u{0280}\u{1D0F}\u{1D0B}"), "grok");
        assert_eq!(small_capital('a'), None);
    }

    #[test]
    fn ignorable_detection_uses_the_unicode_property() {
        assert!(is_default_ignorable('\u{200B}') && is_default_ignorable('\u{E007F}'));
        assert!(!is_default_ignorable('a') && !is_default_ignorable('é') && !is_default_ignorable('克'));
    }
}
