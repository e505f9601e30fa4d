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
        "searxng" | "tavily" | "brave" => super::web::build(name, &ctx.config.web).map_err(|m| err(&m)),
        _ => Err(err(&format!("unknown provider; known providers are {}", KNOWN.join(", ")))),
    }
}

/// Every chain of `search.chains`, built. A provider that cannot be built
/// (a key not set, say) is left out of its chain with a message when
/// another provider of the chain can stand in: the later ones are
/// fallbacks, as `sleuth doctor` reports them. A chain none of whose
/// providers can be built is an error.
pub fn build_chains(ctx: &BuildContext<'_>) -> Result<Vec<Vec<Arc<dyn SearchProvider>>>, BuildError> {
    ctx.config.search.chains.iter().map(|chain| build_chain(chain, ctx)).collect()
}

fn build_chain(chain: &[String], ctx: &BuildContext<'_>) -> Result<Vec<Arc<dyn SearchProvider>>, BuildError> {
    let mut built = Vec::new();
    let mut failed = Vec::new();
    for name in chain {
        match build(name, ctx) {
            Ok(p) => built.push((name.as_str(), p)),
            Err(e) => failed.push(e),
        }
    }
    if built.is_empty() && !failed.is_empty() {
        return Err(failed.swap_remove(0));
    }
    let standing: Vec<&str> = built.iter().map(|(n, _)| *n).collect();
    for e in &failed {
        (ctx.progress)(&format!("{e}; left out, the chain goes on with {}", standing.join(", ")));
    }
    Ok(built.into_iter().map(|(_, p)| p).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx_with<'a>(
        config: &'a Config,
        paths: &'a Paths,
        progress: &'a (dyn Fn(&str) + Send + Sync),
    ) -> BuildContext<'a> {
        BuildContext { config, paths, progress }
    }

    #[test]
    fn a_provider_that_cannot_start_is_left_out_when_its_chain_has_another() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::under(dir.path());
        let mut config = Config::default();
        config.web.tavily_api_key_env = "SLEUTH_TEST_KEY_THAT_IS_NEVER_SET".into();
        config.web.searxng_url = Some("http://127.0.0.1:9".into());
        config.search.chains = vec![vec!["tavily".into(), "searxng".into()]];
        let said = std::sync::Mutex::new(Vec::<String>::new());
        let progress = |l: &str| said.lock().expect("lock").push(l.to_string());
        let chains = build_chains(&ctx_with(&config, &paths, &progress)).expect("searxng stands in");
        assert_eq!(chains.len(), 1);
        assert_eq!(chains[0].len(), 1, "tavily is left out");
        let said = said.lock().expect("lock").join("\n");
        assert!(said.contains("SLEUTH_TEST_KEY_THAT_IS_NEVER_SET") && said.contains("goes on with searxng"), "{said}");

        // Alone in its chain, the same provider is an error.
        config.search.chains = vec![vec!["tavily".into()]];
        let err = build_chains(&ctx_with(&config, &paths, &|_| {})).err().expect("no provider left");
        assert_eq!(err.name, "tavily");
    }
}
