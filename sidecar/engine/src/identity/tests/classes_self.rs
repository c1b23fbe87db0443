//! The leak classes closed after the fourth held-out identity set
//! (`examples/corpus/identity-probes/fourth.jsonl`), each with examples and controls of its own:
//! the writer introducing itself by an ordinary family word in any language (the data's
//! `self_names_before` / `self_names_after`), the main names in Ukrainian, Arabic and Hindi, a
//! family word anchored by a kept one of the same provider, and a release code in parentheses.

use super::classes::{assert_rewrites, assert_unchanged, builtin};

#[test]
fn the_name_a_writer_introduces_itself_by_is_its_model_in_any_language() {
    assert_rewrites(
        &builtin(),
        &[
            ("I'm Grok, developed by xAI.", "I'm [model], developed by [provider]."),
            ("I\u{2019}m Gemini; the summary follows.", "I\u{2019}m [model]; the summary follows."),
            ("Sono Grok, sviluppato da xAI.", "Sono [model], sviluppato da [provider]."),
            ("Soy Gemini, creado por Google.", "Soy [model], creado por [provider]."),
            ("Ich bin Gemini von Google.", "Ich bin [model] von [provider]."),
            ("Je suis Mistral, voici le plan.", "Je suis [model], voici le plan."),
            ("Jestem Llama, oto raport.", "Jestem [model], oto raport."),
            (
                "Ben Gemini'yim, Google'ın geliştirdiği bir modelim.",
                "Ben [model]'yim, [provider]'ın geliştirdiği bir modelim.",
            ),
            (
                "Mistral here: the forecast table is attached.",
                "[model] here: the forecast table is attached.",
            ),
            ("\u{FF2D}\u{FF49}\u{FF53}\u{FF54}\u{FF52}\u{FF41}\u{FF4C} here: done.", "[model] here: done."),
        ],
    );
    // Controls: the words in lower case or as things, demonstratives that introduce places, and
    // a name not right after the cue.
    assert_unchanged(
        &builtin(),
        &[
            "I'm command-line only today.",
            "This is Nova Scotia, and here is the ferry timetable.",
            "I am sure Gemini season starts in May.",
            "Here the mistral blows all week.",
        ],
    );
}

#[test]
fn the_main_names_are_known_in_ukrainian_arabic_and_hindi() {
    assert_rewrites(
        &builtin(),
        &[
            ("Я — Клод, асистент від Антропіку.", "Я — [model], асистент від [provider]."),
            ("أنا كلود، نموذج من تطوير شركة أنثروبيك.", "أنا [model]، نموذج من تطوير شركة [provider]."),
            ("मैं जेमिनी हूँ, गूगल द्वारा बनाया गया मॉडल।", "मैं [model] हूँ, [provider] द्वारा बनाया गया मॉडल।"),
            ("Відповідь дав ДіпСік.", "Відповідь дав [model]."),
        ],
    );
    // Controls: the zodiac sign in Arabic and Hindi, and Google as a verb-less ordinary mention.
    assert_unchanged(&builtin(), &["برج الجوزاء في مايو.", "मिथुन राशि मई में है।", "Я шукав у Гуглі рецепт."]);
}

#[test]
fn a_family_word_kept_by_its_context_anchors_another_of_its_provider() {
    assert_rewrites(
        &builtin(),
        &[(
            "I'm running as the Haiku tier today, so my notes are terser than the Sonnet runs you saw.",
            "I'm running as the [model] tier today, so my notes are terser than the [model] runs you saw.",
        )],
    );
    // Control: a sonnet and a haiku of poems, no identity noun beside either.
    assert_unchanged(&builtin(), &["The Haiku section comes first, then the Sonnet section."]);
}

#[test]
fn a_release_code_in_parentheses_after_a_model_id_goes_with_it() {
    assert_rewrites(&builtin(), &[("Magistral Small (2506) weights", "[model] ([model]) weights")]);
    assert_unchanged(
        &builtin(),
        &["Printed by Schott (1827) in Mainz.", "Gemini season (2506 stars) is long."],
    );
}
