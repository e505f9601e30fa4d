//! Secrets never reach a session file or an export. The configuration
//! holds only the *names* of the environment variables with keys; this
//! reads their values and blanks them wherever they would be written — an
//! error message that echoes a request URL with `?api_key=…` included.

use std::borrow::Cow;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not treated as secrets: blanking every "1234" or
/// "true" would damage ordinary text and protect nothing.
const MIN_SECRET_LEN: usize = 8;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    /// Each secret as written raw and as it appears inside a JSON string.
    patterns: Vec<String>,
}

impl Redactor {
    /// A redactor for these secret values.
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut patterns = Vec::new();
        for value in values.into_iter().filter(|v| v.chars().count() >= MIN_SECRET_LEN) {
            let escaped = serde_json::to_string(&value).unwrap_or_default();
            let escaped = escaped.trim_matches('"').to_string();
            if escaped != value && !escaped.is_empty() {
                patterns.push(escaped);
            }
            patterns.push(value);
        }
        // Longest first, so a secret containing another is blanked whole.
        patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
        patterns.dedup();
        Self { patterns }
    }

    /// The values of every environment variable the configuration names in
    /// a key ending in `_env` (`llm.api_key_env`, a web provider's key, …).
    pub fn from_config(config: &serde_json::Value) -> Self {
        Self::from_configs(&[config])
    }

    /// The secrets named by any of these configurations (a session's
    /// recorded one and the current one may name different variables).
    pub fn from_configs(configs: &[&serde_json::Value]) -> Self {
        let mut names = Vec::new();
        for c in configs {
            env_names(c, &mut names);
        }
        Self::new(names.iter().filter_map(|n| std::env::var(n).ok()))
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for p in &self.patterns {
            if out.contains(p.as_str()) {
                out = Cow::Owned(out.replace(p.as_str(), REDACTED));
            }
        }
        out
    }
}

/// Collects the string values of keys ending in `_env`, at any depth.
fn env_names(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match v {
                    serde_json::Value::String(name) if k.ends_with("_env") && !name.is_empty() => {
                        out.push(name.clone())
                    }
                    other => env_names(other, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| env_names(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_raw_and_json_escaped_secrets() {
        let r = Redactor::new(["sk-test-12345678".to_string(), "pa\"ss\\word99".to_string(), "short".to_string()]);
        assert_eq!(r.redact("GET /x?api_key=sk-test-12345678 failed"), "GET /x?api_key=[redacted] failed");
        let json = serde_json::to_string("pa\"ss\\word99 leaked").unwrap();
        assert!(!r.redact(&json).contains("word99"), "{}", r.redact(&json));
        // Too short to be a secret: left alone.
        assert_eq!(r.redact("short"), "short");
    }

    #[test]
    fn finds_env_names_anywhere_in_the_config() {
        let cfg = serde_json::json!({
            "llm": {"api_key_env": "SLEUTH_REDACT_TEST_A", "model": "m"},
            "web": {"providers": [{"key_env": "SLEUTH_REDACT_TEST_B"}]},
        });
        let mut names = Vec::new();
        env_names(&cfg, &mut names);
        names.sort();
        assert_eq!(names, vec!["SLEUTH_REDACT_TEST_A", "SLEUTH_REDACT_TEST_B"]);
    }

    #[test]
    fn nothing_to_redact_borrows() {
        let r = Redactor::default();
        assert!(r.is_empty());
        assert!(matches!(r.redact("text"), Cow::Borrowed(_)));
    }
}
