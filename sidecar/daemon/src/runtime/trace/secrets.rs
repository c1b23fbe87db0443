//! Secrets kept out of trace records (SPEC §8: grant tokens and credentials never appear): an
//! action's target and a decision's detail are written with credentials masked — URL passwords
//! and query values, `Authorization`-style headers and bearer tokens, `password=`/`--token`
//! style arguments, compact JWS/JWT tokens (grants among them) and well-known API-key shapes.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::LazyLock;

/// What replaces a masked secret.
pub const MASK: &str = "[redacted]";

/// One alternation; each branch keeps its non-secret prefix in a named group `keep`-n.
static SECRETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // A compact JWS (a grant, an OAuth/OIDC token): base64url `{"` header, payload, signature.
        r"(?P<jws>\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,})",
        // Well-known API-key shapes.
        r"|(?P<key>\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|\bgh[pousr]_[A-Za-z0-9]{16,}|\bgithub_pat_[A-Za-z0-9_]{16,}",
        r"|\bxox[abprs]-[A-Za-z0-9-]{8,}|\bglpat-[A-Za-z0-9_-]{16,}|\bAKIA[0-9A-Z]{16}\b)",
        // `scheme://user:password@`: the credentials.
        r"|(?P<k1>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@",
        // `Authorization: …`, `Cookie: …`, `X-Api-Key: …` (a header given on a command line).
        r"|(?P<k2>(?i:\b(?:proxy-)?authorization|\bcookie|\bx-api-key|\bapi-key|\bx-auth-token)\s*[:=]\s*)[^'\x22\r\n]+",
        // `Bearer …` / `Basic …` outside a header.
        r"|(?P<k3>(?i:\bbearer|\bbasic)\s+)[A-Za-z0-9._~+/=-]{8,}",
        // `password=…`, `token: …`, `--api-key …` and the like (a bare word followed by a space,
        // "the token expired", is prose, not a credential).
        r"|(?P<k4>(?i:--?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)(?:\s*[=:]\s*|\s+)",
        r"|\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\s*[=:]\s*))[^\s&'\x22]+",
        // Any other URL query value (`?a=…&b=…`).
        r"|(?P<k5>[?&][A-Za-z0-9_.-]+=)[^&#\s'\x22]+",
    ))
    .expect("the secret patterns compile")
});

/// `text` with every credential it carries replaced by [`MASK`] (borrowed when there is none).
pub fn mask_secrets(text: &str) -> Cow<'_, str> {
    SECRETS.replace_all(text, |c: &Captures<'_>| {
        let keep = ["k1", "k2", "k3", "k4", "k5"].iter().find_map(|k| c.name(k)).map_or("", |m| m.as_str());
        let tail = if c.name("k1").is_some() { "@" } else { "" };
        format!("{keep}{MASK}{tail}")
    })
}

#[cfg(test)]
mod tests {
    use super::mask_secrets;

    #[test]
    fn credentials_are_masked_and_the_rest_kept() {
        let cases = [
            (
                "curl -H 'Authorization: Bearer sk-SECRET123abc' https://api.example.com/v1",
                "curl -H 'Authorization: [redacted]' https://api.example.com/v1",
            ),
            (
                "https://admin:hunter2@internal.example.com/deploy?token=sk-QUERY&env=prod",
                "https://[redacted]@internal.example.com/deploy?token=[redacted]&env=[redacted]",
            ),
            (
                "echo approved grant: eyJ0eXAiOiJKV1QiLCJhbGciOiJFZERTQSJ9.eyJ0YXNrIjoidCJ9.c2lnbmF0dXJl",
                "echo approved grant: [redacted]",
            ),
            ("mysql --password=s3cr3t -u root", "mysql --password=[redacted] -u root"),
            ("deploy --api-key abcdef123456 prod", "deploy --api-key [redacted] prod"),
            (
                "git push https://ghp_abcdefghijklmnopqrstu@github.com/x/y",
                "git push https://[redacted]@github.com/x/y",
            ),
            ("aws s3 ls # AKIAABCDEFGHIJKLMNOP", "aws s3 ls # [redacted]"),
            ("export API_KEY=abc123 && run", "export API_KEY=[redacted] && run"),
        ];
        for (raw, want) in cases {
            assert_eq!(mask_secrets(raw), want, "{raw}");
        }
    }

    #[test]
    fn text_without_credentials_is_borrowed_unchanged() {
        for plain in [
            "/w/notes/a.md",
            "rm -rf /srv/releases",
            "https://docs.example.org/guide",
            "review-inbox",
            "the grant token expired; ask the issuer to renew it",
        ] {
            let out = mask_secrets(plain);
            assert!(matches!(out, std::borrow::Cow::Borrowed(_)), "{plain} → {out}");
        }
    }
}
