//! The leak classes closed on 2026-12-04, found by the second held-out identity set
//! (`examples/corpus/identity-probes/fresh.jsonl`) and the real-binary check of `model-proxy`
//! with no configuration, each with examples and controls of its own: family words written as
//! one identifier with variant words, cards as one definition, stray combining marks, family
//! words written as names beside their vendor or a kept model name, words alone in parentheses,
//! stops inside dotted ids and colons.

use super::classes::{assert_rewrites, assert_unchanged, builtin};
use serde_json::{Value, json};

#[test]
fn a_family_word_written_as_one_identifier_with_variant_words_is_a_model_id() {
    assert_rewrites(
        &builtin(),
        &[
            ("Feed pulled via grok_x_search.", "Feed pulled via [model]."),
            ("Call gemini-flash for the summary.", "Call [model] for the summary."),
            ("The CommandR tool ranked them.", "The [model] tool ranked them."),
            ("Then nova_pro drafted the reply.", "Then [model] drafted the reply."),
            ("Routed to orca.mini today.", "Routed to [model] today."),
        ],
    );
    // Controls: a word after the family that names no variant, the family alone or last in an
    // identifier, and the same words with spaces between them.
    assert_unchanged(
        &builtin(),
        &[
            "Set grok_pattern to the access-log format.",
            "Pass it on the command_line.",
            "Call run_command with the script.",
            "Build the opus-encoder first.",
            "Open the command search with Ctrl-R.",
            "I grok the search results now.",
        ],
    );
}

#[test]
fn a_card_is_one_definition_and_a_vendor_names_its_family_anywhere_in_it() {
    let mut anon = builtin();
    anon.alias("scanner");
    let target = crate::identity::CardTarget {
        interface_url: "http://127.0.0.1:7100/a2a/x",
        rest_url: None,
        signer: None,
    };
    let card = json!({"name": "Pulse", "description": "Reports what people say today.", "version": "2",
        "skills": [
            {"id": "pulse", "name": "Grok pulse scan", "description": "Uses xAI search to sample posts.",
             "tags": ["xai", "trends"], "examples": ["Ask Grok about the outage"]},
            {"id": "llama_brief", "name": "Brief with Llama", "description": "Llama 3.3 70B writes a brief.",
             "tags": ["briefs"], "examples": ["Have Llama summarise it"]}]});
    let out = anon.rewrite_card("scanner", &card, target).expect("card");
    let skills = &out["skills"];
    assert_eq!(skills[0]["name"], "[model] pulse scan");
    assert_eq!(skills[0]["description"], "Uses [provider] search to sample posts.");
    assert_eq!(skills[0]["tags"], json!(["trends"]));
    assert_eq!(skills[0]["examples"], json!(["Ask [model] about the outage"]));
    assert_eq!(skills[1]["name"], "Brief with [model]");
    assert_eq!(skills[1]["description"], "[model] writes a brief.");
    assert_eq!(skills[1]["examples"], json!(["Have [model] summarise it"]));
    // Control: a card whose words are ordinary everywhere keeps them, an ordinary word of an id
    // or a name included.
    let card = json!({"name": "Haiku Forms", "description": "Explains the haiku and the sonnet.", "version": "1",
        "skills": [{"id": "haiku_scan", "name": "Fixed forms", "description": "Scans a haiku.",
            "tags": ["poetry", "haiku"], "examples": ["Write a haiku about rain"]}]});
    let out = anon.rewrite_card("scanner", &card, target).expect("card");
    assert_eq!(out["description"], "Explains the haiku and the sonnet.");
    assert_eq!(out["skills"][0]["tags"], json!(["poetry", "haiku"]));
}

#[test]
fn an_ordinary_family_word_in_a_clause_with_its_unambiguous_vendor_is_the_model() {
    assert_rewrites(
        &builtin(),
        &[
            (
                "Gemini here, from Google DeepMind. Links fixed.",
                "[model] here, from [provider]. Links fixed.",
            ),
            ("The Opus run that Anthropic billed us for.", "The [model] run that [provider] billed us for."),
        ],
    );
    // Controls: the vendor an ordinary word itself, or in another sentence.
    assert_unchanged(&builtin(), &["A llama grazed at the Meta campus."]);
    assert_rewrites(
        &builtin(),
        &[("Write a haiku. Anthropic opened an office.", "Write a haiku. [provider] opened an office.")],
    );
}

#[test]
fn combining_marks_no_letter_takes_disguise_an_ordinary_word() {
    assert_rewrites(
        &builtin(),
        &[("G\u{353}r\u{337}o\u{335}k\u{35C}\u{489} says: ship it.", "[model] says: ship it.")],
    );
    // Control: accents that compose (precomposed or not) are how words are written.
    assert_unchanged(&builtin(), &["Ǵrok is a verb here.", "G\u{301}rok is a verb here."]);
}

