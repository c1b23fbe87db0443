//! Refusal and approval language (SPEC §5 lexical layer), English and Chinese, with negation:
//! "this is not dangerous" and "nothing malicious here" approve, "not safe" refuses.
//!
//! Text is split into clauses; a clause's polarity is `Refuse` if any refusal cue (or negated
//! approval cue) is present, else `Approve` if any approval cue (or negated warning cue), else
//! `None`. Refusal wins inside a clause: fail closed.

use regex::Regex;

/// What a clause says about the action it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// Refusal or warning language.
    Refuse,
    /// Approval language.
    Approve,
    /// Neither.
    None,
}

/// A pattern list did not compile.
#[derive(Debug, thiserror::Error)]
#[error("pattern {pattern:?}: {message}")]
pub struct PatternsError {
    /// The offending pattern.
    pub pattern: String,
    /// The regex error.
    pub message: String,
}

/// Compiled language patterns.
#[derive(Debug, Clone)]
pub struct Patterns {
    refuse: Regex,
    warn: Regex,
    approve: Regex,
    negator: Regex,
    negator_zh: Regex,
    conditional: Regex,
    tool_level: Regex,
    pub(crate) instruction: Regex,
}

/// Imperative refusals: these carry their own negation, so they are refusals as written.
pub const DEFAULT_REFUSE: &[&str] = &[
    r"\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|cannot|can't|won't|will not|would not|wouldn't|please don't|do NOT)\s+(?:\w+\s+){0,2}?(?:run|execute|exec|use|call|invoke|apply|allow|approve|proceed|do|send|push|deploy|delete|remove|fetch|download|install|open|click|follow|trust|merge|write|touch|post|email|forward|adopt|accept)\b",
    r"\b(?:refuse|refused|refusing|reject|rejected|rejecting|decline|declined|deny|denied|abort|veto|vetoed|disapprove|disagree)\b",
    r"\btreat (?:it|this|that|them) as (?:hostile|malicious|untrusted|an attack)\b",
    r"\b(?:not (?:approved|safe|ok|okay|fine|acceptable|allowed|legitimate|recommended)|unsafe|not a good idea|bad idea|avoid|do not proceed|must be blocked|should be blocked)\b",
    r"不要|别(?:运行|执行|使用)|切勿|禁止|拒绝|不应|不能(?:运行|执行)|不可(?:运行|执行)|不得|请勿|不安全|不建议|阻止",
    // A bare negative answer is a refusal (fail closed: "Approve? Absolutely not.").
    r"^(?:no|nope|nah|absolutely not|definitely not|certainly not|of course not|no way|hard no|hell no)[\s.!,]*$",
    r"^(?:不行|绝对不行|当然不行|不)[。！!]*$",
];
/// Warning words: refusals unless negated ("not dangerous", "nothing malicious").
pub const DEFAULT_WARN: &[&str] = &[
    r"\b(?:dangerous|malicious|harmful|hostile|unsafe|risky|suspicious|destructive|attack|attacker|compromised|poisoned|tampered|untrusted|insecure|hazardous|catastrophic|irreversible|phishing|malware|exploit|wipe|wipes|erase|erases|destroy|destroys|exfiltrat\w*|prompt injection|injected instructions?|backdoor\w*|ransomware|credential theft|steal\w*|(?:lose|losing|loses|lost) (?:all |your |the )?(?:data|everything|work)|data loss)\b",
    r"恶意|危险|有害|可疑|攻击|破坏|风险|钓鱼|木马|病毒",
];
/// Approval language (a verification must say one of these, or carry structured FULL_SUPPORT).
pub const DEFAULT_APPROVE: &[&str] = &[
    r"\b(?:go ahead|(?:is|looks|seems|sounds|all) (?:fine|good|ok|okay|safe|correct|right|reasonable|sound)|(?:fine|ok|okay|safe|good|clear) to (?:run|execute|apply|proceed|use|send|deploy|merge|push|post|drop|delete|remove|write|go)|lgtm|ship it|is safe|approved?|approving|no (?:issues?|problems?|concerns?|objections?)|benign|harmless|can proceed|proceed|confirmed|verified|correct|accurate|legitimate|acceptable|reasonable|agree|agreed|supports? (?:it|this|the proposal)|fully supports?|fine|okay|ok)\b",
    r"可以执行|可以运行|没问题|没有问题|同意|批准|无害|安全|可以继续|确认无误|支持|可以",
];
/// Conditions that make an approval no approval ("fine only if you enjoy losing data"): the
/// clause approves nothing as it stands (fail closed: no verification).
pub const CONDITIONAL: &str = r"\b(?:only if|unless|provided that|as long as|assuming|if you (?:want|like|enjoy|don't mind))\b|除非|只要|前提是|如果你(?:想|愿意)";
/// Negators that flip a warning into approval or an approval into refusal.
pub const DEFAULT_NEGATORS: &str =
    r"\b(?:not|no|nothing|never|isn't|isnt|aren't|wasn't|doesn't|don't|without|hardly|neither|nor|none)\b";
