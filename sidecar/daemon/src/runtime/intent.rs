//! Why a coordinator delegates, read from the task it hands over: the same reading on every
//! path that sees a delegation (A2A, Pi's `subagent`).

use blindfold_schemas::Intent;

/// Why the coordinator delegates: asking to review, verify or check is a verify request; any
/// other task is scoped work (whose answer may propose actions).
pub fn intent_of(task: &str) -> Intent {
    const VERIFY: [&str; 8] =
        ["review", "verify", "check", "critique", "audit", "assess", "refute", "validate"];
    let lower = task.to_lowercase();
    if lower.split(|c: char| !c.is_alphanumeric()).any(|w| VERIFY.iter().any(|v| w.starts_with(v))) {
        Intent::Verify
    } else {
        Intent::Scope
    }
}

#[cfg(test)]
mod tests {
    use super::intent_of;
    use blindfold_schemas::Intent;

    #[test]
    fn review_requests_are_verify_intent() {
        assert_eq!(intent_of("Review this plan"), Intent::Verify);
        assert_eq!(intent_of("Propose how to free space"), Intent::Scope);
    }
}
