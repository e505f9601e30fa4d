//! Builds the providers named in `search.chains` from the configuration.

use std::sync::Arc;

use super::SearchProvider;
use crate::config::Config;
use crate::paths::Paths;

/// What provider constructors may need.
pub struct BuildContext<'a> {
    pub config: &'a Config,
    pub paths: &'a Paths,
    /// Progress for long set-up work (building the corpus index on first use).
    pub progress: &'a (dyn Fn(&str) + Send + Sync),
}

#[derive(Debug, thiserror::Error)]
#[error("search provider `{name}`: {message}")]
pub struct BuildError {
    pub name: String,
    pub message: String,
}

/// Providers by name: `local`, `searxng`, `tavily`, `brave`.
pub const KNOWN: &[&str] = &["local", "searxng", "tavily", "brave"];

pub fn build(name: &str, ctx: &BuildContext<'_>) -> Result<Arc<dyn SearchProvider>, BuildError> {
    let err = |message: &str| BuildError { name: name.to_string(), message: message.to_string() };
    match name {
        "local" => {
            let cfg = &ctx.config.local;
            let corpus = super::local::shared(cfg, &super::local::index_root(cfg, ctx.paths), ctx.progress)
                .map_err(|e| err(&e.to_string()))?;
            Ok(Arc::new(super::local::LocalProvider::new(corpus, cfg.tier)))
        }
        "searxng" | "tavily" | "brave" => Err(err("not available in this build yet")),
        _ => Err(err(&format!("unknown provider; known providers are {}", KNOWN.join(", ")))),
    }
}

/// Every chain of `search.chains`, built.
pub fn build_chains(ctx: &BuildContext<'_>) -> Result<Vec<Vec<Arc<dyn SearchProvider>>>, BuildError> {
    ctx.config.search.chains.iter().map(|chain| chain.iter().map(|name| build(name, ctx)).collect()).collect()
}
