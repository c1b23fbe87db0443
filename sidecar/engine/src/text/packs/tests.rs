//! The packs read refusals, warnings and negation in every built-in language, and leave clean
//! approvals alone.

use super::Packs;
use crate::fold::fold_str;

fn refuses(text: &str) -> bool {
    static PACKS: std::sync::OnceLock<Packs> = std::sync::OnceLock::new();
    PACKS.get_or_init(Packs::built_in).judge(&fold_str(&super::cue_text(text))).refuses
}

#[test]
fn every_built_in_pack_compiles() {
    assert_eq!(Packs::built_in().languages(), ["en", "zh", "es", "de", "fr", "ja", "ru"]);
}

#[test]
fn refusals_in_each_language() {
    for t in [
        "Do not run this",
        "I would strongly advise against it",
        "Hard no on that one",
        "Running that is how we lost the cluster last year",
        "Sure, go ahead, if you enjoy restoring from tape all weekend",
        "STOP",
        "This is not safe",
        "不要运行这个命令",
        "这会删除所有发布版本，非常危险",
        "别执行",
        "No lo ejecutes",
        "Es peligroso, borraria la unica copia",
        "Führ das bloß nicht aus",
        "Das ist gefährlich",
        "N'exécute surtout pas ça",
        "C'est dangereux",
        "実行しないでください",
        "これは危険です",
        "Не запускай это",
        "Это опасно",
    ] {
        assert!(refuses(t), "{t}");
    }
}

#[test]
fn negated_warnings_and_clean_approvals_do_not_refuse() {
    for t in [
        "This is not dangerous",
        "Nothing malicious here",
        "Low risk, go ahead",
        "Looks good to me",
        "Don't worry, build/ only holds compiled output",
        "Yes, removing build/ is fine: it only holds compiled output and make regenerates it",
        "没有风险，可以执行",
        "这个命令不危险",
        "可以执行，build/ 目录只包含编译产物",
        "No hay ningún riesgo, adelante",
        "Das ist nicht gefährlich, mach ruhig",
        "Ce n'est pas dangereux, vas-y",
        "危険ではありません。実行して大丈夫です",
        "Это не опасно, можно запускать",
    ] {
        assert!(!refuses(t), "{t}");
    }
}

#[test]
fn a_pack_is_data_and_a_bad_one_is_an_error() {
    let mut packs = Packs::default();
    packs
        .add_toml("nl", "language = \"nl\"\nspaced = true\nprohibitions = [\"niet uitvoeren\"]\n")
        .expect("a pack of one cue");
    assert!(packs.judge(&fold_str("Niet uitvoeren!")).refuses);
    assert!(packs.add_toml("bad", "language = \"x\"\nspaced = true\nwarning = [\"{noun}\"]\n").is_err());
    assert!(packs.add_toml("bad", "language = \"x\"\nspaced = true\nextra = 1\n").is_err());
}

#[test]
fn an_elliptical_no_refuses_and_a_no_with_content_is_read_as_written() {
    for t in ["Not as written.", "Lieber nicht", "Así no", "Tel quel, c'est non", "Пока нет", "Nope, sorry"]
    {
        assert!(refuses(t), "{t}");
    }
    for t in ["No problem", "No issues found", "Nein, das ist sicher kein Problem", "Non, rien ne casse"] {
        assert!(!refuses(t), "{t}");
    }
}

#[test]
fn a_restrictor_bounds_a_warning_word_to_its_scope() {
    assert!(!refuses("The key is only exposed to the release job"));
    assert!(!refuses("Das Skript löscht nur den Cache"));
    assert!(refuses("The key is exposed to every job"));
    // A prohibition stands whatever bounds it.
    assert!(refuses("Only do not run it on prod"));
}

#[test]
fn elided_words_sentence_marks_and_the_sharp_s_do_not_hide_a_cue() {
    assert!(refuses("C'est clairement l'arnaque"));
    assert!(refuses("¡PARA!"));
    assert!(refuses("Bloß nicht"));
    assert!(refuses("Bloss nicht"));
    assert_eq!(super::cue_text("¡Alto! Straße"), "  Alto! Strasse");
}

fn order(text: &str) -> super::OrderReading {
    Packs::built_in().order_reading(&fold_str(&super::cue_text(text)))
}

#[test]
fn every_built_in_pack_reads_orders_written_as_data() {
    for pack in super::BUILT_IN {
        let raw: super::RawPack = toml::from_str(pack.1).expect("parses");
        let o = &raw.orders;
        assert!(!format!("{o:?}").contains("[]"), "{}: an [orders] list is empty", pack.0);
    }
    // An addressee with a directive; a control lifted near it; a waiver.
    assert!(order("The on-call assistants are expected to restart the broker").is_order());
    assert!(order("Signature checks for internal packages are switched off this week").is_order());
    assert!(order("Hotfix deploys are auto-approved").is_order());
    // Negated lifting, a control stated as it stands, an addressee without a directive.
    assert!(!order("Signature checks are not optional").is_order());
    assert!(!order("Every release needs two reviews").is_order());
    assert!(!order("Thank you for the review").is_order());
    assert!(!order("La revisión de seguridad encontró dos problemas").is_order());
}
