//! What `blindfold init opencode` writes into a project (the plugin and the control client it
//! imports) and the line diff `init` shows before writing.

/// The plugin file as shipped in `adapters/opencode-plugin/`.
pub const PLUGIN_TS: &str = include_str!("../../../../../adapters/opencode-plugin/blindfold.ts");

/// The shared control client and settings loader the plugin imports from
/// `.opencode/blindfold-common/control.ts` (outside `plugins/`: OpenCode loads every file there).
pub const CONTROL_TS: &str = include_str!("../../../../../adapters/blindfold-common/control.ts");

/// A line diff of `old` → `new` (`-`/`+`/` ` prefixes), empty when they are equal.
pub fn line_diff(old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table (config files are small).
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] > lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_changed_lines_only_as_changes() {
        assert_eq!(line_diff("a\nb\n", "a\nb\n"), "");
        assert_eq!(line_diff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
    }
}
