//! The command line's start: the layered config (file < env < `--set`),
//! logging, then the session service (`crate::research::Sessions`), which
//! builds the parts through the builder when a session needs them.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use super::args::{GlobalArgs, flag_error};
use super::logging::{self, LogGuard};
use crate::config::{self, Config, Overrides};
use crate::paths::Paths;
use crate::research::{Field, ResearchRequest, Sessions, SessionsError};

pub struct Setup {
    pub paths: Paths,
    pub config: Config,
    pub config_path: Option<PathBuf>,
    pub log: LogGuard,
}

/// Every `--set` of the command line.
pub fn overrides(global: &GlobalArgs) -> anyhow::Result<Overrides> {
    let mut overrides = Overrides::default();
    for s in &global.set {
        overrides.parse_set(s)?;
    }
    Ok(overrides)
}

/// Loads the layered config (file < env < `--set`) and starts logging.
pub fn load(global: &GlobalArgs) -> anyhow::Result<Setup> {
    let paths = Paths::discover().map_err(anyhow::Error::msg)?;
    let overrides = overrides(global)?;
    let (config, config_path) =
        config::load(global.config.as_deref(), &paths.config_file(), std::env::vars(), &overrides)?;
    std::fs::create_dir_all(paths.log_dir())
        .with_context(|| format!("cannot create the log folder {}", paths.log_dir().display()))?;
    let redactor = crate::session::Redactor::from_config(&config.snapshot());
    let log = logging::init(&paths.log_dir(), &config.log.level, redactor);
    crate::session::set_read_limits((&config.sessions).into());
    tracing::info!(config = ?config_path, "configuration loaded");
    Ok(Setup { paths, config, config_path, log })
}

/// `load`, with a request's choices applied to the configuration (what a
/// run with those flags would use: `sleuth doctor --reasoner llm`).
pub fn load_for(global: &GlobalArgs, request: &ResearchRequest) -> anyhow::Result<Setup> {
    let mut setup = load(global)?;
    setup.config = request.apply(&setup.config).map_err(flag_error)?;
    Ok(setup)
}

/// Progress of building (the corpus index, providers left out) goes to stderr.
pub fn progress(line: &str) {
    eprintln!("{line}");
}

/// The session service over this setup's configuration.
pub fn sessions(setup: &Setup) -> Arc<Sessions> {
    Arc::new(Sessions::new(setup.config.clone(), setup.paths.clone()).with_progress(progress))
}

/// A session service error as the command line says it: a request field
/// by its flag, anything else as it is.
pub fn cli_error(e: SessionsError) -> anyhow::Error {
    match e {
        SessionsError::Request(r) if r.field == Field::Question => anyhow::anyhow!("{}", r.message),
        SessionsError::Request(r) => flag_error(r),
        other => other.into(),
    }
}
