//! Which folder is the corpus, and which of its files are documents.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::UNIX_EPOCH;

use super::CorpusError;
use super::extract::FileKind;

/// The Rust documentation rustup installs: `$(rustc --print sysroot)/share/doc/rust/html`.
pub fn default_corpus() -> Result<PathBuf, CorpusError> {
    let how = "index another folder with `sleuth index PATH` and set `[local] corpus = \"PATH\"` \
               (or pass `--set local.corpus=PATH`)";
    let out = Command::new("rustc").args(["--print", "sysroot"]).output().map_err(|e| CorpusError::NoDefault {
        message: format!("no corpus is configured and `rustc --print sysroot` could not run ({e}); {how}"),
    })?;
    if !out.status.success() {
        return Err(CorpusError::NoDefault {
            message: format!("no corpus is configured and `rustc --print sysroot` failed; {how}"),
        });
    }
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let docs = Path::new(&sysroot).join("share/doc/rust/html");
    if !docs.is_dir() {
        return Err(CorpusError::NoDefault {
            message: format!(
                "no corpus is configured and the Rust documentation is not installed at {} \
                 (install it with `rustup component add rust-docs`), or {how}",
                docs.display()
            ),
        });
    }
    Ok(docs)
}

/// A document file found in the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Corpus-relative, `/`-separated.
    pub rel: String,
    pub abs: PathBuf,
    pub kind: FileKind,
    pub size: u64,
    pub mtime_ns: u64,
}

/// Files and folders that could not be walked, by reason, with a few examples.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkProblems {
    pub counts: BTreeMap<String, usize>,
    pub examples: Vec<String>,
}

impl WalkProblems {
    pub fn add(&mut self, reason: &str, example: String) {
        *self.counts.entry(reason.to_string()).or_default() += 1;
        if self.examples.len() < 5 {
            self.examples.push(example);
        }
    }
}

/// Every `.md`, `.txt` and `.html` file under `root`, sorted by path.
/// Hidden files and folders are left out; symlinks are followed within the
/// folder only (a link leading out of it, such as `passwd.txt ->
/// /etc/passwd`, is reported and not followed: the corpus is what the user
/// put in the folder, and what it indexes is cited and stored); symlink
/// loops are reported instead of followed forever.
pub fn walk(root: &Path, skip_dir: Option<&Path>) -> (Vec<FileEntry>, WalkProblems) {
    let (files, _, problems) = walk_with_folders(root, skip_dir);
    (files, problems)
}

/// `walk`, plus the modification time (ns) of every folder walked, by
/// corpus-relative path (`""` for the root): a file added, removed or
/// renamed changes its folder's time, which is how a large corpus is
/// checked for such changes without reading every file's.
pub fn walk_with_folders(
    root: &Path,
    skip_dir: Option<&Path>,
) -> (Vec<FileEntry>, BTreeMap<String, u64>, WalkProblems) {
    let mut folders = BTreeMap::new();
    let mut files = Vec::new();
    let mut problems = WalkProblems::default();
    let inside = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut walker = walkdir::WalkDir::new(root).follow_links(true).sort_by_file_name().into_iter().filter_entry(|e| {
        let hidden = e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
        let is_skip = skip_dir.is_some_and(|s| e.path() == s);
        !hidden && !is_skip
    });
    while let Some(entry) = walker.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().map(|p| p.display().to_string()).unwrap_or_default();
                if e.loop_ancestor().is_some() {
                    problems.add("symlink loop", format!("{path}: a symlink loop (not followed)"));
                } else {
                    problems.add("unreadable", format!("{path}: {e}"));
                }
                continue;
            }
        };
        if entry.path_is_symlink() && !leads_inside(entry.path(), &inside) {
            if entry.file_type().is_dir() {
                walker.skip_current_dir();
            }
            let target = std::fs::read_link(entry.path()).map(|t| t.display().to_string()).unwrap_or_default();
            problems.add(
                "link out of the corpus",
                format!("{} -> {target}: a link out of the corpus folder (not followed)", entry.path().display()),
            );
            continue;
        }
        if entry.file_type().is_dir() {
            if let (Ok(meta), Ok(rel)) = (entry.metadata(), entry.path().strip_prefix(root)) {
                folders.insert(rel_path(rel), mtime_ns(&meta));
            }
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(kind) = FileKind::of(entry.path()) else { continue };
        let meta = match entry.metadata() {
            Ok(m) => m,
            Err(e) => {
                problems.add("unreadable", format!("{}: {e}", entry.path().display()));
                continue;
            }
        };
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let (rel, mtime_ns) = (rel_path(rel), mtime_ns(&meta));
        files.push(FileEntry { rel, abs: entry.path().to_path_buf(), kind, size: meta.len(), mtime_ns });
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files.dedup_by(|a, b| a.rel == b.rel);
    (files, folders, problems)
}

/// A corpus-relative path, `/`-separated.
pub fn rel_path(rel: &Path) -> String {
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64)
}

/// The documents and folders directly in `folder` (corpus-relative names),
/// as `walk` would see them: hidden entries left out, links out of the
/// corpus left out. For re-reading one folder whose time changed.
pub fn list_folder(root: &Path, folder: &str) -> std::io::Result<(Vec<String>, Vec<String>)> {
    let inside = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let dir = if folder.is_empty() { root.to_path_buf() } else { root.join(folder) };
    let (mut docs, mut folders) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let link = entry.file_type().is_ok_and(|t| t.is_symlink());
        if link && !leads_inside(&path, &inside) {
            continue;
        }
        let rel = if folder.is_empty() { name } else { format!("{folder}/{name}") };
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => folders.push(rel),
            Ok(m) if m.is_file() && FileKind::of(&path).is_some() => docs.push(rel),
            _ => {}
        }
    }
    Ok((docs, folders))
}

/// Whether the link at `path` resolves to somewhere under `root` (itself
/// canonical). A link that cannot be resolved leads nowhere inside.
fn leads_inside(path: &Path, root: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|p| p.starts_with(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_documents_skips_hidden_and_survives_symlink_loops() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::fs::write(root.join("a/one.md"), "# One").expect("write");
        std::fs::write(root.join("a/b/two.html"), "<p>x</p>").expect("write");
        std::fs::write(root.join("a/three.png"), "png").expect("write");
        std::fs::write(root.join(".git/four.md"), "hidden").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("a"), root.join("a/b/loop")).expect("symlink");
        let (files, problems) = walk(root, None);
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, vec!["a/b/two.html", "a/one.md"]);
        #[cfg(unix)]
        assert_eq!(problems.counts.get("symlink loop"), Some(&1), "{problems:?}");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_inside_the_folder_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (root, outside) = (dir.path().join("corpus"), dir.path().join("outside"));
        std::fs::create_dir_all(root.join("a")).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(root.join("a/one.md"), "# One").expect("write");
        std::fs::write(outside.join("secret.md"), "# Secret").expect("write");
        std::os::unix::fs::symlink(outside.join("secret.md"), root.join("passwd.md")).expect("symlink");
        std::os::unix::fs::symlink(&outside, root.join("elsewhere")).expect("symlink");
        std::os::unix::fs::symlink(root.join("a/one.md"), root.join("alias.md")).expect("symlink");
        let (files, problems) = walk(&root, None);
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, vec!["a/one.md", "alias.md"]);
        assert_eq!(problems.counts.get("link out of the corpus"), Some(&2), "{problems:?}");
        assert!(problems.examples.iter().any(|e| e.contains("passwd.md") && e.contains("not followed")));
    }
}
