//! Whether an index still matches its folder, checked before a run uses it
//! (otherwise an edited file is still quoted as it was, and a new file never
//! found, until `sleuth index` runs again).
//!
//! A small folder is checked whole: every file's size and modification
//! time against the manifest. A large one (the Rust documentation's 48,000
//! files) is checked in two cheaper ways: every folder's modification time
//! (a file added, removed or renamed changes its folder's; editors that
//! save by writing a new file and renaming it do too), and the files
//! themselves as far as a time budget allows, starting at a random place
//! so that successive runs cover different files. What is found changed is
//! indexed again before the run, incrementally; `sleuth index` checks
//! every file.

use std::time::{Duration, Instant};

use super::LocalConfig;
use super::discover::{list_folder, mtime_ns, walk_with_folders};
use super::manifest::Manifest;
use std::path::Path;

/// A corpus with at most this many files is checked file by file.
pub const SMALL_CORPUS_FILES: usize = 5_000;

/// What the check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Staleness {
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
    /// Files whose size and time were compared.
    pub files_checked: usize,
    /// Folders whose time was compared.
    pub folders_checked: usize,
    /// Every file was compared (a small corpus, or a budget that sufficed).
    pub complete: bool,
    /// Folder times, when the manifest did not have them yet (to be kept).
    pub folders: Option<std::collections::BTreeMap<String, u64>>,
}

impl Staleness {
    pub fn is_stale(&self) -> bool {
        self.changed + self.added + self.removed > 0
    }

    /// "1 changed, 1 new", for the line that says why the index is updated.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.changed > 0 {
            parts.push(format!("{} changed", self.changed));
        }
        if self.added > 0 {
            parts.push(format!("{} new", self.added));
        }
        if self.removed > 0 {
            parts.push(format!("{} removed", self.removed));
        }
        parts.join(", ")
    }
}

/// Compares the folder `root` with `manifest`, spending about `budget` on
/// the files of a large corpus. It reads metadata only, never contents.
/// `skip_dir` is the index's own folder when it lies inside the corpus.
pub fn check(root: &Path, manifest: &Manifest, budget: Duration, skip_dir: Option<&Path>) -> Staleness {
    if manifest.files.len() <= SMALL_CORPUS_FILES || manifest.folders.is_empty() {
        return check_whole(root, manifest, skip_dir);
    }
    let started = Instant::now();
    let mut s = Staleness::default();
    check_folders(root, manifest, &mut s);
    if s.is_stale() {
        return s;
    }
    let files: Vec<(&String, &super::manifest::FileRecord)> = manifest.files.iter().collect();
    // A random start: successive runs check other files first.
    let start = fastrand::usize(..files.len());
    for i in 0..files.len() {
        if started.elapsed() >= budget {
            return s;
        }
        let (rel, record) = files[(start + i) % files.len()];
        s.files_checked += 1;
        match std::fs::metadata(root.join(rel)) {
            Ok(m) if m.is_file() && m.len() == record.size && mtime_ns(&m) == record.mtime_ns => {}
            Ok(m) if m.is_file() => s.changed += 1,
            // Gone, or no longer a file.
            _ => s.removed += 1,
        }
    }
    s.complete = true;
    s
}

/// Every file and folder compared: the walk `sleuth index` does, without
/// reading any file. Also how a manifest written before folder times were
/// kept gets them.
fn check_whole(root: &Path, manifest: &Manifest, skip_dir: Option<&Path>) -> Staleness {
    let (files, folders, _) = walk_with_folders(root, skip_dir);
    let mut s = Staleness { complete: true, files_checked: files.len(), ..Staleness::default() };
    for f in &files {
        match manifest.files.get(&f.rel) {
            None => s.added += 1,
            Some(r) if r.size != f.size || r.mtime_ns != f.mtime_ns => s.changed += 1,
            Some(_) => {}
        }
    }
    let present: std::collections::HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    s.removed = manifest.files.keys().filter(|k| !present.contains(k.as_str())).count();
    s.folders_checked = folders.len();
    if manifest.folders.is_empty() {
        s.folders = Some(folders);
    }
    s
}

