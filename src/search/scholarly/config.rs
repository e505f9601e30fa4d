//! `[wikipedia]`, `[arxiv]`, `[openalex]`, `[semanticscholar]`,
//! `[europepmc]`: each keyless provider's service root (the documented one
//! by default; a mirror or a test server otherwise), its optional key's
//! environment variable, and the least time between two of its requests.
//!
//! The documented rate of a public service is a floor: a smaller
//! `min_interval_ms` is refused while `base_url` is that service (a mirror
//! of one's own is one's own to load).

use serde::{Deserialize, Serialize};

/// One provider's documented facts: its root, its host, its rate.
pub struct Documented {
    pub name: &'static str,
    pub base_url: &'static str,
    /// The host whose documented rate applies (subdomains included).
    pub host: &'static str,
    pub min_interval_ms: u64,
    /// Where the rate is documented, for the error that refuses less.
    pub rule: &'static str,
}

pub const WIKIPEDIA: Documented = Documented {
    name: "wikipedia",
    base_url: "https://en.wikipedia.org",
    host: "wikipedia.org",
    // API:Etiquette: requests in series, not in parallel; no fixed rate.
    min_interval_ms: 100,
    rule: "Wikimedia's API etiquette asks for requests in series",
};

pub const ARXIV: Documented = Documented {
    name: "arxiv",
    base_url: "https://export.arxiv.org",
    host: "arxiv.org",
    min_interval_ms: 3_000,
    rule: "arXiv's API terms of use allow one request every three seconds, on one connection",
};

pub const OPENALEX: Documented = Documented {
    name: "openalex",
    base_url: "https://api.openalex.org",
    host: "openalex.org",
    min_interval_ms: 100,
    rule: "OpenAlex allows at most 10 requests per second",
};

pub const SEMANTIC_SCHOLAR: Documented = Documented {
    name: "semanticscholar",
    base_url: "https://api.semanticscholar.org",
    host: "semanticscholar.org",
    min_interval_ms: 1_000,
    rule: "Semantic Scholar grants a key one request per second (keyless calls share one pool)",
};

pub const EUROPE_PMC: Documented = Documented {
    name: "europepmc",
    base_url: "https://www.ebi.ac.uk/europepmc/webservices/rest",
    host: "ebi.ac.uk",
    // 10 requests per second and 500 per minute (Europe PMC's developer forum).
    min_interval_ms: 120,
    rule: "Europe PMC throttles above 10 requests per second and 500 per minute",
};

pub const ALL: [&Documented; 5] = [&WIKIPEDIA, &ARXIV, &OPENALEX, &SEMANTIC_SCHOLAR, &EUROPE_PMC];

/// `[wikipedia]`: MediaWiki's Action API on a Wikipedia (or any MediaWiki).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WikipediaConfig {
    /// The wiki's root; `api.php` is under `/w/`.
    pub base_url: String,
    /// The Wikipedia edition (`de`, `fr`, …): replaces the language of a
    /// `*.wikipedia.org` base URL; other hosts are used as they are.
    pub language: String,
    /// `maxlag` sent with every request: the API answers "wait" while its
    /// replicas lag more than this many seconds (0: not sent).
    pub maxlag_secs: u32,
    pub min_interval_ms: u64,
}

impl Default for WikipediaConfig {
    fn default() -> Self {
        Self {
            base_url: WIKIPEDIA.base_url.into(),
            language: "en".into(),
            maxlag_secs: 5,
            min_interval_ms: WIKIPEDIA.min_interval_ms,
        }
    }
}

impl WikipediaConfig {
    /// The base URL with the configured language.
    pub fn root(&self) -> String {
        let lang = self.language.trim().to_ascii_lowercase();
        match reqwest::Url::parse(self.base_url.trim()) {
            Ok(mut url) if url.host_str().is_some_and(|h| h.ends_with(".wikipedia.org")) && !lang.is_empty() => {
                let host = format!("{lang}.wikipedia.org");
                if url.set_host(Some(&host)).is_ok() {
                    return url.as_str().trim_end_matches('/').to_string();
                }
                self.base_url.clone()
            }
            _ => self.base_url.clone(),
        }
    }
}

/// `[arxiv]`: the arXiv API (Atom) and, when a source is read, its PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArxivConfig {
    pub base_url: String,
    /// Read an e-print's PDF for its full text (else its abstract only).
    pub read_pdf: bool,
    pub min_interval_ms: u64,
}

impl Default for ArxivConfig {
    fn default() -> Self {
        Self { base_url: ARXIV.base_url.into(), read_pdf: true, min_interval_ms: ARXIV.min_interval_ms }
    }
}

/// `[openalex]`: OpenAlex works search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAlexConfig {
    pub base_url: String,
    /// Environment variable of an (optional, free) API key: OpenAlex's
    /// keyless allowance is small.
    pub api_key_env: String,
    /// Read a work's open-access copy (PDF or page) for its full text.
    pub read_full_text: bool,
    pub min_interval_ms: u64,
}

impl Default for OpenAlexConfig {
    fn default() -> Self {
        Self {
            base_url: OPENALEX.base_url.into(),
            api_key_env: "OPENALEX_API_KEY".into(),
            read_full_text: true,
            min_interval_ms: OPENALEX.min_interval_ms,
        }
    }
}

