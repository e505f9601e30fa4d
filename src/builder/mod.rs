//! The builder: turns a loaded `Config` into a session's parts — reasoner,
//! search router, text store, memory, session store — opening each
//! resource once. Every entry point (the CLI commands, the TUI, a server)
//! builds one `Runtime` and asks it for the parts of as many sessions as
//! it runs, concurrently if it likes: the shared resources (the local
//! corpus, LLM endpoints and their connections, provider clients, the
//! memory file) are behind `Arc`s; what is per session (reasoner caches,
//! circuit breakers, the log, the text store) is made fresh each time.
//! A session's own choices (preset, limits, reasoner, source mode, which
//! chains) come as a `Config` differing in those keys only: they give new
//! settings (`settings_for`) and parts from the same resources
//! (`parts_for`), never a rebuilt runtime.

mod providers;

use std::sync::Arc;

pub use providers::{Chains, Providers};

use crate::builtin::{BuiltinReasoner, Rarity};
use crate::config::{Config, ReasonerKind, ResearchConfig};
use crate::engine::EngineParts;
use crate::engine::calibration::CalibrationScope;
use crate::engine::memory::MemoryStore;
use crate::engine::ports::EventSink;
use crate::engine::reasoner::Reasoner;
use crate::engine::settings::EngineSettings;
use crate::engine::tiers::TierTable;
use crate::llm::LlmReasoner;
use crate::paths::Paths;
use crate::search::SearchRouter;
use crate::search::opensearch::stats::CorpusStats;
use crate::search::registry;
use crate::session::memory::FileMemoryStore;
use crate::session::{DirTexts, NewSessionLog, Redactor, SessionDir, SessionStore, new_session_id};

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The LLM reasoner could not be set up or its endpoint did not answer.
    #[error("{0}")]
    Llm(String),
    #[error(transparent)]
    Search(#[from] registry::BuildError),
    #[error(transparent)]
    Session(#[from] crate::session::store::CreateError),
    #[error("{0}")]
    Sessions(String),
}

/// Progress lines while building (the corpus index on first use, providers
/// left out of a chain).
pub type Progress<'a> = &'a (dyn Fn(&str) + Send + Sync);

/// A configuration, built: hands out the parts of any number of sessions.
pub struct Runtime {
    paths: Paths,
    config: Config,
    snapshot: serde_json::Value,
    redactor: Redactor,
    providers: Providers,
    chains: Chains,
    /// A router for searches outside any session (a `/search` endpoint).
    search: Arc<SearchRouter>,
    /// Built and checked once (at the start when the configuration's
    /// reasoner is the model, else when a session first asks for it);
    /// sessions get their own copy of it.
    llm: tokio::sync::OnceCell<LlmReasoner>,
    /// Chains other than the configured ones that sessions asked for
    /// (`--sources`), built once each from the same providers.
    other_chains: std::sync::Mutex<Vec<(Vec<Vec<String>>, Chains)>>,
    memory: Arc<dyn MemoryStore>,
    sessions: SessionStore,
    /// The term statistics of the cluster's index, when the chains search
    /// it and sleuth loaded it (read once).
    cluster_stats: Option<Arc<CorpusStats>>,
}

/// A new session ready to run: where its folder will be, settings and
/// parts. The folder appears, locked by the log until the engine stops,
/// when the engine records the header (`session::NewSessionLog`).
pub struct PreparedSession {
    pub dir: SessionDir,
    pub settings: EngineSettings,
    pub parts: EngineParts,
}

impl Runtime {
    /// Builds everything `config` needs. An LLM endpoint is checked before
    /// any index is built, so a dead one fails fast; then the providers
    /// (building the corpus index on first use, and saying so).
    pub async fn build(config: Config, paths: Paths, progress: Progress<'_>) -> Result<Self, BuildError> {
        let providers = Providers::new(&config, &paths);
        let llm = tokio::sync::OnceCell::new();
        if config.research.reasoner == ReasonerKind::Llm {
            let _ = llm.set(checked_llm(&config, &paths).await?);
        }
        let chains = providers.build_chains(&config.search.chains, progress)?;
        let snapshot = config.snapshot();
        let redactor = Redactor::from_config(&snapshot);
        let memory: Arc<dyn MemoryStore> = Arc::new(FileMemoryStore::open(&paths.memory_file(), config.memory.clone()));
        let search = Arc::new(SearchRouter::new(chains.clone(), &config.search.router()));
        let sessions = SessionStore::new(paths.sessions_dir());
        let other_chains = std::sync::Mutex::new(Vec::new());
        let cluster_stats = if config.search.chains.iter().flatten().any(|p| p == "opensearch") {
            crate::search::opensearch::stats::load(&config.opensearch).await.map(Arc::new)
        } else {
            None
        };
        Ok(Self {
            paths,
            config,
            snapshot,
            redactor,
            providers,
            chains,
            search,
            llm,
            other_chains,
            memory,
            sessions,
            cluster_stats,
        })
    }

    /// Whether sessions under `config` can take their parts from this
    /// runtime: it differs only in what a session chooses for itself
    /// (research choices, limits, the loop's thresholds, chains of the same
    /// providers), not in a provider's, the model's or memory's section.
    pub fn serves(&self, config: &Config) -> bool {
        shares_parts(&self.config, config)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The configuration as recorded in session headers (computed once).
    pub fn snapshot(&self) -> &serde_json::Value {
        &self.snapshot
    }

    /// This configuration's secrets; every session's settings carry it, and
    /// its engine blanks them in what it emits.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// A search router shared by searches outside sessions.
    pub fn search(&self) -> Arc<SearchRouter> {
        self.search.clone()
    }

    pub fn sessions(&self) -> &SessionStore {
        &self.sessions
    }

    pub fn memory(&self) -> Arc<dyn MemoryStore> {
        self.memory.clone()
    }

    /// The engine settings of session `id` under this configuration.
    pub fn settings(&self, id: &str) -> EngineSettings {
        settings_from(&self.config, self.snapshot.clone(), self.redactor.clone(), id)
    }

    /// The settings of session `id` under `config` (this runtime's own,
    /// or one a session's request changed): new settings, same parts.
    pub fn settings_for(&self, id: &str, config: &Config) -> EngineSettings {
        if config == &self.config {
            return self.settings(id);
        }
        // The keys' variables are named by sections a request cannot change.
        settings_from(config, config.snapshot(), self.redactor.clone(), id)
    }

    /// The settings of session `id` with the research choices a user made
    /// at the start (the TUI's prompt: preset, source mode, step mode).
    pub fn settings_with(&self, id: &str, research: &ResearchConfig) -> EngineSettings {
        let mut config = self.config.clone();
        config.research = research.clone();
        self.settings_for(id, &config)
    }

    /// A fresh reasoner for one session, over the shared resources.
    pub fn reasoner(&self) -> Arc<dyn Reasoner> {
        match self.llm.get() {
            // Review without a model uses the built-in reasoner a builtin run would.
            Some(llm) => Arc::new(llm.for_session().with_helper(self.builtin_reasoner(&self.config))),
            None => self.builtin_reasoner(&self.config),
        }
    }

    /// The built-in reasoner, with the local corpus's term statistics when
    /// the session searches it (blended half and half when other providers
    /// join), or the cluster's when it searches only the cluster.
    fn builtin_reasoner(&self, config: &Config) -> Arc<dyn Reasoner> {
        let names: Vec<&String> = config.search.chains.iter().flatten().collect();
        let uses_local = names.iter().any(|p| p.as_str() == "local");
        let only = |name: &str| !names.is_empty() && names.iter().all(|p| p.as_str() == name);
        let local = if uses_local { self.providers.opened_corpus() } else { None };
        let cluster = (only("opensearch") && config.opensearch == self.config.opensearch)
            .then(|| self.cluster_stats.clone())
            .flatten()
            .map(|c| c as Arc<dyn Rarity>);
        let corpus = local.clone().map(|c| c as Arc<dyn Rarity>).or(cluster);
        let share = if only("local") || only("opensearch") { 1.0 } else { 0.5 };
        let reasoner = BuiltinReasoner::new(config.builtin.clone(), corpus, share);
        match local {
            // READ: the corpus's links are followed, and its definitions bridge
            // the question's words to the items they define.
            Some(c) => Arc::new(reasoner.with_links(c.clone()).with_glossary(c)),
            None => Arc::new(reasoner),
        }
    }

    /// The engine's parts for a session in `dir` writing to `log`.
    pub fn parts(&self, dir: &SessionDir, log: Box<dyn EventSink>) -> EngineParts {
        EngineParts {
            reasoner: self.reasoner(),
            search: Arc::new(SearchRouter::new(self.chains.clone(), &self.config.search.router())),
            texts: Arc::new(DirTexts::new(dir.sources_dir())),
            memory: self.memory.clone(),
            log,
        }
    }

    /// The engine's parts for a session under `config` (see `serves`): the
    /// model's reasoner when it asks for one (checked once, on first use),
    /// its chains (built once from the same providers when they are not
    /// the configured ones).
    pub async fn parts_for(
        &self,
        config: &Config,
        dir: &SessionDir,
        log: Box<dyn EventSink>,
    ) -> Result<EngineParts, BuildError> {
        let reasoner: Arc<dyn Reasoner> = match config.research.reasoner {
            ReasonerKind::Builtin => self.builtin_reasoner(config),
            ReasonerKind::Llm => {
                let llm = self.llm.get_or_try_init(|| checked_llm(config, &self.paths)).await?;
                Arc::new(llm.for_session().with_helper(self.builtin_reasoner(config)))
            }
        };
        let chains = self.chains_for(&config.search.chains)?;
        Ok(EngineParts {
            reasoner,
            search: Arc::new(SearchRouter::new(chains, &config.search.router())),
            texts: Arc::new(DirTexts::new(dir.sources_dir())),
            memory: self.memory.clone(),
            log,
        })
    }

    /// The configured chains, or others of the same providers (built once).
    fn chains_for(&self, names: &[Vec<String>]) -> Result<Chains, BuildError> {
        if names == self.config.search.chains.as_slice() {
            return Ok(self.chains.clone());
        }
        let mut built = self.other_chains.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, chains)) = built.iter().find(|(n, _)| n.as_slice() == names) {
            return Ok(chains.clone());
        }
        let chains = self.providers.build_chains(names, &|line| tracing::info!("{line}"))?;
        built.push((names.to_vec(), chains.clone()));
        Ok(chains)
    }

    /// A new session: settings and parts, with nothing on disk until its
    /// header is recorded.
    pub fn new_session(&self) -> Result<PreparedSession, BuildError> {
        let (dir, log) = self.new_log()?;
        let settings = self.settings(&dir.id);
        let parts = self.parts(&dir, Box::new(log));
        Ok(PreparedSession { dir, settings, parts })
    }

    /// A new session under `config` (a request's choices over this
    /// runtime's configuration), with nothing on disk until its header is recorded.
    pub async fn prepare(&self, config: &Config) -> Result<PreparedSession, BuildError> {
        let (dir, log) = self.new_log()?;
        let settings = self.settings_for(&dir.id, config);
        let parts = self.parts_for(config, &dir, Box::new(log)).await?;
        Ok(PreparedSession { dir, settings, parts })
    }

    fn new_log(&self) -> Result<(SessionDir, NewSessionLog), BuildError> {
        let root = self.sessions.root();
        std::fs::create_dir_all(root)
            .map_err(|e| BuildError::Sessions(format!("cannot create {}: {e}", root.display())))?;
        let log = NewSessionLog::new(root, &new_session_id());
        Ok((log.dir(), log))
    }
}