/// Chinese negators, looked for right before a cue (Chinese has no spaces).
pub const DEFAULT_NEGATORS_ZH: &str = r"没有|并非|不是|并无|无|不|没|非";
/// Chinese intensifiers that contain a negator character but negate nothing: "非常危险" is
/// "very dangerous", "无比危险" "extremely dangerous", "不少风险" "quite a few risks".
pub const INTENSIFIERS_ZH: &[&str] = &["非常", "无比", "不少"];

fn join(list: &[&str]) -> String {
    list.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|")
}

fn compile(pattern: &str) -> Result<Regex, PatternsError> {
    Regex::new(&format!("(?i){pattern}"))
        .map_err(|e| PatternsError { pattern: pattern.to_owned(), message: e.to_string() })
}

impl Patterns {
    /// The built-in English and Chinese patterns.
    pub fn defaults() -> Self {
        static DEFAULTS: std::sync::OnceLock<Patterns> = std::sync::OnceLock::new();
        DEFAULTS
            .get_or_init(|| {
                Self::new(&[], &[], &[], &[]).unwrap_or_else(|_| unreachable!("built-in patterns compile"))
            })
            .clone()
    }

    /// The built-in patterns plus configured extra refusal, warning, approval and
    /// instruction-like patterns (regular expressions, case-insensitive).
    pub fn new(
        refuse: &[String],
        warn: &[String],
        approve: &[String],
        instruction: &[String],
    ) -> Result<Self, PatternsError> {
        let with = |base: &[&str], extra: &[String]| {
            let mut all: Vec<&str> = base.to_vec();
            all.extend(extra.iter().map(String::as_str));
            join(&all)
        };
        for p in refuse.iter().chain(warn).chain(approve).chain(instruction) {
            compile(p)?;
        }
        Ok(Self {
            refuse: compile(&with(DEFAULT_REFUSE, refuse))?,
            warn: compile(&with(DEFAULT_WARN, warn))?,
            approve: compile(&with(DEFAULT_APPROVE, approve))?,
            negator: compile(DEFAULT_NEGATORS)?,
            conditional: compile(CONDITIONAL)?,
            negator_zh: compile(DEFAULT_NEGATORS_ZH)?,
            tool_level: compile(
                r"(?:\b(?:do not|don't|never|must not|should not|stop)\s+(?:use|using|call|calling|invoke|run)\s+(?:the\s+)?`?([\w.-]+)`?\s+(?:tool|command|at all)\b)|(?:\bthe\s+`?([\w.-]+)`?\s+tool\s+(?:is|must|should)\s+(?:not|never)\b)|(?:不要(?:使用|调用)\s*`?([\w.-]+)`?\s*工具)",
            )?,
            instruction: compile(&with(super::instruction::DEFAULT_INSTRUCTION, instruction))?,
        })
    }

    /// The polarity of one clause.
    pub fn clause_polarity(&self, clause: &str) -> Polarity {
        let mut approve = false;
        // Imperative refusals carry their own negation: they refuse as written.
        if self.refuse.is_match(clause) {
            return Polarity::Refuse;
        }
        let warnings: Vec<(usize, usize)> =
            self.warn.find_iter(clause).map(|m| (m.start(), m.end())).collect();
        let approvals: Vec<(usize, usize)> =
            self.approve.find_iter(clause).map(|m| (m.start(), m.end())).collect();
        let cues: Vec<(usize, usize)> = warnings.iter().chain(&approvals).copied().collect();
        for &(at, _) in &warnings {
            if self.negated(clause, at, &cues) {
                approve = true;
            } else {
                return Polarity::Refuse;
            }
        }
        for &(at, _) in &approvals {
            if self.negated(clause, at, &cues) {
                return Polarity::Refuse;
            }
            approve = true;
        }
        if approve && !self.conditional.is_match(clause) { Polarity::Approve } else { Polarity::None }
    }