/// Folders whose time changed are listed again: their new and removed
/// documents (and new sub-folders) are the changes.
fn check_folders(root: &Path, manifest: &Manifest, s: &mut Staleness) {
    for (folder, recorded) in &manifest.folders {
        s.folders_checked += 1;
        let path = if folder.is_empty() { root.to_path_buf() } else { root.join(folder) };
        let now = std::fs::metadata(&path).ok().filter(|m| m.is_dir()).map(|m| mtime_ns(&m));
        if now == Some(*recorded) {
            continue;
        }
        let Ok((docs, folders)) = list_folder(root, folder) else {
            s.removed += 1;
            continue;
        };
        s.added += docs.iter().filter(|d| !manifest.files.contains_key(*d)).count();
        s.added += folders.iter().filter(|f| !manifest.folders.contains_key(*f)).count();
        let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        s.removed += manifest
            .files
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, _)| !k[prefix.len()..].contains('/') && !docs.contains(k))
            .count();
        if !s.is_stale() {
            // Touched but the same documents (a file edited by rename):
            // counted, so the index is brought up to date.
            s.changed += 1;
        }
    }
}

/// What a run does with a corpus whose index may be out of date:
/// `update` (the default), `warn`, or `off`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaleCheck {
    /// Index what changed before the run (incrementally).
    #[default]
    Update,
    /// Say what changed and the command that updates the index.
    Warn,
    /// Do not look.
    Off,
}

/// What the check before a run decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeforeRun {
    /// Nothing to do (up to date, not checked, or warned about).
    AsItIs,
    /// Index what changed, now.
    Update,
    /// Up to date; keep these folder times in the manifest.
    RecordFolders(std::collections::BTreeMap<String, u64>),
}

/// The check before a run, per `[local] stale_check`.
pub fn before_run(
    root: &Path,
    manifest: &Manifest,
    cfg: &LocalConfig,
    skip_dir: Option<&Path>,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> BeforeRun {
    if cfg.stale_check == StaleCheck::Off {
        return BeforeRun::AsItIs;
    }
    let found = check(root, manifest, Duration::from_millis(cfg.stale_check_ms), skip_dir);
    tracing::debug!(
        changed = found.changed,
        added = found.added,
        removed = found.removed,
        files = found.files_checked,
        folders = found.folders_checked,
        complete = found.complete,
        "corpus freshness checked"
    );
    if !found.is_stale() {
        return found.folders.map_or(BeforeRun::AsItIs, BeforeRun::RecordFolders);
    }
    if cfg.stale_check == StaleCheck::Update {
        progress(&format!(
            "the corpus {} changed since it was indexed ({}): updating the index",
            root.display(),
            found.describe()
        ));
        return BeforeRun::Update;
    }
    progress(&format!(
        "warning: the corpus {} changed since it was indexed ({}); the run uses the old index. Update it with \
         `sleuth index {}`",
        root.display(),
        found.describe(),
        root.display()
    ));
    BeforeRun::AsItIs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::local::manifest::{FileRecord, FileState};

    fn manifest_of(root: &Path) -> Manifest {
        let (files, folders, _) = walk_with_folders(root, None);
        let mut m = Manifest::new(root);
        m.folders = folders;
        for f in files {
            m.files.insert(f.rel, FileRecord::bare(f.size, f.mtime_ns, FileState::Indexed));
        }
        m
    }

    #[test]
    fn a_small_folder_is_checked_file_by_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::write(root.join("a.md"), "45 euros").expect("write");
        std::fs::write(root.join("b.md"), "b").expect("write");
        let m = manifest_of(root);
        assert!(!check(root, &m, Duration::ZERO, None).is_stale());
        std::fs::write(root.join("a.md"), "60 euros!").expect("write");
        std::fs::write(root.join("c.md"), "new").expect("write");
        std::fs::remove_file(root.join("b.md")).expect("rm");
        let s = check(root, &m, Duration::ZERO, None);
        assert_eq!((s.changed, s.added, s.removed, s.complete), (1, 1, 1, true));
        assert_eq!(s.describe(), "1 changed, 1 new, 1 removed");
    }

    #[test]
    fn a_large_folder_finds_new_files_by_their_folders_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for d in 0..3 {
            std::fs::create_dir_all(root.join(format!("d{d}"))).expect("mkdir");
            for i in 0..(SMALL_CORPUS_FILES / 3 + 1) {
                std::fs::write(root.join(format!("d{d}/f{i}.md")), "x").expect("write");
            }
        }
        let m = manifest_of(root);
        assert!(m.files.len() > SMALL_CORPUS_FILES);
        let s = check(root, &m, Duration::from_millis(5), None);
        assert!(!s.is_stale() && s.folders_checked == 4, "{s:?}");
        // Folder times tick coarsely: make sure the new file's is another.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("d1/new.md"), "new").expect("write");
        let s = check(root, &m, Duration::from_millis(5), None);
        assert_eq!((s.added, s.removed), (1, 0), "{s:?}");
    }
}
