//! Builds the providers named in `search.chains`, each from its own config
//! section (the builder hands them over; search never reads the whole config).

use std::sync::Arc;

use super::SearchProvider;
use super::local::{LocalConfig, LocalCorpus};
use super::opensearch::{OpenSearchConfig, OpenSearchProvider};
use super::scholarly::ScholarlyConfig;
use super::web::WebConfig;

/// What provider constructors may need.
pub struct BuildContext<'a> {
    pub local: &'a LocalConfig,
    pub web: &'a WebConfig,
    pub opensearch: &'a OpenSearchConfig,
    pub scholarly: &'a ScholarlyConfig,
    /// The local corpus, opened once by whoever owns it and shared (asked
    /// only when a chain names `local`); `Err` says why it cannot open.
    pub corpus: &'a (dyn Fn() -> Result<Arc<LocalCorpus>, String> + Sync),
    /// Progress for long set-up work and providers left out of a chain.
    pub progress: &'a (dyn Fn(&str) + Send + Sync),
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("search provider `{name}`: {message}")]
pub struct BuildError {
    pub name: String,
    pub message: String,
}

/// Providers by name: `local`, `opensearch`, `searxng`, `tavily`, `brave`,
/// and the keyless `wikipedia`, `arxiv`, `openalex`, `semanticscholar`, `europepmc`.
pub const KNOWN: &[&str] = &[
    "local",
    "opensearch",
    "searxng",
    "tavily",
    "brave",
    "wikipedia",
    "arxiv",
    "openalex",
    "semanticscholar",
    "europepmc",
];

pub fn build(name: &str, ctx: &BuildContext<'_>) -> Result<Arc<dyn SearchProvider>, BuildError> {
    let err = |message: &str| BuildError { name: name.to_string(), message: message.to_string() };
    match name {
        "local" => {
            let corpus = (ctx.corpus)().map_err(|e| err(&e))?;
            Ok(Arc::new(super::local::LocalProvider::new(corpus, ctx.local.tier)))
        }
        "opensearch" => Ok(Arc::new(OpenSearchProvider::new(ctx.opensearch).map_err(|m| err(&m))?)),
        "searxng" | "tavily" | "brave" => super::web::build(name, ctx.web).map_err(|m| err(&m)),
        n if super::scholarly::NAMES.contains(&n) => {
            super::scholarly::build(name, ctx.scholarly, ctx.web).map_err(|m| err(&m))
        }
        _ => Err(err(&format!("unknown provider; known providers are {}", KNOWN.join(", ")))),
    }
}

/// Every chain of `chains`, built. A provider that cannot be built (a key
/// not set, say) is left out of its chain with a message when another
/// provider of the chain can stand in: the later ones are fallbacks, as
/// `sleuth doctor` reports them. A chain none of whose providers can be
/// built is an error.
pub fn build_chains(
    chains: &[Vec<String>],
    ctx: &BuildContext<'_>,
) -> Result<Vec<Vec<Arc<dyn SearchProvider>>>, BuildError> {
    chains.iter().map(|chain| build_chain(chain, ctx)).collect()
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

    #[test]
    fn a_provider_that_cannot_start_is_left_out_when_its_chain_has_another() {
        let local = LocalConfig::default();
        let mut web =
            WebConfig { tavily_api_key_env: "SLEUTH_TEST_KEY_THAT_IS_NEVER_SET".into(), ..WebConfig::default() };
        web.searxng_url = Some("http://127.0.0.1:9".into());
        let no_corpus = || Err("not needed".to_string());
        let said = std::sync::Mutex::new(Vec::<String>::new());
        let progress = |l: &str| said.lock().expect("lock").push(l.to_string());
        let ctx = BuildContext {
            local: &local,
            web: &web,
            opensearch: &OpenSearchConfig::default(),
            scholarly: &ScholarlyConfig::default(),
            corpus: &no_corpus,
            progress: &progress,
        };
        let chains = build_chains(&[vec!["tavily".into(), "searxng".into()]], &ctx).expect("searxng stands in");
        assert_eq!(chains.len(), 1);
        assert_eq!(chains[0].len(), 1, "tavily is left out");
        let said = said.lock().expect("lock").join("\n");
        assert!(said.contains("SLEUTH_TEST_KEY_THAT_IS_NEVER_SET") && said.contains("goes on with searxng"), "{said}");

        // Alone in its chain, the same provider is an error.
        let quiet = |_: &str| {};
        let ctx = BuildContext {
            local: &local,
            web: &web,
            opensearch: &OpenSearchConfig::default(),
            scholarly: &ScholarlyConfig::default(),
            corpus: &no_corpus,
            progress: &quiet,
        };
        let err = build_chains(&[vec!["tavily".into()]], &ctx).err().expect("no provider left");
        assert_eq!(err.name, "tavily");
    }

    #[test]
    fn a_corpus_that_cannot_open_fails_the_local_provider_with_its_reason() {
        let local = LocalConfig::default();
        let web = WebConfig::default();
        let broken = || Err("the corpus folder /nowhere does not exist".to_string());
        let ctx = BuildContext {
            local: &local,
            web: &web,
            opensearch: &OpenSearchConfig::default(),
            scholarly: &ScholarlyConfig::default(),
            corpus: &broken,
            progress: &|_| {},
        };
        let err = build("local", &ctx).err().expect("no corpus");
        assert!(err.message.contains("/nowhere"), "{err}");
    }
}
