//! Disguised spellings: a word written so that it reads as a plain word while its characters
//! are not the plain ones — an invisible character between its letters (`Gem\u{200B}ini`), letters
//! of another alphabet standing in among Latin ones (`Gеmini` with Cyrillic `е`), Latin small
//! capitals (`ɢᴇᴍɪɴɪ`) or mathematical letters (`𝐆𝐞𝐦𝐢𝐧𝐢`), or followed by tag characters
//! that spell letters or digits no reader sees (`Gemini` + invisible ` Pro`; tag characters
//! belong after an emoji flag, never after a letter). Nobody types an ordinary word that
//! way by accident, so a detector may treat a disguised word as deliberate.
//!
//! Combining marks no letter of the word takes (`G͓r̷o̵k͜`: a mark that composes with no Latin
//! letter it follows, as "zalgo" text stacks them) are a disguise too. Accents (`Méta`, `Ǵrok`,
//! written precomposed or as a letter and a mark that compose) are not: they are how other
//! languages write their words. Neither is full width (CJK typography), nor a soft hyphen (a hyphenation hint).

use super::chars::{is_default_ignorable, small_capital};
use super::words::is_unspaced;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_script::{Script, UnicodeScript};

/// True when `word` (a span of original text) is written in a disguised way (see the module
/// docs).
pub fn disguised(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    let hidden = chars.iter().enumerate().any(|(i, &c)| {
        c != '\u{AD}'
            && is_default_ignorable(c)
            && chars[..i].iter().any(|p| p.is_alphanumeric())
            && chars[i + 1..].iter().any(|n| n.is_alphanumeric())
    });
    let latin = chars.iter().any(|c| c.is_alphabetic() && c.script() == Script::Latin);
    let foreign = chars.iter().any(|&c| {
        c.is_alphabetic()
            && !is_unspaced(c)
            && !matches!(c.script(), Script::Latin | Script::Common | Script::Inherited)
    });
    let tagged = chars.iter().enumerate().any(|(i, &c)| {
        ('\u{E0020}'..='\u{E007E}').contains(&c)
            && char::from_u32(c as u32 - 0xE0000).is_some_and(|h| h.is_ascii_alphanumeric())
            && chars[..i].iter().any(|p| p.is_alphabetic())
    });
    let styled =
        chars.iter().any(|&c| small_capital(c).is_some() || ('\u{1D400}'..='\u{1D7FF}').contains(&c));
    hidden || tagged || (latin && foreign) || styled || stray_marks(&chars)
}

/// True when the combining marks after a Latin letter do not all compose with it (NFC leaves a
/// mark standing): marks that are no accent of any precomposed Latin letter.
fn stray_marks(chars: &[char]) -> bool {
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let marks = chars[i + 1..].iter().take_while(|&&m| is_combining_mark(m)).count();
        if marks > 0 && c.is_alphabetic() && c.script() == Script::Latin {
            let cluster: String = chars[i..=i + marks].iter().collect();
            if cluster.nfc().any(is_combining_mark) {
                return true;
            }
        }
        i += marks + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::disguised;

    #[test]
    fn hidden_foreign_and_styled_letters_are_disguise() {
        assert!(disguised("Gem\u{200B}ini"));
        assert!(disguised("Co\u{2060}mmand"));
        assert!(disguised("G\u{435}mini"), "Cyrillic е among Latin letters");
        assert!(disguised("\u{1D0D}\u{026A}s\u{1D1B}\u{0280}\u{1D00}\u{029F}"));
        assert!(disguised("\u{1D40C}eta"));
        assert!(disguised("Opus\u{E0020}\u{E0034}"), "an invisible version after it");
        assert!(disguised("G\u{353}r\u{337}o\u{335}k\u{35C}\u{489}"), "marks no letter takes");
        assert!(disguised("Gem\u{334}ini"), "one overlay mark");
    }

    #[test]
    fn ordinary_spellings_are_not() {
        for word in [
            "Gemini",
            "Méta",
            "Ǵrok",
            "G\u{301}rok",
            "Me\u{301}ta",
            "Vie\u{302}\u{323}t",
            "Клод",
            "Ｇｅｍｉｎｉ",
            "com\u{AD}mand",
            "ジェミニ",
            "Meta公司",
            "Gemini\u{200B}",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E007F}",
        ] {
            assert!(!disguised(word), "{word:?}");
        }
    }
}
