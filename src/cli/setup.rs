//! The command line's start: settings from flags, the layered config,
//! logging, then the builder (`crate::builder::Runtime`) for the parts.

use std::path::PathBuf;

use anyhow::Context;

use super::args::{GlobalArgs, ResearchArgs};
use super::logging::{self, LogGuard};
use crate::builder::Runtime;
use crate::config::{self, Config, Overrides};
use crate::paths::Paths;

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
    crate::session::set_read_limits((&config.sessions).into());
    tracing::info!(config = ?config_path, "configuration loaded");
    Ok(Setup { paths, config, config_path, log })
}

/// Progress of building (the corpus index, providers left out) goes to stderr.
pub fn progress(line: &str) {
    eprintln!("{line}");
}

/// The parts of `config`'s sessions, built once.
pub async fn runtime(paths: &Paths, config: Config) -> anyhow::Result<Runtime> {
    Ok(Runtime::build(config, paths.clone(), &progress).await?)
}
