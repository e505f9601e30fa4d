//! An opened corpus index, and how one comes to be: found ready, built on
//! first use (saying so), or rebuilt when it is corrupt or from another
//! version (saying why).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tantivy::{Index, IndexReader, ReloadPolicy};

use super::discover::default_corpus;
use super::freshness::BeforeRun;
use super::indexer::{IndexSummary, update};
use super::manifest::{INDEX_VERSION, Manifest};
use super::schema::{Fields, fields_of, schema};
use super::store::{IndexMeta, Layout};
use super::{CorpusError, LocalConfig};

pub struct LocalCorpus {
    pub(super) root: PathBuf,
    pub(super) layout: Layout,
    pub(super) reader: IndexReader,
    pub(super) fields: Fields,
    /// Non-canonical page → its canonical copy.
    pub(super) groups: BTreeMap<String, String>,
    /// Declared languages left out of search results.
    pub(super) excluded_languages: Vec<String>,
    pub(super) meta: IndexMeta,
    pub(super) cfg: LocalConfig,
}

/// What was found where an index should be.
enum Found {
    Ready(Index, IndexMeta),
    Missing,
    Invalid(String),
}

/// The corpus folder: configured, or the default Rust documentation.
pub fn corpus_root(cfg: &LocalConfig) -> Result<PathBuf, CorpusError> {
    let root = match &cfg.corpus {
        Some(p) => expand_home(p),
        None => default_corpus()?,
    };
    check_folder(&root)?;
    std::fs::canonicalize(&root).map_err(|e| CorpusError::io(&root, e))
}

fn expand_home(p: &Path) -> PathBuf {
    match (p.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => p.to_path_buf(),
    }
}

fn check_folder(root: &Path) -> Result<(), CorpusError> {
    match std::fs::metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CorpusError::NotFound { path: root.to_path_buf() }),
        Err(e) => Err(CorpusError::io(root, e)),
        Ok(m) if !m.is_dir() => Err(CorpusError::NotADirectory { path: root.to_path_buf() }),
        Ok(_) => std::fs::read_dir(root).map(|_| ()).map_err(|e| CorpusError::io(root, e)),
    }
}

fn find(layout: &Layout, root: &Path) -> Found {
    let meta = match layout.load_meta() {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return if layout.dir.exists() {
                Found::Invalid("is incomplete (an earlier build did not finish)".into())
            } else {
                Found::Missing
            };
        }
        Err(e) => return Found::Invalid(format!("has an unreadable description ({e})")),
    };
    if meta.version != INDEX_VERSION {
        return Found::Invalid(format!(
            "was built by another version of sleuth (index format {}, this sleuth reads {INDEX_VERSION})",
            meta.version
        ));
    }
    if meta.corpus != root {
        return Found::Invalid(format!("belongs to another folder ({})", meta.corpus.display()));
    }
    match Index::open_in_dir(layout.tantivy_dir()) {
        Ok(index) if fields_of(&index.schema()).is_some() => Found::Ready(index, meta),
        Ok(_) => Found::Invalid("has an unexpected schema".into()),
        Err(e) => Found::Invalid(format!("is corrupt ({e})")),
    }
}

