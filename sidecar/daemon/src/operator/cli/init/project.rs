//! What every `init` shares: the project's `blindfold.toml` (the daemon's listen address and
//! state directory the adapter's settings point at, the model-API proxy in front of the
//! harness's model provider, the sub-agents' true identities) and the provider URL rewrite.

use super::agents::SubAgent;
use crate::config::Config;
use std::path::Path;

/// The last lines every `init` prints after setting a project up: a daemon running as the
/// harness's own user shares its tokens and issuer keys with every process of that user (a model
/// with a shell included), so init offers the stronger set-up docs/security.md describes.
pub const OWN_USER_HINT: &str = concat!(
    "Stronger: run the daemon as its own system user, so its tokens and issuer keys are out of the ",
    "harness user's reach (docs/security.md, \"running the daemon as its own user\": a system user ",
    "and a systemd unit).",
);

/// Where the harness's provider reaches the model, and where it will reach it instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyRoute {
    /// The model API's base (`http://host:port`, what `[model_proxy] upstream` names).
    pub upstream: String,
    /// The provider's base URL through the proxy (`http://<proxy listen>/v1`).
    pub through: String,
}

/// The route for a provider whose base URL is `base_url`: an `http://…/v1` URL goes through the
/// proxy at `listen`; anything else (an `https://` API the proxy cannot reach without a
/// TLS-originating forwarder, a path not ending in `/v1`) is `Err` with the reason. A URL already
/// pointing at the proxy keeps the upstream `kept` names.
pub fn route(base_url: &str, listen: &str, kept: Option<&str>) -> Result<ProxyRoute, String> {
    let through = format!("http://{listen}/v1");
    let trimmed = base_url.trim_end_matches('/');
    if trimmed == through {
        return match kept {
            Some(up) => Ok(ProxyRoute { upstream: up.to_owned(), through }),
            None => Err(format!("{base_url} is the proxy itself and blindfold.toml names no upstream")),
        };
    }
    let Some(upstream) = trimmed.strip_suffix("/v1") else {
        return Err(format!("{base_url} does not end in /v1 (the proxy serves /v1/…)"));
    };
    if !upstream.starts_with("http://") {
        return Err(format!(
            "{base_url} is not http:// (the model-API proxy forwards plain HTTP: run a TLS-originating \
             forwarder on loopback and point the provider at it first)"
        ));
    }
    Ok(ProxyRoute { upstream: upstream.to_owned(), through })
}

/// The `[model_proxy] upstream` of an existing project config, if any.
pub fn kept_upstream(toml_path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(toml_path).ok()?;
    let v: toml::Value = toml::from_str(&text).ok()?;
    v.get("model_proxy")?.get("upstream")?.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// The project's `blindfold.toml` for `harness`: the daemon's listen address and state
/// directory (so the adapter's settings and `blindfold run` agree), the model-API proxy in front
/// of `upstream` with every request required to carry a registered session, and `agents`.
pub fn blindfold_toml(
    harness: &str,
    path: &Path,
    cfg: &Config,
    upstream: Option<&str>,
    agents: &[SubAgent],
) -> String {
    let mut out = format!(
        "# Blindfold for this {harness} project, written by `blindfold init {}` (run it again after\n\
         # changing the harness's agents; `--remove` undoes it). Start the daemon with:\n\
         #   blindfold run --config {}\n\n\
         [server]\nlisten = \"{}\"\n\n[state]\n# Tokens, keys, grants and kept trajectories (0700).\ndir = {:?}\n\n\
         [workspace]\n# Grants' paths are rooted and resolved in the project.\nroot = {:?}\n\n",
        harness.to_ascii_lowercase(),
        path.display(),
        cfg.server.listen,
        cfg.state_dir.display().to_string(),
        path.parent().map(|p| p.display().to_string()).unwrap_or_default(),
    );
    let proxy = format!(
        "[model_proxy]\n\
         # The coordinator's own model traffic goes through Blindfold: what the model reads loses the\n\
         # sub-agents' identity, and every tool call it proposes is decided before the harness runs it.\n\
         # The harness's provider points at `listen`; `upstream` is where it pointed before.\n\
         upstream = {:?}\nlisten = \"{}\"\n\
         # A request must carry the session tag the plugin registered (no plugin: no tools).\n\
         sessions = \"required\"\n\
         # The plugin takes a grant's use when the tool runs; the proxy only checks it.\n\
         consume_grants = false\n",
        upstream.unwrap_or_default(),
        cfg.model_proxy.listen,
    );
    match upstream {
        Some(_) => out.push_str(&proxy),
        None => {
            out.push_str(
                "# The model-API proxy is off: the harness's provider has no http:// base URL it could be\n\
                 # routed through (see the harness's page in docs/harnesses/). With one, uncomment:\n",
            );
            out.extend(
                proxy.lines().map(|l| if l.starts_with('#') { format!("{l}\n") } else { format!("# {l}\n") }),
            );
        }
    }
    for a in agents {
        out.push_str(&a.stanza());
    }
    out
}

/// The adapter's settings (`.opencode/blindfold.json`, `.pi/blindfold.json`, the OpenClaw
/// plugin's config): this daemon's control URL and adapter token file, and whether the provider
/// goes through the model-API proxy.
pub fn adapter_settings(cfg: &Config, timeout_ms: u64, via_proxy: bool) -> serde_json::Value {
    serde_json::json!({
        "url": format!("ws://{}/v1/control", cfg.server.listen),
        "tokenFile": cfg.state_dir.join(crate::runtime::state::ADAPTER_TOKEN_FILE),
        "timeoutMs": timeout_ms,
        "modelProxy": via_proxy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_v1_urls_are_routed_and_others_say_why_not() {
        let r = route("http://127.0.0.1:8080/v1/", "127.0.0.1:7701", None).expect("route");
        assert_eq!(
            (r.upstream.as_str(), r.through.as_str()),
            ("http://127.0.0.1:8080", "http://127.0.0.1:7701/v1")
        );
        let again =
            route("http://127.0.0.1:7701/v1", "127.0.0.1:7701", Some("http://127.0.0.1:8080")).expect("kept");
        assert_eq!(again, r);
        assert!(
            route("https://api.example.com/v1", "127.0.0.1:7701", None).expect_err("refused").contains("TLS")
        );
        assert!(route("http://h:1/api", "127.0.0.1:7701", None).expect_err("refused").contains("/v1"));
    }

    #[test]
    fn the_project_config_is_valid_and_names_what_the_adapter_uses() {
        let dir = tempfile::tempdir().expect("tmp");
        let cfg = crate::config::load(None).expect("default");
        let agents = [SubAgent::new("scout", "p/gpt-5", "", "", "f")];
        let path = dir.path().join("blindfold.toml");
        for upstream in [Some("http://127.0.0.1:9"), None] {
            std::fs::write(&path, blindfold_toml("OpenCode", &path, &cfg, upstream, &agents)).expect("write");
            let loaded = crate::config::load(Some(&path)).expect("valid");
            assert_eq!(loaded.server.listen, cfg.server.listen);
            assert_eq!(loaded.model_proxy.upstream.as_deref(), upstream);
            assert_eq!(loaded.model_proxy.require_session, upstream.is_some());
            assert_eq!(loaded.identity.agents.len(), 1);
        }
    }
}
