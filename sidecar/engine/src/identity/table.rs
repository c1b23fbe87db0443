//! Tables in free text: a cell under a header that names identity (`model`, `vendor`,
//! `engine`: the data's `identity_keys`) is a value of that key, an identity surface, as a data
//! part's value under such a key is. Markdown tables (a header row, a separator row of `-`, `:`
//! and `|`, then rows), and tab- or comma-separated blocks whose first line is a header of
//! one-word cells (`agent,model,cost`; a sentence with commas is no header) and whose lines hold
//! as many separators each.

use super::lexicon::Lexicon;

/// True when byte `at` of `text` lies in a table cell whose column header names identity.
pub(super) fn in_identity_column(lexicon: &Lexicon, text: &str, at: usize) -> bool {
    header_cell(text, at).is_some_and(|cell| lexicon.is_identity_key(cell))
}

/// The header cell above byte `at`, when `at` lies in a row of a table below its header.
fn header_cell(text: &str, at: usize) -> Option<&str> {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    let line = &text[start..end];
    for sep in ['|', '\t', ','] {
        if !line.contains(sep) {
            continue;
        }
        let column = text[start..at].matches(sep).count();
        let header =
            if sep == '|' { markdown_header(text, start) } else { block_header(text, start, line, sep) };
        if let Some(cell) = header.and_then(|h| h.split(sep).nth(column)) {
            return Some(cell.trim());
        }
    }
    None
}

/// The lines of `text` before the line starting at byte `start`, nearest first.
fn lines_before(text: &str, start: usize) -> impl Iterator<Item = &str> {
    text[..start.saturating_sub(1)].rsplit('\n').take_while(move |_| start > 0)
}

/// The header row of the markdown table whose row starts at byte `start`: above the row, over
/// other rows, a separator row and the header right before it.
fn markdown_header(text: &str, start: usize) -> Option<&str> {
    let is_separator = |l: &str| {
        let l = l.trim();
        l.contains('-') && l.contains('|') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
    };
    let mut above = lines_before(text, start).take_while(|l| l.contains('|'));
    loop {
        let line = above.next()?;
        if is_separator(line) {
            return above.next();
        }
    }
}

/// The header of the tab- or comma-separated block whose line `line` starts at byte `start`:
/// the first of the lines right above it that hold as many separators, when there is one and
/// each of its cells is one word (`model_name`, `agent id` is two).
fn block_header<'t>(text: &'t str, start: usize, line: &str, sep: char) -> Option<&'t str> {
    let count = line.matches(sep).count();
    let header = lines_before(text, start).take_while(|l| l.matches(sep).count() == count).last()?;
    let one_word = |cell: &str| cell.split_whitespace().count() == 1;
    header.split(sep).all(one_word).then_some(header)
}

#[cfg(test)]
mod tests {
    use super::header_cell;

    fn header_of(text: &str, word: &str) -> Option<String> {
        header_cell(text, text.find(word).expect("word in text")).map(str::to_owned)
    }

    #[test]
    fn a_cell_reads_its_columns_header() {
        let md = "Results:\n| agent | model | verdict |\n|---|:---:|---|\n| a | m-one | approve |\n| b | o3 | deny |";
        assert_eq!(header_of(md, "o3").as_deref(), Some("model"));
        assert_eq!(header_of(md, "deny").as_deref(), Some("verdict"));
        assert_eq!(header_of(md, "m-one").as_deref(), Some("model"));
        let csv = "agent,model,cost\nb,o3,0.20\nc,x1,0.10";
        assert_eq!(header_of(csv, "x1").as_deref(), Some("model"));
        let tsv = "agent\tvendor\nb\tacme";
        assert_eq!(header_of(tsv, "acme").as_deref(), Some("vendor"));
    }

    #[test]
    fn no_header_without_a_table_above() {
        assert_eq!(header_of("| a | o3 |\n| b | o4 |", "o4"), None, "no separator row");
        assert_eq!(header_of("a | b | o3", "o3"), None, "one line");
        let prose =
            "I asked the model first, then the others, then you\nWe compared it, the results, all of it";
        assert_eq!(
            header_of("the frontier model, m\n some tips, more", "tips"),
            None,
            "a clause is no header"
        );
        assert_eq!(header_of(prose, "results"), None, "sentences are no header");
        assert_eq!(header_of("agent,model\nb,o3", "model"), None, "the header itself");
    }
}
