use serde::{Deserialize, Serialize};

/// `[web]`: web search providers and page fetching. Keys are never held
/// here, only the *names* of the environment variables that hold them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// SearXNG instance URL (its JSON format must be enabled); keyless.
    pub searxng_url: Option<String>,
    /// Tavily API base URL.
    pub tavily_url: String,
    /// Environment variable holding the Tavily API key.
    pub tavily_api_key_env: String,
    /// Brave Search API base URL.
    pub brave_url: String,
    /// Environment variable holding the Brave Search subscription token.
    pub brave_api_key_env: String,
    /// Whole-request limit for a search API call.
    pub search_timeout_secs: u64,
    /// Whole-request limit for fetching one page, body included.
    pub fetch_timeout_secs: u64,
    pub connect_timeout_secs: u64,
    /// Bytes read from one page at most; the rest is not downloaded.
    pub max_page_bytes: usize,
    /// Bytes read from one PDF at most; a larger PDF is skipped (a PDF
    /// cannot be read in part).
    pub max_pdf_bytes: usize,
    /// Redirects followed per page; a loop stops at once.
    pub max_redirects: usize,
    pub user_agent: String,
    /// Pages fetched at once from one host.
    pub per_host_concurrency: usize,
    /// Least time between the starts of two requests to one host.
    pub politeness_delay_ms: u64,
    /// A contact address, sent only where an API asks for one (Wikimedia's
    /// User-Agent policy, OpenAlex's polite pool, arXiv, Europe PMC).
    pub contact_email: Option<String>,
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            searxng_url: None,
            tavily_url: "https://api.tavily.com".into(),
            tavily_api_key_env: "TAVILY_API_KEY".into(),
            brave_url: "https://api.search.brave.com".into(),
            brave_api_key_env: "BRAVE_SEARCH_API_KEY".into(),
            search_timeout_secs: 15,
            fetch_timeout_secs: 20,
            connect_timeout_secs: 5,
            max_page_bytes: 2 * 1024 * 1024,
            max_pdf_bytes: 32 * 1024 * 1024,
            max_redirects: 5,
            user_agent: "sleuth (terminal research agent)".into(),
            per_host_concurrency: 2,
            politeness_delay_ms: 100,
            contact_email: None,
        }
    }
}

impl WebConfig {
    /// Values the types allow but that cannot work: `(key, what is wrong)`.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for (key, x, min) in [
            ("search_timeout_secs", self.search_timeout_secs, 1),
            ("fetch_timeout_secs", self.fetch_timeout_secs, 1),
            ("connect_timeout_secs", self.connect_timeout_secs, 1),
            ("max_page_bytes", self.max_page_bytes as u64, 1024),
            ("max_pdf_bytes", self.max_pdf_bytes as u64, 1024),
            ("per_host_concurrency", self.per_host_concurrency as u64, 1),
        ] {
            if x < min {
                v.push((format!("web.{key}"), format!("must be at least {min} (got {x})")));
            }
        }
        let urls = [
            ("searxng_url", self.searxng_url.as_deref()),
            ("tavily_url", Some(&self.tavily_url)),
            ("brave_url", Some(&self.brave_url)),
        ];
        for (key, url) in urls {
            let Some(url) = url else { continue };
            let ok = reqwest::Url::parse(url.trim()).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
            if !ok {
                v.push((format!("web.{key}"), format!("must be an http or https URL (got \"{url}\")")));
            }
        }
        if let Some(mail) = &self.contact_email
            && (!mail.contains('@') || mail.chars().any(|c| c.is_control() || c.is_whitespace() || c == ')'))
        {
            v.push((
                "web.contact_email".into(),
                format!(
                    "must be an e-mail address, e.g. \"you@example.org\" (got \"{}\")",
                    crate::text::sanitize_inline(mail)
                ),
            ));
        }
        for (key, var) in
            [("tavily_api_key_env", &self.tavily_api_key_env), ("brave_api_key_env", &self.brave_api_key_env)]
        {
            if var.trim().is_empty() || var.contains(['=', '\0']) {
                v.push((format!("web.{key}"), "must name an environment variable, e.g. \"TAVILY_API_KEY\"".into()));
            }
        }
        v
    }
}

impl WebConfig {
    /// The User-Agent for APIs that ask to be able to reach the client's
    /// operator (Wikimedia's policy: `name/version (contact) library`):
    /// the configured agent with the contact address, if one is set.
    pub fn api_user_agent(&self) -> String {
        let base = if self.user_agent == WebConfig::default().user_agent {
            format!("sleuth/{}", env!("CARGO_PKG_VERSION"))
        } else {
            self.user_agent.clone()
        };
        match self.contact_email.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            Some(mail) => format!("{base} (terminal research agent; mailto:{mail}) reqwest"),
            None => format!("{base} (terminal research agent; no contact configured) reqwest"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_values_are_named() {
        assert!(WebConfig::default().problems().is_empty());
        let bad = WebConfig {
            searxng_url: Some("localhost:8888".into()),
            max_page_bytes: 10,
            brave_api_key_env: String::new(),
            ..WebConfig::default()
        };
        let keys: Vec<String> = bad.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec!["web.max_page_bytes", "web.searxng_url", "web.brave_api_key_env"]);
    }

    /// The `[web]` section of `config.toml.example`, every key uncommented,
    /// is the defaults plus a SearXNG URL.
    #[test]
    fn example_section_equals_the_defaults() {
        let text = include_str!("../../../config.toml.example");
        let section: String = text
            .lines()
            .skip_while(|l| l.trim() != "[web]")
            .skip(1)
            .take_while(|l| !l.starts_with('['))
            .filter_map(|l| l.trim_start().strip_prefix("# "))
            .filter(|l| l.contains(" = "))
            .map(|l| l.split("  #").next().unwrap_or(l).trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let parsed: WebConfig = toml::from_str(&section).unwrap_or_else(|e| panic!("{e}\n{section}"));
        assert!(parsed.searxng_url.is_some(), "the example shows a SearXNG URL");
        assert!(parsed.contact_email.is_some(), "the example shows a contact address");
        assert_eq!(WebConfig { searxng_url: None, contact_email: None, ..parsed }, WebConfig::default());
    }
}
