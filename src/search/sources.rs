//! Where to look, in one word: `--sources local|web|academic|all` (and
//! `[search] sources`), which sets the provider chains. `local` is the
//! corpus (offline); `web` the configured web providers (SearXNG, Tavily,
//! Brave: those with their URL or key set) plus Wikipedia; `academic` the
//! scholarly indexes; `all` every one of them.

use serde::{Deserialize, Serialize};

use super::scholarly::ACADEMIC;
use super::web::WebConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum SourceSet {
    /// The local corpus only (offline).
    Local,
    /// The configured web providers and Wikipedia.
    Web,
    /// arXiv, OpenAlex, Semantic Scholar and Europe PMC.
    Academic,
    /// All of the above.
    All,
}

impl SourceSet {
    /// The provider chains this set searches: one chain per independent
    /// service (each asked every query), the web providers one fallback
    /// chain (they find the same web).
    pub fn chains(self, web: &WebConfig) -> Vec<Vec<String>> {
        let local = || vec![vec!["local".to_string()]];
        let academic = || ACADEMIC.iter().map(|p| vec![p.to_string()]).collect::<Vec<_>>();
        let web_chains = || {
            let mut out = Vec::new();
            let configured = configured_web(web);
            if !configured.is_empty() {
                out.push(configured);
            }
            out.push(vec!["wikipedia".to_string()]);
            out
        };
        match self {
            SourceSet::Local => local(),
            SourceSet::Web => web_chains(),
            SourceSet::Academic => academic(),
            SourceSet::All => local().into_iter().chain(web_chains()).chain(academic()).collect(),
        }
    }
}

/// The web providers that can start: SearXNG with a URL, Tavily and
/// Brave with their key's variable set.
fn configured_web(web: &WebConfig) -> Vec<String> {
    let set = |var: &str| std::env::var(var).is_ok_and(|v| !v.trim().is_empty());
    let mut out = Vec::new();
    if web.searxng_url.as_deref().is_some_and(|u| !u.trim().is_empty()) {
        out.push("searxng".to_string());
    }
    if set(&web.tavily_api_key_env) {
        out.push("tavily".to_string());
    }
    if set(&web.brave_api_key_env) {
        out.push("brave".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_set_names_its_chains() {
        let web = WebConfig {
            tavily_api_key_env: "SLEUTH_TEST_UNSET_TAVILY".into(),
            brave_api_key_env: "SLEUTH_TEST_UNSET_BRAVE".into(),
            ..WebConfig::default()
        };
        assert_eq!(SourceSet::Local.chains(&web), vec![vec!["local"]]);
        assert_eq!(SourceSet::Web.chains(&web), vec![vec!["wikipedia"]], "no web provider configured");
        assert_eq!(
            SourceSet::Academic.chains(&web),
            vec![vec!["arxiv"], vec!["openalex"], vec!["semanticscholar"], vec!["europepmc"]]
        );
        let with_searx = WebConfig { searxng_url: Some("http://127.0.0.1:8888".into()), ..web };
        let all = SourceSet::All.chains(&with_searx);
        assert_eq!(all[0], vec!["local"]);
        assert_eq!(all[1], vec!["searxng"]);
        assert_eq!(all[2], vec!["wikipedia"]);
        assert_eq!(all.len(), 7);
    }
}