    /// The polarity of one clause of a statement: a question (`question`, the clause ended in a
    /// question mark) approves nothing ("Approve?"), though its refusal and warning language
    /// still counts.
    pub fn statement_polarity(&self, clause: &str, question: bool) -> Polarity {
        match self.clause_polarity(clause) {
            Polarity::Approve if question => Polarity::None,
            p => p,
        }
    }

    /// True when a negator stands within the three words before `at` in the same clause. A
    /// negator inside one of the `cues` (spans of the clause) is that cue's own word ("no
    /// problems — approved") and negates nothing after it.
    fn negated(&self, clause: &str, at: usize, cues: &[(usize, usize)]) -> bool {
        let before = &clause[..at];
        let start =
            before.char_indices().rev().filter(|(_, c)| c.is_whitespace()).nth(3).map_or(0, |(i, _)| i);
        // Chinese has no spaces: look at the two characters right before as well, unless they
        // are an intensifier.
        let cjk_start = before.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
        let cjk = if INTENSIFIERS_ZH.contains(&&before[cjk_start..]) { "" } else { &before[cjk_start..] };
        let free = |offset: usize, m: regex::Match<'_>| {
            let (s, e) = (offset + m.start(), offset + m.end());
            !cues.iter().any(|&(cs, ce)| cs <= s && e <= ce)
        };
        self.negator.find_iter(&before[start..]).any(|m| free(start, m))
            || self.negator_zh.find_iter(cjk).any(|m| free(cjk_start, m))
    }

    /// Tools a clause refuses as tools ("do not use the deploy tool at all").
    pub fn refused_tools(&self, text: &str) -> Vec<String> {
        self.tool_level
            .captures_iter(text)
            .filter_map(|c| c.iter().skip(1).flatten().next().map(|m| m.as_str().to_ascii_lowercase()))
            .collect()
    }

    /// True when the text carries instruction-like content.
    pub fn is_instruction_like(&self, text: &str) -> bool {
        self.instruction.is_match(text)
    }

    /// `text` with instruction-like spans replaced by `[neutralised]`.
    pub fn neutralise(&self, text: &str) -> String {
        self.instruction.replace_all(text, "[neutralised]").into_owned()
    }
}

