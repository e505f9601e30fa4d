//! Building and updating the index: walk the corpus, skip files whose size
//! and mtime are unchanged, extract the others on every core, drop files
//! that are gone, then regroup near-duplicates. Progress goes to the
//! caller's line printer.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tantivy::schema::Term;
use tantivy::{Index, IndexWriter, TantivyDocument};

use super::definitions::definition_doc;
use super::discover::{FileEntry, WalkProblems, walk_with_folders};
use super::dupes::{GroupRules, SimHasher, group, top_folder};
use super::extract::{
    Block, Extracted, FileKind, Page, Passage, PdfProblem, SkipReason, decode_text, extract, extract_pdf, passages,
};
use super::manifest::{FileRecord, FileState, INDEX_VERSION, Manifest, primary_language};
use super::schema::{Fields, KIND_PAGE, KIND_PASSAGE};
use super::store::{IndexMeta, Layout};
use super::{CorpusError, LocalConfig};

/// What an indexing run did and what the index now holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexSummary {
    /// Document files (`.md`, `.txt`, `.html`) found in the corpus.
    pub files: usize,
    /// Read and extracted in this run (new or changed).
    pub extracted: usize,
    pub unchanged: usize,
    pub removed: usize,
    /// Pages in the index now.
    pub pages: usize,
    pub passages: usize,
    pub redirects: usize,
    /// Files not indexed, by reason (walk problems included).
    pub skipped: BTreeMap<String, usize>,
    /// Files that were not valid UTF-8 and were read as Windows-1252.
    pub reencoded: usize,
    /// Pages folded into a canonical copy of the same document.
    pub duplicates: usize,
    /// A few files that could not be read, with why.
    pub problems: Vec<String>,
    pub elapsed: Duration,
}

impl IndexSummary {
    /// One paragraph for people.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} pages ({} passages) from {} files in {:.1} s: {} read, {} unchanged, {} removed; \
             {} redirect stubs skipped; {} near-duplicate pages folded into their canonical copy",
            self.pages,
            self.passages,
            self.files,
            self.elapsed.as_secs_f64(),
            self.extracted,
            self.unchanged,
            self.removed,
            self.redirects,
            self.duplicates
        );
        if !self.skipped.is_empty() {
            let parts: Vec<String> = self.skipped.iter().map(|(k, v)| format!("{v} {k}")).collect();
            s.push_str(&format!("; skipped: {}", parts.join(", ")));
        }
        if self.reencoded > 0 {
            s.push_str(&format!("; {} files were not valid UTF-8 and were read as Windows-1252", self.reencoded));
        }
        for p in &self.problems {
            s.push_str(&format!("\n  {p}"));
        }
        s
    }
}