/// `[semanticscholar]`: the Semantic Scholar Graph API's paper search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SemanticScholarConfig {
    pub base_url: String,
    /// Environment variable of an (optional) API key, sent as `x-api-key`:
    /// a dedicated rate instead of the shared keyless pool.
    pub api_key_env: String,
    pub read_full_text: bool,
    pub min_interval_ms: u64,
}

impl Default for SemanticScholarConfig {
    fn default() -> Self {
        Self {
            base_url: SEMANTIC_SCHOLAR.base_url.into(),
            api_key_env: "SEMANTIC_SCHOLAR_API_KEY".into(),
            read_full_text: true,
            min_interval_ms: SEMANTIC_SCHOLAR.min_interval_ms,
        }
    }
}

/// `[europepmc]`: Europe PMC's REST search and open-access full text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EuropePmcConfig {
    pub base_url: String,
    pub read_full_text: bool,
    pub min_interval_ms: u64,
}

impl Default for EuropePmcConfig {
    fn default() -> Self {
        Self { base_url: EUROPE_PMC.base_url.into(), read_full_text: true, min_interval_ms: EUROPE_PMC.min_interval_ms }
    }
}

/// The five sections together, as the registry receives them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScholarlyConfig {
    pub wikipedia: WikipediaConfig,
    pub arxiv: ArxivConfig,
    pub openalex: OpenAlexConfig,
    pub semanticscholar: SemanticScholarConfig,
    pub europepmc: EuropePmcConfig,
}

impl ScholarlyConfig {
    /// `(section, base_url, min_interval_ms, key env)` of each provider.
    fn each(&self) -> [(&'static Documented, &str, u64, Option<&str>); 5] {
        [
            (&WIKIPEDIA, &self.wikipedia.base_url, self.wikipedia.min_interval_ms, None),
            (&ARXIV, &self.arxiv.base_url, self.arxiv.min_interval_ms, None),
            (&OPENALEX, &self.openalex.base_url, self.openalex.min_interval_ms, Some(&self.openalex.api_key_env)),
            (
                &SEMANTIC_SCHOLAR,
                &self.semanticscholar.base_url,
                self.semanticscholar.min_interval_ms,
                Some(&self.semanticscholar.api_key_env),
            ),
            (&EUROPE_PMC, &self.europepmc.base_url, self.europepmc.min_interval_ms, None),
        ]
    }

    /// Values the types allow but that cannot work: `(key, what is wrong)`.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for (doc, url, interval, key_env) in self.each() {
            let parsed = reqwest::Url::parse(url.trim()).ok().filter(|u| matches!(u.scheme(), "http" | "https"));
            let Some(parsed) = parsed else {
                v.push((format!("{}.base_url", doc.name), format!("must be an http or https URL (got \"{url}\")")));
                continue;
            };
            if governed_by(&parsed, doc) && interval < doc.min_interval_ms {
                v.push((
                    format!("{}.min_interval_ms", doc.name),
                    format!(
                        "must be at least {} for {} ({}); got {interval}",
                        doc.min_interval_ms, doc.base_url, doc.rule
                    ),
                ));
            }
            if let Some(var) = key_env
                && (var.trim().is_empty() || var.contains(['=', '\0']))
            {
                v.push((format!("{}.api_key_env", doc.name), "must name an environment variable".into()));
            }
        }
        let lang = self.wikipedia.language.trim();
        if lang.is_empty() || lang.len() > 16 || !lang.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            v.push((
                "wikipedia.language".into(),
                format!("must be a Wikipedia language code such as \"en\" or \"de\" (got \"{lang}\")"),
            ));
        }
        v
    }
}

/// Whether `url` is the documented service (its host or a subdomain).
pub fn governed_by(url: &reqwest::Url, doc: &Documented) -> bool {
    url.host_str().is_some_and(|h| h == doc.host || h.ends_with(&format!(".{}", doc.host)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_rate_is_a_floor_for_the_public_service_only() {
        assert!(ScholarlyConfig::default().problems().is_empty());
        let mut c = ScholarlyConfig::default();
        c.arxiv.min_interval_ms = 1_000;
        let p = c.problems();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, "arxiv.min_interval_ms");
        assert!(p[0].1.contains("three seconds"), "{}", p[0].1);
        // A mirror of one's own (a test server) sets its own pace.
        c.arxiv.base_url = "http://127.0.0.1:9000".into();
        assert!(c.problems().is_empty());
    }

    #[test]
    fn the_language_picks_the_wikipedia_edition() {
        let mut w = WikipediaConfig { language: "de".into(), ..WikipediaConfig::default() };
        assert_eq!(w.root(), "https://de.wikipedia.org");
        w.base_url = "http://127.0.0.1:8080/wiki-mirror".into();
        assert_eq!(w.root(), "http://127.0.0.1:8080/wiki-mirror", "other hosts are left as they are");
        let bad = ScholarlyConfig {
            wikipedia: WikipediaConfig { language: "en/../x".into(), ..WikipediaConfig::default() },
            ..ScholarlyConfig::default()
        };
        assert_eq!(bad.problems()[0].0, "wikipedia.language");
    }
}
