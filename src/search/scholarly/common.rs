//! What the keyless providers share: one request at a time per service,
//! spaced by its documented interval; hits that carry a work's metadata;
//! a work's text from its open-access copy when one can be read, else
//! from its abstract.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::model::{Scholarly, SourceKind};
use crate::search::web::{HostGate, WebClient, strip_tags};
use crate::search::{FetchedDoc, ProviderError, SearchHit};
use crate::text::sanitize_inline;

/// One request in flight to a service, starts spaced by its interval
/// (arXiv: one every three seconds on one connection). Waiting here is
/// cancelled with the request: the engine drops a search or fetch that
/// would outlive the session's time limit.
pub struct Gate {
    gate: HostGate,
}

impl Gate {
    pub fn new(min_interval_ms: u64) -> Self {
        Self { gate: HostGate::new(1, Duration::from_millis(min_interval_ms)) }
    }

    /// Waits for this service's turn; the turn lasts while the permit lives.
    pub async fn turn(&self) -> impl Sized {
        self.gate.acquire("service").await
    }
}

/// An optional key from the environment variable `var` (unset or blank: none).
pub fn optional_key(var: &str) -> Option<String> {
    std::env::var(var).ok().map(|k| k.trim().to_string()).filter(|k| !k.is_empty())
}

/// `10.1000/x` from `https://doi.org/10.1000/x`, `doi:10.1000/x` or itself.
pub fn bare_doi(raw: &str) -> Option<String> {
    let t = raw.trim();
    let t = t
        .strip_prefix("https://doi.org/")
        .or_else(|| t.strip_prefix("http://doi.org/"))
        .or_else(|| t.strip_prefix("https://dx.doi.org/"))
        .or_else(|| t.strip_prefix("http://dx.doi.org/"))
        .or_else(|| t.strip_prefix("doi:"))
        .unwrap_or(t);
    t.starts_with("10.").then(|| t.to_string())
}

/// `2101.00001` from `http://arxiv.org/abs/2101.00001v2` (versions dropped:
/// every version is one work).
pub fn bare_arxiv(raw: &str) -> Option<String> {
    let t = raw.trim();
    let id = t.rsplit_once("/abs/").map_or(t, |(_, id)| id);
    let id = id.strip_prefix("arXiv:").unwrap_or(id);
    let id = match id.rfind('v') {
        Some(at) if at > 0 && id[at + 1..].bytes().all(|b| b.is_ascii_digit()) && at + 1 < id.len() => &id[..at],
        _ => id,
    };
    (!id.is_empty()).then(|| id.to_string())
}

/// One work as several indexes list it is one source: its DOI, else its
/// arXiv id, is the dedupe key.
pub fn canonical_of(s: &Scholarly) -> Option<String> {
    if let Some(doi) = &s.doi {
        return Some(format!("doi:{}", doi.to_lowercase()));
    }
    s.arxiv.as_ref().map(|id| format!("arxiv:{id}"))
}

/// The names of servers that post preprints, as venues read.
pub fn is_preprint_server(venue: &str) -> bool {
    let v = venue.to_ascii_lowercase();
    ["arxiv", "biorxiv", "medrxiv", "ssrn", "research square", "preprints.org", "chemrxiv", "psyarxiv", "osf preprints"]
        .iter()
        .any(|s| v.contains(s))
}

/// What a provider read of one work.
pub struct Work {
    pub locator: String,
    pub title: String,
    /// The abstract (or an article's lead): the hit's snippet, and the
    /// text read when no full text can be.
    pub summary: String,
    pub published: Option<String>,
    pub scholarly: Option<Scholarly>,
}

/// A work as a search hit, ranked by its position in the answer.
pub fn to_hit(w: Work, rank: usize) -> Option<SearchHit> {
    let url = reqwest::Url::parse(w.locator.trim()).ok().filter(|u| matches!(u.scheme(), "http" | "https"))?;
    let title = sanitize_inline(&strip_tags(&w.title)).trim().to_string();
    let canonical = w.scholarly.as_ref().and_then(canonical_of);
    Some(SearchHit {
        locator: url.to_string(),
        title: if title.is_empty() { url.to_string() } else { title },
        snippet: sanitize_inline(&strip_tags(&w.summary)).trim().to_string(),
        score: 1.0 / (rank as f32 + 1.0),
        kind: SourceKind::Web,
        canonical,
        heading: None,
        published: w.published.as_deref().and_then(crate::search::web::iso_date),
        site: url.host_str().map(|h| h.trim_start_matches("www.").to_string()),
        tier: None,
        scholarly: w.scholarly.map(Box::new),
    })
}

