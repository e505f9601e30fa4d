//! The LLM reasoner on a scripted OpenAI-compatible server (wiremock on
//! loopback): round trips and prompt tokens per iteration for a session on
//! the standard preset, then a 10-iteration session whose largest prompt
//! must stay within the configured context window as sources pile up; and
//! criterion timings of prompt building with compaction.
//!
//! `cargo bench --bench llm_context`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "../tests/support/llm.rs"]
mod llm_support;
#[path = "../tests/support/scripted.rs"]
#[allow(dead_code)]
mod scripted;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use criterion::{Criterion, criterion_group};
use llm_support::{FakeLlm, request_tokens, role_of};
use scripted::{Doc, ScriptedProvider, doc};
use sleuth::config::Preset;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::Role;
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command, Event};
use sleuth::engine::reasoner::{DraftContext, SourceDoc};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::llm::compaction::{PassageCache, prompt_budget};
use sleuth::llm::endpoint::Endpoint;
use sleuth::llm::prompts::Prompts;
use sleuth::llm::render::Renderer;
use sleuth::llm::{LlmConfig, LlmReasoner};
use sleuth::search::{SearchProvider, SearchRouter};

/// Distinct documents of about 4,000 tokens each.
fn long_docs(n: usize) -> Vec<Doc> {
    (1..=n)
        .map(|i| {
            let mut text = format!("Fact number {i} says that widget {i} connects to gadget {}. ", i * 7);
            for p in 0..12 {
                let s: String = (0..30)
                    .map(|j| format!("Part {} of page {i} holds value {} here. ", p * 31 + j, i * 1000 + p * 31 + j))
                    .collect();
                text.push_str(&format!("Paragraph {p} about widgets and gadgets. {s}\n\n"));
            }
            doc(&format!("https://docs.example.org/long{i}"), &text)
        })
        .collect()
}

#[derive(Default, Debug)]
struct IterationFigures {
    round_trips: u32,
    prompt_tokens: u64,
    largest_prompt: u64,
    sources_known: usize,
}

/// Runs one session; returns figures per iteration (WRITE as iteration 0)
/// and the largest prompt the server received.
fn session(
    rt: &tokio::runtime::Runtime,
    settings: EngineSettings,
    window: u32,
    docs: usize,
) -> (BTreeMap<u32, IterationFigures>, u64) {
    rt.block_on(async {
        let fake = FakeLlm::start().await;
        // The critic never declares the answer complete: the loop runs to its limit.
        fake.state.full_coverage_from.store(999, Ordering::SeqCst);
        let config = LlmConfig {
            base_url: fake.base_url(),
            model: "test-model".into(),
            context_window: window,
            ..LlmConfig::default()
        };
        let endpoint = Endpoint::with_env(&config.resolved_endpoints()[0], &config, |_| None).unwrap();
        let reasoner = Arc::new(LlmReasoner::with_endpoints(config, Prompts::builtin(), vec![endpoint]).unwrap());
        let provider: Arc<dyn SearchProvider> = Arc::new(ScriptedProvider::new("web", long_docs(docs)));
        let sink = MemorySink::default();
        let parts = EngineParts {
            reasoner,
            search: Arc::new(SearchRouter::new(
                vec![vec![provider]],
                &sleuth::search::RouterSettings { backoff_min_ms: 1, ..Default::default() },
            )),
            texts: Arc::new(MemoryTexts::default()),
            memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
            log: Box::new(sink.clone()),
        };
        let (engine, handle) = Engine::new(settings, parts, SessionState::default());
        handle.commands.send(Command::Start { question: "How do widgets connect to gadgets?".into() }).unwrap();
        let state = engine.run().await.unwrap();
        let mut figures: BTreeMap<u32, IterationFigures> = BTreeMap::new();
        let mut current = 0;
        let mut sources = 0;
        for r in sink.records() {
            match &r.event {
                Event::IterationStarted { iteration, .. } => current = *iteration,
                Event::SourceAdded { .. } => sources += 1,
                Event::UsageRecorded { usage } => {
                    let key = if usage.role == Role::Write { 0 } else { current };
                    let f = figures.entry(key).or_default();
                    f.round_trips += usage.calls;
                    f.prompt_tokens += usage.prompt_tokens;
                    f.largest_prompt = f.largest_prompt.max(usage.prompt_tokens / u64::from(usage.calls.max(1)));
                    f.sources_known = sources;
                }
                _ => {}
            }
        }
        assert!(state.report.is_some(), "the session wrote no report");
        let largest = fake.state.requests.lock().unwrap().iter().map(request_tokens).max().unwrap_or(0);
        let roles: Vec<String> = fake.state.requests.lock().unwrap().iter().map(role_of).collect();
        assert!(roles.iter().any(|r| r == "write"));
        (figures, largest)
    })
}

