//! Reflexion memory on disk (its persistent backend): one JSON line
//! per lesson in `memory.jsonl` in the data dir, shared by every session.
//! Appends happen under a lock file so two sessions storing at once lose
//! nothing; beyond `max_entries` the oldest lines are dropped by an atomic
//! rewrite. A damaged line is skipped (and logged), never fatal: memory
//! only ever helps a session, it must not stop one.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::engine::memory::{MemoryEntry, MemoryError, MemorySettings, MemoryStore, admit, rank_similar, same_lesson};

#[derive(Debug)]
pub struct FileMemoryStore {
    path: PathBuf,
    settings: MemorySettings,
    /// Entries as last read, and the file length they were read at.
    cache: Mutex<Option<(u64, Vec<MemoryEntry>)>>,
}

/// Why `find` found no single lesson.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    NotFound,
    /// How many ids start with the prefix, and the first few of them.
    Ambiguous {
        count: usize,
        first: Vec<String>,
    },
}

/// Ids shown when a prefix matches many.
const AMBIGUOUS_SHOWN: usize = 5;

impl FileMemoryStore {
    pub fn open(path: &Path, settings: MemorySettings) -> Self {
        Self { path: path.to_path_buf(), settings, cache: Mutex::new(None) }
    }

    /// The lesson whose id is `given` or, failing that, the only one whose
    /// id starts with it.
    pub fn find(&self, given: &str) -> Result<MemoryEntry, Lookup> {
        let entries = self.entries();
        if let Some(e) = entries.iter().find(|e| e.id == given) {
            return Ok(e.clone());
        }
        let mut matches: Vec<MemoryEntry> =
            entries.into_iter().filter(|e| !given.is_empty() && e.id.starts_with(given)).collect();
        match matches.len() {
            0 => Err(Lookup::NotFound),
            1 => matches.pop().ok_or(Lookup::NotFound),
            count => Err(Lookup::Ambiguous {
                count,
                first: matches.into_iter().take(AMBIGUOUS_SHOWN).map(|e| e.id).collect(),
            }),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry, oldest first (re-read when another process changed the file).
    pub fn entries(&self) -> Vec<MemoryEntry> {
        let len = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        let Ok(mut cache) = self.cache.lock() else { return read_entries(&self.path, self.settings.max_entries) };
        match cache.as_ref() {
            Some((cached_len, entries)) if *cached_len == len => entries.clone(),
            _ => {
                let entries = read_entries(&self.path, self.settings.max_entries);
                *cache = Some((len, entries.clone()));
                entries
            }
        }
    }

    pub fn get(&self, id: &str) -> Option<MemoryEntry> {
        self.entries().into_iter().find(|e| e.id == id)
    }

    /// Forgets everything; returns how many entries there were.
    pub fn clear(&self) -> Result<usize, MemoryError> {
        let _guard = self.write_lock()?;
        let n = read_entries(&self.path, usize::MAX).len();
        match std::fs::remove_file(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(&self.path, e)),
        }
        self.forget_cache();
        Ok(n)
    }

    fn write_lock(&self) -> Result<File, MemoryError> {
        let path = self.path.with_extension("lock");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| err(parent, e))?;
        }
        let file =
            OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| err(&path, e))?;
        // Blocks only while another process appends one line.
        file.lock().map_err(|e| err(&path, e))?;
        Ok(file)
    }

    fn forget_cache(&self) {
        if let Ok(mut c) = self.cache.lock() {
            *c = None;
        }
    }
}

impl MemoryStore for FileMemoryStore {
    fn retrieve_similar(&self, question: &str) -> Vec<MemoryEntry> {
        rank_similar(&self.entries(), question, &self.settings)
    }

    /// The same lesson for the same question (a rerun) refreshes the
    /// stored one (its id kept, so sessions that used it still name it)
    /// instead of adding a copy that would crowd the prompt's few slots.
    /// Lessons come from the engine's state, secrets already blanked
    /// (`engine::redact`).
    fn store(&self, entry: MemoryEntry) -> Result<(), MemoryError> {
        let _guard = self.write_lock()?;
        let mut entries = read_entries(&self.path, usize::MAX);
        let before = entries.len();
        let rewritten = admit(&mut entries, entry, &self.settings);
        if rewritten || entries.len() != before + 1 {
            rewrite(&self.path, &entries)?;
            self.forget_cache();
            return Ok(());
        }
        let Some(added) = entries.last() else { return Ok(()) };
        let mut line = serde_json::to_string(added).map_err(|e| MemoryError(e.to_string()))?;
        line.push('\n');
        // A line torn by a crash must not swallow this one.
        if !ends_with_newline(&self.path) {
            line.insert(0, '\n');
        }
        let mut file = OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| err(&self.path, e))?;
        file.write_all(line.as_bytes()).and_then(|_| file.sync_data()).map_err(|e| err(&self.path, e))?;
        self.forget_cache();
        Ok(())
    }
}

/// The memory file holds at most `memory.max_entries` (≤ 100,000) short
/// lessons: far below this.
const MAX_MEMORY_BYTES: u64 = 256 << 20;

