//! A line diff for people to read (`-`/`+`/` ` prefixes, one line each) on the `similar` crate:
//! what a refusal shows between approved and current bytes, and what `init` changes in a file.

use similar::{ChangeTag, TextDiff};

/// Every line of `old` → `new`, prefixed `  ` (kept), `- ` (removed) or `+ ` (added).
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let diff = TextDiff::from_slices(&a, &b);
    let mut out = String::new();
    for change in diff.iter_all_changes() {
        let mark = match change.tag() {
            ChangeTag::Equal => "  ",
            ChangeTag::Delete => "- ",
            ChangeTag::Insert => "+ ",
        };
        out.push_str(mark);
        out.push_str(change.value());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::line_diff;

    #[test]
    fn changed_lines_show_as_removed_then_added_between_kept_ones() {
        assert_eq!(line_diff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
        assert_eq!(line_diff("a\n", "a\nb\n"), "  a\n+ b\n");
        assert_eq!(line_diff("a\nb\n", "b\n"), "- a\n  b\n");
        assert_eq!(line_diff("", ""), "");
    }
}
