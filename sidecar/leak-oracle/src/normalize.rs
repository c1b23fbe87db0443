//! The oracle's own normalisation, built on ICU4X and decancer (the anonymizer uses other crates
//! and other code): NFKD, default-ignorable and format characters dropped, every nonspacing and
//! enclosing mark dropped, NFC, then decancer's confusables cure (lower case, look-alike letters
//! to Latin), CJK, kana and Hangul kept as they are.

use icu_normalizer::{ComposingNormalizerBorrowed, DecomposingNormalizerBorrowed};
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory};
use icu_properties::{CodePointMapData, CodePointSetData};

/// `text` with invisible characters and marks gone, compatibility forms resolved, case kept (the
/// identifier split needs it).
pub(crate) fn strip(text: &str) -> String {
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let category = CodePointMapData::<GeneralCategory>::new();
    let decomposed = DecomposingNormalizerBorrowed::new_nfkd().normalize(text);
    let kept: String = decomposed
        .chars()
        .filter(|&c| {
            !ignorable.contains(c)
                && !matches!(
                    category.get(c),
                    GeneralCategory::Format
                        | GeneralCategory::NonspacingMark
                        | GeneralCategory::EnclosingMark
                )
        })
        .collect();
    ComposingNormalizerBorrowed::new_nfc().normalize(&kept).into_owned()
}

/// Look-alike letters cured to Latin and lower-cased (decancer), the scripts written without
/// spaces kept.
pub(crate) fn cure(text: &str) -> String {
    let options =
        decancer::Options::default().retain_chinese().retain_japanese().retain_korean().disable_bidi();
    match decancer::cure(text, options) {
        Ok(cured) => cured.to_string(),
        Err(_) => text.to_lowercase(),
    }
}

/// The text hidden in Unicode tag characters (U+E0020–U+E007E spell ASCII invisibly).
pub(crate) fn tag_payload(text: &str) -> Option<String> {
    let hidden: String = text
        .chars()
        .filter(|&c| (0xE0020..=0xE007E).contains(&(c as u32)))
        .filter_map(|c| char::from_u32(c as u32 - 0xE0000))
        .collect();
    (!hidden.is_empty()).then_some(hidden)
}
