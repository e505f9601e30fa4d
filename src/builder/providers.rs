//! The search providers of a configuration, with the local corpus opened
//! at most once and shared by every chain, the router and the built-in
//! reasoner's statistics.

use std::sync::{Arc, OnceLock};

use crate::config::Config;
use crate::paths::Paths;
use crate::search::SearchProvider;
use crate::search::local::{self, LocalConfig, LocalCorpus};
use crate::search::opensearch::OpenSearchConfig;
use crate::search::registry::{self, BuildContext, BuildError};
use crate::search::scholarly::ScholarlyConfig;
use crate::search::web::WebConfig;

/// Provider chains as built: one list of providers per chain.
pub type Chains = Vec<Vec<Arc<dyn SearchProvider>>>;

/// Builds providers from their own config sections; opens the corpus on
/// first need and remembers it (or why it cannot open).
pub struct Providers {
    local: LocalConfig,
    web: WebConfig,
    opensearch: OpenSearchConfig,
    scholarly: ScholarlyConfig,
    index_root: std::path::PathBuf,
    corpus: OnceLock<Result<Arc<LocalCorpus>, String>>,
}

impl Providers {
    pub fn new(config: &Config, paths: &Paths) -> Self {
        Self {
            index_root: local::index_root(&config.local, paths),
            local: config.local.clone(),
            web: config.web.clone(),
            opensearch: config.opensearch.clone(),
            scholarly: config.scholarly(),
            corpus: OnceLock::new(),
        }
    }

    /// The local corpus, opened (and indexed if need be) on first call.
    pub fn corpus(&self, progress: &(dyn Fn(&str) + Send + Sync)) -> Result<Arc<LocalCorpus>, String> {
        self.corpus
            .get_or_init(|| local::shared(&self.local, &self.index_root, progress).map_err(|e| e.to_string()))
            .clone()
    }

    /// The corpus if it has been opened successfully.
    pub fn opened_corpus(&self) -> Option<Arc<LocalCorpus>> {
        self.corpus.get().and_then(|c| c.as_ref().ok()).cloned()
    }

    /// One provider by name (for `sleuth doctor`, which checks each).
    pub fn build(
        &self,
        name: &str,
        progress: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Arc<dyn SearchProvider>, BuildError> {
        let corpus = || self.corpus(progress);
        registry::build(name, &self.context(&corpus, progress))
    }

    /// Every chain; see `registry::build_chains` for providers left out.
    pub fn build_chains(
        &self,
        chains: &[Vec<String>],
        progress: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Chains, BuildError> {
        let corpus = || self.corpus(progress);
        registry::build_chains(chains, &self.context(&corpus, progress))
    }

    fn context<'a>(
        &'a self,
        corpus: &'a (dyn Fn() -> Result<Arc<LocalCorpus>, String> + Sync),
        progress: &'a (dyn Fn(&str) + Send + Sync),
    ) -> BuildContext<'a> {
        BuildContext {
            local: &self.local,
            web: &self.web,
            opensearch: &self.opensearch,
            scholarly: &self.scholarly,
            corpus,
            progress,
        }
    }
}
