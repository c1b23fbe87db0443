//! The tokenizer and normal form as first written (a token vector, then a join): the oracle the
//! streaming [`super::tokenize`] and [`super::normalise`] are property-tested against.

use super::Tok;

/// Tokenizes `cmd`; `None` when quotes are unbalanced.
pub fn tokenize(cmd: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars().peekable();
    let flush = |word: &mut String, in_word: &mut bool, out: &mut Vec<Tok>| {
        if *in_word {
            out.push(Tok::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => word.push(ch),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        '$' if chars.peek() == Some(&'(') => {
                            out.push(Tok::Subst);
                            word.push('$');
                        }
                        '`' => {
                            out.push(Tok::Subst);
                            word.push('`');
                        }
                        ch => word.push(ch),
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
                flush(&mut word, &mut in_word, &mut out);
                chars.next();
                out.push(Tok::Subst);
            }
            '`' => {
                flush(&mut word, &mut in_word, &mut out);
                out.push(Tok::Subst);
            }
            '(' | ')' => {
                flush(&mut word, &mut in_word, &mut out);
                out.push(Tok::Op(c.to_string()));
            }
            '|' | '&' | ';' | '<' | '>' | '\n' => {
                // A redirection's file-descriptor prefix (`2>`) belongs to the operator.
                let mut op = String::new();
                if matches!(c, '<' | '>') && in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    op.push_str(&std::mem::take(&mut word));
                    in_word = false;
                } else {
                    flush(&mut word, &mut in_word, &mut out);
                }
                if c == '\n' {
                    out.push(Tok::Op(";".into()));
                    continue;
                }
                op.push(c);
                if matches!(c, '<' | '>') && chars.peek() == Some(&'(') {
                    chars.next();
                    out.push(Tok::Subst);
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
                out.push(Tok::Op(op));
            }
            c if c.is_whitespace() => flush(&mut word, &mut in_word, &mut out),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    flush(&mut word, &mut in_word, &mut out);
    Some(out)
}

/// The whitespace-normalised form of a command (the fingerprint and target form): tokens
/// joined by one space, words needing it single-quoted. Unparseable commands collapse runs of
/// whitespace only.
pub fn normalise(cmd: &str) -> String {
    match tokenize(cmd) {
        Some(toks) => toks
            .iter()
            .map(|t| match t {
                Tok::Word(w)
                    if w.is_empty()
                        || w.chars().any(|c| {
                            c.is_whitespace()
                                || matches!(
                                    c,
                                    '\'' | '"' | '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '\\'
                                )
                        }) =>
                {
                    format!("'{}'", w.replace('\'', "'\\''"))
                }
                Tok::Word(w) => w.clone(),
                Tok::Op(o) => o.clone(),
                Tok::Subst => "$(".into(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        None => cmd.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}