/// Splits a sentence at contrastive markers ("…, but …", "however", "whereas", "但是", …):
/// each part is judged on its own ("X looked malicious, but this edit is fine").
pub fn segments(sentence: &str) -> Vec<&str> {
    const MARKERS: &[&str] = &[
        ", but ",
        " but ",
        "; ",
        ", however",
        " however ",
        " whereas ",
        " although ",
        " though ",
        ", while ",
        "但是",
        "不过",
        "然而",
        "但",
    ];
    let lower = sentence.to_lowercase();
    if lower.len() != sentence.len() {
        return vec![sentence];
    }
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for m in MARKERS {
        let mut from = 0;
        while let Some(i) = lower[from..].find(m) {
            cuts.push((from + i, m.len()));
            from += i + m.len();
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for (at, len) in cuts {
        if at < start {
            continue;
        }
        let part = sentence[start..at].trim();
        if !part.is_empty() {
            out.push(part);
        }
        start = at + len;
    }
    let tail = sentence[start..].trim();
    if !tail.is_empty() {
        out.push(tail);
    }
    out
}

/// Splits text into clauses at sentence ends, semicolons and line breaks (English and
/// Chinese punctuation). Dots inside paths, URLs and numbers do not split.
pub fn clauses(text: &str) -> Vec<&str> {
    clauses_marked(text).into_iter().map(|(c, _)| c).collect()
}

/// [`clauses`], each with whether it ended in a question mark.
pub fn clauses_marked(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let split = match c {
            '\n' | ';' | '!' | '?' | '。' | '！' | '？' | '；' => true,
            '.' => bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()),
            _ => false,
        };
        if split {
            let clause = text[start..i].trim();
            if !clause.is_empty() {
                out.push((clause, matches!(c, '?' | '？')));
            }
            start = i + c.len_utf8();
        }
    }
    let tail = text[start..].trim();
    if !tail.is_empty() {
        out.push((tail, false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Polarity {
        Patterns::defaults().clause_polarity(text)
    }

    #[test]
    fn refusals_in_english_and_chinese() {
        assert_eq!(p("Do not run rm -rf /data"), Polarity::Refuse);
        assert_eq!(p("I would not execute this"), Polarity::Refuse);
        assert_eq!(p("Treat it as hostile"), Polarity::Refuse);
        assert_eq!(p("This command is malicious"), Polarity::Refuse);
        assert_eq!(p("不要运行这个命令"), Polarity::Refuse);
        assert_eq!(p("这是恶意脚本"), Polarity::Refuse);
        assert_eq!(p("This is not safe"), Polarity::Refuse);
        assert_eq!(p("这会删除所有发布版本，非常危险"), Polarity::Refuse);
        assert_eq!(p("无比危险"), Polarity::Refuse);
        assert_eq!(p("这个方案有不少风险"), Polarity::Refuse);
    }

    #[test]
    fn negation_traps_are_not_refusals() {
        assert_eq!(p("This is not dangerous"), Polarity::Approve);
        assert_eq!(p("Nothing malicious here"), Polarity::Approve);
        assert_eq!(p("It is not harmful at all"), Polarity::Approve);
        assert_eq!(p("没有恶意"), Polarity::Approve);
        assert_eq!(p("这个命令不危险"), Polarity::Approve);
    }

    #[test]
    fn approvals_and_silence() {
        assert_eq!(p("Looks good, go ahead"), Polarity::Approve);
        assert_eq!(p("No issues found"), Polarity::Approve);
        assert_eq!(p("可以执行"), Polarity::Approve);
        assert_eq!(p("I read the file"), Polarity::None);
        assert_eq!(p(""), Polarity::None);
    }

    #[test]
    fn a_negator_inside_an_approval_negates_nothing_after_it() {
        assert_eq!(p("No problems — approved"), Polarity::Approve);
        assert_eq!(p("No concerns, fine to run"), Polarity::Approve);
        assert_eq!(p("没有问题，同意"), Polarity::Approve);
        // A negator of its own still negates every cue within reach.
        assert_eq!(p("This is not dangerous or harmful"), Polarity::Approve);
        assert_eq!(p("No, not approved"), Polarity::Refuse);
    }

    #[test]
    fn bare_negatives_questions_and_conditions_approve_nothing() {
        for no in ["Absolutely not.", "No", "Hard no!", "nope", "不行"] {
            assert_eq!(p(no), Polarity::Refuse, "{no}");
        }
        assert_eq!(p("No problems"), Polarity::Approve);
        let pats = Patterns::defaults();
        assert_eq!(pats.statement_polarity("Approve", true), Polarity::None);
        assert_eq!(pats.statement_polarity("Approve", false), Polarity::Approve);
        assert_eq!(pats.statement_polarity("Is this dangerous", true), Polarity::Refuse);
        assert_eq!(p("This is fine only if you enjoy losing data"), Polarity::Refuse);
        assert_eq!(p("Looks fine as long as nobody depends on it"), Polarity::None);
        assert_eq!(
            clauses_marked("Approve? Absolutely not."),
            vec![("Approve", true), ("Absolutely not", false)]
        );
    }

    #[test]
    fn refusal_wins_inside_a_clause() {
        assert_eq!(p("Looks fine but do not run it"), Polarity::Refuse);
    }

    #[test]
    fn clauses_split_on_sentences_not_paths() {
        assert_eq!(clauses("Run /a/b.sh now. Then stop; ok"), vec!["Run /a/b.sh now", "Then stop", "ok"]);
        assert_eq!(clauses("不要运行。可以执行"), vec!["不要运行", "可以执行"]);
    }

    #[test]
    fn contrastive_segments_are_judged_apart() {
        let segs = segments("X looked malicious and should stay deleted, but this edit is fine");
        assert_eq!(segs, vec!["X looked malicious and should stay deleted", "this edit is fine"]);
        assert_eq!(p(segs[1]), Polarity::Approve);
        assert_eq!(p("没问题，可以执行"), Polarity::Approve);
        assert_eq!(p("Fine to post"), Polarity::Approve);
    }

    #[test]
    fn tool_level_refusals_name_the_tool() {
        let pats = Patterns::defaults();
        assert_eq!(pats.refused_tools("Do not use the deploy tool at all."), vec!["deploy"]);
        assert!(pats.refused_tools("Do not run rm -rf /data").is_empty());
    }
}
