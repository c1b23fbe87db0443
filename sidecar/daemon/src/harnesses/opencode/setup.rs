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
    blindfold_adapters::line_diff::line_diff(old, new)
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
