//! `[opensearch]`: a search cluster (OpenSearch 2.x/3.x or Elasticsearch
//! 8.x/9.x) as a provider and as a target of `sleuth index --to opensearch`.
//! Credentials are never held here, only the *names* of the environment
//! variables that hold them.

use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenSearchConfig {
    /// One node's URL or several; a request goes to the next node when one
    /// cannot be reached or answers 502/503/504. Empty: not configured.
    #[serde(deserialize_with = "one_or_many")]
    pub url: Vec<String>,
    /// The index searched (and written by `sleuth index --to opensearch`).
    pub index: String,
    /// Environment variables holding a basic-auth user name and password.
    pub username_env: String,
    pub password_env: String,
    /// Environment variable holding an API key (`Authorization: ApiKey …`);
    /// use it or the user name and password, not both.
    pub api_key_env: String,
    /// PEM file of the CA that signed the cluster's certificate (added to
    /// the system's roots).
    pub ca_file: Option<PathBuf>,
    pub connect_timeout_secs: u64,
    /// Whole-request limit of a search or a check.
    pub timeout_secs: u64,
    /// Whole-request limit of one `_bulk` batch.
    pub bulk_timeout_secs: u64,
    /// The index's fields (defaults: sleuth's own mapping). An index sleuth
    /// did not create names its own here.
    pub text_field: String,
    pub title_field: String,
    pub url_field: String,
    pub heading_field: String,
    /// The fragment of a passage within its page; may be absent from an index.
    pub anchor_field: String,
    /// Weight of a title or heading match against the text's (as `[local]`).
    pub title_boost: f64,
    pub heading_boost: f64,
    /// Passages asked for per query before they are folded to one per page.
    pub candidates_per_query: usize,
    /// A page scores its best passage plus this share of its next, decaying (as `[local]`).
    pub passage_decay: f64,
    /// Passages shorter than this many words score lower, where the index
    /// records a passage's words (sleuth's own mapping does; 0: no penalty).
    pub short_passage_words: usize,
    /// Source tier of the cluster's documents (as `[local] tier`).
    pub tier: u8,
    /// Documents per `_bulk` request, and requests in flight at once.
    pub bulk_docs: usize,
    pub bulk_in_flight: usize,
    /// Retries of a batch (or of its rejected items) on 429 or a full queue.
    pub bulk_retries: u32,
    /// Shards and replicas of an index `sleuth index --to opensearch` creates.
    pub shards: u32,
    pub replicas: u32,
}

impl Default for OpenSearchConfig {
    fn default() -> Self {
        Self {
            url: Vec::new(),
            index: "sleuth".into(),
            username_env: String::new(),
            password_env: String::new(),
            api_key_env: String::new(),
            ca_file: None,
            connect_timeout_secs: 5,
            timeout_secs: 15,
            bulk_timeout_secs: 120,
            text_field: "text".into(),
            title_field: "title".into(),
            url_field: "url".into(),
            heading_field: "heading".into(),
            anchor_field: "anchor".into(),
            title_boost: 2.0,
            heading_boost: 1.5,
            candidates_per_query: 80,
            passage_decay: 0.5,
            short_passage_words: 40,
            tier: 1,
            bulk_docs: 500,
            bulk_in_flight: 2,
            bulk_retries: 5,
            shards: 1,
            replicas: 1,
        }
    }
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) if s.trim().is_empty() => Vec::new(),
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

impl OpenSearchConfig {
    /// Whether a cluster is configured at all.
    pub fn is_configured(&self) -> bool {
        !self.url.is_empty()
    }

    /// Values the types allow but that cannot work: `(key, what is wrong)`.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for url in &self.url {
            let ok = reqwest::Url::parse(url.trim()).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
            if !ok {
                v.push(("opensearch.url".into(), format!("must be an http or https URL (got \"{url}\")")));
            }
        }
        if !valid_index_name(&self.index) {
            v.push((
                "opensearch.index".into(),
                format!("\"{}\" is not an index name (lowercase, no spaces, \\ / * ? \" < > | , # :)", self.index),
            ));
        }
        let basic = !self.username_env.is_empty() || !self.password_env.is_empty();
        if !self.api_key_env.is_empty() && basic {
            v.push(("opensearch.api_key_env".into(), "set an API key or a user name and password, not both".into()));
        }
        if self.username_env.is_empty() != self.password_env.is_empty() {
            v.push(("opensearch.username_env".into(), "username_env and password_env go together".into()));
        }
        for (key, name) in [("text_field", &self.text_field), ("url_field", &self.url_field)] {
            if name.trim().is_empty() {
                v.push((format!("opensearch.{key}"), "must name a field of the index".into()));
            }
        }
        v
    }
}

/// OpenSearch's rules for an index name, those a typo breaks.
pub fn valid_index_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name == name.to_lowercase()
        && !name.starts_with(['-', '_', '+'])
        && name != "."
        && name != ".."
        && !name.chars().any(|c| c.is_whitespace() || "\\/*?\"<>|,#:".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_takes_one_node_or_several() {
        let one: OpenSearchConfig = toml::from_str("url = \"http://a:9200\"").unwrap();
        assert_eq!(one.url, vec!["http://a:9200"]);
        let many: OpenSearchConfig = toml::from_str("url = [\"http://a:9200\", \"http://b:9200\"]").unwrap();
        assert_eq!(many.url.len(), 2);
        assert!(!OpenSearchConfig::default().is_configured());
    }

    #[test]
    fn problems_name_the_key_at_fault() {
        let cfg = OpenSearchConfig {
            url: vec!["ftp://x".into()],
            index: "My Index".into(),
            api_key_env: "KEY".into(),
            username_env: "USER".into(),
            ..OpenSearchConfig::default()
        };
        let keys: Vec<String> = cfg.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            vec!["opensearch.url", "opensearch.index", "opensearch.api_key_env", "opensearch.username_env"]
        );
        assert!(OpenSearchConfig::default().problems().is_empty());
    }
}
