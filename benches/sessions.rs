//! Session store speed: opening a session of 10,000 events
//! (lock, load, replay, open for appending) and appending one event
//! (flushed per event, synced twice per iteration as the engine does).
//! The log is written by the real engine with the tests' scripted parts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sleuth::engine::Engine;
use sleuth::engine::memory::{InMemoryStore, MemorySettings};
use sleuth::engine::model::SourceKind;
use sleuth::engine::ports::EventSink;
use sleuth::engine::protocol::{Event, EventRecord};
use sleuth::engine::state::SessionState;
use sleuth::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};
use sleuth::session::{LogWriter, SessionDir, SessionLog, open_session, read_log};
use support::disk::{OnAsk, drive, parts};
use support::scripted::{Doc, ScriptedReasoner, Turn, corpus};

const EVENTS: usize = 10_000;

/// Hits spread over the whole corpus (the scripted provider's depend on
/// the query's length only), so every iteration finds new sources.
struct SpreadProvider {
    docs: Vec<Doc>,
}

#[async_trait]
impl SearchProvider for SpreadProvider {
    fn name(&self) -> &str {
        "spread"
    }

    async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let hash =
            q.text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let start = (hash % self.docs.len() as u64) as usize;
        Ok((0..q.limit)
            .map(|k| {
                let d = &self.docs[(start + k * 7) % self.docs.len()];
                SearchHit {
                    locator: d.locator.clone(),
                    title: d.title.clone(),
                    snippet: d.text.chars().take(80).collect(),
                    score: 10.0 - k as f32,
                    kind: SourceKind::Web,
                    canonical: None,
                    heading: None,
                    published: Some("2025-01-15".into()),
                    site: None,
                    tier: Some(1),
                    scholarly: None,
                }
            })
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let d = self.docs.iter().find(|d| d.locator == hit.locator).ok_or(ProviderError::permanent("404"))?;
        Ok(FetchedDoc::text(d.text.clone()))
    }
}

/// A session whose log holds exactly `EVENTS` events: a long research
/// run (never meeting its thresholds) cut where a crash would cut it.
fn long_session(root: &Path) -> String {
    let mut settings = support::settings(2_000);
    // Never stop early: only the iteration limit ends it.
    settings.decide.diminishing_returns_window = 1_000_000;
    // Nor on stagnation (a round that kept no new source and gained less than this).
    settings.decide.diminishing_returns_threshold = -1.0;
    settings.decide.convergence_similarity = 2.0;
    settings.decide.severity_plateau_window = 1_000_000;
    settings.limits.time_limit_secs = 0;
    let mut turn = Turn::coverage(1, 3);
    turn.cite = 5;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let provider: Arc<dyn SearchProvider> = Arc::new(SpreadProvider { docs: corpus(3_000) });
    let mut iterations = 100;
    loop {
        let started = std::time::Instant::now();
        let id = format!("long-{iterations}");
        settings.limits.max_iterations = iterations;
        settings.session_id = id.clone();
        let dir = SessionDir::create(root, &id).unwrap();
        let log = SessionLog::create(&dir).unwrap();
        let memory = Arc::new(InMemoryStore::new(MemorySettings::default()));
        let reasoner = Arc::new(ScriptedReasoner::new(vec![turn.clone()]));
        let p = parts(&dir, &settings, reasoner, provider.clone(), memory, Box::new(log));
        let (engine, handle) = Engine::new(settings.clone(), p, SessionState::default());
        let question = "How do widgets connect to gadgets across every lab?";
        runtime.block_on(drive(engine, handle, Some(question), OnAsk::Choose(0)));
        let text = std::fs::read_to_string(dir.log_path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        eprintln!("generated {iterations} iterations: {} events in {:.1?}", lines.len(), started.elapsed());
        if lines.len() >= EVENTS {
            std::fs::write(dir.log_path(), lines[..EVENTS].join("\n") + "\n").unwrap();
            let _ = std::fs::remove_file(dir.summary_path());
            return id;
        }
        assert!(
            lines.len() > 10 * iterations as usize,
            "the session stopped early: {} events for {iterations} iterations, ending {}",
            lines.len(),
            lines[lines.len().saturating_sub(3)..].join("\n")
        );
        iterations = (u64::from(iterations) * EVENTS as u64 / lines.len() as u64) as u32 + 10;
    }
}

/// Generated once, shared by both groups.
fn shared_session() -> &'static (tempfile::TempDir, String) {
    static SESSION: OnceLock<(tempfile::TempDir, String)> = OnceLock::new();
    SESSION.get_or_init(|| {
        let home = tempfile::tempdir().unwrap();
        let id = long_session(&home.path().join("sessions"));
        (home, id)
    })
}