/// Whether sessions under `a` and `b` take their parts from the same
/// resources: `b`'s chains name only providers `a` has (in any order or
/// grouping), with the same providers' sections, model section and memory.
/// (`--sources academic` over a local configuration needs other providers,
/// and no local index.)
pub fn shares_parts(a: &Config, b: &Config) -> bool {
    let named = |c: &Config| c.search.chains.iter().flatten().cloned().collect::<std::collections::BTreeSet<String>>();
    named(b).is_subset(&named(a))
        && a.local == b.local
        && a.web == b.web
        && a.scholarly() == b.scholarly()
        && a.opensearch == b.opensearch
        && a.llm == b.llm
        && a.memory == b.memory
}

fn settings_from(config: &Config, snapshot: serde_json::Value, redactor: Redactor, id: &str) -> EngineSettings {
    let preset = config.research.preset;
    let mut s = EngineSettings::with_limits(id, config.limits.resolve(preset));
    s.preset = preset.into();
    s.step_mode = config.research.step_mode;
    s.decide = config.decide.clone();
    s.evaluate = config.evaluate.clone();
    if !calibration_holds(config) {
        uncalibrated(&mut s);
    }
    s.refine = config.refine.clone();
    s.review = config.review.clone();
    s.search = config.search.engine();
    s.memory = config.memory.clone();
    s.source_mode = config.research.source_mode;
    s.tiers = TierTable::new(config.source_tiers.clone());
    s.config_snapshot = snapshot;
    s.redactor = redactor;
    s
}

