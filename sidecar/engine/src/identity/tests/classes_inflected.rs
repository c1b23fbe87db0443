//! The leak classes closed after the third held-out identity set
//! (`examples/corpus/identity-probes/third.jsonl`), each with examples and controls of its own:
//! names inflected in Latin script without an apostrophe (the data's `[inflection]` table), a
//! case ending after an apostrophe between a family and its variant word, and table cells under
//! a header that names identity.

use super::classes::{assert_rewrites, assert_unchanged, builtin};

#[test]
fn a_name_that_is_identity_everywhere_is_identity_in_its_inflected_forms_too() {
    assert_rewrites(
        &builtin(),
        &[
            ("Tę recenzję napisał model od Anthropica.", "Tę recenzję napisał model od [provider]."),
            ("W Anthropicu i u DeepSeeka pracują nad tym.", "W [provider] i u [model] pracują nad tym."),
            ("Rozmawiałem z Mixtralem o tym.", "Rozmawiałem z [model] o tym."),
            ("Odpověď přišla od Nemotronu.", "Odpověď přišla od [model]."),
            ("Kiitos Anthropicin mallille.", "Kiitos [provider] mallille."),
            ("A választ a DeepSeeknek köszönhetjük.", "A választ a [model] köszönhetjük."),
            (
                "Anthropics Modell schrieb das, OpenAIs auch.",
                "[provider] Modell schrieb das, [provider] auch.",
            ),
        ],
    );
    // Controls: plurals and verbs of ordinary words that are entries too, and a vendor-only
    // ending after a family word.
    assert_unchanged(
        &builtin(),
        &[
            "Blooms open in spring; the zephyrs blow; vicunas graze on the slopes.",
            "Two skylarks sang over the field.",
            "The composer's opus numbers run to 131.",
        ],
    );
}

#[test]
fn a_case_ending_after_an_apostrophe_keeps_a_family_and_its_variant_one_id() {
    assert_rewrites(
        &builtin(),
        &[
            ("Bu raporu Gemini'nin Flash sürümü hazırladı.", "Bu raporu [model] sürümü hazırladı."),
            ("Raporu Gemini\u{2019}nin Pro sürümü yazdı.", "Raporu [model] sürümü yazdı."),
            ("Then Gemini's Flash variant did it.", "Then [model] variant did it."),
        ],
    );
    // Controls: an ending with no variant word after it is the family's own, and ordinary
    // words after an apostrophe ending stay.
    assert_unchanged(
        &builtin(),
        &[
            "The Gemini capsule's flash lit the sky.",
            "Gemini'nin burcu ikizler; flash haber geldi.",
            "Gemini's season starts in May.",
        ],
    );
}

#[test]
fn a_cell_under_a_header_that_names_identity_is_an_identity_surface() {
    let anon = builtin();
    let md =
        "| agent | model | verdict |\n|---|---|---|\n| a | gpt-5 | approve |\n| b | o3 | request changes |";
    assert_eq!(
        anon.rewrite_text(md),
        "| agent | model | verdict |\n|---|---|---|\n| a | [model] | approve |\n| b | [model] | request changes |"
    );
    assert_eq!(
        anon.rewrite_text("agent,vendor,cost\nb,Google,0.2\nc,Meta,0.1"),
        "agent,vendor,cost\nb,[provider],0.2\nc,[provider],0.1"
    );
    assert_eq!(anon.rewrite_text("agent\tengine\nb\tGemini"), "agent\tengine\nb\t[model]");
    // Controls: the same words in columns of other headers, rows without a separator row under
    // their header, and prose with commas whose first clause names a model.
    assert_unchanged(
        &anon,
        &[
            "| poem | form |\n|---|---|\n| Shall I compare thee | sonnet |\n| Old pond | haiku |",
            "| model | o3 |\n| mini | pro |",
            "the frontier of the model, a sketch\n some mini tips, a pro bono case",
            "size,price\nmini,3\npro,9",
        ],
    );
}

#[test]
fn a_one_letter_word_after_a_model_name_is_a_word_of_the_sentence() {
    assert_rewrites(
        &builtin(),
        &[
            ("Zapytałem Claude o tym.", "Zapytałem [model] o tym."),
            ("Pregunta a Mixtral o a Claude.", "Pregunta a [model] o a [model]."),
            ("O Claude e o DeepSeek concordam.", "O [model] e o [model] concordam."),
        ],
    );
    assert_rewrites(&builtin(), &[("Then claude-o3 ran.", "Then [model] ran.")]);
}

#[test]
fn a_tier_word_capitalised_between_a_determiner_and_a_role_is_the_agents_tier() {
    assert_rewrites(
        &builtin(),
        &[
            ("Note: not the Pro one, escalate if large.", "Note: not the [tier] one, escalate if large."),
            (
                "The hard cases went fine; the Flash one managed the easy ones.",
                "The hard cases went fine; the [tier] one managed the easy ones.",
            ),
            ("Ask our Ultra reviewer.", "Ask our [tier] reviewer."),
        ],
    );
    assert_unchanged(
        &builtin(),
        &[
            "Take the mini one, it fits the bag.",
            "Pro tip: the pro reviewer is busy.",
            "Flash one more time.",
        ],
    );
}
