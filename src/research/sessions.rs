//! `Sessions`: the one way into research for every front end. It holds
//! the loaded configuration and the session store, builds the runtime (the
//! search index, the model check) once, on first use, and hands out
//! `SessionHandle`s for new, resumed and follow-up sessions and `Replayed`
//! ones for reading. Nothing is built by making it: a server can listen
//! (and an MCP server answer `initialize`) before the corpus is indexed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::handle::SessionHandle;
use super::recorded::recorded_config;
use super::replay::{ReplayError, Replayed, resolve};
use super::request::{ResearchRequest, checked_question};
use crate::builder::{BuildError, PreparedSession, Runtime, shares_parts};
use crate::config::{Config, ConfigError, Overrides, ReasonerKind};
use crate::engine::Engine;
use crate::engine::protocol::SessionHeader;
use crate::engine::state::SessionState;
use crate::paths::Paths;
use crate::search::SearchQuery;
use crate::session::follow_up::{FollowUpError, prepare_follow_up};
use crate::session::fork::{ForkError, fork_session};
use crate::session::list::ListedSession;
use crate::session::{NewSessionLog, OpenError, OpenedSession, Redactor, SessionStore, new_session_id};

/// Where the runtime stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// Nothing asked for it yet.
    NotStarted,
    /// Being built (indexing the corpus, checking the model).
    Starting,
    Ready,
    /// The last attempt failed, with why; the next use tries again.
    Failed(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error(transparent)]
    Request(#[from] super::request::RequestError),
    /// The parts could not be built: the model does not answer, a provider
    /// cannot start. Trying again later may work.
    #[error("{0}")]
    Unavailable(String),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Fork(#[from] ForkError),
    #[error(transparent)]
    FollowUp(#[from] FollowUpError),
    #[error("{0}")]
    Damaged(String),
}

impl From<BuildError> for SessionsError {
    fn from(e: BuildError) -> Self {
        SessionsError::Unavailable(e.to_string())
    }
}

type Report = Arc<dyn Fn(&str) + Send + Sync>;

pub struct Sessions {
    config: Config,
    paths: Paths,
    store: SessionStore,
    redactor: Redactor,
    runtime: tokio::sync::OnceCell<Arc<Runtime>>,
    building: AtomicBool,
    failure: Mutex<Option<String>>,
    progress: watch::Sender<Option<String>>,
    report: Report,
}

/// A session taken up again by `resume`.
pub enum Resumption {
    /// It has ended: nothing to continue.
    Ended { id: String, state: Box<SessionState> },
    Continuing {
        handle: Box<SessionHandle>,
        /// Told to the user: a stale lock taken over, a torn line set aside,
        /// a recorded configuration that could not be read.
        notices: Vec<String>,
        replayed_events: usize,
    },
}

/// A fork made by `fork`.
pub struct ForkMade {
    pub source: String,
    pub id: String,
    pub kept_events: usize,
    pub dropped_events: usize,
    pub retuned: bool,
}

/// A follow-up session started by `follow_up`.
pub struct FollowUpStarted {
    pub handle: SessionHandle,
    pub sources: usize,
    pub findings: usize,
    pub notices: Vec<String>,
}

/// Search hits outside any session, with every key blanked.
#[derive(Debug, Clone)]
pub struct FoundHits {
    pub hits: Vec<(String, crate::search::SearchHit)>,
    pub providers_used: Vec<String>,
    pub error: Option<String>,
}

impl Sessions {
    /// The service over `config` (already loaded and validated).
    pub fn new(config: Config, paths: Paths) -> Self {
        let redactor = Redactor::from_config(&config.snapshot());
        Self {
            store: SessionStore::new(paths.sessions_dir()),
            config,
            paths,
            redactor,
            runtime: tokio::sync::OnceCell::new(),
            building: AtomicBool::new(false),
            failure: Mutex::new(None),
            progress: watch::Sender::new(None),
            report: Arc::new(|line| tracing::info!("{line}")),
        }
    }

    /// Where building progress goes (stderr for the CLI).
    pub fn with_progress(mut self, report: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.report = Arc::new(report);
        self
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    /// The current configuration's keys.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    pub fn readiness(&self) -> Readiness {
        if self.runtime.initialized() {
            return Readiness::Ready;
        }
        if self.building.load(Ordering::SeqCst) {
            return Readiness::Starting;
        }
        match self.failure.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            Some(why) => Readiness::Failed(why),
            None => Readiness::NotStarted,
        }
    }

    /// The latest building progress line (for MCP progress notifications).
    pub fn progress(&self) -> watch::Receiver<Option<String>> {
        self.progress.subscribe()
    }

    /// The runtime, if it is built.
    pub fn built(&self) -> Option<Arc<Runtime>> {
        self.runtime.get().cloned()
    }

    /// The runtime, built on first use (off the async threads: indexing a
    /// corpus is blocking work). A failed build is tried again next time.
    pub async fn runtime(&self) -> Result<Arc<Runtime>, SessionsError> {
        self.runtime_checking(self.config.research.reasoner).await
    }

    /// `runtime`, checking the model first when the session needing it
    /// uses one (`--reasoner llm` over a built-in configuration): a dead
    /// endpoint fails fast, before any index is built.
    async fn runtime_checking(&self, reasoner: ReasonerKind) -> Result<Arc<Runtime>, SessionsError> {
        let built = self
            .runtime
            .get_or_try_init(|| async {
                self.building.store(true, Ordering::SeqCst);
                let mut config = self.config.clone();
                if reasoner == ReasonerKind::Llm {
                    config.research.reasoner = reasoner;
                }
                let result = self.build(config).await;
                self.building.store(false, Ordering::SeqCst);
                *self.failure.lock().unwrap_or_else(|p| p.into_inner()) = result.as_ref().err().map(|e| e.to_string());
                result.map(Arc::new)
            })
            .await?;
        Ok(built.clone())
    }

    async fn build(&self, config: Config) -> Result<Runtime, SessionsError> {
        let paths = self.paths.clone();
        let (report, progress) = (self.report.clone(), self.progress.clone());
        let tell = move |line: &str| {
            report(line);
            progress.send_replace(Some(line.to_string()));
        };
        let handle = tokio::runtime::Handle::current();
        let built = tokio::task::spawn_blocking(move || handle.block_on(Runtime::build(config, paths, &tell)))
            .await
            .map_err(|e| SessionsError::Unavailable(format!("building the search providers failed: {e}")))?;
        Ok(built?)
    }

    /// The runtime for a session under `config`: this one when it serves
    /// it, else one built for it (a resumed session recorded with another
    /// corpus or model).
    async fn runtime_for(&self, config: &Config) -> Result<Arc<Runtime>, SessionsError> {
        if shares_parts(&self.config, config) {
            return self.runtime_checking(config.research.reasoner).await;
        }
        Ok(Arc::new(self.build(config.clone()).await?))
    }

    /// The configuration and question a request runs under, checked before
    /// anything is admitted or built.
    pub fn check(&self, question: &str, request: &ResearchRequest) -> Result<(String, Config), SessionsError> {
        let question = checked_question(question, &self.config)?;
        let config = request.apply(&self.config)?;
        Ok((question, config))
    }

    /// A new session on `question` under this configuration with the
    /// request's choices, running.
    pub async fn start(&self, question: &str, request: &ResearchRequest) -> Result<SessionHandle, SessionsError> {
        let (question, config) = self.check(question, request)?;
        self.start_checked(question, &config).await
    }

    /// `start` for a question and configuration already checked.
    pub async fn start_checked(&self, question: String, config: &Config) -> Result<SessionHandle, SessionsError> {
        let runtime = self.runtime_for(config).await?;
        let PreparedSession { dir, settings, parts } = runtime.prepare(config).await?;
        let (engine, handle) = Engine::new(settings, parts, SessionState::default());
        Ok(SessionHandle::spawn(engine, handle, dir, Some(question), None))
    }

    /// Session `given` (an id, a unique start of one, `last`), the one id
    /// check of every front end.
    pub fn resolve(&self, given: &str) -> Result<String, ReplayError> {
        resolve(&self.store, given)
    }

    /// Session `given`, read and replayed, for showing (redacted).
    pub fn replay(&self, given: &str) -> Result<Replayed, ReplayError> {
        let id = self.resolve(given)?;
        Replayed::read(&self.store, &id, &self.redactor)
    }

    /// Every session, newest first.
    pub fn list(&self) -> std::io::Result<Vec<ListedSession>> {
        self.store.list()
    }

    /// Searches the configured providers directly (no session), every
    /// hit, locator and error passing the redactor: a provider echoing the
    /// key into its results leaks nothing.
    pub async fn search(&self, text: &str, limit: usize) -> Result<FoundHits, SessionsError> {
        let runtime = self.runtime().await?;
        let query = SearchQuery { text: text.to_string(), exclude: Vec::new(), limit };
        let routed = runtime.search().search(&query).await;
        let r = runtime.redactor().merged(&self.redactor);
        let clean = |t: &str| r.redact(t).into_owned();
        let hits = routed
            .hits
            .into_iter()
            .map(|(provider, mut h)| {
                h.title = clean(&h.title);
                h.snippet = clean(&h.snippet);
                h.locator = clean(&h.locator);
                (provider, h)
            })
            .collect();
        Ok(FoundHits { hits, providers_used: routed.providers_used, error: routed.error.as_deref().map(clean) })
    }

    /// Continues session `given` where it stopped, under its recorded
    /// configuration with `overrides` (`--set`) and the request's choices
    /// over it. An ended session is not continued.
    pub async fn resume(
        &self,
        given: &str,
        request: &ResearchRequest,
        overrides: &Overrides,
    ) -> Result<Resumption, SessionsError> {
        let id = self.resolve(given)?;
        let opened = self.store.open(&id)?;
        if opened.state.outcome.is_some() {
            return Ok(Resumption::Ended { id, state: Box::new(opened.state) });
        }
        let mut notices = opened.notices.clone();
        let header = opened
            .state
            .header
            .clone()
            .ok_or_else(|| SessionsError::Damaged("the session log has no header".into()))?;
        let (recorded, warning) = recorded_config(&self.config, &header, overrides)?;
        notices.extend(warning);
        let config = request.apply(&recorded)?;
        let runtime = self.runtime_for(&config).await?;
        let OpenedSession { dir, lock, state, log, records, .. } = opened;
        let mut settings = runtime.settings_for(&id, &config);
        // The engine blanks keys named by either configuration in what it emits.
        settings.redactor = settings.redactor.merged(&self.redactor);
        let parts = runtime.parts_for(&config, &dir, Box::new(log)).await?;
        let (engine, handle) = Engine::new(settings, parts, state);
        let handle = SessionHandle::spawn(engine, handle, dir, None, Some(lock));
        Ok(Resumption::Continuing { handle: Box::new(handle), notices, replayed_events: records.len() })
    }

    /// A new session on `question` that starts from finished session
    /// `given`'s sources and findings, under its recorded configuration.
    pub async fn follow_up(
        &self,
        given: &str,
        question: &str,
        request: &ResearchRequest,
        overrides: &Overrides,
    ) -> Result<FollowUpStarted, SessionsError> {
        let prev = self.resolve(given)?;
        let question = checked_question(question, &self.config)?;
        let prev_state = Replayed::read(&self.store, &prev, &self.redactor)?.state;
        let header = prev_state.header.ok_or_else(|| SessionsError::Damaged("the session log has no header".into()))?;
        let (recorded, warning) = recorded_config(&self.config, &header, overrides)?;
        let config = request.apply(&recorded)?;
        // Built before the new session's folder: a provider that cannot
        // start leaves no half-made session behind.
        let runtime = self.runtime_for(&config).await?;
        let new_id = new_session_id();
        let root = self.store.root().to_path_buf();
        let (dir, imported) = prepare_follow_up(&root, &prev, &new_id)?;
        let (sources, findings) = (imported.sources.len(), imported.findings.len());
        let mut settings = runtime.settings_for(&new_id, &config);
        settings.follow_up_of = Some(prev);
        settings.imported = Some(imported);
        settings.redactor = settings.redactor.merged(&self.redactor);
        // The staged folder moves into place (locked) when the header is recorded.
        let log = NewSessionLog::new(&root, &new_id);
        let parts = runtime.parts_for(&config, &dir, Box::new(log)).await?;
        let (engine, handle) = Engine::new(settings, parts, SessionState::default());
        let handle = SessionHandle::spawn(engine, handle, dir, Some(question), None);
        Ok(FollowUpStarted { handle, sources, findings, notices: warning.into_iter().collect() })
    }

    /// A new session sharing session `given`'s log up to iteration `from`;
    /// a request or `--set` retunes it (its header records the new preset,
    /// limits and configuration). Continue it with `resume`.
    pub fn fork(
        &self,
        given: &str,
        from: u32,
        request: &ResearchRequest,
        overrides: &Overrides,
    ) -> Result<ForkMade, SessionsError> {
        let source = self.resolve(given)?;
        let replayed = Replayed::read(&self.store, &source, &self.redactor)?;
        let header =
            replayed.state.header.ok_or_else(|| SessionsError::Damaged("the session log has no header".into()))?;
        let retuned = if overrides.is_empty() && request.is_empty() {
            None
        } else {
            let (recorded, _) = recorded_config(&self.config, &header, overrides)?;
            Some(request.apply(&recorded)?)
        };
        let retune = |h: &mut SessionHeader| {
            if let Some(cfg) = &retuned {
                h.preset = cfg.research.preset.into();
                h.limits = cfg.limits.resolve(cfg.research.preset);
                h.step_mode = cfg.research.step_mode;
                h.config = cfg.snapshot();
            }
        };
        let id = new_session_id();
        let retune_fn: &dyn Fn(&mut SessionHeader) = &retune;
        let forked = fork_session(self.store.root(), &source, from, &id, retuned.as_ref().map(|_| retune_fn))?;
        Ok(ForkMade {
            source,
            id,
            kept_events: forked.kept_events,
            dropped_events: forked.dropped_events,
            retuned: retuned.is_some(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nothing_is_built_until_a_session_needs_it() {
        let home = tempfile::tempdir().expect("tempdir");
        let mut config = Config::default();
        config.local.corpus = Some(home.path().join("docs"));
        std::fs::create_dir_all(home.path().join("docs")).expect("docs");
        std::fs::write(home.path().join("docs/a.md"), "# A\n\nAlpha text about tides.\n").expect("doc");
        config.search.chains = vec![vec!["local".into()]];
        let sessions = Sessions::new(config, Paths::under(home.path()));
        assert_eq!(sessions.readiness(), Readiness::NotStarted);
        assert!(sessions.list().expect("list").is_empty());
        let long = "why ".repeat(5_000);
        let refused = sessions.start(&long, &ResearchRequest::default()).await.err().expect("too long");
        assert!(matches!(refused, SessionsError::Request(_)), "{refused}");
        assert_eq!(sessions.readiness(), Readiness::NotStarted, "a refused request builds nothing");
        let found = sessions.search("tides", 5).await.expect("search");
        assert_eq!(sessions.readiness(), Readiness::Ready);
        assert_eq!(found.hits.len(), 1);
    }
}
