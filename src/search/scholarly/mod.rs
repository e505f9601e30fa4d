//! Keyless providers beyond the local corpus: Wikipedia (MediaWiki's
//! Action API) and the scholarly indexes arXiv, OpenAlex, Semantic Scholar
//! and Europe PMC. Each is a client of the service's documented public
//! API behind the router (retries, breakers, fallback): one request at a
//! time, spaced by the service's documented interval, a contact where the
//! API asks for one, the base URL configurable (mirrors, test servers).
//! Hits carry the work's metadata (authors, venue, year, DOI, preprint,
//! retracted); reading a work reads its open-access copy (a PDF is read
//! page by page) or, failing that, its abstract.

mod arxiv;
mod common;
mod config;
mod europepmc;
mod openalex;
mod semanticscholar;
mod wikipedia;

use std::sync::Arc;

pub use arxiv::Arxiv;
pub use config::{
    ALL as DOCUMENTED, ArxivConfig, Documented, EuropePmcConfig, OpenAlexConfig, ScholarlyConfig,
    SemanticScholarConfig, WikipediaConfig, governed_by,
};
pub use europepmc::EuropePmc;
pub use openalex::OpenAlex;
pub use semanticscholar::SemanticScholar;
pub use wikipedia::Wikipedia;

use crate::search::SearchProvider;
use crate::search::web::WebConfig;

/// The scholarly indexes (what `--sources academic` searches).
pub const ACADEMIC: &[&str] = &["arxiv", "openalex", "semanticscholar", "europepmc"];

/// Every provider of this module.
pub const NAMES: &[&str] = &["wikipedia", "arxiv", "openalex", "semanticscholar", "europepmc"];

/// Builds the keyless provider `name`; pages and PDFs go through the
/// shared web client (one pool, politeness per host).
pub fn build(name: &str, cfg: &ScholarlyConfig, web: &WebConfig) -> Result<Arc<dyn SearchProvider>, String> {
    let client = crate::search::web::shared(web)?;
    let agent = web.api_user_agent();
    let mailto = web.contact_email.clone().filter(|m| !m.trim().is_empty());
    Ok(match name {
        "wikipedia" => Arc::new(Wikipedia::new(&cfg.wikipedia, agent, client)?),
        "arxiv" => Arc::new(Arxiv::new(&cfg.arxiv, agent, client)?),
        "openalex" => Arc::new(OpenAlex::new(&cfg.openalex, mailto, client)?),
        "semanticscholar" => Arc::new(SemanticScholar::new(&cfg.semanticscholar, client)?),
        "europepmc" => Arc::new(EuropePmc::new(&cfg.europepmc, agent, client)?),
        other => return Err(format!("`{other}` is not a keyless provider")),
    })
}

/// The documented facts of provider `name`, if it is one of these.
pub fn documented(name: &str) -> Option<&'static Documented> {
    DOCUMENTED.iter().copied().find(|d| d.name == name)
}

/// The configured base URL of provider `name`.
pub fn base_url<'a>(name: &str, cfg: &'a ScholarlyConfig) -> Option<&'a str> {
    Some(match name {
        "wikipedia" => &cfg.wikipedia.base_url,
        "arxiv" => &cfg.arxiv.base_url,
        "openalex" => &cfg.openalex.base_url,
        "semanticscholar" => &cfg.semanticscholar.base_url,
        "europepmc" => &cfg.europepmc.base_url,
        _ => return None,
    })
}
