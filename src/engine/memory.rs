//! Reflexion memory: what critiques taught in past sessions,
//! retrieved by keyword Jaccard similarity of the question and offered to
//! PLAN and DRAFT as few-shot context. The engine depends on the trait; the
//! persistent store lives with the sessions.

use std::collections::HashSet;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::text::{STOPWORDS, content_terms, jaccard, normalize_for_match};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryEntry {
    pub id: String,
    pub question: String,
    pub mistake: String,
    pub correction: String,
    #[serde(default)]
    pub tags: Vec<String>,
    pub created_at_ms: u64,
    /// The aspect of the question the lesson is about, when the critique
    /// named one: one lesson per question and aspect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect: Option<String>,
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
    /// A revision teaches a lesson only when it raised confidence by at
    /// least this much: below it the change is noise (the loop itself
    /// calls a mean gain under 0.05 diminishing returns).
    pub min_gain: f64,
    /// At most this many lessons are kept for one question (the oldest go
    /// first): reruns of a question do not crowd the prompt's few slots.
    pub max_per_question: usize,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            similarity_threshold: 0.7,
            max_entries: 1000,
            max_in_prompt: 3,
            min_gain: 0.1,
            max_per_question: 3,
        }
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

/// Two entries teach the same thing for the same question: the question
/// (case and spacing aside) and the aspect they are about, or the same
/// mistake in nearly the same words.
pub fn same_lesson(a: &MemoryEntry, b: &MemoryEntry) -> bool {
    if normalize_for_match(&a.question) != normalize_for_match(&b.question) {
        return false;
    }
    if let (Some(x), Some(y)) = (&a.aspect, &b.aspect) {
        return normalize_for_match(x) == normalize_for_match(y);
    }
    normalize_for_match(&a.mistake) == normalize_for_match(&b.mistake)
        || question_similarity(&a.mistake, &b.mistake) >= 0.5
}

/// How `entry` joins `entries` (oldest first): it replaces the same lesson
/// (keeping the stored one's id, so sessions that used it still name it),
/// or is appended, and then the oldest lessons of its question beyond
/// `max_per_question` and the oldest of all beyond `max_entries` go.
/// Returns whether anything but an append happened (a file rewrites).
pub fn admit(entries: &mut Vec<MemoryEntry>, entry: MemoryEntry, s: &MemorySettings) -> bool {
    let mut rewrite = false;
    let entry = match entries.iter().position(|old| same_lesson(old, &entry)) {
        Some(pos) => {
            rewrite = true;
            let old = entries.remove(pos);
            MemoryEntry { id: old.id, ..entry }
        }
        None => entry,
    };
    let question = normalize_for_match(&entry.question);
    entries.push(entry);
    let same: Vec<usize> =
        (0..entries.len()).filter(|&i| normalize_for_match(&entries[i].question) == question).collect();
    let over = same.len().saturating_sub(s.max_per_question.max(1));
    for &i in same[..over].iter().rev() {
        entries.remove(i);
        rewrite = true;
    }
    let excess = entries.len().saturating_sub(s.max_entries);
    if excess > 0 {
        entries.drain(..excess);
        rewrite = true;
    }
    rewrite
}

/// The mistake of a lesson as a sentence a reader (and the next prompt)
/// can use: the critic's description when it reads as one (labels such as
/// "description:" taken off), else what the aspect says was missed; `None`
/// when there is neither (keyword salad about no aspect teaches nothing).
pub fn lesson_mistake(description: &str, aspect: Option<&str>) -> Option<String> {
    let text = without_labels(description);
    if reads_as_sentence(text) {
        return Some(text.to_string());
    }
    let aspect = aspect.map(without_labels).filter(|a| !a.is_empty() && a.chars().count() <= 80)?;
    Some(format!("The answer did not cover “{aspect}”."))
}

/// `text` without leading `word:` labels ("mistake: description: …").
fn without_labels(text: &str) -> &str {
    let mut t = text.trim();
    while let Some((label, rest)) = t.split_once(':') {
        let label = label.trim();
        if label.is_empty() || label.contains(char::is_whitespace) || !label.chars().all(char::is_alphabetic) {
            break;
        }
        t = rest.trim();
    }
    t
}

/// A sentence, not a list of keywords: four words or more, some of them
/// function words ("the", "is", "of" …), mostly letters.
fn reads_as_sentence(text: &str) -> bool {
    let words: Vec<String> =
        text.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
    let function = words.iter().filter(|w| STOPWORDS.contains(&w.as_str())).count();
    let letters = text.chars().filter(|c| c.is_alphabetic() || c.is_whitespace()).count();
    words.len() >= 4 && function >= 1 && letters * 10 >= text.chars().count() * 8
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
        admit(&mut entries, entry, &self.settings);
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
            aspect: Some(id.into()),
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
        let store = InMemoryStore::new(MemorySettings { max_entries: 2, max_per_question: 5, ..Default::default() });
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

    #[test]
    fn one_lesson_per_question_and_aspect_and_a_few_per_question() {
        let s = MemorySettings { max_per_question: 2, ..Default::default() };
        let store = InMemoryStore::new(s);
        let lesson = |id: &str, q: &str, mistake: &str, aspect: Option<&str>| MemoryEntry {
            aspect: aspect.map(str::to_string),
            mistake: mistake.into(),
            ..entry(id, q, 1)
        };
        store.store(lesson("a", "How do gadgets connect?", "The answer omits the ports.", Some("ports"))).unwrap();
        // A rerun words the same miss otherwise: still one lesson, the first id kept.
        store
            .store(lesson("b", "how do gadgets  connect?", "The ports are not covered at all.", Some("ports")))
            .unwrap();
        assert_eq!(store.entries().iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(store.entries()[0].mistake, "The ports are not covered at all.");
        store.store(lesson("c", "How do gadgets connect?", "The answer omits the cables.", Some("cables"))).unwrap();
        store.store(lesson("d", "How do gadgets connect?", "The answer omits the voltage.", Some("voltage"))).unwrap();
        store.store(lesson("e", "Another question?", "The answer omits the voltage.", Some("voltage"))).unwrap();
        let ids: Vec<String> = store.entries().into_iter().map(|e| e.id).collect();
        assert_eq!(ids, ["c", "d", "e"], "two per question, the oldest gone");
    }

    #[test]
    fn a_lesson_reads_as_a_sentence_or_is_not_kept() {
        assert_eq!(
            lesson_mistake("mistake: description: type begin trait Color inherent", Some("inherent impl")).as_deref(),
            Some("The answer did not cover “inherent impl”.")
        );
        assert_eq!(lesson_mistake("description: type begin trait Color inherent", None), None);
        assert_eq!(
            lesson_mistake("issue: The answer omits the lab measurements", None).as_deref(),
            Some("The answer omits the lab measurements")
        );
        assert_eq!(lesson_mistake("gadgets missing 1", None), None);
        assert_eq!(lesson_mistake("{\"x\": [1, 2, 3]} of the", None), None);
    }
}
