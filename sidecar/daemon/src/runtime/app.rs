//! The daemon's shared state: validated config, live modes, grants and their stores.

use crate::config::Config;
use crate::runtime::metrics::labels::Transport;
use crate::runtime::state::{RedbGrantStore, Tokens, ensure_private_dir};
use blindfold_engine::grants::{GrantCache, GrantStore, IssuerKey};
use blindfold_engine::{Engine, EngineConfig};
use blindfold_schemas::ModeSet;
use std::sync::Arc;
use tokio::sync::watch;

/// Everything a request handler may need, cheap to clone.
#[derive(Clone)]
pub struct App {
    /// The validated configuration.
    pub config: Arc<Config>,
    /// Verified grants submitted on the trusted path.
    pub grants: Arc<GrantCache>,
    /// Used and revoked grant ids (durable; shared by the fleet with `[state] backend = "redis"`).
    pub store: Arc<dyn GrantStore>,
    /// The same durable store, for what only it keeps (submitted tokens, reloaded at start).
    pub durable: Arc<RedbGrantStore>,
    /// Where each task's workspace is and what its paths resolve to.
    pub workspaces: Arc<crate::runtime::workspace::LocalWorkspaces>,
    /// The shared Redis state, when `[state] backend = "redis"`.
    pub shared: Option<Arc<crate::runtime::state::redis::RedisState>>,
    /// Control API capability tokens.
    pub tokens: Tokens,
    /// The decision engine (shares the grant cache and store above).
    pub engine: Arc<Engine>,
    /// Live trajectories (state evicted when a trajectory ends).
    pub trajectories: Arc<crate::runtime::trajectories::Trajectories>,
    /// Global modes: a toggle applies to connections already open (read per message), except
    /// `anonymize` and `attest`, which a live trajectory keeps from its start ([`App::modes_for`]).
    pub modes: Arc<watch::Sender<ModeSet>>,
    /// The authority trace (`None` when `[trace] enabled = false`).
    pub trace: Option<Arc<crate::runtime::trace::TraceHub>>,
    /// Identity lexicon and per-trajectory aliases, shared by every path.
    pub identities: Arc<crate::runtime::identity::Identities>,
    /// What the harness integrations keep (Pi sessions, the OpenCode mode), by type: the App
    /// holds no harness itself.
    pub harnesses: Arc<crate::runtime::harness_state::HarnessState>,
    /// The durable review queue (held effectful actions awaiting a human).
    pub reviews: Arc<crate::runtime::review::Reviews>,
    /// Per-trajectory mode overrides (`set_modes {trajectory}`); they beat the global modes
    /// for that trajectory's decisions until it ends.
    pub trajectory_modes: Arc<dashmap::DashMap<String, ModeSet>>,
    /// Session tags shared by harness plugins and the model-API proxy.
    pub pairing: Arc<crate::runtime::pairing::Pairing>,
    /// What harness sessions' trajectories keep across a restart (aliases, identity modes).
    pub kept: Arc<crate::runtime::state::KeptStore>,
    /// Refused calls a person can act on (`blindfold why`), and the grants submitted.
    pub refusals: Arc<crate::runtime::refusals::Refusals>,
    /// Prometheus metrics, updated where decisions are traced.
    pub metrics: Arc<crate::runtime::metrics::Metrics>,
    /// The console's approval key (`None` with the console off): what it signs review
    /// approvals with; the review queue accepts its grants as approvals only.
    pub approver: Option<Arc<IssuerKey>>,
    /// The verifiers Blindfold may ask itself (`None` without `[preverify] verifiers`).
    pub verifiers: Option<Arc<crate::runtime::verifiers::Verifiers>>,
    /// The transport this handle decides for (the metrics' `transport` label): each transport
    /// takes its own handle with [`App::for_transport`].
    pub transport: Transport,
}

