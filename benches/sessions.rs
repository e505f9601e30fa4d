//! Session store speed (issue 6): opening a session of 10,000 events
//! (lock, load, replay, open for appending) and appending one event
//! (flushed per event, synced twice per iteration as the engine does).
//! The log is written by the real engine with the tests' scripted parts.

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sleuth::engine::memory::{InMemoryStore, MemorySettings};
use sleuth::engine::ports::EventSink;
use sleuth::engine::protocol::{Event, EventRecord};
use sleuth::engine::state::SessionState;
use sleuth::session::{Redactor, SessionDir, SessionLog, open_session, read_log};
use support::disk::{OnAsk, run_new};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};

const EVENTS: usize = 10_000;

/// A session whose log holds exactly `EVENTS` events: a long research
/// run (never meeting its thresholds) cut where a crash would cut it.
fn long_session(root: &Path) -> String {
    let mut settings = support::settings(2_000);
    settings.decide.diminishing_returns_window = usize::MAX;
    settings.decide.convergence_similarity = 2.0;
    settings.decide.severity_plateau_window = usize::MAX;
    settings.limits.time_limit_secs = 0;
    let mut turn = Turn::coverage(1, 3);
    turn.cite = 5;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut iterations = 400;
    loop {
        let id = format!("long-{iterations}");
        settings.limits.max_iterations = iterations;
        let provider = ScriptedProvider::new("scripted", corpus(4_000));
        let memory = Arc::new(InMemoryStore::new(MemorySettings::default()));
        let question = "How do widgets connect to gadgets across every lab?";
        runtime.block_on(run_new(
            root,
            &id,
            settings.clone(),
            ScriptedReasoner::new(vec![turn.clone()]),
            provider,
            memory,
            question,
            OnAsk::Choose(0),
        ));
        let dir = SessionDir::new(root, &id);
        let text = std::fs::read_to_string(dir.log_path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() >= EVENTS {
            std::fs::write(dir.log_path(), lines[..EVENTS].join("\n") + "\n").unwrap();
            let _ = std::fs::remove_file(dir.summary_path());
            return id;
        }
        iterations = iterations * (EVENTS as u32) / lines.len() as u32 + 10;
    }
}

fn open(c: &mut Criterion) {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let id = long_session(&root);
    let dir = SessionDir::new(&root, &id);
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
            let opened = open_session(&root, &id, Redactor::default()).unwrap();
            black_box(opened.state.iteration());
        })
    });
    g.bench_function("read_and_replay_10k_events", |b| {
        b.iter(|| black_box(SessionState::replay(&read_log(&dir.log_path()).unwrap().records).last_seq))
    });
    g.finish();
}

fn append(c: &mut Criterion) {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let id = long_session(&root);
    let records = read_log(&SessionDir::new(&root, &id).log_path()).unwrap().records;
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
    let mut log = SessionLog::create(&dir, Redactor::default()).unwrap();
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
    g.finish();
}

criterion_group!(benches, open, append);
criterion_main!(benches);
