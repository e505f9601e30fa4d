//! Reflexion memory: what critiques taught in past sessions,
//! retrieved by keyword Jaccard similarity of the question and offered to
//! PLAN and DRAFT as few-shot context. The engine depends on the trait; the
//! persistent store lives with the sessions.

use std::collections::HashSet;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::text::{content_terms, jaccard};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryEntry {
    pub id: String,
    pub question: String,
    pub mistake: String,
    pub correction: String,
    #[serde(default)]
    pub tags: Vec<String>,
    pub created_at_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemorySettings {
    pub enabled: bool,
    /// Minimum keyword Jaccard similarity for a memory to be retrieved.
    pub similarity_threshold: f64,
    /// Oldest entries are evicted beyond this many.
    pub max_entries: usize,
    /// At most this many memories are offered to one prompt.
    pub max_in_prompt: usize,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self { enabled: true, similarity_threshold: 0.7, max_entries: 1000, max_in_prompt: 3 }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("reflexion memory: {0}")]
pub struct MemoryError(pub String);

pub trait MemoryStore: Send + Sync {
    /// Entries whose question is similar enough, best first.
    fn retrieve_similar(&self, question: &str) -> Vec<MemoryEntry>;
    fn store(&self, entry: MemoryEntry) -> Result<(), MemoryError>;
}

/// Keyword Jaccard similarity of two questions.
pub fn question_similarity(a: &str, b: &str) -> f64 {
    let a: HashSet<String> = content_terms(a).into_iter().collect();
    let b: HashSet<String> = content_terms(b).into_iter().collect();
    jaccard(&a, &b)
}

/// Ranks `entries` by similarity to `question`, keeping those at or above
/// the threshold; ties go to the newer entry.
pub fn rank_similar(entries: &[MemoryEntry], question: &str, s: &MemorySettings) -> Vec<MemoryEntry> {
    let mut scored: Vec<(f64, &MemoryEntry)> = entries
        .iter()
        .map(|e| (question_similarity(&e.question, question), e))
        .filter(|(sim, _)| *sim >= s.similarity_threshold)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.created_at_ms.cmp(&a.1.created_at_ms)));
    scored.into_iter().map(|(_, e)| e.clone()).collect()
}

/// Few-shot context for a prompt: past mistakes and how they were fixed.
pub fn format_for_prompt(entries: &[MemoryEntry]) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let mut out = String::from("Lessons from earlier research on similar questions:\n");
    for (i, e) in entries.iter().enumerate() {
        out.push_str(&format!(
            "{}. Question: {}\n   Mistake: {}\n   Correction: {}\n",
            i + 1,
            e.question,
            e.mistake,
            e.correction
        ));
    }
    out
}

/// A store that lives only as long as the process: tests, and sessions run
/// with memory disabled.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    settings: MemorySettings,
    entries: Mutex<Vec<MemoryEntry>>,
}

impl InMemoryStore {
    pub fn new(settings: MemorySettings) -> Self {
        Self { settings, entries: Mutex::new(Vec::new()) }
    }

    pub fn entries(&self) -> Vec<MemoryEntry> {
        self.entries.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl MemoryStore for InMemoryStore {
    fn retrieve_similar(&self, question: &str) -> Vec<MemoryEntry> {
        let entries = self.entries.lock().map(|e| e.clone()).unwrap_or_default();
        rank_similar(&entries, question, &self.settings)
    }

    fn store(&self, entry: MemoryEntry) -> Result<(), MemoryError> {
        let mut entries = self.entries.lock().map_err(|_| MemoryError("lock poisoned".into()))?;
        entries.push(entry);
        let excess = entries.len().saturating_sub(self.settings.max_entries);
        entries.drain(..excess);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, q: &str, at: u64) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            question: q.into(),
            mistake: "m".into(),
            correction: "c".into(),
            tags: vec![],
            created_at_ms: at,
        }
    }

    #[test]
    fn retrieves_similar_questions_best_first() {
        let store = InMemoryStore::new(MemorySettings { similarity_threshold: 0.3, ..Default::default() });
        store.store(entry("a", "How does the ? operator convert errors", 1)).unwrap();
        store.store(entry("b", "How do Rc and Arc differ", 2)).unwrap();
        store.store(entry("c", "How does the ? operator convert error types with From", 3)).unwrap();
        let got: Vec<String> =
            store.retrieve_similar("How does the ? operator convert errors?").into_iter().map(|e| e.id).collect();
        assert_eq!(got, vec!["a", "c"]);
    }

    #[test]
    fn default_threshold_is_strict() {
        let store = InMemoryStore::new(MemorySettings::default());
        store.store(entry("a", "rust lifetime elision rules", 1)).unwrap();
        assert!(store.retrieve_similar("rust trait objects").is_empty());
        assert_eq!(store.retrieve_similar("lifetime elision rules in rust").len(), 1);
    }

    #[test]
    fn oldest_are_evicted_past_max_entries() {
        let store = InMemoryStore::new(MemorySettings { max_entries: 2, ..Default::default() });
        for (i, id) in ["a", "b", "c"].iter().enumerate() {
            store.store(entry(id, "q", i as u64)).unwrap();
        }
        let ids: Vec<String> = store.entries().into_iter().map(|e| e.id).collect();
        assert_eq!(ids, vec!["b", "c"]);
    }

    #[test]
    fn prompt_format_lists_mistakes_and_corrections() {
        let text = format_for_prompt(&[entry("a", "q1", 1)]);
        assert!(text.contains("Mistake: m") && text.contains("Correction: c"));
        assert_eq!(format_for_prompt(&[]), "");
    }
}