fn settings(preset: Preset) -> EngineSettings {
    let mut s = EngineSettings::with_limits("bench", preset.limits());
    s.limits.time_limit_secs = 0;
    s.limits.cost_budget_usd = 0.0;
    s.limits.token_budget = 0;
    // Run every iteration the preset allows (no early stop on a plateau).
    s.decide.diminishing_returns_threshold = 0.0;
    s.decide.convergence_similarity = 1.01;
    s
}

fn print(title: &str, figures: &BTreeMap<u32, IterationFigures>) {
    println!("\n{title}");
    println!("{:>9} {:>8} {:>12} {:>12} {:>14}", "iteration", "sources", "round trips", "prompt tok", "largest prompt");
    for (n, f) in figures {
        let label = if *n == 0 { "write".to_string() } else { n.to_string() };
        println!(
            "{label:>9} {:>8} {:>12} {:>12} {:>14}",
            f.sources_known, f.round_trips, f.prompt_tokens, f.largest_prompt
        );
    }
}

fn report_sessions() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (standard, largest) = session(&rt, settings(Preset::Standard), 8192, 80);
    print("standard preset (5 iterations, 10 queries, 15 sources), context_window 8192:", &standard);
    println!("largest prompt: {largest} tokens + 2048 reserved for the reply, window 8192");

    let mut deep = settings(Preset::Deep);
    deep.limits.max_iterations = 10;
    let window = 8192;
    let (figures, largest) = session(&rt, deep, window, 150);
    print("10 iterations (deep preset: 15 queries, 20 sources), context_window 8192:", &figures);
    let budget = prompt_budget(window, 2048);
    println!("largest prompt: {largest} tokens (budget {budget}; + 2048 reply = {} ≤ {window})", largest + 2048);
    assert!(largest + 2048 <= u64::from(window), "a prompt overflowed the context window");
}

fn source(id: u32, text: &str) -> SourceDoc {
    SourceDoc::page(id, &format!("https://docs.example.org/{id}"), &format!("Page {id}"), text)
}

fn bench_prompts(c: &mut Criterion) {
    let docs: Vec<SourceDoc> = long_docs(60).iter().enumerate().map(|(i, d)| source(i as u32 + 1, &d.text)).collect();
    let ctx = DraftContext {
        question: "How do widgets connect to gadgets?".into(),
        constraints: vec![],
        iteration: 3,
        sources: docs,
        previous_draft: None,
        previous_critique: None,
        memories: vec![],
    };
    let prompts = Prompts::builtin();
    let warm = PassageCache::default();
    let mut group = c.benchmark_group("llm_prompt");
    group.sample_size(10);
    group.bench_function("draft_60_sources_cached_passages", |b| {
        b.iter(|| Renderer { prompts: &prompts, cache: &warm, budget: prompt_budget(8192, 2048) }.draft(&ctx))
    });
    group.bench_function("draft_60_sources_cold", |b| {
        b.iter(|| {
            let cold = PassageCache::default();
            Renderer { prompts: &prompts, cache: &cold, budget: prompt_budget(8192, 2048) }.draft(&ctx)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_prompts);

fn main() {
    // The session figures take a minute; skip them to time prompt building only.
    if std::env::var_os("SLEUTH_BENCH_PROMPTS_ONLY").is_none() {
        report_sessions();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
