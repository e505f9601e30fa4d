//! What an answer costs on the LLM path: calls, calls on the critical path,
//! prompt tokens and wall per answer, per role, for simple / standard /
//! deep, with the gold recall of the cited sources beside them.
//!
//! The model is the scripted OpenAI-compatible server of the tests (wiremock
//! on loopback) answering every request after 0.3 s with valid JSON: queries
//! drawn from the question, quotes copied from the cited sources, the first
//! draft leaving a gap the second fills. The questions are the JSONL file
//! `$SLEUTH_EVAL_DEV` names; unset, the project's dev set where it sits
//! beside the checkout (`../shared/eval/rust-docs-dev.jsonl`, not shipped
//! with the repository). No file: the bench says so and exits with 2.
//!
//! The search is sleuth's SearXNG provider against a SearXNG-format server
//! on loopback (`/search?format=json` answering `results: [{url, title,
//! content}]`), and every page is fetched over HTTP from the same server
//! (as `doc.rust-lang.org`, resolved to loopback) and extracted by sleuth's
//! web extractor, with the default politeness (2 at a time per host, 100 ms
//! apart). The pages are the Rust documentation rustup installs: every
//! chapter of the book, every `std` module index, the Reference's top-level
//! pages, and the questions' gold pages — ranked per query by tf-idf.
//!
//! Call structures on the same code: `default` (model-free review, the
//! critique in the draft's reply, REFINE from the draft's check, the report
//! from the best draft: per-role prompt budgets), `settled` (the default
//! structure, the scripted critic satisfied by the first draft: what a
//! question settled in one iteration costs), `write` (the default with
//! `write_with_model = true`), `before` (the previous default: a REFINE call
//! per later round and a WRITE call) and `per-role` (a review call per batch,
//! a critique call, prompts filled to the window: the structure before that,
//! reproduced by configuration; it leaves out its clarify call on every
//! question and its claims-only call, so it understates that cost).
//!
//! Faults, on the default structure: `cut30` and `cut30-write` (with a model
//! writer) cut 30 % of the replies in half — the report counts junk reports
//! (a JSON value, no citation while sources exist, sleuth's own prompt in
//! it, empty) and what became of every cut reply (repaired: sent back in a
//! repair turn; fallback: its phase fell back; unaccounted: neither, i.e.
//! used as it was); `empty` answers `{}` to everything, and each session's
//! wall is set against the built-in reasoner alone on the same question and
//! pages (the target: at most 1.25 × the built-in's time + two round trips).
//!
//! `cargo bench --bench llm_cost` (or, without a release build,
//! `cargo test --bench llm_cost`). `LLM_COST_STRUCTURES=default,settled`,
//! `LLM_COST_PRESETS=standard` and `LLM_COST_QUESTIONS=3` run a subset;
//! `LLM_COST_TRACE=1` prints every iteration's review, evaluation and
//! decision (why a session ran as many rounds as it did).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "../tests/support/llm.rs"]
mod llm_support;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use llm_support::FakeLlm;
use serde_json::json;
use sleuth::config::Preset;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::Role;
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command, Event};
use sleuth::engine::reasoner::Reasoner;
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::llm::endpoint::Endpoint;
use sleuth::llm::prompts::Prompts;
use sleuth::llm::{LlmConfig, LlmReasoner, PromptBudgets};
use sleuth::search::web::{Searxng, WebClient, WebConfig};
use sleuth::search::{SearchProvider, SearchRouter};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The scripted model server's delay per reply: one round trip.
const DELAY_MS: u64 = 300;

/// The host the pages are served as (resolved to the loopback server).
const DOCS_HOST: &str = "doc.rust-lang.org";

struct Page {
    path: String,
    title: String,
    html: String,
    text: String,
    /// Term frequencies of the page's words.
    tf: HashMap<String, u32>,
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
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn title_of(html: &str, path: &str) -> String {
    html.split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .map(|t| t.replace("&amp;", "&").trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| path.to_string())
}

/// The documentation pages and their document frequencies.
struct Docs {
    pages: Vec<Page>,
    df: HashMap<String, u32>,
    port: u16,
}

impl Docs {
    /// The pages ranked by tf-idf for the query's words, best first.
    fn rank(&self, query: &str) -> Vec<&Page> {
        let n = self.pages.len() as f64;
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let mut scored: Vec<(f64, &Page)> = self
            .pages
            .iter()
            .map(|p| {
                let score: f64 = terms
                    .iter()
                    .filter_map(|t| {
                        let tf = *p.tf.get(t)?;
                        let df = f64::from(*self.df.get(t).unwrap_or(&1));
                        Some((1.0 + f64::from(tf).ln()) * (n / df).ln())
                    })
                    .sum();
                (score, p)
            })
            .filter(|(s, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.path.cmp(&b.1.path)));
        scored.into_iter().map(|(_, p)| p).collect()
    }