/// The newest `max` entries, oldest first; a later line with an id already
/// seen, or the same lesson (copies stored before reruns refreshed them),
/// replaces the earlier one.
fn read_entries(path: &Path, max: usize) -> Vec<MemoryEntry> {
    let text = match crate::files::read_text_capped(path, MAX_MEMORY_BYTES) {
        Ok(text) => text,
        Err(e) => {
            if !e.is_not_found() {
                tracing::warn!(error = %e, "reflexion memory not read");
            }
            return Vec::new();
        }
    };
    let mut entries: Vec<MemoryEntry> = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match serde_json::from_str::<MemoryEntry>(line) {
            Ok(e) => {
                entries.retain(|old| old.id != e.id && !same_lesson(old, &e));
                entries.push(e);
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), line = i + 1, error = %e, "skipping a damaged memory entry")
            }
        }
    }
    let excess = entries.len().saturating_sub(max);
    entries.drain(..excess);
    entries
}

/// True for a missing or empty file too: nothing to separate from.
fn ends_with_newline(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = File::open(path) else { return true };
    let mut last = [b'\n'];
    if f.seek(SeekFrom::End(-1)).is_ok() {
        let _ = f.read_exact(&mut last);
    }
    last[0] == b'\n'
}

fn rewrite(path: &Path, entries: &[MemoryEntry]) -> Result<(), MemoryError> {
    let mut text = String::new();
    for e in entries {
        text.push_str(&serde_json::to_string(e).map_err(|e| MemoryError(e.to_string()))?);
        text.push('\n');
    }
    let tmp = path.with_extension("jsonl.tmp");
    let written = std::fs::write(&tmp, text)
        .map_err(|e| err(&tmp, e))
        .and_then(|_| std::fs::rename(&tmp, path).map_err(|e| err(path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn err(path: &Path, e: std::io::Error) -> MemoryError {
    MemoryError(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, q: &str, at: u64) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            question: q.into(),
            mistake: format!("mistake {id}"),
            correction: format!("fix {id}"),
            tags: vec!["t".into()],
            created_at_ms: at,
            aspect: Some(format!("aspect {id}")),
        }
    }

    #[test]
    fn entries_survive_a_new_store_and_the_oldest_are_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        let settings = MemorySettings { max_entries: 2, ..Default::default() };
        let a = FileMemoryStore::open(&path, settings.clone());
        for (i, id) in ["a", "b", "c"].iter().enumerate() {
            a.store(entry(id, "rust lifetime elision rules", i as u64)).unwrap();
        }
        // A second process (a new store on the same file) sees the same.
        let b = FileMemoryStore::open(&path, settings);
        let ids: Vec<String> = b.entries().into_iter().map(|e| e.id).collect();
        assert_eq!(ids, vec!["b", "c"]);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        let similar = b.retrieve_similar("lifetime elision rules in rust");
        assert_eq!(similar.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), vec!["c", "b"]);
        assert_eq!(b.get("b").unwrap().correction, "fix b");
        assert_eq!(b.clear().unwrap(), 2);
        assert!(a.entries().is_empty());
    }

    #[test]
    fn rerunning_a_question_refreshes_its_lesson_instead_of_copying_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        let store = FileMemoryStore::open(&path, MemorySettings::default());
        let question = "What is a lifetime in Rust?";
        let lesson = |id: &str, at: u64| MemoryEntry {
            mistake: "The draft never said what a lifetime annotation constrains.".into(),
            correction: format!("Say what it constrains ({id})."),
            aspect: None,
            ..entry(id, question, at)
        };
        store.store(lesson("first", 1)).unwrap();
        store.store(entry("other", question, 2)).unwrap();
        // The same run again: same question, same mistake (spacing aside).
        let mut again = lesson("second", 3);
        again.question = format!("  {question} ");
        store.store(again).unwrap();
        let entries = store.entries();
        assert_eq!(entries.len(), 2, "{entries:?}");
        let refreshed = &entries[1];
        assert_eq!(refreshed.id, "first", "the lesson keeps its id");
        assert_eq!(refreshed.correction, "Say what it constrains (second).");
        assert_eq!(refreshed.created_at_ms, 3);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2, "no copy on disk");
        // Only one of the prompt's slots goes to it.
        let similar = store.retrieve_similar(question);
        assert_eq!(similar.iter().filter(|e| e.mistake == refreshed.mistake).count(), 1);
    }

    #[test]
    fn copies_stored_before_are_listed_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        let lines: Vec<String> = ["a", "b"]
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let e = MemoryEntry { mistake: "same".into(), aspect: None, ..entry(id, "same question", i as u64) };
                serde_json::to_string(&e).unwrap()
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let store = FileMemoryStore::open(&path, MemorySettings::default());
        assert_eq!(store.entries().iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), vec!["b"]);
    }

    #[test]
    fn a_damaged_line_is_skipped_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        let good = serde_json::to_string(&entry("a", "q", 1)).unwrap();
        std::fs::write(&path, format!("{good}\n{{garbage")).unwrap();
        let store = FileMemoryStore::open(&path, MemorySettings::default());
        assert_eq!(store.entries().len(), 1);
        store.store(entry("b", "q", 2)).unwrap();
        assert_eq!(store.entries().iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
    }

    #[test]
    fn stored_lessons_are_found_by_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        let store = FileMemoryStore::open(&path, MemorySettings::default());
        store.store(entry("s1-1-0", "Why does it fail?", 1)).unwrap();
        store.store(entry("s1-2-0", "other", 2)).unwrap();
        assert_eq!(store.find("s1-1").map(|e| e.id), Ok("s1-1-0".to_string()));
        assert_eq!(store.find("nope"), Err(Lookup::NotFound));
        assert_eq!(
            store.find("s1-"),
            Err(Lookup::Ambiguous { count: 2, first: vec!["s1-1-0".to_string(), "s1-2-0".to_string()] })
        );
    }
}