#[test]
fn a_family_word_written_as_a_name_before_a_kept_model_name_is_one_too() {
    assert_rewrites(
        &builtin(),
        &[
            ("Gemini and Claude disagree on clause 9.", "[model] and [model] disagree on clause 9."),
            ("Ask Mistral or GPT-4o first.", "Ask [model] or [model] first."),
        ],
    );
    // Controls: the word in lower case, and a kept name in another clause.
    assert_rewrites(
        &builtin(),
        &[
            ("Write a haiku by Claude Sonnet 4.", "Write a haiku by [model]."),
            ("The Opus is long. Claude wrote it.", "The Opus is long. [model] wrote it."),
        ],
    );
}

#[test]
fn an_ordinary_word_alone_in_parentheses_after_an_identity_noun_names_it() {
    assert_rewrites(
        &builtin(),
        &[
            (
                "Served by our reasoning tier (Ultra). Confidence: high.",
                "Served by our reasoning tier ([tier]). Confidence: high.",
            ),
            ("It went to the model (Gemini) first.", "It went to the model ([model]) first."),
        ],
    );
    // Controls: a parenthesis after an ordinary noun, or holding more than the word.
    assert_unchanged(
        &builtin(),
        &["We wrote a poem (haiku) for the card.", "Pick a tier (pro rata pricing applies)."],
    );
}
#[test]
fn a_stop_inside_a_dotted_model_id_ends_no_sentence() {
    // A host's id joins vendor and model with a dot (`anthropic.claude-…`): the vendor before it
    // is in the same sentence as the model.
    assert_rewrites(
        &builtin(),
        &[(
            "[bedrock] anthropic.claude-3-haiku-20240307-v1:0 returned 3 titles.",
            "[[provider]] [provider].[model] returned 3 titles.",
        )],
    );
    // Control: a stop before a space still ends it.
    assert_unchanged(&builtin(), &["The bedrock is granite. We drilled for a week."]);
}

#[test]
fn a_colon_before_a_space_ends_what_linker_words_reach() {
    assert_rewrites(
        &builtin(),
        &[(
            "Command R+ by Cohere: on the command line, run make check first.",
            "[model]+ by [provider]: on the command line, run make check first.",
        )],
    );
}

#[test]
fn a_family_word_written_as_a_name_in_a_sentence_with_another_model_name_is_one() {
    assert_rewrites(
        &builtin(),
        &[
            (
                "Ho chiesto a Claude e a Grok: usa un indice.",
                "Ho chiesto a [model] e a [model]: usa un indice.",
            ),
            (
                "Anthropic's Claude wrote it and Aya translated it.",
                "[provider]'s [model] wrote it and [model] translated it.",
            ),
            (
                "Gemini's review flagged two races; Claude's pass agreed.",
                "[model]'s review flagged two races; [model]'s pass agreed.",
            ),
        ],
    );
    // Controls: another sentence, a lower-case word, a capital that only starts the sentence.
    assert_rewrites(
        &builtin(),
        &[
            ("Claude wrote it. Opus is the codec we use.", "[model] wrote it. Opus is the codec we use."),
            ("Claude wrote a haiku and a sonnet.", "[model] wrote a haiku and a sonnet."),
            ("Haiku form is strict; Claude keeps to it.", "Haiku form is strict; [model] keeps to it."),
        ],
    );
    assert_unchanged(
        &builtin(),
        &[
            "Gemini and Taurus are signs; the Mistral blows in spring.",
            "The Titan rocket launched the Gemini missions.",
            "The Titan II rocket launched all ten crewed Gemini missions.",
        ],
    );
}

#[test]
fn an_enum_that_lists_a_model_lists_models_in_all_its_values() {
    let anon = builtin();
    let mut aliases = crate::identity::McpAliases::default();
    let mut msg = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "panel_review",
        "description": "Collects opinions from several reviewers.",
        "inputSchema": {"type": "object", "properties": {
            "reviewers": {"type": "array", "default": ["claude", "gemini"],
                "items": {"type": "string", "enum": ["claude", "gpt", "gemini"]}},
            "style": {"type": "string", "enum": ["short", "gemini"]}}}}]}});
    anon.scrub_mcp(&mut msg, "server", &mut aliases);
    let props = &msg["result"]["tools"][0]["inputSchema"]["properties"];
    let shown = props["reviewers"]["items"]["enum"].to_string();
    assert!(!shown.contains("gemini") && !shown.contains("claude") && !shown.contains("gpt"), "{shown}");
    assert!(!props["reviewers"]["default"].to_string().contains("gemini"), "{props}");
    // Control: an enum whose values name no model keeps its ordinary words.
    assert_eq!(props["style"]["enum"], json!(["short", "gemini"]));
    // The call, with the values the client saw, reaches the server with the real ones.
    let shown_values: Vec<Value> = props["reviewers"]["items"]["enum"].as_array().expect("enum").clone();
    let mut params = json!({"name": "panel_review", "arguments": {"reviewers": [shown_values[2].clone()]}});
    assert!(aliases.map_call(&mut params));
    assert_eq!(params["arguments"]["reviewers"], json!(["gemini"]));
}