impl App {
    /// Prepares the state directory and its `grants/` folder (0700), tokens (0600) and the
    /// durable grant store.
    pub fn open(config: Config) -> Result<Self, String> {
        blindfold_schemas::strict_json::set_max_depth(config.limits.max_json_depth);
        ensure_private_dir(&config.state_dir)
            .map_err(|e| format!("state.dir {}: {e}", config.state_dir.display()))?;
        // Where operators drop grant files (`blindfold grant issue … > <state>/grants/x.jwt`).
        let grants_dir = config.state_dir.join("grants");
        ensure_private_dir(&grants_dir).map_err(|e| format!("{}: {e}", grants_dir.display()))?;
        let tokens = Tokens::load_or_create(&config.state_dir)?;
        let (modes, _) = watch::channel(config.modes);
        let grants = Arc::new(GrantCache::new());
        let durable = Arc::new(RedbGrantStore::open(&config.state_dir).map_err(|e| e.to_string())?);
        let (store, shared) = open_grant_store(&config, &durable, &grants)?;
        // Refusals noted before a restart are answered for again (`blindfold why`).
        let refusals =
            Arc::new(crate::runtime::refusals::Refusals::open(&config.state_dir, config.file.as_deref()));
        // Grants submitted before a restart are in force again (re-verified with today's keys;
        // their uses and revocations are the store's), and on record for the refusals' views.
        for token in durable.tokens(crate::unix_now()).map_err(|e| e.to_string())? {
            let submitted =
                grants.submit(&token, &config.grants.keys, config.grants.policy, crate::unix_now());
            if let Ok(blindfold_schemas::AnyGrantClaims::Exact(claims)) = submitted {
                refusals.granted(&claims);
            }
        }
        let workspaces = Arc::new(crate::runtime::workspace::LocalWorkspaces::new(config.workspace.clone()));
        let engine = Engine::new(
            EngineConfig {
                grant_policy: config.grants.policy,
                agents: true_identities(&config),
                protected: protected(&config),
                ..config.engine.clone()
            },
            Arc::new(config.grants.keys.clone()),
            grants.clone(),
            store.clone(),
        )
        .with_workspaces(workspaces.clone());
        let trace = if config.trace.enabled {
            let hub = crate::runtime::trace::TraceHub::open(&config.trace)
                .map_err(|e| format!("trace.dir {}: {e}", config.trace.dir.display()))?;
            Some(Arc::new(hub))
        } else {
            None
        };
        let modes = Arc::new(modes);
        let metrics = Arc::new(crate::runtime::metrics::Metrics::new());
        let approver = match config.console.enabled {
            true => Some(Arc::new(crate::runtime::review::approver::load(&config.console)?)),
            false => None,
        };
        // Approvals are verified against the trusted issuers and the console's key; grants
        // everywhere else against the trusted issuers only.
        let approval_keys = match &approver {
            Some(key) => crate::runtime::review::approver::approval_keys(
                &config.grants.keys,
                key,
                &config.raw.grants.revoked_kids,
            ),
            None => config.grants.keys.clone(),
        };
        let review_store: Arc<dyn crate::runtime::review::ReviewBackend> = match &shared {
            Some(state) => Arc::new(crate::runtime::review::RedisReviewStore::new(
                crate::runtime::state::redis::RedisReviewRecords::new(state.clone()),
            )),
            None => Arc::new(
                crate::runtime::review::ReviewStore::open(&config.state_dir)
                    .map_err(|e| format!("state.dir {}: {e}", config.state_dir.display()))?,
            ),
        };
        let reviews = crate::runtime::review::Reviews::open_on(
            review_store,
            config.review,
            crate::runtime::review::ReviewDeps {
                metrics: Some(metrics.clone()),
                grants: grants.clone(),
                keys: approval_keys,
                policy: config.grants.policy,
                trace: trace.clone(),
                modes: modes.clone(),
                judge: config.judge.clone().map(|j| {
                    Arc::new(crate::runtime::judge::Judge::new(j))
                        as Arc<dyn crate::runtime::review::ReviewJudge>
                }),
            },
        )
        .map_err(|e| format!("review queue: {e}"))?;
        let reviews = Arc::new(reviews);
        reviews.follow_fleet();
        let alias_log = trace
            .as_ref()
            .map(|hub| crate::runtime::identity::AliasLog { sink: hub.sink().clone(), modes: modes.clone() });
        let kept = Arc::new(crate::runtime::state::KeptStore::open(&config.state_dir)?);
        let identities = Arc::new(
            crate::runtime::identity::Identities::open(&config, alias_log)?.with_store(kept.clone()),
        );
        let pairing = Arc::new(crate::runtime::pairing::Pairing::new(tokens.adapter_secret()));
        if let Some(hub) = &trace {
            hub.set_directory(identities.clone());
        }
        let verifiers = crate::runtime::verifiers::Verifiers::new(&config.verifiers).map(Arc::new);
        Ok(Self {
            verifiers,
            trace,
            identities,
            config: Arc::new(config),
            grants,
            store,
            durable,
            workspaces,
            shared,
            engine: Arc::new(engine),
            trajectories: Arc::default(),
            tokens,
            modes,
            harnesses: Arc::default(),
            reviews,
            trajectory_modes: Arc::default(),
            pairing,
            kept,
            refusals,
            metrics,
            approver,
            transport: Transport::Other,
        })
    }

    /// This handle for decisions of `transport` (the same daemon state; only the label its
    /// decisions are counted under differs).
    pub fn for_transport(&self, transport: Transport) -> Self {
        Self { transport, ..self.clone() }
    }