/// Brings the index in `layout` up to date with the folder `root`.
/// `previous` is the manifest of a valid existing index (`None`: build
/// from scratch into a fresh index).
pub fn update(
    root: &Path,
    layout: &Layout,
    index: &Index,
    fields: Fields,
    previous: Option<Manifest>,
    cfg: &LocalConfig,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<IndexSummary, CorpusError> {
    let started = Instant::now();
    let skip_dir = layout.dir.starts_with(root).then_some(layout.dir.as_path());
    let (files, folders, problems) = walk_with_folders(root, skip_dir);
    if files.is_empty() {
        return Err(CorpusError::Empty { path: root.to_path_buf(), problems: problems.examples.clone() });
    }
    let mut manifest = previous.unwrap_or_else(|| Manifest::new(root));
    manifest.corpus = root.to_path_buf();
    manifest.version = INDEX_VERSION;
    manifest.folders = folders;
    let present: HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let removed: Vec<String> = manifest.files.keys().filter(|k| !present.contains(k.as_str())).cloned().collect();
    // A file is read again when it changed, or when `max_file_mb` changed
    // which side of the limit it falls on.
    let limit = cfg.max_file_mb.saturating_mul(1 << 20);
    let todo: Vec<&FileEntry> = files
        .iter()
        .filter(|f| {
            manifest.files.get(&f.rel).is_none_or(|r| {
                let was_too_large = r.state == FileState::Skipped(SkipReason::TooLarge);
                r.size != f.size || r.mtime_ns != f.mtime_ns || was_too_large != (f.size > limit)
            })
        })
        .collect();

    let threads =
        if cfg.threads == 0 { std::thread::available_parallelism().map_or(2, |n| n.get()) } else { cfg.threads };
    let mut summary = IndexSummary { files: files.len(), unchanged: files.len() - todo.len(), ..Default::default() };
    let mut example_problems = problems.examples.clone();
    if !todo.is_empty() || !removed.is_empty() {
        let writer_threads = threads.clamp(1, 4);
        let mut writer: IndexWriter<TantivyDocument> =
            index.writer_with_num_threads(writer_threads, writer_threads * 96_000_000).map_err(CorpusError::index)?;
        for path in removed.iter().chain(todo.iter().filter(|f| manifest.files.contains_key(&f.rel)).map(|f| &f.rel)) {
            writer.delete_term(Term::from_field_text(fields.path, path));
        }
        let records = extract_all(&todo, &writer, fields, cfg, threads, progress, started)?;
        writer.commit().map_err(CorpusError::index)?;
        writer.wait_merging_threads().map_err(CorpusError::index)?;
        for path in &removed {
            manifest.files.remove(path);
        }
        for (rel, record, problem) in records {
            if let Some(p) = problem {
                example_problems.push(p);
            }
            manifest.files.insert(rel, record);
        }
    }
    summary.extracted = todo.len();
    summary.removed = removed.len();

    let groups = group(
        &manifest.files,
        &GroupRules {
            max_bits: cfg.duplicate_max_bits,
            stub_max_words: cfg.stub_max_words,
            min_words: 20,
            prefer: &cfg.prefer,
        },
    );
    summary.duplicates = groups.len();
    tally(&manifest, &problems, &mut summary);
    example_problems.truncate(5);
    summary.problems = example_problems;
    let meta = IndexMeta {
        version: INDEX_VERSION,
        corpus: root.to_path_buf(),
        languages: manifest.languages(),
        passages: summary.passages,
    };
    layout.save(&meta, &groups, &manifest).map_err(|e| CorpusError::io(&layout.dir, e))?;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Counts of what `manifest` holds, into `s` (walk problems included).
pub fn tally(manifest: &Manifest, problems: &WalkProblems, s: &mut IndexSummary) {
    for r in manifest.files.values() {
        match r.state {
            FileState::Indexed => {
                s.pages += 1;
                s.passages += r.passages as usize;
            }
            FileState::Redirect => s.redirects += 1,
            FileState::Skipped(reason) => *s.skipped.entry(reason.label().to_string()).or_default() += 1,
        }
        s.reencoded += usize::from(r.reencoded);
    }
    for (k, v) in &problems.counts {
        *s.skipped.entry(k.clone()).or_default() += v;
    }
}

type Extraction = (String, FileRecord, Option<String>);

/// Extracts `todo` on `threads` threads, adding documents to `writer`.
fn extract_all(
    todo: &[&FileEntry],
    writer: &IndexWriter<TantivyDocument>,
    fields: Fields,
    cfg: &LocalConfig,
    threads: usize,
    progress: &(dyn Fn(&str) + Send + Sync),
    started: Instant,
) -> Result<Vec<Extraction>, CorpusError> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let out: Mutex<Vec<Extraction>> = Mutex::new(Vec::with_capacity(todo.len()));
    let failure: Mutex<Option<CorpusError>> = Mutex::new(None);
    let total = todo.len();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = todo.get(i).filter(|_| !failed.load(Ordering::Relaxed)) else { break };
                    match process(entry, writer, fields, cfg) {
                        Ok(x) => local.push(x),
                        Err(e) => {
                            *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                            failed.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
                out.lock().unwrap_or_else(|p| p.into_inner()).extend(local);
            });
        }
        let mut last = Instant::now();
        while done.load(Ordering::Relaxed) < total && !failed.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if last.elapsed() >= Duration::from_secs(1) {
                last = Instant::now();
                let d = done.load(Ordering::Relaxed);
                let rate = d as f64 / started.elapsed().as_secs_f64().max(0.001);
                progress(&format!(
                    "indexing: {d} / {total} files ({:.0}%, {rate:.0} files/s)",
                    100.0 * d as f64 / total as f64
                ));
            }
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut out = out.into_inner().unwrap_or_else(|p| p.into_inner());
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// A file read and extracted, before it goes into an index: its record
/// for the manifest, a problem worth showing, and its page and passages
/// when it is indexed. The local index and `sleuth index --to opensearch`
/// share this step.
pub struct FileRead {
    pub rel: String,
    pub record: FileRecord,
    pub problem: Option<String>,
    pub content: Option<PageContent>,
}

/// What an indexed file contributes: the page, its passages and its
/// primary language (`en`, or empty when undeclared).
pub struct PageContent {
    pub page: Page,
    pub passages: Vec<Passage>,
    pub lang: String,
}

/// Reads and extracts one file. Problems with the file become its record's
/// state, never an error.
pub fn read_file(entry: &FileEntry, cfg: &LocalConfig) -> FileRead {
    let rel = entry.rel.clone();
    let done = |record, problem| FileRead { rel: rel.clone(), record, problem, content: None };
    let skipped = |reason| FileRecord::bare(entry.size, entry.mtime_ns, FileState::Skipped(reason));
    let limit = cfg.max_file_mb.saturating_mul(1 << 20);
    if entry.size > limit {
        let why = format!(
            "{}: {:.1} MB is over the {} MB limit (raise local.max_file_mb to index it)",
            entry.abs.display(),
            entry.size as f64 / 1_048_576.0,
            cfg.max_file_mb
        );
        return done(skipped(SkipReason::TooLarge), Some(why));
    }
    // The raw bytes and the decoded text live only as long as it takes to
    // make the page: a large file is held once at a time, not thrice.
    let (page, reencoded) = {
        // Only a regular file, opened without waiting (a pipe swapped in
        // after the walk is refused), and no larger than the limit now.
        let bytes = match crate::files::read_capped(&entry.abs, limit) {
            Ok(b) => b,
            Err(e) => return done(skipped(SkipReason::Unreadable), Some(e.to_string())),
        };
        if entry.kind == FileKind::Pdf {
            // A PDF is read from its bytes, page by page (`extract/pdf.rs`).
            let stem = rel.rsplit('/').next().unwrap_or(&rel).trim_end_matches(".pdf").trim_end_matches(".PDF");
            match extract_pdf(&bytes) {
                Ok(pdf) => (pdf.to_page(stem), false),
                Err(e) => {
                    let reason = if matches!(e, PdfProblem::NoTextLayer { .. }) {
                        SkipReason::NoTextLayer
                    } else {
                        SkipReason::Unreadable
                    };
                    return done(skipped(reason), Some(format!("{}: {e}", entry.abs.display())));
                }
            }
        } else {
            let (text, reencoded) = match decode_text(&bytes) {
                Ok(t) => t,
                Err(reason) => return done(skipped(reason), None),
            };
            // Terminal escapes and other control characters are not text (as
            // for web pages): never indexed, stored or shown.
            let text = crate::text::sanitize(&text);
            match extract(entry.kind, &text, &rel) {
                Extracted::Page(p) => (p, reencoded),
                Extracted::Redirect { .. } => {
                    return done(FileRecord::bare(entry.size, entry.mtime_ns, FileState::Redirect), None);
                }
                Extracted::Skipped(reason) => return done(skipped(reason), None),
            }
        }
    };
    let words = page.word_count();
    if words == 0 {
        return done(skipped(SkipReason::Empty), None);
    }
    let lang = page.lang.as_deref().map(primary_language).unwrap_or_default();
    let parts = passages(&page, cfg.passage_words);
    let top = top_folder(&rel);
    let links: BTreeSet<&str> =
        page.links.iter().map(String::as_str).filter(|l| top_folder(l) != top && *l != rel).collect();
    let stub_links: BTreeSet<&str> = if words <= cfg.stub_max_words {
        page.links.iter().map(String::as_str).filter(|l| *l != rel).collect()
    } else {
        BTreeSet::new()
    };
    let record = FileRecord {
        size: entry.size,
        mtime_ns: entry.mtime_ns,
        state: FileState::Indexed,
        title: page.title.clone(),
        lang: page.lang.clone(),
        words: words as u32,
        simhash: prose_fingerprint(&page),
        passages: parts.len() as u32,
        links: links.into_iter().map(str::to_string).collect(),
        stub_links: stub_links.into_iter().map(str::to_string).collect(),
        reencoded,
    };
    FileRead { rel: rel.clone(), record, problem: None, content: Some(PageContent { page, passages: parts, lang }) }
}

/// `simhash(&page.prose())`, without building the prose string (as large
/// as the page).
fn prose_fingerprint(page: &Page) -> u64 {
    let mut h = SimHasher::default();
    for b in page.sections.iter().flat_map(|s| &s.blocks) {
        if let Block::Para(t) = b {
            h.write(t);
        }
    }
    h.finish()
}

/// Reads, extracts and indexes one file; only an index failure is an error.
fn process(
    entry: &FileEntry,
    writer: &IndexWriter<TantivyDocument>,
    fields: Fields,
    cfg: &LocalConfig,
) -> Result<Extraction, CorpusError> {
    let FileRead { rel, record, problem, content } = read_file(entry, cfg);
    let Some(PageContent { page, passages, lang }) = content else { return Ok((rel, record, problem)) };
    let rel = &rel;
    // Each passage is dropped once its document is handed to the writer.
    for p in passages {
        let mut doc = TantivyDocument::default();
        doc.add_text(fields.kind, KIND_PASSAGE);
        doc.add_text(fields.path, rel);
        if let Some(a) = &p.anchor {
            doc.add_text(fields.anchor, a);
        }
        doc.add_text(fields.title, &page.title);
        if let Some(h) = &p.heading {
            doc.add_text(fields.heading, h);
        }
        let words = p.text.split_whitespace().count() as u64;
        doc.add_text(fields.body, p.text);
        if !p.links.is_empty() {
            doc.add_text(fields.links, p.links.join(" "));
        }
        doc.add_u64(fields.words, words);
        doc.add_text(fields.lang, &lang);
        writer.add_document(doc).map_err(CorpusError::index)?;
    }
    if let Some(doc) = definition_doc(fields, rel, &page, &lang) {
        writer.add_document(doc).map_err(CorpusError::index)?;
    }
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.kind, KIND_PAGE);
    doc.add_text(fields.path, rel);
    doc.add_text(fields.page_title, &page.title);
    doc.add_text(fields.page_text, page.render());
    drop(page);
    doc.add_u64(fields.mtime, entry.mtime_ns / 1_000_000_000);
    writer.add_document(doc).map_err(CorpusError::index)?;
    Ok((rel.clone(), record, problem))
}