fn open(c: &mut Criterion) {
    let (home, id) = shared_session();
    let root = home.path().join("sessions");
    let dir = SessionDir::new(&root, id);
    let bytes = std::fs::metadata(dir.log_path()).unwrap().len();
    let state = SessionState::replay(&read_log(&dir.log_path()).unwrap().records);
    eprintln!(
        "session of {EVENTS} events: {:.1} MB, {} iterations, {} sources",
        bytes as f64 / 1e6,
        state.iteration(),
        state.sources.len()
    );
    let mut g = c.benchmark_group("open");
    g.sample_size(30);
    g.bench_function("open_session_10k_events", |b| {
        b.iter(|| {
            let opened = open_session(&root, id).unwrap();
            black_box(opened.state.iteration());
        })
    });
    g.bench_function("read_and_replay_10k_events", |b| {
        b.iter(|| black_box(SessionState::replay(&read_log(&dir.log_path()).unwrap().records).last_seq))
    });
    // What `sleuth open` does before the user sees anything: read, fold,
    // build the review app, draw the first frame (target: under 150 ms).
    let opts = sleuth::tui::Options::from_config(&sleuth::tui::TuiConfig::default(), None).unwrap();
    g.bench_function("open_to_first_frame_10k_events", |b| {
        b.iter(|| {
            let app = sleuth::tui::load_review(&dir.path, &opts).unwrap().with_size(100, 30);
            let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
            terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
            black_box(terminal.backend().buffer().area);
        })
    });
    g.finish();
}

fn append(c: &mut Criterion) {
    let (home, id) = shared_session();
    let root = home.path().join("sessions");
    let records = read_log(&SessionDir::new(&root, id).log_path()).unwrap().records;
    // One research iteration's events, as the engine writes them.
    let start = |n: u32| {
        records
            .iter()
            .position(|r| matches!(r.event, Event::IterationStarted { iteration, .. } if iteration == n))
            .unwrap()
    };
    let block: Vec<EventRecord> = records[start(5)..start(6)].to_vec();
    eprintln!("one iteration = {} events, synced twice (iteration start, decision)", block.len());
    let dir = SessionDir::create(&root, "append").unwrap();
    let mut log = SessionLog::create(&dir).unwrap();
    let mut g = c.benchmark_group("append");
    g.throughput(Throughput::Elements(block.len() as u64));
    g.bench_function("append_one_iteration", |b| {
        b.iter(|| {
            for r in &block {
                if matches!(r.event, Event::IterationStarted { .. } | Event::Decided { .. }) {
                    log.checkpoint().unwrap();
                }
                log.record(black_box(r)).unwrap();
            }
        })
    });
    // For comparison: the plain writer syncing in line, as the log would
    // without the background thread.
    let dir = SessionDir::create(&root, "inline").unwrap();
    let mut writer = LogWriter::open(&dir.log_path()).unwrap();
    g.bench_function("append_one_iteration_inline_sync", |b| {
        b.iter(|| {
            for r in &block {
                if matches!(r.event, Event::IterationStarted { .. } | Event::Decided { .. }) {
                    writer.checkpoint().unwrap();
                }
                writer.record(black_box(r)).unwrap();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, open, append);
criterion_main!(benches);