    /// The review queue: items are held on the decision path ([`crate::runtime::decide`]); `get`, `list`, `approve`, `reject`,
    /// `find_pending` and `wait(id, timeout)` are for operators and holders.
    pub fn reviews(&self) -> &crate::runtime::review::Reviews {
        &self.reviews
    }

    /// The modes in force now.
    pub fn modes(&self) -> ModeSet {
        *self.modes.borrow()
    }

    /// Keeps trajectory `id` (a harness session) across restarts: the identity modes it runs
    /// under and its aliases are written to the state directory now, and its aliases again when
    /// they change; a restarted daemon meeting it again keeps both.
    pub fn keep_trajectory(&self, id: &str) {
        if self.identities_kept(id) {
            return;
        }
        let modes = self.modes_for(id);
        let aliases = self.identities.anonymizer(id).aliases().record();
        let kept = crate::runtime::state::Kept {
            aliases: Some(aliases),
            anonymize: modes.anonymize,
            attest: modes.attest,
        };
        if let Err(e) = self.kept.put(id, &kept) {
            tracing::warn!(trajectory = id, error = %e, "trajectory not kept");
        }
        self.identities.keep(id);
    }

    fn identities_kept(&self, id: &str) -> bool {
        self.identities.is_kept(id)
    }

    /// The `anonymize` and `attest` trajectory `id` kept from an earlier run of the daemon, over
    /// the global modes `now`; `now` for a trajectory never kept.
    pub(crate) fn kept_modes(&self, id: &str, now: ModeSet) -> ModeSet {
        match self.kept.get(id) {
            Ok(Some(k)) => ModeSet { anonymize: k.anonymize, attest: k.attest, ..now },
            Ok(None) => now,
            Err(e) => {
                tracing::warn!(trajectory = id, error = %e, "kept trajectory unreadable");
                now
            }
        }
    }
}

/// What of this daemon no mediated agent may reach (SPEC §5): its state dir (tokens, keys, the
/// grant and review stores), its trace dir, its control socket and trusted key files, its token
/// file names wherever they lie, and the ports it listens on.
fn protected(config: &Config) -> blindfold_engine::protect::Protected {
    let absolute = |p: &std::path::Path| {
        let p = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        p.display().to_string()
    };
    let mut paths = vec![absolute(&config.state_dir), absolute(&config.trace.dir)];
    paths.extend(config.server.control_socket.as_deref().map(absolute));
    paths.extend(config.raw.grants.trusted_keys.iter().map(|k| absolute(std::path::Path::new(k))));
    paths.sort();
    paths.dedup();
    let mut ports = vec![config.server.listen.port(), config.model_proxy.listen.port()];
    ports.retain(|p| *p != 0);
    ports.dedup();
    blindfold_engine::protect::Protected {
        paths,
        names: vec!["adapter.token".into(), "operator.token".into()],
        ports,
    }
}

/// The grant store `[state] backend` names: the embedded one in the state directory, or the one
/// a fleet shares on Redis (revocations from the fleet drop the grant from this cache too). The
/// embedded store keeps this instance's submitted tokens either way.
#[allow(clippy::type_complexity)]
fn open_grant_store(
    config: &Config,
    durable: &Arc<RedbGrantStore>,
    grants: &Arc<GrantCache>,
) -> Result<(Arc<dyn GrantStore>, Option<Arc<crate::runtime::state::redis::RedisState>>), String> {
    use crate::config::StateBackend;
    use crate::runtime::state::redis::{RedisGrantStore, RedisState};
    match &config.state_backend {
        StateBackend::Embedded => Ok((durable.clone(), None)),
        StateBackend::Redis(redis) => {
            let shared = RedisState::open(redis).map_err(|e| format!("state.redis: {e}"))?;
            let cache = grants.clone();
            shared.on_revoked_grant(move |jti| cache.remove(jti));
            Ok((Arc::new(RedisGrantStore::new(shared.clone())), Some(shared)))
        }
    }
}

/// Every configured agent's true identity (`[identity] agents`, A2A upstreams and
/// `[preverify] verifiers`): the engine
/// judges independence by family.
fn true_identities(config: &Config) -> std::collections::HashMap<String, blindfold_schemas::AgentIdentity> {
    let upstreams = config.transports.a2a_upstreams.iter().map(|u| (u.id.clone(), u.identity.clone()));
    let known: Vec<_> = config.identity.agents.iter().cloned().chain(upstreams).collect();
    // Validated with the config: a verifier never contradicts a configured agent.
    let verifiers = config.verifiers.identities(&known).unwrap_or_default();
    known.into_iter().chain(verifiers).collect()
}