impl LocalCorpus {
    /// Opens the index of the configured corpus, building it first when
    /// there is none (if `auto_index`) and rebuilding it when it is broken.
    pub fn open_or_build(
        cfg: &LocalConfig,
        index_root: &Path,
        progress: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Self, CorpusError> {
        let root = corpus_root(cfg)?;
        let layout = Layout::for_corpus(index_root, &root);
        match find(&layout, &root) {
            Found::Ready(index, meta) => {
                match Self::open(index, fresh(meta, &root, &layout, cfg, progress), &root, &layout, cfg) {
                    Ok(c) => return Ok(c),
                    Err(e) => {
                        progress(&format!("the index at {} cannot be used ({e}); rebuilding it", layout.dir.display()))
                    }
                }
            }
            Found::Missing if !cfg.auto_index => return Err(CorpusError::NotIndexed { path: root }),
            Found::Missing => progress(&format!(
                "no index for {} yet: building it now (once; `sleuth index` updates it later)",
                root.display()
            )),
            Found::Invalid(why) => progress(&format!("the index at {} {why}: rebuilding it", layout.dir.display())),
        }
        let summary = build_fresh(&root, &layout, cfg, progress)?;
        progress(&format!("index ready: {}", summary.describe()));
        match find(&layout, &root) {
            Found::Ready(index, meta) => Self::open(index, meta, &root, &layout, cfg),
            _ => Err(CorpusError::Index {
                message: format!("the index just built at {} cannot be opened", layout.dir.display()),
            }),
        }
    }

    fn open(
        index: Index,
        meta: IndexMeta,
        root: &Path,
        layout: &Layout,
        cfg: &LocalConfig,
    ) -> Result<Self, CorpusError> {
        let fields =
            fields_of(&index.schema()).ok_or_else(|| CorpusError::Index { message: "unexpected schema".into() })?;
        let reader =
            index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(CorpusError::index)?;
        let groups = layout.load_groups().map_err(|e| CorpusError::io(&layout.groups_path(), e))?;
        let excluded_languages = excluded_languages(&meta.languages, &cfg.languages);
        Ok(Self {
            root: root.to_path_buf(),
            layout: layout.clone(),
            reader,
            fields,
            groups,
            excluded_languages,
            meta,
            cfg: cfg.clone(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn index_dir(&self) -> &Path {
        &self.layout.dir
    }

    /// A query this corpus answers, for probes (`sleuth doctor`): the
    /// title, of two to six words, of its longest indexed page; when no
    /// title has that many (one-word headings, notes titled by their file
    /// name), the first content words of the longest page's text.
    pub fn sample_query(&self) -> Option<String> {
        let manifest = super::manifest::Manifest::load(&self.layout.manifest_path()).ok()?;
        let indexed = || manifest.files.iter().filter(|(_, r)| r.state == super::manifest::FileState::Indexed);
        let titled = indexed()
            .filter(|(_, r)| (2..=6).contains(&r.title.split_whitespace().count()))
            .max_by(|(_, a), (_, b)| a.words.cmp(&b.words).then(b.title.cmp(&a.title)));
        if let Some((_, r)) = titled {
            return Some(crate::text::sanitize_inline(&r.title).to_lowercase());
        }
        let (path, _) = indexed().max_by(|(pa, a), (pb, b)| a.words.cmp(&b.words).then(pb.cmp(pa)))?;
        let page = self.page(path).ok()??;
        let words: Vec<String> = crate::text::content_terms(&page.text).into_iter().take(3).collect();
        (!words.is_empty()).then(|| words.join(" "))
    }

    /// The canonical copy of `path` (itself unless it is a duplicate).
    pub fn canonical<'a>(&'a self, path: &'a str) -> &'a str {
        self.groups.get(path).map_or(path, String::as_str)
    }
}

/// Languages to leave out: all declared ones except the configured ones,
/// or except the most common one when none is configured.
fn excluded_languages(present: &BTreeMap<String, usize>, wanted: &[String]) -> Vec<String> {
    let keep: Vec<String> = if wanted.is_empty() {
        present
            .iter()
            .max_by_key(|(l, n)| (**n, std::cmp::Reverse((*l).clone())))
            .map(|(l, _)| l.clone())
            .into_iter()
            .collect()
    } else {
        wanted.iter().map(|l| super::manifest::primary_language(l)).collect()
    };
    present.keys().filter(|l| !keep.contains(l)).cloned().collect()
}

/// Indexes `root` (the configured corpus when `None`): incrementally when a
/// valid index exists, from scratch otherwise.
pub fn index_folder(
    cfg: &LocalConfig,
    index_root: &Path,
    root: Option<&Path>,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<(PathBuf, IndexSummary), CorpusError> {
    let root = match root {
        Some(r) => {
            check_folder(r)?;
            std::fs::canonicalize(r).map_err(|e| CorpusError::io(r, e))?
        }
        None => corpus_root(cfg)?,
    };
    let layout = Layout::for_corpus(index_root, &root);
    let summary = match find(&layout, &root) {
        Found::Ready(index, _) => match Manifest::load(&layout.manifest_path()) {
            Ok(manifest) => {
                let fields = fields_of(&index.schema())
                    .ok_or_else(|| CorpusError::Index { message: "unexpected schema".into() })?;
                update(&root, &layout, &index, fields, Some(manifest), cfg, progress)?
            }
            Err(e) => {
                progress(&format!("the index's file list is unreadable ({e}): rebuilding the index"));
                build_fresh(&root, &layout, cfg, progress)?
            }
        },
        Found::Missing => build_fresh(&root, &layout, cfg, progress)?,
        Found::Invalid(why) => {
            progress(&format!("the index at {} {why}: rebuilding it", layout.dir.display()));
            build_fresh(&root, &layout, cfg, progress)?
        }
    };
    Ok((root, summary))
}

/// The index's description after the check before a run: the same one,
/// or the one written by the update that brought the index up to date
/// with its folder (see `freshness.rs`). A check or an update that cannot
/// be done leaves the index as it is, and says so.
fn fresh(
    meta: IndexMeta,
    root: &Path,
    layout: &Layout,
    cfg: &LocalConfig,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> IndexMeta {
    let manifest = match Manifest::load(&layout.manifest_path()) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(error = %e, "the index's file list is unreadable: its folder is not checked");
            return meta;
        }
    };
    let skip_dir = layout.dir.starts_with(root).then_some(layout.dir.as_path());
    match super::freshness::before_run(root, &manifest, cfg, skip_dir, progress) {
        BeforeRun::Update => {}
        BeforeRun::AsItIs => return meta,
        BeforeRun::RecordFolders(folders) => {
            // Once, for an index built before folder times were kept: the
            // next runs check its folders instead of every file.
            let mut manifest = manifest;
            manifest.folders = folders;
            if let Err(e) = manifest.save(&layout.manifest_path()) {
                tracing::warn!(error = %e, "could not record the corpus's folder times");
            }
            return meta;
        }
    }
    let updated = Index::open_in_dir(layout.tantivy_dir()).map_err(CorpusError::index).and_then(|index| {
        let fields =
            fields_of(&index.schema()).ok_or_else(|| CorpusError::Index { message: "unexpected schema".into() })?;
        update(root, layout, &index, fields, Some(manifest), cfg, progress)
    });
    match updated {
        Ok(summary) => progress(&format!("index updated: {}", summary.describe())),
        Err(e) => progress(&format!(
            "warning: the index of {} could not be updated ({e}); the run uses it as it was. Update it with `sleuth \
             index {}`",
            root.display(),
            root.display()
        )),
    }
    layout.load_meta().unwrap_or(meta)
}

fn build_fresh(
    root: &Path,
    layout: &Layout,
    cfg: &LocalConfig,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<IndexSummary, CorpusError> {
    layout.clear().map_err(|e| CorpusError::io(&layout.dir, e))?;
    let (schema, fields) = schema();
    let index = Index::create_in_dir(layout.tantivy_dir(), schema).map_err(CorpusError::index)?;
    let result = update(root, layout, &index, fields, None, cfg, progress);
    if result.is_err() {
        // Leave no half-built index behind to be mistaken for a complete one.
        let _ = std::fs::remove_dir_all(&layout.dir);
    }
    result
}
