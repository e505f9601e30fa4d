//! Engine speed with scripted parts:
//! - a deep-preset session of 10 iterations over 200 sources, zero-latency
//!   parts: the time spent in the engine itself (target < 20 ms, release),
//!   and the same with a key configured, whose redaction scans every event
//!   as it leaves the engine (redaction happens once, in `Engine::emit`);
//! - six queries against a provider that answers after 200 ms: the SEARCH
//!   phase's wall time (target < 300 ms: queries run in parallel), and the
//!   same with `search.concurrency = 1` for comparison.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sleuth::engine::protocol::Event;
use sleuth::engine::redact::Redactor;
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};
use support::{Harness, settings};

fn deep_harness(redactor: &Redactor) -> Harness {
    let mut s = settings(10);
    s.redactor = redactor.clone();
    s.limits.max_queries = 15;
    s.limits.max_sources = 20;
    s.search.results_per_query = 10;
    // Run all ten iterations: no early stop by gain or similarity.
    s.decide.diminishing_returns_threshold = 0.0;
    s.decide.convergence_similarity = 1.0;
    s.decide.severity_plateau_window = 100;
    let turns = (1..=10).map(|i| Turn::coverage(i, 20)).collect();
    let mut reasoner = ScriptedReasoner::new(turns);
    reasoner.queries_per_plan = 15;
    Harness::new(s, reasoner, ScriptedProvider::new("scripted", corpus(400)))
}

fn deep_session(c: &mut Criterion) {
    // One thread: the figure is the engine's own work, not cross-thread wake-ups.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // Sanity check outside the timing: the run really is 10 iterations over 200 sources.
    let none = Redactor::default();
    let out = rt.block_on(deep_harness(&none).run("widget facts"));
    assert_eq!(out.state.iteration(), 10);
    assert_eq!(out.state.sources.len(), 200, "sources");
    c.bench_function("deep session: 10 iterations, 200 sources", |b| {
        b.iter(|| rt.block_on(deep_harness(&none).run("widget facts")))
    });
    // A key is set (an LLM or web provider key): every event is scanned;
    // the question quotes it, so the header is rebuilt blanked.
    let key = Redactor::new(["sk-bench-0123456789abcdef".to_string()]);
    let question = "widget facts sk-bench-0123456789abcdef";
    let out = rt.block_on(deep_harness(&key).run(question));
    assert_eq!((out.state.iteration(), out.state.question()), (10, "widget facts [redacted]"));
    c.bench_function("deep session with a key to redact", |b| b.iter(|| rt.block_on(deep_harness(&key).run(question))));
}

fn search_phase_ms(concurrency: usize, rt: &tokio::runtime::Runtime) -> Duration {
    let mut s = settings(1);
    s.limits.max_queries = 6;
    s.search.concurrency = concurrency;
    let mut provider = ScriptedProvider::new("slow", corpus(30));
    provider.delay = Duration::from_millis(200);
    let mut reasoner = ScriptedReasoner::new(vec![Turn::coverage(2, 2)]);
    reasoner.queries_per_plan = 6;
    let out = rt.block_on(Harness::new(s, reasoner, provider).run("q"));
    let at = |pred: fn(&Event) -> bool| out.records.iter().find(|r| pred(&r.event)).map(|r| r.elapsed_ms).unwrap();
    let planned = at(|e| matches!(e, Event::Planned { .. }));
    let searched = at(|e| matches!(e, Event::SearchCompleted { .. }));
    assert_eq!(out.state.iterations[0].queries.len(), 6);
    Duration::from_millis(searched - planned)
}

fn search_phase(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut group = c.benchmark_group("search phase: 6 queries, 200 ms each");
    group.sample_size(10);
    for concurrency in [6, 1] {
        group.bench_function(format!("concurrency {concurrency}"), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| search_phase_ms(concurrency, &rt)).sum())
        });
    }
    group.finish();
}

criterion_group!(benches, deep_session, search_phase);
criterion_main!(benches);