/// A work's text: its open-access copy (`full_text`, a PDF or a page)
/// when one is given and reads to more than the abstract, else the
/// abstract. An error only when neither gives text.
pub async fn read_work(
    web: &Arc<WebClient>,
    provider: &str,
    hit: &SearchHit,
    full_text: Option<&str>,
    gate: Option<&Gate>,
) -> Result<FetchedDoc, ProviderError> {
    let mut failure = None;
    if let Some(url) = full_text.filter(|u| u.starts_with("http://") || u.starts_with("https://")) {
        let fetched = match gate {
            Some(g) => {
                let _turn = g.turn().await;
                web.fetch_page(url).await
            }
            None => web.fetch_page(url).await,
        };
        match fetched {
            Ok(doc) if doc.text.split_whitespace().count() > hit.snippet.split_whitespace().count() => {
                return Ok(FetchedDoc {
                    title: Some(hit.title.clone()),
                    // The work's page (its DOI, its abstract page) stays the locator.
                    final_locator: None,
                    site: hit.site.clone(),
                    published: hit.published.clone(),
                    text: doc.text,
                });
            }
            Ok(_) => {}
            Err(e) => {
                tracing::info!(%provider, url, error = %e, "full text not read; the abstract stands in");
                failure = Some(e);
            }
        }
    }
    if hit.snippet.trim().is_empty() {
        return Err(failure.unwrap_or_else(|| ProviderError::Skipped {
            reason: format!("{provider} has no abstract and no open-access text for this work"),
        }));
    }
    Ok(FetchedDoc {
        text: hit.snippet.clone(),
        title: Some(hit.title.clone()),
        published: hit.published.clone(),
        site: hit.site.clone(),
        final_locator: None,
    })
}

/// Content words of a query for APIs that want terms, not prose: stopwords
/// out, quotes and operators stripped, at most `max`.
pub fn terms(text: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '.') {
        let w = w.trim_matches(|c: char| c == '-' || c == '.').to_lowercase();
        if w.len() < 2 || crate::text::STOPWORDS.contains(&w.as_str()) || out.contains(&w) {
            continue;
        }
        out.push(w);
        if out.len() == max {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_read_bare() {
        assert_eq!(bare_doi("https://doi.org/10.7717/peerj.4375").as_deref(), Some("10.7717/peerj.4375"));
        assert_eq!(bare_doi("doi:10.1/x").as_deref(), Some("10.1/x"));
        assert_eq!(bare_doi("not a doi"), None);
        assert_eq!(bare_arxiv("http://arxiv.org/abs/2101.00001v2").as_deref(), Some("2101.00001"));
        assert_eq!(bare_arxiv("http://arxiv.org/abs/hep-ex/0307015v1").as_deref(), Some("hep-ex/0307015"));
        assert_eq!(bare_arxiv("2101.00001").as_deref(), Some("2101.00001"));
    }

    #[test]
    fn one_work_has_one_key_whoever_lists_it() {
        let a = Scholarly { doi: Some("10.1/ABC".into()), arxiv: Some("2101.1".into()), ..Scholarly::default() };
        let b = Scholarly { doi: Some("10.1/abc".into()), ..Scholarly::default() };
        assert_eq!(canonical_of(&a), canonical_of(&b));
        let c = Scholarly { arxiv: Some("2101.1".into()), ..Scholarly::default() };
        assert_eq!(canonical_of(&c).as_deref(), Some("arxiv:2101.1"));
    }

    #[test]
    fn query_terms_drop_stopwords_and_repeats() {
        assert_eq!(
            terms("What is the boiling point of water at the boiling altitude?", 5),
            ["boiling", "point", "water", "altitude"]
        );
    }
}
