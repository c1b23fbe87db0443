//! Russian case forms of a lexicon word written in Cyrillic: the matcher has whole words only,
//! so "от Гугла", "в Антропике", "Сбера" are entered with their word ("Гугл", "Антропик",
//! "Сбер"). The forms are those of the regular noun declensions, by the word's ending:
//! - a consonant: -а, -у, -ом, -е, -ы, -ов (Гугл → Гугла, Гуглу, Гуглом, Гугле);
//! - `-ь`: -я, -ю, -ем, -е, -и (Мистраль → Мистраля);
//! - `-а`/`-я`: -ы/-и, -е, -у/-ю, -ой/-ей (Алиса → Алисы, Алисе, Алису, Алисой);
//! - `-ий`/`-ый` (adjective-like names): -ого, -ому, -им, -ом (Кандинский → Кандинского);
//! - `-й`: -я, -ю, -ем, -е.
//!
//! [`latin_forms`] does the same for names written in Latin script, with the endings of the
//! data's `[inflection]` table (Polish, Czech, Slovak, Croatian, Lithuanian, Finnish, Hungarian,
//! the German genitive), and [`forms`] adds the Ukrainian endings of a consonant stem (-і, -ові:
//! Клоді, Гуглові).
//!
//! Words ending in another vowel (Джемини, Кими: loanwords that do not decline), words shorter
//! than four letters, phrases and words mixing scripts get no forms.

use super::data::Inflection;

/// The case forms of `spelling` (without `spelling` itself); empty when it does not decline.
pub(super) fn forms(spelling: &str) -> Vec<String> {
    let letters: Vec<char> = spelling.chars().collect();
    let cyrillic = |c: &char| ('\u{0400}'..='\u{04FF}').contains(c) && c.is_alphabetic();
    if letters.len() < 4 || !letters.iter().all(cyrillic) {
        return Vec::new();
    }
    let last = letters[letters.len() - 1].to_lowercase().next().unwrap_or_default();
    let before = letters[letters.len() - 2].to_lowercase().next().unwrap_or_default();
    let stem = |drop: usize| letters[..letters.len() - drop].iter().collect::<String>();
    let with = |stem: String, endings: &[&str]| endings.iter().map(|e| format!("{stem}{e}")).collect();
    // After г, к, х, ж, ш, ч, щ the plural/genitive ending is -и, not -ы.
    let soft = matches!(before, 'г' | 'к' | 'х' | 'ж' | 'ш' | 'ч' | 'щ');
    match last {
        'й' if matches!(before, 'и' | 'ы') => with(stem(2), &["ого", "ому", "им", "ом"]),
        'й' => with(stem(1), &["я", "ю", "ем", "е"]),
        'ь' => with(stem(1), &["я", "ю", "ем", "е", "и"]),
        'а' => with(stem(1), &[if soft { "и" } else { "ы" }, "е", "у", "ой"]),
        'я' => with(stem(1), &["и", "е", "ю", "ей"]),
        'о' | 'е' | 'ё' | 'и' | 'у' | 'ы' | 'э' | 'ю' | 'ъ' => Vec::new(),
        _ => {
            let last_soft = matches!(last, 'г' | 'к' | 'х' | 'ж' | 'ш' | 'ч' | 'щ');
            let plural = if last_soft { "и" } else { "ы" };
            with(stem(0), &["а", "у", "ом", "е", plural, "ов", "і", "ові"])
        }
    }
}

/// The inflected forms of `spelling`, a Latin-script name, by the endings of `table`: none for a
/// word shorter than four letters or holding anything but letters; `vendor` (a vendor name that is
/// identity wherever it stands) adds the vendor-only endings.
pub(super) fn latin_forms(spelling: &str, table: &Inflection, vendor: bool) -> Vec<String> {
    let letters = spelling.chars().count() >= 4 && spelling.chars().all(|c| c.is_ascii_alphabetic());
    let Some(last) = spelling.chars().last().filter(|_| letters) else { return Vec::new() };
    let vowel = matches!(last.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let endings = if vowel { &table.after_vowel } else { &table.after_consonant };
    let extra = if vendor { table.vendor_only.as_slice() } else { &[] };
    let mut out: Vec<String> = endings.iter().chain(extra).map(|e| format!("{spelling}{e}")).collect();
    if let Some(stem) = spelling.strip_suffix('a') {
        out.extend(table.instead_of_final_a.iter().map(|e| format!("{stem}{e}")));
    }
    out
}

/// The forms of `spelling`, a name written in the Bengali script, with the table's joined case
/// suffixes; none for a word of another script.
pub(super) fn bengali_forms(spelling: &str, table: &Inflection) -> Vec<String> {
    let bengali = |c: char| ('\u{0980}'..='\u{09FF}').contains(&c);
    if !spelling.chars().all(bengali) {
        return Vec::new();
    }
    table.bengali_suffixes.iter().map(|e| format!("{spelling}{e}")).collect()
}

#[cfg(test)]
mod tests {
    use super::{Inflection, bengali_forms, forms, latin_forms};

    #[test]
    fn bengali_names_take_joined_suffixes() {
        let table = Inflection { bengali_suffixes: vec!["ের".into()], ..Inflection::default() };
        assert_eq!(bengali_forms("গুগল", &table), ["গুগলের"]);
        assert!(bengali_forms("Google", &table).is_empty());
    }

    #[test]
    fn latin_names_take_the_tables_endings_by_their_last_letter() {
        let table = Inflection {
            after_consonant: vec!["a".into(), "iem".into()],
            after_vowel: vec!["n".into()],
            vendor_only: vec!["s".into()],
            instead_of_final_a: vec!["ie".into(), "y".into()],
            ..Inflection::default()
        };
        assert_eq!(latin_forms("Meta", &table, false), ["Metan", "Metie", "Mety"]);
        assert_eq!(latin_forms("Anthropic", &table, true), ["Anthropica", "Anthropiciem", "Anthropics"]);
        assert_eq!(latin_forms("Llama", &table, false), ["Llaman", "Llamie", "Llamy"]);
        assert_eq!(latin_forms("Grok", &table, false), ["Groka", "Grokiem"]);
        assert!(latin_forms("GPT", &table, true).is_empty(), "too short");
        assert!(latin_forms("Mistral AI", &table, true).is_empty(), "a phrase");
        assert!(latin_forms("ChatGLM3", &table, false).is_empty(), "not all letters");
    }

    #[test]
    fn nouns_decline_by_their_ending() {
        assert!(forms("Байду").is_empty(), "a loanword in -у does not decline");
        assert!(forms("Майкрософт").contains(&"Майкрософта".to_owned()));
        assert!(forms("Майкрософт").contains(&"Майкрософтом".to_owned()));
        assert!(forms("Мистраль").contains(&"Мистраля".to_owned()));
        assert!(forms("Кандинский").contains(&"Кандинского".to_owned()));
        assert!(forms("Алиса").contains(&"Алисой".to_owned()));
        assert!(forms("Амазон").contains(&"Амазоне".to_owned()));
        assert!(forms("Клод").contains(&"Клоді".to_owned()), "Ukrainian locative");
    }

    #[test]
    fn short_mixed_and_indeclinable_words_have_no_forms() {
        assert!(forms("Фи").is_empty());
        assert!(forms("ЯндексGPT").is_empty());
        assert!(forms("Гига Чат").is_empty());
        assert!(forms("Джемини").is_empty());
        assert!(forms("Claude").is_empty());
    }
}
