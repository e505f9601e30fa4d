//! The builder: turns a loaded `Config` into a session's parts — reasoner,
//! search router, text store, memory, session store — opening each
//! resource once. Every entry point (the CLI commands, the TUI, a server)
//! builds one `Runtime` and asks it for the parts of as many sessions as
//! it runs, concurrently if it likes: the shared resources (the local
//! corpus, LLM endpoints and their connections, provider clients, the
//! memory file) are behind `Arc`s; what is per session (reasoner caches,
//! circuit breakers, the log, the text store) is made fresh each time.

mod providers;

use std::sync::Arc;

pub use providers::{Chains, Providers};

use crate::builtin::{BuiltinReasoner, Rarity};
use crate::config::{Config, ReasonerKind, ResearchConfig};
use crate::engine::EngineParts;
use crate::engine::memory::MemoryStore;
use crate::engine::ports::EventSink;
use crate::engine::reasoner::Reasoner;
use crate::engine::settings::EngineSettings;
use crate::engine::tiers::TierTable;
use crate::llm::LlmReasoner;
use crate::paths::Paths;
use crate::search::SearchRouter;
use crate::search::registry;
use crate::session::memory::FileMemoryStore;
use crate::session::store::CreatedSession;
use crate::session::{DirTexts, Redactor, SessionDir, SessionStore};

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The LLM reasoner could not be set up or its endpoint did not answer.
    #[error("{0}")]
    Llm(String),
    #[error(transparent)]
    Search(#[from] registry::BuildError),
    #[error(transparent)]
    Session(#[from] crate::session::store::CreateError),
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
    /// Built and checked once; sessions get their own copy of it.
    llm: Option<LlmReasoner>,
    memory: Arc<dyn MemoryStore>,
    sessions: SessionStore,
}

/// A new session ready to run: its folder (locked), settings and parts.
pub struct PreparedSession {
    pub created: CreatedSession,
    pub settings: EngineSettings,
    pub parts: EngineParts,
}

impl Runtime {
    /// Builds everything `config` needs. An LLM endpoint is checked before
    /// any index is built, so a dead one fails fast; then the providers
    /// (building the corpus index on first use, and saying so).
    pub async fn build(config: Config, paths: Paths, progress: Progress<'_>) -> Result<Self, BuildError> {
        let providers = Providers::new(&config, &paths);
        Self::assemble(config, paths, providers, None, progress).await
    }

    /// This runtime under another configuration (a resumed session's
    /// recorded one): the opened corpus and a checked LLM reasoner are
    /// kept when their sections are unchanged.
    pub async fn retuned(&self, config: Config, progress: Progress<'_>) -> Result<Self, BuildError> {
        let providers = self.providers.retuned(&config, &self.paths);
        let llm = self.llm.as_ref().filter(|r| r.config() == &config.llm).map(LlmReasoner::for_session);
        Self::assemble(config, self.paths.clone(), providers, llm, progress).await
    }

    async fn assemble(
        config: Config,
        paths: Paths,
        providers: Providers,
        llm: Option<LlmReasoner>,
        progress: Progress<'_>,
    ) -> Result<Self, BuildError> {
        let llm = match (config.research.reasoner, llm) {
            (ReasonerKind::Llm, Some(checked)) => Some(checked),
            (ReasonerKind::Llm, None) => Some(checked_llm(&config, &paths).await?),
            (ReasonerKind::Builtin, _) => None,
        };
        let chains = providers.build_chains(&config.search.chains, progress)?;
        let snapshot = config.snapshot();
        let redactor = Redactor::from_config(&snapshot);
        let memory: Arc<dyn MemoryStore> = Arc::new(FileMemoryStore::open(&paths.memory_file(), config.memory.clone()));
        let search = Arc::new(SearchRouter::new(chains.clone(), &config.search));
        let sessions = SessionStore::new(paths.sessions_dir());
        Ok(Self { paths, config, snapshot, redactor, providers, chains, search, llm, memory, sessions })
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

    /// Blanks this configuration's secrets in what is written and printed.
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
        settings_from(&self.config, self.snapshot.clone(), id)
    }

    /// The settings of session `id` with the research choices a user made
    /// at the start (the TUI's prompt: preset, source mode, step mode).
    pub fn settings_with(&self, id: &str, research: &ResearchConfig) -> EngineSettings {
        if research == &self.config.research {
            return self.settings(id);
        }
        let mut config = self.config.clone();
        config.research = research.clone();
        let snapshot = config.snapshot();
        settings_from(&config, snapshot, id)
    }

    /// A fresh reasoner for one session, over the shared resources.
    pub fn reasoner(&self) -> Arc<dyn Reasoner> {
        match &self.llm {
            Some(llm) => Arc::new(llm.for_session()),
            None => self.builtin_reasoner(),
        }
    }

    /// The built-in reasoner, with the local corpus's term statistics when
    /// the session searches it (blended half and half when other providers join).
    fn builtin_reasoner(&self) -> Arc<dyn Reasoner> {
        let names: Vec<&String> = self.config.search.chains.iter().flatten().collect();
        let uses_local = names.iter().any(|p| p.as_str() == "local");
        let only_local = names.iter().all(|p| p.as_str() == "local");
        let corpus = if uses_local { self.providers.opened_corpus() } else { None };
        let corpus = corpus.map(|c| c as Arc<dyn Rarity>);
        let share = if only_local { 1.0 } else { 0.5 };
        Arc::new(BuiltinReasoner::new(self.config.builtin.clone(), corpus, share))
    }

    /// The engine's parts for a session in `dir` writing to `log`.
    pub fn parts(&self, dir: &SessionDir, log: Box<dyn EventSink>) -> EngineParts {
        EngineParts {
            reasoner: self.reasoner(),
            search: Arc::new(SearchRouter::new(self.chains.clone(), &self.config.search)),
            texts: Arc::new(DirTexts::new(dir.sources_dir())),
            memory: self.memory.clone(),
            log,
        }
    }

    /// A new session: folder made and locked, log created (keys blanked by
    /// `redactor`), settings and parts. A session that cannot start leaves
    /// no folder behind.
    pub fn new_session(&self, redactor: Redactor) -> Result<PreparedSession, BuildError> {
        let created = self.sessions.create()?;
        let log = match self.sessions.create_log(&created.dir, redactor) {
            Ok(log) => log,
            Err(e) => {
                let dir = created.dir.clone();
                drop(created);
                crate::session::store::discard_if_empty(&dir);
                return Err(e.into());
            }
        };
        let settings = self.settings(&created.dir.id);
        let parts = self.parts(&created.dir, Box::new(log));
        Ok(PreparedSession { created, settings, parts })
    }
}

fn settings_from(config: &Config, snapshot: serde_json::Value, id: &str) -> EngineSettings {
    let preset = config.research.preset;
    let mut s = EngineSettings::with_limits(id, config.limits.resolve(preset));
    s.preset = preset.as_str().to_string();
    s.step_mode = config.research.step_mode;
    s.decide = config.decide.clone();
    s.evaluate = config.evaluate.clone();
    s.refine = config.refine.clone();
    s.review = config.review.clone();
    s.search = config.search.clone();
    s.memory = config.memory.clone();
    s.source_mode = config.research.source_mode;
    s.tiers = TierTable::new(config.source_tiers.clone());
    s.config_snapshot = snapshot;
    s
}

/// The LLM reasoner, after checking its endpoints answer (fail fast with
/// the URL and the fix rather than degrade every phase of a session).
async fn checked_llm(config: &Config, paths: &Paths) -> Result<LlmReasoner, BuildError> {
    let reasoner = LlmReasoner::from_config(&config.llm, &paths.config_dir)
        .map_err(|e| BuildError::Llm(format!("the LLM reasoner cannot start: {e}")))?;
    crate::llm::probe::check_at_start(&reasoner).await.map_err(BuildError::Llm)?;
    Ok(reasoner)
}

#[cfg(test)]
mod tests;
