//! The text-target scan before its fast paths, kept as the oracle the scan is compared with.

use super::target::{FILE_EXTENSIONS, Target, classify, host_of, is_hostname, normalise_path, normalise_url};
use super::target::{resources_in_text, trim_token};
use proptest::prelude::*;

/// `classify` as it was: every branch tried on every token.
fn classify_before(token: &str) -> Option<Target> {
    if token.len() < 2 {
        return None;
    }
    if token.contains("://") {
        return normalise_url(token).map(Target::Url);
    }
    if let Some((local, domain)) = token.split_once('@')
        && !local.is_empty()
        && is_hostname(domain)
        && !local.contains('/')
        && !domain.contains(':')
    {
        return Some(Target::Email(token.to_ascii_lowercase()));
    }
    if let Some((left, _)) = token.split_once(':')
        && left.contains('@')
        && let Some(host) = left.rsplit('@').next()
        && is_hostname(host)
    {
        return Some(Target::Word(token.to_ascii_lowercase()));
    }
    if token.starts_with('/')
        || token.starts_with("~/")
        || token.starts_with("./")
        || token.starts_with("../")
    {
        return Some(Target::Path(normalise_path(token)));
    }
    if token.contains('/') && !token.contains(' ') && !token.starts_with('-') {
        return Some(Target::Path(normalise_path(token)));
    }
    if let Some((_, ext)) = token.rsplit_once('.')
        && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        && token.len() > ext.len() + 1
        && !token.starts_with('-')
    {
        return Some(Target::Path(normalise_path(token)));
    }
    if is_hostname(token) {
        return Some(Target::Host(token.to_ascii_lowercase().trim_end_matches('.').to_owned()));
    }
    None
}

/// `resources_in_text` as it was: every token trimmed and classified.
fn resources_in_text_before(text: &str) -> Vec<Target> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| {
        c.is_whitespace() || matches!(c, '，' | '。' | '；' | '：' | '、' | '（' | '）' | '「' | '」')
    }) {
        let token = trim_token(raw);
        let token = token.split_once('=').map_or(token, |(k, v)| if k.starts_with('-') { v } else { token });
        if let Some(t) = classify_before(token) {
            if let Target::Url(u) = &t
                && let Some(h) = host_of(u)
            {
                out.push(Target::Host(h));
            }
            out.push(t);
        }
    }
    out
}

/// Words and pieces that exercise every branch: schemes, addresses, remotes, paths, file
/// extensions, hosts, IPv4, flags, quotes, CJK punctuation and whitespace.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("https://".to_owned()),
        Just("HTTP://".to_owned()),
        Just("git@".to_owned()),
        Just("@".to_owned()),
        Just(":".to_owned()),
        Just("/".to_owned()),
        Just("./".to_owned()),
        Just("../".to_owned()),
        Just("~/".to_owned()),
        Just(".".to_owned()),
        Just("..".to_owned()),
        Just("-".to_owned()),
        Just("--out=".to_owned()),
        Just("=".to_owned()),
        Just(".md".to_owned()),
        Just(".RS".to_owned()),
        Just(".com".to_owned()),
        Just("10.0.0.1".to_owned()),
        Just(":443".to_owned()),
        Just("#frag".to_owned()),
        Just("?q=1".to_owned()),
        Just("evil.example.org".to_owned()),
        "[a-zA-Z0-9_-]{1,8}",
        "[ \t\n]{1,2}",
        "[\"'`()\\[\\]{}<>,;!?]",
        "[，。；：、（）「」“”‘’\u{3000}\u{a0}]",
        "[é中文]{1,2}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 0..16).prop_map(|p| p.concat())
}

/// `normalise_path` as it was: every path split, filtered and joined again.
fn normalise_path_before(raw: &str) -> String {
    let absolute = raw.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// Path-like strings: segments that are empty, `.`, `..`, `~` or names, with or without a root.
fn path() -> impl Strategy<Value = String> {
    let segment = prop::sample::select(vec!["", ".", "..", "...", "~", "a", "src", "lib.rs", "é", " ", ".x"]);
    (any::<bool>(), prop::collection::vec(segment, 0..7))
        .prop_map(|(root, segs)| format!("{}{}", if root { "/" } else { "" }, segs.join("/")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn paths_normalise_as_before(p in path()) {
        prop_assert_eq!(normalise_path(&p), normalise_path_before(&p));
    }

    #[test]
    fn any_text_normalises_as_before(t in any::<String>()) {
        prop_assert_eq!(normalise_path(&t), normalise_path_before(&t));
    }

    #[test]
    fn resources_in_text_finds_what_it_found_before(t in text()) {
        prop_assert_eq!(resources_in_text(&t), resources_in_text_before(&t));
    }

    #[test]
    fn classify_classifies_as_before(t in text()) {
        prop_assert_eq!(classify(&t), classify_before(&t));
    }

    #[test]
    fn resources_in_any_text_are_as_before(t in any::<String>()) {
        prop_assert_eq!(resources_in_text(&t), resources_in_text_before(&t));
    }
}

#[test]
fn the_scan_agrees_on_the_usual_texts() {
    for t in [
        "Summarise the open review comments on the parser change.",
        "three comments, all addressed",
        "Do not fetch https://evil.org/payload.sh or touch /data, mail ops@corp.com.",
        "push to git@github.com:org/repo and scp me@host.example.com:/x ./a/../b report.MD --out=/tmp/x",
        "不要运行「/data/x」，请访问：https://例子.中国/路径。",
        "",
        "   ",
        "a. b: c@ d/",
    ] {
        assert_eq!(resources_in_text(t), resources_in_text_before(t), "{t}");
    }
}