    fn url(&self, p: &Page) -> String {
        format!("http://{DOCS_HOST}:{}/{}", self.port, p.path)
    }
}

/// SearXNG's `/search?format=json`, and the pages, from one server.
struct SearxngAndPages(Arc<std::sync::OnceLock<Docs>>);

impl Respond for SearxngAndPages {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let Some(docs) = self.0.get() else { return ResponseTemplate::new(503) };
        if request.url.path() == "/search" {
            let q = request.url.query_pairs().find(|(k, _)| k == "q").map(|(_, v)| v.to_string()).unwrap_or_default();
            let results: Vec<serde_json::Value> = docs
                .rank(&q)
                .into_iter()
                .take(10)
                .enumerate()
                .map(|(i, p)| {
                    json!({"url": docs.url(p), "title": p.title, "content": p.text.chars().take(200).collect::<String>(),
                           "engine": "duckduckgo", "engines": ["duckduckgo"], "positions": [i + 1],
                           "score": 1.0 / (i as f64 + 1.0), "category": "general", "publishedDate": null})
                })
                .collect();
            return ResponseTemplate::new(200).set_body_json(json!({
                "query": q, "number_of_results": results.len(), "results": results, "answers": [],
                "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []
            }));
        }
        let path = request.url.path().trim_start_matches('/');
        match docs.pages.iter().find(|p| p.path == path) {
            Some(p) => ResponseTemplate::new(200).set_body_raw(p.html.clone(), "text/html; charset=utf-8"),
            None => ResponseTemplate::new(404),
        }
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
    /// Confidence of the draft the report was written from.
    confidence: f64,
    iterations: u32,
    one_iteration_calls: Vec<u32>,
    by_role: BTreeMap<String, (u32, u64)>,
}

fn config(fake: &FakeLlm, structure: &str) -> LlmConfig {
    let mut c = LlmConfig { base_url: fake.base_url(), model: "test-model".into(), ..LlmConfig::default() };
    c.context_window = 8192;
    match structure {
        "per-role" => {
            c.review_with_model = true;
            c.self_check = false;
            c.prompt_tokens = PromptBudgets { plan: 0, review: 0, draft: 0, critique: 0, write: 0, clarify: 0 };
            c.refine_with_model = true;
            c.write_with_model = true;
        }
        "before" => {
            c.refine_with_model = true;
            c.write_with_model = true;
        }
        "write" | "cut30-write" => c.write_with_model = true,
        _ => {}
    }
    c
}

/// What the fault runs count.
#[derive(Default, Clone)]
struct Faults {
    junk: u32,
    junk_examples: Vec<String>,
    truncated: u32,
    repaired: u32,
    fell_back: u32,
    unaccounted: u32,
    /// (LLM session wall, built-in alone wall), seconds, per question.
    walls: Vec<(f64, f64)>,
    model_calls: Vec<u32>,
    built_in_reports: u32,
}

/// Why a report is junk, if it is: a JSON value instead of prose, no
/// citation while the session kept sources, sleuth's own instructions in
/// it, or nothing at all.
fn junk(state: &SessionState) -> Option<String> {
    let report = state.report.as_ref()?;
    let after_title = report.markdown.split_once('\n').map_or("", |(_, b)| b);
    let body = after_title.split("\n## Caveats").next().unwrap_or("").trim();
    if body.is_empty() {
        return Some("empty".into());
    }
    if (body.starts_with('[') || body.starts_with('{')) && serde_json::from_str::<serde_json::Value>(body).is_ok() {
        return Some(format!("JSON: {}", body.chars().take(80).collect::<String>()));
    }
    // A report that says the sources do not answer may cite nothing; one
    // given as the answer may not, once sources were kept.
    let kept = state.sources.iter().any(|s| s.kept());
    let cites = !sleuth::engine::citations::citation_markers(body).is_empty();
    if kept && !cites && report.answer == sleuth::engine::model::AnswerStatus::Answered {
        return Some(format!("cites nothing: {}", body.chars().take(80).collect::<String>()));
    }
    let prompts = Prompts::builtin();
    let mut instructions = vec![sleuth::llm::render::DATA_RULE.to_string()];
    instructions.extend(Role::ALL.iter().map(|r| prompts.render(*r, &[("max_queries", "5".into())])));
    for text in &instructions {
        if let Some(s) = sleuth::llm::echo::echoed_sentence(body, text) {
            return Some(format!("echoes the prompt: {s}"));
        }
    }
    None
}

async fn answer(
    question: &str,
    gold: &[String],
    provider: Arc<dyn SearchProvider>,
    preset: Preset,
    structure: &str,
    into: &mut Figures,
) -> (f64, SessionState, FakeLlm, Vec<sleuth::engine::protocol::EventRecord>) {
    let fake = FakeLlm::start().await;
    fake.state.delay_ms.store(DELAY_MS, Ordering::SeqCst);
    fake.state.queries_from_question.store(true, Ordering::SeqCst);
    // The first draft leaves a gap the second fills; "settled": the first
    // draft already covers everything.
    fake.state.full_coverage_from.store(if structure == "settled" { 1 } else { 2 }, Ordering::SeqCst);
    if structure.starts_with("cut30") {
        fake.state.truncate_percent.store(30, Ordering::SeqCst);
    }
    fake.state.empty_objects.store(structure == "empty", Ordering::SeqCst);
    let c = config(&fake, structure);
    let e = Endpoint::with_env(&c.resolved_endpoints()[0], &c, |_| None).unwrap();
    let reasoner: Arc<dyn Reasoner> = if structure == "built-in" {
        Arc::new(sleuth::builtin::BuiltinReasoner::new(Default::default(), None, 0.0))
    } else {
        Arc::new(LlmReasoner::with_endpoints(c, Prompts::builtin(), vec![e]).unwrap())
    };
    let mut settings = EngineSettings::with_limits("bench", preset.limits());
    // As the builder sets a session with a model: the weighted average and
    // its 0.85 threshold (the calibration is the built-in's).
    settings.evaluate.calibration.enabled = false;
    settings.decide.confidence_threshold = sleuth::builder::UNCALIBRATED_THRESHOLD;
    settings.limits.time_limit_secs = 0;
    settings.limits.cost_budget_usd = 0.0;
    let sink = MemorySink::default();
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
    let wall = started.elapsed();
    into.wall_ms += wall.as_millis();
    into.answers += 1;
    let mut calls = 0;
    let mut review_iterations = std::collections::BTreeSet::new();
    let mut review_calls = 0;
    let mut iteration = 0;
    let trace = std::env::var("LLM_COST_TRACE").is_ok();
    if trace {
        println!("{structure} {} {question}", preset.as_str());
    }
    for r in sink.records() {
        match &r.event {
            Event::IterationStarted { iteration: n, .. } => iteration = *n,
            Event::Evaluated { evaluation: e, .. } if trace => {
                let k = &e.components;
                println!(
                    "  it{iteration} conf {:.3} cov {:.2} rel {:.2} srcq {:.2} dens {:.2} cons {:.2} claims {}/{} cited {} sim {:?} held {:?}",
                    e.confidence,
                    e.coverage,
                    k.answer_relevance,
                    k.source_quality,
                    k.citation_density,
                    k.consistency,
                    e.supported_claims,
                    e.claims,
                    e.cited_sources,
                    e.draft_similarity,
                    e.held_back
                );
            }
            Event::Decided { decision: d, .. } if trace => {
                println!("  it{iteration} {:?} {:?}: {}", d.action, d.reason, d.detail)
            }
            Event::Reviewed { verdicts, .. } if trace => println!(
                "  it{iteration} reviewed: kept {} of {} new",
                verdicts.iter().filter(|v| v.kept).count(),
                verdicts.len()
            ),
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
    let based_on = state.report.as_ref().and_then(|r| r.based_on_iteration).and_then(|n| state.iteration_record(n));
    into.confidence += based_on.and_then(|it| it.evaluation.as_ref()).map_or(0.0, |e| e.confidence);
    let found = gold.iter().filter(|g| cited.iter().any(|c| c.ends_with(&format!("/{g}")))).count();
    into.recall += found as f64 / gold.len().max(1) as f64;
    // The server goes back to the caller, to be dropped outside the runtime:
    // wiremock's drop blocks on a lock, and inside `block_on` it can spin
    // forever.
    (wall.as_secs_f64(), state, fake, sink.records())
}

/// What became of each reply the server cut: sent back in a repair turn,
/// or its phase fell back (an error event of that role), or neither.
fn account_cuts(fake: &llm_support::FakeState, records: &[sleuth::engine::protocol::EventRecord], f: &mut Faults) {
    let requests = fake.requests.lock().unwrap();
    let sent_back: Vec<String> = requests
        .iter()
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect();
    let mut errors: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Error { phase, .. } => Some(phase.to_string()),
            _ => None,
        })
        .collect();
    for (role, text) in fake.truncated_replies.lock().unwrap().iter() {
        f.truncated += 1;
        let head: String = text.chars().take(200).collect();
        if sent_back.iter().any(|m| m.starts_with(&head)) {
            f.repaired += 1;
        } else if let Some(i) = errors.iter().position(|p| p == role) {
            errors.remove(i);
            f.fell_back += 1;
        } else {
            f.unaccounted += 1;
        }
    }
}

/// The question set: the file `SLEUTH_EVAL_DEV` names (checked when read),
/// else the dev set where the project keeps it beside the checkout (or two
/// levels up, from a worktree) when it is there.
fn question_file() -> Option<std::path::PathBuf> {
    if let Some(named) = std::env::var_os("SLEUTH_EVAL_DEV") {
        return Some(named.into());
    }
    ["../shared/eval/rust-docs-dev.jsonl", "../../shared/eval/rust-docs-dev.jsonl"]
        .into_iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_file())
}

