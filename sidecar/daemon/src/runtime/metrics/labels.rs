//! The metrics' label sets, each of low cardinality by construction: a transport from a fixed
//! list, a verdict, a mode name, a check id from the cascade's catalogue, a reason code. No
//! trajectory ids, targets or agent names ever become labels.

use blindfold_schemas::{ModeSet, Reason, Verdict};
use prometheus_client::encoding::EncodeLabelSet;

/// Which path a decision came in on (the label `transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Transport {
    /// The control API: harness plugins (OpenCode, Pi, OpenClaw), `check_action`, and relays
    /// that decide through a daemon (`mcp-stdio` pointed at one).
    Control,
    /// The A2A reverse proxy.
    A2a,
    /// The MCP Streamable HTTP reverse proxy.
    McpHttp,
    /// `blindfold mcp-stdio` deciding in its own process.
    McpStdio,
    /// The JSON-RPC-over-WebSocket relay.
    WsRelay,
    /// The model-API proxy.
    ModelProxy,
    /// OpenCode's permission requests, answered by the follower of `opencode serve`.
    OpenCode,
    /// Anything else that decides through the daemon (replays, tools embedding it).
    #[default]
    Other,
}

impl Transport {
    /// Every transport, in label order.
    pub const ALL: [Transport; 8] = [
        Self::Control,
        Self::A2a,
        Self::McpHttp,
        Self::McpStdio,
        Self::WsRelay,
        Self::ModelProxy,
        Self::OpenCode,
        Self::Other,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Control => "control",
            Self::A2a => "a2a",
            Self::McpHttp => "mcp_http",
            Self::McpStdio => "mcp_stdio",
            Self::WsRelay => "ws_relay",
            Self::ModelProxy => "model_proxy",
            Self::OpenCode => "opencode",
            Self::Other => "other",
        }
    }

    /// Position in [`Transport::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The label value of a verdict.
pub fn verdict_str(v: Verdict) -> &'static str {
    match v {
        Verdict::Allow => "allow",
        Verdict::Deny => "deny",
        Verdict::Review => "review",
    }
}

/// Every verdict, in index order.
pub const VERDICTS: [Verdict; 3] = [Verdict::Allow, Verdict::Deny, Verdict::Review];

/// Position of `v` in [`VERDICTS`].
pub fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::Allow => 0,
        Verdict::Deny => 1,
        Verdict::Review => 2,
    }
}

/// A mode set as a number below 32 (one bit per mechanism): the hot path's index.
pub fn mode_bits(m: ModeSet) -> usize {
    usize::from(m.anonymize)
        | usize::from(m.attest) << 1
        | usize::from(m.preverify) << 2
        | usize::from(m.grants) << 3
        | usize::from(m.enforce) << 4
}

/// The mode sets registered at start: the named modes, and `all` in `observe` (a rollout).
pub fn registered_modes() -> Vec<ModeSet> {
    let mut modes: Vec<ModeSet> =
        ["all", "off", "anonymize", "attest", "preverify"].iter().filter_map(|n| ModeSet::named(n)).collect();
    modes.push(ModeSet { enforce: false, ..ModeSet::ALL });
    modes
}

/// True for the reasons of the grant check (SPEC §6): `blindfold_grants_refused_total`.
pub fn is_grant_reason(r: Reason) -> bool {
    use Reason as R;
    matches!(
        r,
        R::InvalidSchema
            | R::NoGrant
            | R::BadSignature
            | R::UntrustedIssuer
            | R::WrongTask
            | R::ExpiredGrant
            | R::NotYetValid
            | R::OperationDenied
            | R::TargetDenied
            | R::ArtifactChanged
            | R::ReplayedGrant
            | R::RevokedGrant
            | R::GrantTooLong
    )
}

/// `blindfold_decisions_total`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct DecisionLabels {
    /// [`Transport::as_str`].
    pub transport: &'static str,
    /// The mode name, as `trace summarize` names it.
    pub mode: String,
    /// allow, deny or review.
    pub verdict: &'static str,
}

/// `blindfold_decision_checks_total`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct CheckLabels {
    /// The check id (`P3.grant`, …).
    pub check: String,
    /// allow, deny or review.
    pub verdict: &'static str,
}

/// `blindfold_decision_reasons_total`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ReasonLabels {
    /// The reason code.
    pub reason: &'static str,
    /// allow, deny or review.
    pub verdict: &'static str,
}

/// A family keyed by reason only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ReasonOnly {
    /// The reason code.
    pub reason: &'static str,
}

/// A family keyed by transport only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct TransportLabel {
    /// [`Transport::as_str`].
    pub transport: &'static str,
}

/// `blindfold_reviews_total`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct OutcomeLabel {
    /// submitted, approved, rejected, expired or withdrawn.
    pub outcome: &'static str,
}

/// `blindfold_open_connections`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct ListenerLabel {
    /// `main` (the loopback listener), `control_socket`, `model_proxy`.
    pub listener: &'static str,
}

/// The outcomes `blindfold_reviews_total` counts.
pub const REVIEW_OUTCOMES: [&str; 5] = ["submitted", "approved", "rejected", "expired", "withdrawn"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_are_positions() {
        for (i, t) in Transport::ALL.iter().enumerate() {
            assert_eq!(t.index(), i);
        }
        for (i, v) in VERDICTS.iter().enumerate() {
            assert_eq!(verdict_index(*v), i);
        }
        for (i, r) in Reason::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i, "{r}: reasons are indexed by declaration order");
        }
        let bits: std::collections::BTreeSet<usize> = registered_modes().into_iter().map(mode_bits).collect();
        assert_eq!(bits.len(), registered_modes().len(), "distinct mode sets");
        assert!(bits.iter().all(|b| *b < 32));
    }
}
