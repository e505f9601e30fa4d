//! Secrets never leave the engine. The configuration holds only the
//! *names* of the environment variables with keys; the builder reads their
//! values into a `Redactor` (in `EngineSettings`), and the engine blanks
//! them in every event (and every source text) at the one point where it
//! hands them on: `Engine::emit`. So the session log, the summary, memory,
//! the TUI, `sleuth run`'s output and the server's event streams all
//! receive text that is already clean, and none of them redacts again.
//! (Readers of logs written elsewhere, the exports and `memory list`, still
//! blank the current keys: a log from an older build, or a key set under
//! another variable when it was written, is data from outside.)

mod encoded;
mod scan;

use std::borrow::Cow;

use super::protocol::EventRecord;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not treated as secrets: blanking every "1234" or
/// "true" would damage ordinary text and protect nothing.
const MIN_SECRET_LEN: usize = 8;

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    /// Each secret as written raw and as it appears inside a JSON string.
    patterns: Vec<String>,
    /// Secrets a URL or a form may write otherwise (`encoded.rs`).
    encoded: Vec<encoded::EncodedKey>,
}

/// Says how many secrets, never which: settings are debug-printed in logs.
impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor").field("patterns", &self.patterns.len()).finish()
    }
}

impl Redactor {
    /// A redactor for these secret values.
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut patterns = Vec::new();
        let mut encoded = Vec::new();
        for value in values.into_iter().filter(|v| v.chars().count() >= MIN_SECRET_LEN) {
            let escaped = serde_json::to_string(&value).unwrap_or_default();
            let escaped = escaped.trim_matches('"').to_string();
            if escaped != value && !escaped.is_empty() {
                patterns.push(escaped);
            }
            encoded.extend(encoded::EncodedKey::new(&value));
            patterns.push(value);
        }
        Self::sorted(patterns, encoded)
    }

    fn sorted(mut patterns: Vec<String>, mut encoded: Vec<encoded::EncodedKey>) -> Self {
        // Longest first, so a secret containing another is blanked whole.
        patterns.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        patterns.dedup();
        encoded.dedup();
        Self { patterns, encoded }
    }

    /// The secrets of both.
    pub fn merged(&self, other: &Redactor) -> Redactor {
        let patterns = self.patterns.iter().chain(&other.patterns).cloned().collect();
        let mut encoded = self.encoded.clone();
        encoded.extend(other.encoded.iter().filter(|k| !self.encoded.contains(k)).cloned());
        Self::sorted(patterns, encoded)
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
        for key in &self.encoded {
            let found = key.find_all(&out);
            if found.is_empty() {
                continue;
            }
            let mut clean = String::with_capacity(out.len());
            let mut last = 0;
            for (start, end) in found {
                clean.push_str(&out[last..start]);
                clean.push_str(REDACTED);
                last = end;
            }
            clean.push_str(&out[last..]);
            out = Cow::Owned(clean);
        }
        out
    }

    /// Whether `text` holds any secret.
    fn finds_in(&self, text: &str) -> bool {
        self.patterns.iter().any(|p| text.contains(p.as_str()))
            || self.encoded.iter().any(|k| !k.find_all(text).is_empty())
    }

    /// `record` with every secret blanked in its strings (map keys too).
    /// A record without one (nearly all) is returned as it is, after one
    /// scan of its strings (`scan.rs`); one with a secret is rebuilt from
    /// its redacted JSON tree, so only text changes, never the structure.
    /// Should that rebuild fail, the event is replaced by an error saying
    /// so: a secret is never let through.
    pub fn redact_record(&self, record: EventRecord) -> EventRecord {
        if self.is_empty() || !self.holds_secret(&record) {
            return record;
        }
        let Ok(mut tree) = serde_json::to_value(&record) else { return self.unreadable(record) };
        self.redact_value(&mut tree);
        match serde_json::from_value(tree) {
            Ok(clean) => clean,
            Err(_) => self.unreadable(record),
        }
    }

    /// Whether any string in `value` holds a secret.
    fn holds_secret<T: serde::Serialize>(&self, value: &T) -> bool {
        let mut scan = scan::Scan { found: |s: &str| self.finds_in(s) };
        scan.any(value)
    }

    fn unreadable(&self, record: EventRecord) -> EventRecord {
        let message = "an event held a secret and could not be redacted; it was dropped".to_string();
        EventRecord {
            event: super::protocol::Event::Error { phase: crate::engine::model::Phase::Engine, message },
            ..record
        }
    }

    fn redact_value(&self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => {
                if let Cow::Owned(clean) = self.redact(s) {
                    *s = clean;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v)),
            serde_json::Value::Object(map) => {
                if map.keys().any(|k| self.finds_in(k)) {
                    let entries = std::mem::take(map);
                    *map = entries.into_iter().map(|(k, v)| (self.redact(&k).into_owned(), v)).collect();
                }
                map.values_mut().for_each(|v| self.redact_value(v));
            }
            _ => {}
        }
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
    fn a_key_with_reserved_characters_is_blanked_in_its_encoded_forms_too() {
        let key = "tvly-CANARY/Ab+Cd=Ef9 x";
        let r = Redactor::new([key.to_string()]);
        for shown in [
            "tvly-CANARY/Ab+Cd=Ef9 x",
            "tvly-CANARY%2FAb%2BCd%3DEf9%20x",
            "tvly-CANARY%2fAb%2bCd%3dEf9%20x",
            "tvly-CANARY%2FAb%2BCd%3DEf9+x",
            "tvly-CANARY/Ab%2BCd%3DEf9%20x",
            "tvly-CANARY/Ab%2BCd%3DEf9+x",
            "tvly-CANARY/Ab+Cd=Ef9%20x",
            "tvly-CANARY/Ab%2BCd%3DEf9 x",
        ] {
            let text = format!("GET https://api.example/search?k={shown}&q=x failed");
            assert_eq!(r.redact(&text), "GET https://api.example/search?k=[redacted]&q=x failed", "{shown}");
        }
        assert_eq!(r.redact("tvly-CANARY alone"), "tvly-CANARY alone", "a part of a key is no key");
        let plain = Redactor::new(["sk-test-12345678".to_string()]);
        assert!(plain.encoded.is_empty(), "a key of unreserved characters has one form");
        // The event scan finds an encoded key too, so records lose it.
        assert!(r.holds_secret(&"see tvly-CANARY%2FAb%2BCd%3DEf9+x here"));
    }

    #[test]
    fn merged_redactors_blank_the_keys_of_both() {
        let a = Redactor::new(["sk-test-aaaaaaaa".to_string()]);
        let b = Redactor::new(["sk-test-bbbbbbbb".to_string()]);
        assert_eq!(a.merged(&b).redact("sk-test-aaaaaaaa sk-test-bbbbbbbb"), "[redacted] [redacted]");
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

    fn record(event: crate::engine::protocol::Event) -> EventRecord {
        EventRecord { seq: 7, at_ms: 12_345_678_901, elapsed_ms: 5, event }
    }

    #[test]
    fn records_lose_the_secret_and_keep_their_shape() {
        use crate::engine::protocol::Event;
        let r = Redactor::new(["sk-test-12345678".to_string(), "12345678901".to_string()]);
        let event = Event::Error {
            phase: crate::engine::model::Phase::Search,
            message: "GET /x?key=sk-test-12345678 failed".into(),
        };
        let clean = r.redact_record(record(event));
        assert_eq!(
            clean,
            record(Event::Error {
                phase: crate::engine::model::Phase::Search,
                message: "GET /x?key=[redacted] failed".into()
            }),
            "only the string changed; at_ms, which looks like a secret, is a number and stays"
        );
        let plain = record(Event::Error { phase: crate::engine::model::Phase::Search, message: "nothing here".into() });
        assert_eq!(r.redact_record(plain.clone()), plain);
        assert_eq!(Redactor::default().redact_record(clean.clone()), clean);
    }

    #[test]
    fn the_scan_and_the_rewrite_see_every_string_and_only_strings() {
        let r = Redactor::new(["sk-test-12345678".to_string(), "1234567890".to_string()]);
        let mut keyed = std::collections::BTreeMap::new();
        keyed.insert("sk-test-12345678".to_string(), 1u32);
        assert!(r.holds_secret(&keyed), "a map key");
        assert!(r.holds_secret(&vec![None, Some(("x", "a sk-test-12345678 b"))]), "deep in a sequence");
        assert!(!r.holds_secret(&(1234567890u64, "sk-test-1234567", [1.5f64])), "numbers and a near miss");
        let mut tree = serde_json::json!({"sk-test-12345678": ["x sk-test-12345678", 1234567890]});
        r.redact_value(&mut tree);
        assert_eq!(tree, serde_json::json!({"[redacted]": ["x [redacted]", 1234567890]}));
    }

    #[test]
    fn debug_never_shows_a_secret() {
        let r = Redactor::new(["sk-test-12345678".to_string()]);
        assert!(!format!("{r:?}").contains("sk-test"), "{r:?}");
    }

    #[test]
    fn nothing_to_redact_borrows() {
        let r = Redactor::default();
        assert!(r.is_empty());
        assert!(matches!(r.redact("text"), Cow::Borrowed(_)));
    }
}