fn main() {
    let Some(eval) = question_file() else {
        eprintln!(
            "llm_cost: no question set. Set SLEUTH_EVAL_DEV to a JSONL file of questions, one \
             {{\"id\", \"question\", \"gold\": [corpus paths]}} a line: the project's rust-docs-dev set \
             (not shipped with the repository; the maintainers keep it in shared/eval/ beside the checkout) \
             or bench/questions-extra.jsonl"
        );
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&eval) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("llm_cost: cannot read the question set {}: {e}", eval.display());
            std::process::exit(2);
        }
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
    // The pages: the book's chapters, std's module indexes, the
    // Reference's top-level pages, and every gold page.
    let mut paths: std::collections::BTreeSet<String> = questions.iter().flat_map(|(_, g)| g.iter().cloned()).collect();
    for (dir, keep) in [("book", "ch"), ("reference", ""), ("std", "")] {
        let Ok(entries) = std::fs::read_dir(html.join(dir)) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if dir == "std" {
                if html.join(dir).join(&name).join("index.html").is_file() {
                    paths.insert(format!("std/{name}/index.html"));
                }
            } else if name.ends_with(".html") && name.starts_with(keep) {
                paths.insert(format!("{dir}/{name}"));
            }
        }
    }
    let mut pages = Vec::new();
    let mut df: HashMap<String, u32> = HashMap::new();
    for path in paths {
        if let Ok(raw) = std::fs::read_to_string(html.join(&path)) {
            let text = strip_html(&raw);
            let mut tf: HashMap<String, u32> = HashMap::new();
            for w in words(&text) {
                *tf.entry(w).or_default() += 1;
            }
            for w in tf.keys() {
                *df.entry(w.clone()).or_default() += 1;
            }
            pages.push(Page { title: title_of(&raw, &path), path, html: raw, text, tf });
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let docs = Arc::new(std::sync::OnceLock::new());
    let server = rt.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("GET")).respond_with(SearxngAndPages(docs.clone())).mount(&server).await;
        server
    });
    let page_count = pages.len();
    let _ = docs.set(Docs { pages, df, port: server.address().port() });
    let web = WebClient::with_resolve(&WebConfig::default(), &[(DOCS_HOST.to_string(), *server.address())]).unwrap();
    let provider: Arc<dyn SearchProvider> = Arc::new(Searxng::new(&server.uri(), web).unwrap());
    println!(
        "llm_cost: {} questions; SearXNG-format search on loopback over {page_count} Rust documentation pages \
         (fetched over HTTP); model server delay 0.3 s",
        questions.len()
    );
    println!(
        "\n{:<11} {:<9} {:>6} {:>8} {:>9} {:>10} {:>8} {:>7} {:>6} {:>6}  per role (calls / prompt tokens per answer)",
        "structure", "preset", "iters", "calls", "critical", "prompt tok", "wall s", "recall", "conf", "1-it"
    );
    // `LLM_COST_STRUCTURES=default,settled` runs only those.
    const ALL: [&str; 8] = ["per-role", "before", "default", "settled", "write", "cut30", "cut30-write", "empty"];
    let wanted = std::env::var("LLM_COST_STRUCTURES").unwrap_or_else(|_| ALL.join(","));
    let mut faults: Vec<(String, Faults)> = Vec::new();
    for structure in ALL {
        if !wanted.split(',').any(|w| w.trim() == structure) {
            continue;
        }
        for preset in [Preset::Simple, Preset::Standard, Preset::Deep] {
            // `LLM_COST_PRESETS=standard` runs only that preset.
            if std::env::var("LLM_COST_PRESETS").is_ok_and(|p| !p.split(',').any(|w| w.trim() == preset.as_str())) {
                continue;
            }
            let mut f = Figures::default();
            let mut fault = Faults::default();
            // `LLM_COST_QUESTIONS=3` runs the first three questions only (tracing).
            let n_questions =
                std::env::var("LLM_COST_QUESTIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
            for (q, gold) in questions.iter().take(n_questions) {
                let (wall, state, fake, records) =
                    rt.block_on(answer(q, gold, provider.clone(), preset, structure, &mut f));
                if let Some(why) = junk(&state) {
                    fault.junk += 1;
                    fault.junk_examples.push(why);
                }
                account_cuts(&fake.state, &records, &mut fault);
                if structure == "empty" {
                    let mut alone = Figures::default();
                    let (built_in, theirs, unused, _) =
                        rt.block_on(answer(q, gold, provider.clone(), preset, "built-in", &mut alone));
                    drop(unused);
                    fault.walls.push((wall, built_in));
                    fault.model_calls.push(fake.state.requests.lock().unwrap().len() as u32);
                    let same = state.report.as_ref().map(|r| &r.claims) == theirs.report.as_ref().map(|r| &r.claims);
                    fault.built_in_reports += u32::from(same && state.takeover.is_some());
                }
                drop(fake);
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
                "{:<11} {:<9} {:>6.1} {:>8.1} {:>9.1} {:>10.0} {:>8.2} {:>7.2} {:>6.3} {:>6}  {}",
                structure,
                preset.as_str(),
                f64::from(f.iterations) / n,
                f64::from(f.calls) / n,
                f64::from(f.critical) / n,
                f.prompt as f64 / n,
                f.wall_ms as f64 / 1000.0 / n,
                f.recall / n,
                f.confidence / n,
                one,
                roles.join(", ")
            );
            faults.push((format!("{structure} {}", preset.as_str()), fault));
        }
    }
    println!();
    for (run, f) in &faults {
        if f.truncated > 0 || f.junk > 0 {
            println!(
                "{run}: junk reports {}; cut replies {}: repaired {}, fell back {}, unaccounted {}{}",
                f.junk,
                f.truncated,
                f.repaired,
                f.fell_back,
                f.unaccounted,
                if f.junk_examples.is_empty() { String::new() } else { format!(" ({})", f.junk_examples.join(" | ")) }
            );
        }
        if !f.walls.is_empty() {
            let round_trips = 2.0 * DELAY_MS as f64 / 1000.0;
            let over: Vec<f64> = f.walls.iter().map(|(llm, alone)| llm - (1.25 * alone + round_trips)).collect();
            let mut ratios: Vec<f64> = f.walls.iter().map(|(llm, alone)| llm / alone.max(1e-3)).collect();
            ratios.sort_by(f64::total_cmp);
            let within = over.iter().filter(|o| **o <= 0.0).count();
            let llm: f64 = f.walls.iter().map(|w| w.0).sum::<f64>() / f.walls.len() as f64;
            let alone: f64 = f.walls.iter().map(|w| w.1).sum::<f64>() / f.walls.len() as f64;
            println!(
                "{run}: `{{}}` server: {within} of {} sessions within 1.25 × the built-in's time + 2 round trips \
                 (mean {llm:.2} s against {alone:.2} s; median ratio {:.2}; worst margin {:+.2} s); model calls per \
                 session max {}; the built-in's report in {} of {}",
                f.walls.len(),
                ratios[ratios.len() / 2],
                over.iter().copied().fold(f64::MIN, f64::max),
                f.model_calls.iter().max().unwrap_or(&0),
                f.built_in_reports,
                f.walls.len()
            );
        }
    }
}