/// Whether the fitted mapping holds for sessions under `config`. It was
/// fitted on the built-in reasoner's sessions on the default local corpus:
/// a model's drafts give other features (its confidence there sat near
/// 0.02 whatever the answer, so every session ran to its last iteration),
/// and so does another corpus (a correct one-file answer in a folder of
/// ten notes read 0.07: no name agreed on by several pages, relevance
/// judged among a handful of passages). `applies_to = "any_corpus"` is
/// for a mapping refitted on one's own corpus.
fn calibration_holds(config: &Config) -> bool {
    if config.research.reasoner == ReasonerKind::Llm {
        return false;
    }
    match config.evaluate.calibration.applies_to {
        CalibrationScope::AnyCorpus => true,
        CalibrationScope::FittedCorpus => {
            config.local.corpus.is_none() && config.search.chains.iter().flatten().all(|p| p == "local")
        }
    }
}

/// Where the mapping does not hold, confidence stays the components'
/// weighted average with its own threshold, 0.85, unless the user set
/// another.
fn uncalibrated(s: &mut EngineSettings) {
    s.evaluate.calibration.enabled = false;
    let default = crate::engine::settings::DecideSettings::default().confidence_threshold;
    if s.decide.confidence_threshold == default {
        s.decide.confidence_threshold = UNCALIBRATED_THRESHOLD;
    }
}

/// The threshold of the components' weighted average (not a probability).
pub const UNCALIBRATED_THRESHOLD: f64 = 0.85;

/// The LLM reasoner, after checking its endpoints answer (fail fast with
/// the URL and the fix rather than degrade every phase of a session).
async fn checked_llm(config: &Config, paths: &Paths) -> Result<LlmReasoner, BuildError> {
    let reasoner = LlmReasoner::from_config(&config.llm, &paths.config_dir)
        .map_err(|e| BuildError::Llm(format!("the LLM reasoner cannot start: {e}")))?;
    // The structured-output mode `sleuth doctor` found for each endpoint.
    crate::llm::probe::apply_remembered_modes(&reasoner, &paths.data_dir.join(crate::llm::probe::MODES_FILE));
    crate::llm::probe::check_at_start(&reasoner).await.map_err(BuildError::Llm)?;
    Ok(reasoner)
}

#[cfg(test)]
mod tests;
