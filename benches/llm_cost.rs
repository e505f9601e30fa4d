//! What an answer costs on the LLM path: calls, calls on the critical path,
//! prompt tokens and wall per answer, per role, for simple / standard /
//! deep, with the gold recall of the cited sources beside them.
//!
//! The model is the scripted OpenAI-compatible server of the tests (wiremock
//! on loopback) answering every request after 0.3 s with valid JSON: queries
//! drawn from the question, quotes copied from the cited sources, the first
//! draft leaving a gap the second fills. The questions are
//! `../shared/eval/rust-docs-dev.jsonl` (or `$SLEUTH_EVAL_DEV`); the
//! sources are a local corpus of the pages those questions name as gold,
//! read from the Rust documentation rustup installs, ranked per query by
//! the words they share with it. (A small corpus, so recall is higher than
//! on the whole documentation: compare the two structures, not the level.)
//!
//! Two call structures run on the same code: `default` (model-free review,
//! the critique in the draft's reply, per-role prompt budgets) and
//! `per-role` (a review call per batch, a critique call, prompts filled to
//! the window: how every run went before).
//!
//! `cargo bench --bench llm_cost` (or, without a release build,
//! `cargo test --bench llm_cost`)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "../tests/llm_support/mod.rs"]
mod llm_support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use async_trait::async_trait;
use llm_support::FakeLlm;
use sleuth::config::Preset;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::{Role, SourceKind};
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command, Event};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::llm::endpoint::Endpoint;
use sleuth::llm::prompts::Prompts;
use sleuth::llm::{LlmConfig, LlmReasoner, PromptBudgets};
use sleuth::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery, SearchRouter};

struct Page {
    path: String,
    text: String,
    words: std::collections::HashSet<String>,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 2).map(str::to_lowercase).collect()
}

/// Text of an HTML page: tags dropped, whitespace collapsed.
fn strip_html(html: &str) -> String {
    let body = html.split("<main").nth(1).unwrap_or(html);
    let mut out = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
    out.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(20_000).collect()
}

/// The pages ranked by the query words they contain.
struct GoldCorpus(Vec<Page>);

#[async_trait]
impl SearchProvider for GoldCorpus {
    fn name(&self) -> &str {
        "local"
    }

    async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let terms = words(&q.text);
        let mut scored: Vec<(usize, &Page)> = self
            .0
            .iter()
            .map(|p| (terms.iter().filter(|t| p.words.contains(*t)).count(), p))
            .filter(|(s, _)| *s > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.path.cmp(&b.1.path)));
        Ok(scored
            .into_iter()
            .take(q.limit.min(8))
            .map(|(s, p)| SearchHit {
                locator: p.path.clone(),
                title: p.path.clone(),
                snippet: p.text.chars().take(120).collect(),
                score: s as f32,
                kind: SourceKind::Local,
                canonical: None,
                heading: None,
                published: None,
                site: None,
                tier: Some(1),
            })
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let p = self.0.iter().find(|p| p.path == hit.locator).ok_or(ProviderError::permanent("404"))?;
        Ok(FetchedDoc::text(p.text.clone()))
    }
}

#[derive(Default, Clone)]
struct Figures {
    answers: u32,
    calls: u32,
    critical: u32,
    prompt: u64,
    wall_ms: u128,
    recall: f64,
    iterations: u32,
    one_iteration_calls: Vec<u32>,
    by_role: BTreeMap<String, (u32, u64)>,
}

fn config(fake: &FakeLlm, per_role: bool) -> LlmConfig {
    let mut c = LlmConfig { base_url: fake.base_url(), model: "test-model".into(), ..LlmConfig::default() };
    c.context_window = 8192;
    if per_role {
        c.review_with_model = true;
        c.self_check = false;
        c.prompt_tokens = PromptBudgets { plan: 0, review: 0, draft: 0, critique: 0, write: 0, clarify: 0 };
    }
    c
}

