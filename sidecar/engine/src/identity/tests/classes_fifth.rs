//! The leak classes closed after the fifth held-out identity set
//! (`examples/corpus/identity-probes/fifth.jsonl`), each with examples and controls of its own:
//! case endings on words that are identity only in context (they still need the context),
//! feminine endings that replace a final `a`, Ukrainian and Bengali case forms, names in Hebrew,
//! Persian and Bengali script, digits written for letters, a possessive between a name and its
//! noun, a number that names a work, ordinary words of other fields (a statistics GLM, a juice
//! bar) that need context, context nouns of other languages, a name joined to its role by a
//! suffix, and a vendor word that starts an identifier of its interface.

use super::classes::{assert_rewrites, assert_unchanged, builtin};

#[test]
fn inflected_names_count_with_their_context() {
    assert_rewrites(
        &builtin(),
        &[
            ("Działam na Llamie 3.3 od Anthropica.", "Działam na [model] od [provider]."),
            (
                "Передаю задачу агентові, що працює на Клоді.",
                "Передаю задачу агентові, що працює на [model].",
            ),
        ],
    );
    // Controls: the same endings on ordinary words with no identity context stay, and so does a
    // plural of an ordinary word.
    assert_unchanged(
        &builtin(),
        &[
            "Las llamas se llaman así por su lana.",
            "Me llamo Ana y vivo en Lima.",
            "Two llamas and three Novas were on the lot.",
            "Pojechaliśmy do Mety na rowerach.",
        ],
    );
}

#[test]
fn names_in_hebrew_persian_and_bengali_script_are_identity() {
    assert_rewrites(
        &builtin(),
        &[
            ("שלום, אני קלוד, עוזר של Anthropic.", "שלום, אני [model], עוזר של [provider]."),
            ("سلام، من جمنای هستم، ساخت گوگل.", "سلام، من [model] هستم، ساخت [provider]."),
            ("হ্যালো, আমি জেমিনি, গুগলের তৈরি।", "হ্যালো, আমি [model], [provider] তৈরি।"),
            ("Γεια σας, είμαι το Gemini της Google.", "Γεια σας, είμαι το [model] της [provider]."),
        ],
    );
    assert_unchanged(&builtin(), &["Η περίληψη της συνάντησης είναι έτοιμη.", "من امروز به گوگل رفتم"]);
}

#[test]
fn digits_written_for_letters_inside_a_name_are_a_disguise() {
    assert_rewrites(
        &builtin(),
        &[
            ("Gr0k-3 (xAI) agrees.", "[model] ([provider]) agrees."),
            ("L1ama-3 (Meta) agrees.", "[model] ([provider]) agrees."),
            ("Ask C1aude.", "Ask [model]."),
        ],
    );
    // Controls: digits at a word's edge are versions or ordinary tokens.
    assert_unchanged(&builtin(), &["Use h2o and v1beta; the b0x is at l0cation 7."]);
}

#[test]
fn a_possessive_between_a_name_and_its_noun_keeps_the_context() {
    assert_rewrites(
        &builtin(),
        &[
            ("Meta's model flagged the loop.", "[provider]'s model flagged the loop."),
            ("Google\u{2019}s assistant answered.", "[provider]\u{2019}s assistant answered."),
        ],
    );
    assert_unchanged(&builtin(), &["Meta's offices are closed.", "The command's output model is JSON."]);
}

#[test]
fn a_number_that_names_a_work_is_no_version_and_other_fields_keep_their_words() {
    assert_unchanged(
        &builtin(),
        &[
            "Sonnet 18 turns at line 9.",
            "Сонет 66 Шекспира я знаю наизусть.",
            "String Quartet No. 14, Opus 131.",
            "We fit a GLM with a log link and Poisson errors.",
            "Grabbed a mango smoothie at Jamba on the way to the gym.",
        ],
    );
    assert_rewrites(
        &builtin(),
        &[
            ("Claude Sonnet 4.5 answered.", "[model] answered."),
            ("Then Sonnet 20250219 answered.", "Then [model] answered."),
            ("Then GLM-4.5 from Zhipu answered.", "Then [model] from [provider] answered."),
            ("The reviewer runs Jamba 1.7.", "The reviewer runs [model]."),
            ("豆包大模型（doubao-seed-1.6）负责翻译。", "[model]大模型（[model]）负责翻译。"),
            ("腾讯混元（hunyuan-turbos）已完成审校。", "[provider]（[model]）已完成审校。"),
        ],
    );
}

#[test]
fn context_nouns_of_other_languages_and_identifiers_after_a_noun() {
    assert_rewrites(
        &builtin(),
        &[
            ("Das weicht von der des Gemini-Modells ab.", "Das weicht von der des [model]-Modells ab."),
            ("Usé el modelo Llama para esto.", "Usé el modelo [model] para esto."),
        ],
    );
    // Controls: a noun before an identifier labels the identifier ("class NovaCatalog" declares
    // a class), and the nouns stay nouns.
    assert_unchanged(
        &builtin(),
        &[
            "class NovaCatalog:\n    pass",
            "Das Modell der Zwillinge (Gemini) ist ein Sternbild.",
            "El modelo de negocio.",
        ],
    );
}

#[test]
fn a_name_joined_to_its_role_by_a_suffix_names_the_agents_model() {
    assert_rewrites(
        &builtin(),
        &[
            ("I disagree with the Llama-based reviewer.", "I disagree with the [model]-based reviewer."),
            ("Ask a Gemini-powered helper.", "Ask a [model]-powered helper."),
        ],
    );
    // Controls: in lower case, or with no role after it, the compound is prose.
    assert_unchanged(
        &builtin(),
        &["Use a command-based agent for that.", "The Llama-based wool trade grew."],
    );
}

#[test]
fn a_vendor_word_that_starts_an_identifier_of_its_interface_is_identity() {
    assert_rewrites(
        &builtin(),
        &[
            ("GOOGLE_API_KEY=<removed>", "[provider]_API_KEY=<removed>"),
            (
                "File \"site-packages/google/api_core/retry.py\", in google.api_core.retry",
                "File \"site-packages/google/api_core/retry.py\", in [provider].api_core.retry",
            ),
        ],
    );
    // Controls: the words apart in prose, and an ordinary word before `api`.
    assert_unchanged(
        &builtin(),
        &["Search Google for the API docs.", "The command_api module parses flags.", "META_DATA_DIR=/tmp"],
    );
}
