//! The quoting-aware shell tokenizer and the normalised command form built from its tokens.
//!
//! One scanner feeds both: [`tokenize`] collects its tokens, [`normalise`] writes them straight
//! into one string (no token is allocated on the way; it runs over every short tool result).

/// One shell token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A word after quote removal.
    Word(String),
    /// An operator: `|`, `||`, `&`, `&&`, `;`, a redirection (`>`, `>>`, `2>`, `<`, …).
    Op(String),
    /// Command or process substitution seen (`$(`, backticks, `<(`, `>(`); its words follow.
    Subst,
}

/// A token as the scanner hands it over (borrowed from its buffers).
enum TokRef<'a> {
    Word(&'a str),
    Op(&'a str),
    Subst,
}

/// Scans `cmd`, handing each token to `emit` in order; false when quotes are unbalanced (the
/// tokens handed over until then are to be dropped).
fn scan(cmd: &str, mut emit: impl FnMut(TokRef<'_>)) -> bool {
    let mut word = String::new();
    let mut in_word = false;
    let mut op = String::new();
    let mut chars = cmd.chars().peekable();
    let flush = |word: &mut String, in_word: &mut bool, emit: &mut dyn FnMut(TokRef<'_>)| {
        if *in_word {
            emit(TokRef::Word(word.as_str()));
            word.clear();
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        None => return false,
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        None => return false,
                        Some('"') => break,
                        Some('\\') => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        Some('$') if chars.peek() == Some(&'(') => {
                            emit(TokRef::Subst);
                            word.push('$');
                        }
                        Some('`') => {
                            emit(TokRef::Subst);
                            word.push('`');
                        }
                        Some(ch) => word.push(ch),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next()
                    && n != '\n'
                {
                    word.push(n);
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                flush(&mut word, &mut in_word, &mut emit);
                chars.next();
                emit(TokRef::Subst);
            }
            '`' => {
                flush(&mut word, &mut in_word, &mut emit);
                emit(TokRef::Subst);
            }
            '(' | ')' => {
                flush(&mut word, &mut in_word, &mut emit);
                emit(TokRef::Op(if c == '(' { "(" } else { ")" }));
            }
            '|' | '&' | ';' | '<' | '>' | '\n' => {
                // A redirection's file-descriptor prefix (`2>`) belongs to the operator.
                op.clear();
                if matches!(c, '<' | '>') && in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    op.push_str(&word);
                    word.clear();
                    in_word = false;
                } else {
                    flush(&mut word, &mut in_word, &mut emit);
                }
                if c == '\n' {
                    emit(TokRef::Op(";"));
                    continue;
                }
                op.push(c);
                if matches!(c, '<' | '>') && chars.peek() == Some(&'(') {
                    chars.next();
                    emit(TokRef::Subst);
                    continue;
                }
                while let Some(&n) = chars.peek() {
                    let doubles = n == c && matches!(c, '|' | '&' | '>' | '<');
                    let dup = n == '&' && matches!(c, '>' | '<');
                    if doubles || dup || (c == '&' && n == '>') {
                        op.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                emit(TokRef::Op(&op));
            }
            c if c.is_whitespace() => flush(&mut word, &mut in_word, &mut emit),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    flush(&mut word, &mut in_word, &mut emit);
    true
}

/// Tokenizes `cmd`; `None` when quotes are unbalanced.
pub fn tokenize(cmd: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let balanced = scan(cmd, |t| {
        out.push(match t {
            TokRef::Word(w) => Tok::Word(w.to_owned()),
            TokRef::Op(o) => Tok::Op(o.to_owned()),
            TokRef::Subst => Tok::Subst,
        })
    });
    balanced.then_some(out)
}

/// True when a word must be single-quoted in the normalised form.
fn needs_quotes(w: &str) -> bool {
    w.is_empty()
        || w.chars().any(|c| {
            c.is_whitespace()
                || matches!(c, '\'' | '"' | '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '\\')
        })
}

/// The whitespace-normalised form of a command (the fingerprint and target form): tokens
/// joined by one space, words needing it single-quoted. Unparseable commands collapse runs of
/// whitespace only.
pub fn normalise(cmd: &str) -> String {
    let mut out = String::with_capacity(cmd.len());
    let balanced = scan(cmd, |t| {
        if !out.is_empty() {
            out.push(' ');
        }
        match t {
            TokRef::Word(w) if needs_quotes(w) => {
                out.push('\'');
                for (i, part) in w.split('\'').enumerate() {
                    if i > 0 {
                        out.push_str("'\\''");
                    }
                    out.push_str(part);
                }
                out.push('\'');
            }
            TokRef::Word(w) | TokRef::Op(w) => out.push_str(w),
            TokRef::Subst => out.push_str("$("),
        }
    });
    if balanced {
        return out;
    }
    out.clear();
    for w in cmd.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// A lower bound of `normalise(cmd).len()`, in one pass over the bytes and without tokenizing:
/// every ASCII byte that is neither whitespace, a quote, a backslash nor a digit is kept by
/// either form (quotes and backslashes may be removed, whitespace collapsed, and a word of
/// digits before a process substitution is dropped with its redirection: `0<(ls)` becomes
/// `$( ls )`; nothing else shrinks). Lets a caller that only wants short forms skip normalising
/// a long text.
pub fn min_normalised_len(cmd: &str) -> usize {
    cmd.bytes()
        .filter(|&b| b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ' | b'\'' | b'"' | b'\\' | b'0'..=b'9'))
        .count()
}

#[cfg(test)]
#[path = "tokens_oracle.rs"]
mod oracle;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Command-like text: shell metacharacters, quotes, whitespace of every kind, non-ASCII.
    fn shellish() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "a", "rm", "-rf", "/data", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\u{a0}", "\u{3000}",
            "'", "\"", "\\", "`", "$", "$(", "(", ")", "|", "||", "&", "&&", ";", "<", ">", ">>", "2>", "<(",
            ">(", ">&", "&>", "0", "9", "é", "名", "=", "*",
        ]);
        prop::collection::vec(
            prop_oneof![pieces.prop_map(str::to_owned), any::<char>().prop_map(String::from)],
            0..24,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn tokens_agree_with_the_oracle(cmd in shellish()) {
            prop_assert_eq!(tokenize(&cmd), oracle::tokenize(&cmd));
        }

        #[test]
        fn normal_forms_agree_with_the_oracle(cmd in shellish()) {
            prop_assert_eq!(normalise(&cmd), oracle::normalise(&cmd));
        }

        #[test]
        fn the_lower_bound_holds(cmd in shellish()) {
            prop_assert!(min_normalised_len(&cmd) <= oracle::normalise(&cmd).len());
        }
    }

    #[test]
    fn digits_before_a_process_substitution_do_not_break_the_bound() {
        for cmd in ["0<(", "12>(ls)", "'0'<(ls)", "cat \\1<(id)"] {
            assert!(min_normalised_len(cmd) <= normalise(cmd).len(), "{cmd}: {}", normalise(cmd));
        }
    }

    #[test]
    fn normal_forms_of_known_commands() {
        for (cmd, want) in [
            ("rm   -rf\t/data", "rm -rf /data"),
            ("ls|wc", "ls | wc"),
            ("echo 'it''s' \"a b\"", "echo its 'a b'"),
            ("cat <(ls) 2>&1 $(id)", "cat $( ls ) 2>& 1 $( id )"),
            ("echo 'open", "echo 'open"),
            ("x=\"it's\"", "'x=it'\\''s'"),
        ] {
            assert_eq!(normalise(cmd), want, "{cmd}");
            assert_eq!(normalise(cmd), oracle::normalise(cmd), "{cmd}");
        }
    }
}