async fn answer(
    question: &str,
    gold: &[String],
    pages: Arc<GoldCorpus>,
    preset: Preset,
    per_role: bool,
    into: &mut Figures,
) {
    let fake = FakeLlm::start().await;
    fake.state.delay_ms.store(300, Ordering::SeqCst);
    fake.state.queries_from_question.store(true, Ordering::SeqCst);
    fake.state.full_coverage_from.store(2, Ordering::SeqCst);
    let c = config(&fake, per_role);
    let e = Endpoint::with_env(&c.resolved_endpoints()[0], &c, |_| None).unwrap();
    let reasoner = Arc::new(LlmReasoner::with_endpoints(c, Prompts::builtin(), vec![e]).unwrap());
    let mut settings = EngineSettings::with_limits("bench", preset.limits());
    settings.limits.time_limit_secs = 0;
    settings.limits.cost_budget_usd = 0.0;
    let sink = MemorySink::default();
    let provider: Arc<dyn SearchProvider> = pages;
    let parts = EngineParts {
        reasoner,
        search: Arc::new(SearchRouter::new(vec![vec![provider]], &sleuth::search::RouterSettings::default())),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(sink.clone()),
    };
    let started = Instant::now();
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question: question.into() }).unwrap();
    let state: SessionState = engine.run().await.unwrap();
    into.wall_ms += started.elapsed().as_millis();
    into.answers += 1;
    let mut calls = 0;
    let mut review_iterations = std::collections::BTreeSet::new();
    let mut review_calls = 0;
    let mut iteration = 0;
    for r in sink.records() {
        match &r.event {
            Event::IterationStarted { iteration: n, .. } => iteration = *n,
            Event::UsageRecorded { usage } => {
                calls += usage.calls;
                into.prompt += usage.prompt_tokens;
                let e = into.by_role.entry(usage.role.to_string()).or_default();
                e.0 += usage.calls;
                e.1 += usage.prompt_tokens;
                if usage.role == Role::Review {
                    review_calls += usage.calls;
                    review_iterations.insert(iteration);
                }
            }
            _ => {}
        }
    }
    into.calls += calls;
    // Review batches run at once: one step on the critical path per iteration.
    into.critical += calls - review_calls + review_iterations.len() as u32;
    into.iterations += state.iterations.len() as u32;
    if state.iterations.len() == 1 {
        into.one_iteration_calls.push(calls);
    }
    let cited: Vec<String> = state
        .verification
        .as_ref()
        .map(|v| v.cited.iter().filter_map(|id| state.source(*id)).map(|s| s.meta.locator.clone()).collect())
        .unwrap_or_default();
    let found = gold.iter().filter(|g| cited.iter().any(|c| c == *g)).count();
    into.recall += found as f64 / gold.len().max(1) as f64;
}

fn main() {
    let eval = std::env::var("SLEUTH_EVAL_DEV").unwrap_or_else(|_| "/work/shared/eval/rust-docs-dev.jsonl".into());
    let Ok(text) = std::fs::read_to_string(&eval) else {
        println!("llm_cost: {eval} not found; set SLEUTH_EVAL_DEV");
        return;
    };
    let sysroot = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().unwrap();
    let html = std::path::PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim()).join("share/doc/rust/html");
    let questions: Vec<(String, Vec<String>)> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            let gold = v["gold"].as_array().map(|g| g.iter().filter_map(|x| x.as_str()).map(String::from).collect());
            (v["question"].as_str().unwrap_or("").to_string(), gold.unwrap_or_default())
        })
        .collect();
    let mut pages = Vec::new();
    for path in questions.iter().flat_map(|(_, g)| g).collect::<std::collections::BTreeSet<_>>() {
        if let Ok(raw) = std::fs::read_to_string(html.join(path)) {
            let text = strip_html(&raw);
            pages.push(Page { path: path.clone(), words: words(&text).into_iter().collect(), text });
        }
    }
    println!("llm_cost: {} questions, a corpus of {} gold pages, server delay 0.3 s", questions.len(), pages.len());
    let corpus = Arc::new(GoldCorpus(pages));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    println!(
        "\n{:<9} {:<9} {:>6} {:>8} {:>9} {:>10} {:>8} {:>7} {:>6}  per role (calls / prompt tokens per answer)",
        "structure", "preset", "iters", "calls", "critical", "prompt tok", "wall s", "recall", "1-it"
    );
    for per_role in [true, false] {
        for preset in [Preset::Simple, Preset::Standard, Preset::Deep] {
            let mut f = Figures::default();
            for (q, gold) in &questions {
                rt.block_on(answer(q, gold, corpus.clone(), preset, per_role, &mut f));
            }
            let n = f64::from(f.answers.max(1));
            let roles: Vec<String> = f
                .by_role
                .iter()
                .map(|(r, (c, p))| format!("{r} {:.1}/{:.0}", f64::from(*c) / n, *p as f64 / n))
                .collect();
            let one = if f.one_iteration_calls.is_empty() {
                "-".to_string()
            } else {
                format!("{}", f.one_iteration_calls.iter().max().unwrap_or(&0))
            };
            println!(
                "{:<9} {:<9} {:>6.1} {:>8.1} {:>9.1} {:>10.0} {:>8.2} {:>7.2} {:>6}  {}",
                if per_role { "per-role" } else { "default" },
                preset.as_str(),
                f64::from(f.iterations) / n,
                f64::from(f.calls) / n,
                f64::from(f.critical) / n,
                f.prompt as f64 / n,
                f.wall_ms as f64 / 1000.0 / n,
                f.recall / n,
                one,
                roles.join(", ")
            );
        }
    }
}
