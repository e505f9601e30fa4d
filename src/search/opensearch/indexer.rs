//! `sleuth index --to opensearch`: the local index's walk, extraction,
//! passages and near-duplicate folding, loaded into the cluster with
//! `_bulk`. Incremental by the local index's rule (a file is read again
//! when its size or mtime changed; removed files are deleted), with the
//! files index as the manifest. Only canonical pages are loaded: a page
//! folded into its canonical copy is deleted from the passage index.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde_json::json;

use super::bulk::{self, Action, BulkPolicy, BulkReport, Item};
use super::client::ClusterClient;
use super::files::{self, StoredFile};
use super::mapping::{KIND_FIELD, KIND_PAGE, KIND_PASSAGE, PAGE_TEXT_FIELD, PAGE_TITLE_FIELD, WORDS_FIELD};
use super::mapping::{ensure_indexes, files_index, page_id, passage_id};
use super::{OpenSearchConfig, OpenSearchError};
use crate::search::local::steps::{FileEntry, FileRead, FileRecord, FileState, GroupRules, Manifest};
use crate::search::local::steps::{group, read_file, tally, walk};
use crate::search::local::{CorpusError, IndexSummary, LocalConfig};

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct ClusterIndexSummary {
    /// The same counts as the local index's.
    pub corpus: IndexSummary,
    /// Indexes this run created.
    pub created: Vec<String>,
    /// Documents written or deleted, and batches sent again.
    pub bulk: BulkReport,
}

impl ClusterIndexSummary {
    pub fn describe(&self) -> String {
        let mut s = self.corpus.describe();
        if !self.created.is_empty() {
            s.push_str(&format!("\ncreated {}", self.created.join(", ")));
        }
        s.push_str(&format!(
            "\n{} documents written or deleted in {} _bulk requests ({} sent again after the cluster pushed back)",
            self.bulk.written, self.bulk.batches, self.bulk.retried
        ));
        if !self.bulk.failed.is_empty() {
            s.push_str(&format!("\n{} files failed and will be tried again next run:", self.bulk.failed.len()));
            for (file, why) in self.bulk.failed.iter().take(5) {
                s.push_str(&format!("\n  {file}: {why}"));
            }
        }
        s
    }
}

