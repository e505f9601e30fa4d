//! Wiring: configuration, logging, and the engine's parts for a session.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use super::args::{GlobalArgs, ResearchArgs};
use super::logging::{self, LogGuard};
use crate::config::{self, Config, Overrides, ReasonerKind};
use crate::engine::EngineParts;
use crate::engine::memory::MemoryStore;
use crate::engine::ports::EventSink;
use crate::engine::reasoner::Reasoner;
use crate::engine::settings::EngineSettings;
use crate::engine::tiers::TierTable;
use crate::paths::Paths;
use crate::search::SearchRouter;
use crate::search::registry::{BuildContext, build_chains};
use crate::session::memory::FileMemoryStore;
use crate::session::{DirTexts, NewSessionLog, Redactor, SessionDir};

pub struct Setup {
    pub paths: Paths,
    pub config: Config,
    pub config_path: Option<PathBuf>,
    pub log: LogGuard,
}

/// The command line's settings: every `--set`, then the research flags.
pub fn overrides(global: &GlobalArgs, research: Option<&ResearchArgs>) -> anyhow::Result<Overrides> {
    let mut overrides = Overrides::default();
    for s in &global.set {
        overrides.parse_set(s)?;
    }
    if let Some(r) = research {
        r.apply(&mut overrides);
    }
    Ok(overrides)
}

/// Loads the layered config (file < env < flags) and starts logging.
pub fn load(global: &GlobalArgs, research: Option<&ResearchArgs>) -> anyhow::Result<Setup> {
    let paths = Paths::discover().map_err(anyhow::Error::msg)?;
    let overrides = overrides(global, research)?;
    let (config, config_path) =
        config::load(global.config.as_deref(), &paths.config_file(), std::env::vars(), &overrides)?;
    std::fs::create_dir_all(paths.log_dir())
        .with_context(|| format!("cannot create the log folder {}", paths.log_dir().display()))?;
    let log = logging::init(&paths.log_dir(), &config.log.level);
    tracing::info!(config = ?config_path, "configuration loaded");
    Ok(Setup { paths, config, config_path, log })
}

pub fn engine_settings(config: &Config, session_id: &str) -> EngineSettings {
    let preset = config.research.preset;
    let mut s = EngineSettings::with_limits(session_id, config.limits.resolve(preset));
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
    s.config_snapshot = config.snapshot();
    s
}

pub fn reasoner(setup: &Setup) -> anyhow::Result<Arc<dyn Reasoner>> {
    match setup.config.research.reasoner {
        ReasonerKind::Builtin => Ok(builtin_reasoner(setup)),
        ReasonerKind::Llm => llm_reasoner(setup),
    }
}

/// The LLM reasoner, after checking its endpoints answer (fail fast with
/// the URL and the fix rather than degrade every phase of a session).
fn llm_reasoner(setup: &Setup) -> anyhow::Result<Arc<dyn Reasoner>> {
    let build = || crate::llm::LlmReasoner::from_config(&setup.config.llm, &setup.paths.config_dir);
    let reasoner = build().map_err(|e| anyhow::anyhow!("the LLM reasoner cannot start: {e}"))?;
    // The structured-output mode `sleuth doctor` found for each endpoint.
    crate::llm::probe::apply_remembered_modes(&reasoner, &setup.paths.data_dir.join(crate::llm::probe::MODES_FILE));
    // The check runs on its own runtime and clients, so it works from sync
    // code inside or outside a runtime and leaves no connection bound to it.
    let checked = std::thread::scope(|s| {
        s.spawn(|| -> Result<(), String> {
            let probe = build().map_err(|e| e.to_string())?;
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
            rt.block_on(crate::llm::probe::check_at_start(&probe))
        })
        .join()
    });
    match checked {
        // Review without a model uses the same built-in reasoner a builtin run would.
        Ok(Ok(())) => Ok(Arc::new(reasoner.with_helper(builtin_reasoner(setup)))),
        Ok(Err(message)) => Err(anyhow::anyhow!(message)),
        Err(_) => anyhow::bail!("the LLM endpoint check panicked"),
    }
}

/// The built-in reasoner, with the local corpus's term statistics when the
/// session searches it (blended half and half when other providers join).
pub fn builtin_reasoner(setup: &Setup) -> Arc<dyn Reasoner> {
    let chains = &setup.config.search.chains;
    let providers: Vec<&String> = chains.iter().flatten().collect();
    let uses_local = providers.iter().any(|p| p.as_str() == "local");
    let only_local = providers.iter().all(|p| p.as_str() == "local");
    let corpus: Option<Arc<dyn crate::builtin::Rarity>> = if uses_local {
        let cfg = &setup.config.local;
        let quiet = |_: &str| {};
        crate::search::local::shared(cfg, &crate::search::local::index_root(cfg, &setup.paths), &quiet)
            .ok()
            .map(|c| c as Arc<dyn crate::builtin::Rarity>)
    } else {
        None
    };
    let share = if only_local { 1.0 } else { 0.5 };
    Arc::new(crate::builtin::BuiltinReasoner::new(setup.config.builtin.clone(), corpus, share))
}

/// Reflexion memory, persistent in the data dir and shared by sessions.
pub fn memory(setup: &Setup) -> Arc<dyn MemoryStore> {
    Arc::new(
        FileMemoryStore::open(&setup.paths.memory_file(), setup.config.memory.clone()).with_redactor(redactor(setup)),
    )
}

/// The secrets of this configuration, blanked in session files and exports.
pub fn redactor(setup: &Setup) -> Redactor {
    Redactor::from_config(&setup.config.snapshot())
}

/// Everything the engine needs to run a new session in `dir`. The folder
/// itself appears with the session's header (see `session::NewSessionLog`):
/// nothing exists while the providers start and the corpus is indexed.
pub fn parts(setup: &Setup, dir: &SessionDir) -> anyhow::Result<EngineParts> {
    let root = dir.path.parent().unwrap_or(&dir.path);
    let log = NewSessionLog::new(root, &dir.id, redactor(setup));
    build_parts(setup, dir, || Ok(Box::new(log)))
}

/// The engine's parts around an already open log (a resumed session's).
pub fn parts_with_log(setup: &Setup, dir: &SessionDir, log: Box<dyn EventSink>) -> anyhow::Result<EngineParts> {
    build_parts(setup, dir, || Ok(log))
}

fn build_parts(
    setup: &Setup,
    dir: &SessionDir,
    log: impl FnOnce() -> anyhow::Result<Box<dyn EventSink>>,
) -> anyhow::Result<EngineParts> {
    // An LLM endpoint is checked before any index is built, so a dead one
    // fails fast; the built-in reasoner reads the corpus statistics, so the
    // providers (which build the index, and say so) come first for it.
    let llm_first = match setup.config.research.reasoner {
        ReasonerKind::Llm => Some(reasoner(setup)?),
        ReasonerKind::Builtin => None,
    };
    let progress = |line: &str| eprintln!("{line}");
    let ctx = BuildContext { config: &setup.config, paths: &setup.paths, progress: &progress };
    let chains = build_chains(&ctx)?;
    let reasoner = match llm_first {
        Some(r) => r,
        None => reasoner(setup)?,
    };
    Ok(EngineParts {
        reasoner,
        search: Arc::new(SearchRouter::new(chains, &setup.config.search)),
        texts: Arc::new(DirTexts::new(dir.sources_dir()).with_redactor(redactor(setup))),
        memory: memory(setup),
        log: log()?,
    })
}