/// Brings the cluster's index up to date with the folder `root`.
pub async fn index_folder(
    cfg: &OpenSearchConfig,
    local: &LocalConfig,
    root: &Path,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<ClusterIndexSummary, OpenSearchError> {
    let started = Instant::now();
    let client = ClusterClient::new(cfg).map_err(OpenSearchError::Config)?;
    let created = ensure_indexes(&client, cfg).await?;
    let stored = files::load(&client, &files_index(cfg)).await?;
    let stored_stats = super::stats::read(&client, &files_index(cfg)).await;
    let walked = {
        let root = root.to_path_buf();
        tokio::task::spawn_blocking(move || walk(&root, None))
            .await
            .map_err(|e| OpenSearchError::Config(e.to_string()))?
    };
    let (entries, problems) = walked;
    if entries.is_empty() {
        let problems = problems.examples.clone();
        return Err(CorpusError::Empty { path: root.to_path_buf(), problems }.into());
    }
    let present: HashSet<&str> = entries.iter().map(|f| f.rel.as_str()).collect();
    let removed: Vec<&StoredFile> = stored.values().filter(|f| !present.contains(f.path.as_str())).collect();
    let limit = local.max_file_mb.saturating_mul(1 << 20);
    let todo: Vec<FileEntry> = entries
        .iter()
        .filter(|f| {
            stored.get(&f.rel).is_none_or(|s| {
                let was_too_large =
                    s.record.state == FileState::Skipped(crate::search::local::extract::SkipReason::TooLarge);
                // A record without its terms (an older sleuth's) is read again
                // for the corpus statistics.
                s.record.size != f.size
                    || s.record.mtime_ns != f.mtime_ns
                    || was_too_large != (f.size > limit)
                    || (s.present && s.terms.is_none())
            })
        })
        .cloned()
        .collect();
    progress(&format!("opensearch: {} files, {} new or changed, {} removed", entries.len(), todo.len(), removed.len()));

    // Pass 1: the records of changed files, for the duplicate groups.
    let mut manifest = Manifest::new(root);
    for f in stored.values().filter(|f| present.contains(f.path.as_str())) {
        manifest.files.insert(f.path.clone(), f.record.clone());
    }
    let mut example_problems = problems.examples.clone();
    for read in read_all(todo.clone(), local.clone()).await? {
        example_problems.extend(read.problem);
        manifest.files.insert(read.rel, read.record);
    }
    let groups = group(
        &manifest.files,
        &GroupRules {
            max_bits: local.duplicate_max_bits,
            stub_max_words: local.stub_max_words,
            min_words: 20,
            prefer: &local.prefer,
        },
    );
    let present_now: HashSet<String> = manifest
        .files
        .iter()
        .filter(|(path, r)| r.state == FileState::Indexed && !groups.contains_key(*path))
        .map(|(path, _)| path.clone())
        .collect();
    let now_present = |path: &str| present_now.contains(path);
    let changed: HashSet<&str> = todo.iter().map(|f| f.rel.as_str()).collect();
    let plan = plan(cfg, &stored, &removed, &manifest, &changed, &now_present);

    // Pass 2: deletes, then the pages to load, in batches.
    let send: Vec<FileEntry> = entries.iter().filter(|f| plan.send.contains(f.rel.as_str())).cloned().collect();
    let policy = BulkPolicy {
        in_flight: cfg.bulk_in_flight.max(1),
        retries: cfg.bulk_retries,
        backoff: std::time::Duration::from_millis(500),
    };
    let total = plan.deletes.len()
        + send.iter().map(|f| manifest.files.get(&f.rel).map_or(1, |r| r.passages as usize + 1)).sum::<usize>();
    let last = Mutex::new(Instant::now());
    let report_progress = |r: &BulkReport| {
        let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
        if last.elapsed().as_secs_f64() >= 1.0 {
            *last = Instant::now();
            let rate = r.written as f64 / started.elapsed().as_secs_f64().max(0.001);
            progress(&format!(
                "opensearch: {} / ~{total} documents ({rate:.0}/s, {} batches sent again)",
                r.written, r.retried
            ));
        }
    };
    let (tx, rx) = tokio::sync::mpsc::channel(policy.in_flight);
    let producer = {
        let (cfg, local, root, deletes) = (cfg.clone(), local.clone(), root.to_path_buf(), plan.deletes.clone());
        tokio::task::spawn_blocking(move || produce(&cfg, &local, &root, deletes, &send, &tx))
    };
    let mut report = bulk::load(&client, policy, rx, &report_progress).await?;
    let reread = producer.await.map_err(|e| OpenSearchError::Config(e.to_string()))?;
    let mut terms: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    for (rel, record, file_terms) in reread {
        manifest.files.insert(rel.clone(), record);
        terms.insert(rel, file_terms);
    }
    for (path, f) in &stored {
        if let (false, Some(t)) = (terms.contains_key(path), &f.terms) {
            terms.insert(path.clone(), t.clone());
        }
    }

    // The files index last: a file whose writes failed keeps its old record
    // (or none), so the next run tries it again.
    let mut records = Vec::new();
    let files_index = files_index(cfg);
    for path in plan.records.iter().filter(|p| !report.failed.contains_key(*p)) {
        let Some(record) = manifest.files.get(path) else { continue };
        let stored = StoredFile {
            path: path.clone(),
            present: now_present(path),
            record: record.clone(),
            terms: terms.get(path).cloned(),
        };
        let source = serde_json::to_value(stored).map_err(|e| OpenSearchError::Config(e.to_string()))?;
        records.push(Item {
            file: path.clone(),
            action: Action::Index { index: files_index.clone(), id: super::mapping::doc_id(path), source },
        });
    }
    for f in removed.iter().filter(|f| !report.failed.contains_key(&f.path)) {
        records.push(Item {
            file: f.path.clone(),
            action: Action::Delete { index: files_index.clone(), id: super::mapping::doc_id(&f.path) },
        });
    }
    // The corpus statistics of the passages now in the index (a file whose
    // writes failed keeps its old passages and terms).
    let in_index = |path: &str| {
        if report.failed.contains_key(path) { stored.get(path).is_some_and(|s| s.present) } else { now_present(path) }
    };
    let stats =
        super::stats::CorpusStats::total(manifest.files.iter().filter(|(p, _)| in_index(p)).filter_map(|(p, r)| {
            let passages =
                if report.failed.contains_key(p) { stored.get(p).map_or(0, |s| s.record.passages) } else { r.passages };
            terms.get(p).map(|t| (passages, t))
        }));
    if stored_stats.as_ref() != Some(&stats) {
        records.push(Item {
            file: "(corpus statistics)".into(),
            action: Action::Index {
                index: files_index.clone(),
                id: super::stats::STATS_ID.into(),
                source: super::stats::document(&stats),
            },
        });
    }
    let (tx, rx) = tokio::sync::mpsc::channel(policy.in_flight);
    let batch = cfg.bulk_docs.max(1);
    let feeder = tokio::spawn(async move {
        for chunk in records.chunks(batch) {
            if tx.send(chunk.to_vec()).await.is_err() {
                break;
            }
        }
    });
    let recorded = bulk::load(&client, policy, rx, &|_| {}).await?;
    let _ = feeder.await;
    report.batches += recorded.batches;
    report.retried += recorded.retried;
    for (file, why) in recorded.failed {
        report.failed.entry(file).or_insert(why);
    }

    let mut corpus = IndexSummary { files: entries.len(), unchanged: entries.len() - todo.len(), ..Default::default() };
    corpus.extracted = todo.len();
    corpus.removed = removed.len();
    corpus.duplicates = groups.len();
    tally(&manifest, &problems, &mut corpus);
    example_problems.truncate(5);
    corpus.problems = example_problems;
    corpus.elapsed = started.elapsed();
    Ok(ClusterIndexSummary { corpus, created, bulk: report })
}

/// What a run writes.
struct Plan {
    deletes: Vec<Item>,
    /// Pages to (re)load.
    send: HashSet<String>,
    /// Files whose record changes.
    records: Vec<String>,
}

fn plan(
    cfg: &OpenSearchConfig,
    stored: &BTreeMap<String, StoredFile>,
    removed: &[&StoredFile],
    manifest: &Manifest,
    changed: &HashSet<&str>,
    now_present: &dyn Fn(&str) -> bool,
) -> Plan {
    let mut deletes = Vec::new();
    let delete = |path: &str, from: u32, to: u32, page: bool, out: &mut Vec<Item>| {
        let index = cfg.index.clone();
        for n in from..to {
            out.push(Item {
                file: path.into(),
                action: Action::Delete { index: index.clone(), id: passage_id(path, n) },
            });
        }
        if page {
            out.push(Item { file: path.into(), action: Action::Delete { index, id: page_id(path) } });
        }
    };
    for f in removed.iter().filter(|f| f.present) {
        delete(&f.path, 0, f.record.passages, true, &mut deletes);
    }
    let (mut send, mut records) = (HashSet::new(), Vec::new());
    for (path, record) in &manifest.files {
        let old = stored.get(path);
        let was = old.is_some_and(|s| s.present);
        let now = now_present(path);
        let old_n = old.map_or(0, |s| s.record.passages);
        let is_changed = changed.contains(path.as_str());
        match (was, now) {
            (true, false) => delete(path, 0, old_n, true, &mut deletes),
            // Ids past the new count would be left behind.
            (true, true) if is_changed => delete(path, record.passages.min(old_n), old_n, false, &mut deletes),
            _ => {}
        }
        if now && (is_changed || !was) {
            send.insert(path.clone());
        }
        if is_changed || was != now || old.is_none() {
            records.push(path.clone());
        }
    }
    Plan { deletes, send, records }
}

/// Reads `todo` on every core (records only).
async fn read_all(todo: Vec<FileEntry>, local: LocalConfig) -> Result<Vec<FileRead>, OpenSearchError> {
    tokio::task::spawn_blocking(move || {
        let out = Mutex::new(Vec::new());
        for_each_parallel(&todo, &local, |mut read| {
            read.content = None;
            out.lock().unwrap_or_else(|p| p.into_inner()).push(read);
            true
        });
        out.into_inner().unwrap_or_else(|p| p.into_inner())
    })
    .await
    .map_err(|e| OpenSearchError::Config(e.to_string()))
}

/// Runs `each` on the reads of `files` over the configured threads; stops
/// early when `each` says so.
fn for_each_parallel(files: &[FileEntry], local: &LocalConfig, each: impl Fn(FileRead) -> bool + Sync) {
    let threads =
        if local.threads == 0 { std::thread::available_parallelism().map_or(2, |n| n.get()) } else { local.threads };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(entry) = files.get(i) else { break };
                    if !each(read_file(entry, local)) {
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
}

/// A file read again: its path, record and passages' terms.
type Reread = (String, FileRecord, BTreeMap<String, u32>);

/// Sends the deletes, then the documents of `send` in batches of
/// `bulk_docs`; returns the records read (the files may have changed
/// since the first pass) with the terms of their passages.
fn produce(
    cfg: &OpenSearchConfig,
    local: &LocalConfig,
    root: &Path,
    deletes: Vec<Item>,
    send: &[FileEntry],
    tx: &tokio::sync::mpsc::Sender<Vec<Item>>,
) -> Vec<Reread> {
    let size = cfg.bulk_docs.max(1);
    for chunk in deletes.chunks(size) {
        if tx.blocking_send(chunk.to_vec()).is_err() {
            return Vec::new();
        }
    }
    let pending = Mutex::new(Vec::<Item>::new());
    let records = Mutex::new(Vec::new());
    for_each_parallel(send, local, |read| {
        let items = documents(cfg, root, &read);
        let terms = read
            .content
            .as_ref()
            .map_or_else(BTreeMap::new, |c| super::stats::passage_terms(c.passages.iter().map(|p| p.text.as_str())));
        records.lock().unwrap_or_else(|p| p.into_inner()).push((read.rel.clone(), read.record, terms));
        let full = {
            let mut pending = pending.lock().unwrap_or_else(|p| p.into_inner());
            pending.extend(items);
            (pending.len() >= size).then(|| std::mem::take(&mut *pending))
        };
        full.is_none_or(|batch| tx.blocking_send(batch).is_ok())
    });
    let rest = pending.into_inner().unwrap_or_else(|p| p.into_inner());
    if !rest.is_empty() {
        let _ = tx.blocking_send(rest);
    }
    records.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// The passage documents and the page document of a read file.
fn documents(cfg: &OpenSearchConfig, root: &Path, read: &FileRead) -> Vec<Item> {
    let Some(content) = &read.content else { return Vec::new() };
    let (rel, page) = (&read.rel, &content.page);
    let url = file_url(&root.join(rel));
    let item =
        |id: String, source| Item { file: rel.clone(), action: Action::Index { index: cfg.index.clone(), id, source } };
    let mut out = Vec::with_capacity(content.passages.len() + 1);
    for (n, p) in content.passages.iter().enumerate() {
        let mut source = json!({
            (KIND_FIELD): KIND_PASSAGE, "path": rel, (cfg.url_field.clone()): url, (cfg.title_field.clone()): page.title,
            (cfg.text_field.clone()): p.text, "lang": content.lang, (WORDS_FIELD): p.text.split_whitespace().count(),
        });
        if let Some(h) = &p.heading {
            source[cfg.heading_field.as_str()] = json!(h);
        }
        if let Some(a) = &p.anchor {
            source[cfg.anchor_field.as_str()] = json!(a);
        }
        out.push(item(passage_id(rel, n as u32), source));
    }
    let page_doc = json!({
        (KIND_FIELD): KIND_PAGE, "path": rel, (cfg.url_field.clone()): url, (PAGE_TITLE_FIELD): page.title,
        (PAGE_TEXT_FIELD): page.render(), "mtime": read.record.mtime_ns / 1_000_000_000,
    });
    out.push(item(page_id(rel), page_doc));
    out
}

fn file_url(path: &PathBuf) -> String {
    reqwest::Url::from_file_path(path).map_or_else(|()| path.display().to_string(), |u| u.to_string())
}
