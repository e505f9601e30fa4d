//! The SEARCH phase over the web, end to end in the real engine: six
//! queries to a SearXNG, five pages each on six sites, every server
//! answering after 200 ms; fetch, politeness, decoding and extraction
//! included. Target: under 1 s wall.
//!
//! The servers run in a child process (this binary, re-executed), so the
//! memory figures printed at the end are the engine side only: the peak
//! resident set of a fresh process running one SEARCH phase over pages of
//! 24 KiB, 4 MiB and 12 MiB with the default 2 MiB cap. Bounded by the
//! cap means the last two are alike, not three times apart.
//!
//! `cargo bench --bench web_search`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use criterion::{Criterion, criterion_group};
use serde_json::json;
use sleuth::engine::fallback;
use sleuth::engine::memory::{InMemoryStore, MemorySettings};
use sleuth::engine::model::{Clarification, Critique, Draft, PlannedQuery, SourceVerdict};
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command as EngineCommand, Event, Limits};
use sleuth::engine::reasoner::*;
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::search::web::{Searxng, WebClient, WebConfig};
use sleuth::search::{SearchProvider, SearchRouter};

const QUERIES: usize = 6;
const PAGES_PER_QUERY: usize = 5;
const SITES: usize = 6;
const DELAY: Duration = Duration::from_millis(200);
const SERVE_ENV: &str = "SLEUTH_BENCH_SERVE";
const CLIENT_ENV: &str = "SLEUTH_BENCH_CLIENT";

/// Plans six queries; every other role is the engine's own fallback.
struct SixQueries;

#[async_trait]
impl Reasoner for SixQueries {
    fn name(&self) -> String {
        "bench".into()
    }
    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        let queries = (0..QUERIES).map(|k| PlannedQuery::new(format!("query{k} widgets"), "bench")).collect();
        Ok(Reply::free(PlanOutput { reflection: fallback::plan(&ctx.question, &[], 1).0, queries }))
    }
    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError> {
        Ok(Reply::free(fallback::review(&ctx.candidates)))
    }
    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        Ok(Reply::free(fallback::draft(&ctx.sources, None)))
    }
    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        Ok(Reply::free(fallback::critique(&ctx.question, &ctx.draft)))
    }
    async fn write(&self, ctx: WriteContext, _: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError> {
        Ok(Reply::free(WriteOutput { markdown: ctx.draft.markdown.clone(), claims: ctx.draft.claims.clone() }))
    }
    async fn clarify(&self, _: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError> {
        Ok(Reply::free(Clarification { question: String::new(), options: vec![] }))
    }
}

/// Words drawn from a small vocabulary by a seeded generator: every page
/// reads differently, so none is dropped as a near-duplicate.
fn prose(seed: u64, bytes: usize) -> String {
    const WORDS: &[&str] = &[
        "widget",
        "gadget",
        "port",
        "cable",
        "signal",
        "voltage",
        "standard",
        "consortium",
        "measured",
        "shielded",
        "outdoor",
        "rain",
        "engineer",
        "tested",
        "protocol",
        "latency",
        "frame",
        "packet",
        "field",
        "report",
        "vendor",
        "module",
        "firmware",
        "release",
        "budget",
        "silicon",
        "copper",
        "fibre",
        "adapter",
        "socket",
    ];
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = String::with_capacity(bytes + 64);
    while out.len() < bytes {
        out.push_str("<p>");
        for w in 0..40 {
            out.push_str(WORDS[rng.usize(..WORDS.len())]);
            out.push_str(if w == 39 { ".</p>\n" } else { " " });
        }
    }
    out
}

fn page_html(site: usize, page: usize, bytes: usize) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Site {site} page {page}</title>\
         <meta property=\"article:published_time\" content=\"2025-05-01T00:00:00Z\"></head><body>\
         <nav><a href=\"/\">Home</a></nav><article>{}</article><footer>Footer</footer></body></html>",
        prose((site * 100 + page) as u64, bytes)
    )
}

/// The child process: SearXNG plus six page sites, all answering after
/// 200 ms. Prints their addresses as one JSON line; exits when stdin closes.
fn serve(page_bytes: usize) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, Request, ResponseTemplate};
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let mut sites = Vec::new();
        for s in 0..SITES {
            let server = MockServer::start().await;
            for p in 0..PAGES_PER_QUERY {
                let body = page_html(s, p, page_bytes).into_bytes();
                let page = ResponseTemplate::new(200).set_body_raw(body, "text/html; charset=utf-8").set_delay(DELAY);
                Mock::given(method("GET")).and(path(format!("/p{p}"))).respond_with(page).mount(&server).await;
            }
            sites.push(server);
        }
        let site_uris: Vec<String> = sites.iter().map(|s| s.uri()).collect();
        let searx = MockServer::start().await;
        let uris = site_uris.clone();
        Mock::given(method("GET"))
            .and(path("/search"))
            .respond_with(move |r: &Request| {
                let q: String = r.url.query_pairs().find(|(k, _)| k == "q").map(|(_, v)| v.into_owned()).unwrap_or_default();
                let k: usize = q.trim_start_matches("query").split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                // Query k's j-th result is page j of site (k + j) % 6: every
                // site holds five pages, each found by exactly one query.
                let results: Vec<_> = (0..PAGES_PER_QUERY)
                    .map(|j| {
                        let url = format!("{}/p{j}", uris[(k + j) % SITES]);
                        json!({"url": url, "title": format!("result {k}.{j}"), "content": "snippet", "engine": "bench",
                               "parsed_url": [], "template": "default.html", "engines": ["bench"], "positions": [j + 1],
                               "score": 1.0, "category": "general"})
                    })
                    .collect();
                ResponseTemplate::new(200)
                    .set_body_json(json!({"query": q, "number_of_results": results.len(), "results": results,
                        "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}))
                    .set_delay(DELAY)
            })
            .mount(&searx)
            .await;
        println!("{}", json!({"searxng": searx.uri()}));
        std::io::stdout().flush().ok();
        // Serve until the parent closes our stdin.
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            while std::io::stdin().read_line(&mut line).map(|n| n > 0).unwrap_or(false) {}
        })
        .await
        .ok();
        drop(sites);
    });
}

struct Servers {
    child: Child,
    searxng: String,
}

impl Servers {
    fn start(page_bytes: usize) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(SERVE_ENV, page_bytes.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        Self { child, searxng: v["searxng"].as_str().unwrap().to_string() }
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// One session of one iteration; returns the SEARCH phase's wall time
/// (from the plan to `SearchCompleted`) and the sources it added.
async fn search_phase(searxng: &str) -> (Duration, usize) {
    let limits = Limits {
        max_iterations: 1,
        max_queries: QUERIES as u32,
        max_sources: (QUERIES * PAGES_PER_QUERY) as u32,
        time_limit_secs: 600,
        cost_budget_usd: 0.0,
        token_budget: 0,
    };
    let mut settings = EngineSettings::with_limits("bench", limits);
    settings.search.results_per_query = PAGES_PER_QUERY;
    let web = WebClient::new(&WebConfig::default()).unwrap();
    let searx: Arc<dyn SearchProvider> = Arc::new(Searxng::new(searxng, web).unwrap());
    let parts = EngineParts {
        reasoner: Arc::new(SixQueries),
        search: Arc::new(SearchRouter::new(vec![vec![searx]], &sleuth::search::RouterSettings::default())),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())),
        log: Box::new(MemorySink::default()),
    };
    let (engine, mut handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(EngineCommand::Start { question: "How do widgets connect?".into() }).unwrap();
    let watch = tokio::spawn(async move {
        let (mut planned, mut done, mut added) = (None, None, 0);
        while let Some(r) = handle.events.recv().await {
            match r.event {
                Event::Planned { .. } => planned = Some(Instant::now()),
                Event::SourceAdded { .. } => added += 1,
                Event::SearchCompleted { .. } => done = Some(Instant::now()),
                _ => {}
            }
        }
        (planned.zip(done).map(|(a, b)| b - a).unwrap_or_default(), added)
    });
    engine.run().await.unwrap();
    watch.await.unwrap()
}

fn peak_rss_kib() -> i64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_maxrss
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn bench_search_phase(c: &mut Criterion) {
    let rt = runtime();
    let servers = Servers::start(24 * 1024);
    let (first, added) = rt.block_on(search_phase(&servers.searxng));
    assert_eq!(added, QUERIES * PAGES_PER_QUERY, "every page fetched and kept");
    eprintln!("first run: {first:?} for {added} pages");
    let mut group = c.benchmark_group("web");
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    group.bench_function("search_phase_6q_x_5p_200ms", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| rt.block_on(search_phase(&servers.searxng)).0).sum())
    });
    group.finish();
}

/// Memory: one fresh process per page size runs the same SEARCH phase and
/// reports its peak resident set. Pages above the cap must not raise it.
fn report_memory() {
    let cap = WebConfig::default().max_page_bytes;
    eprintln!("peak RSS of one SEARCH phase (30 pages, cap {} MiB), one process each:", cap / (1024 * 1024));
    for bytes in [24 * 1024, 4 * 1024 * 1024, 12 * 1024 * 1024] {
        let out = Command::new(std::env::current_exe().unwrap()).env(CLIENT_ENV, bytes.to_string()).output().unwrap();
        let line = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line}"));
        eprintln!(
            "  pages of {:>6} KiB: peak RSS {:>4} MiB, {} pages added, SEARCH took {} ms",
            bytes / 1024,
            v["peak_kib"].as_i64().unwrap_or(0) / 1024,
            v["added"],
            v["took_ms"]
        );
    }
}

/// The client process of `report_memory`.
fn measure_one(page_bytes: usize) {
    let servers = Servers::start(page_bytes);
    let (took, added) = runtime().block_on(search_phase(&servers.searxng));
    println!("{}", json!({"peak_kib": peak_rss_kib(), "added": added, "took_ms": took.as_millis() as u64}));
}

criterion_group!(benches, bench_search_phase);

fn main() {
    if let Ok(bytes) = std::env::var(SERVE_ENV) {
        serve(bytes.parse().unwrap_or(24 * 1024));
        return;
    }
    if let Ok(bytes) = std::env::var(CLIENT_ENV) {
        measure_one(bytes.parse().unwrap_or(24 * 1024));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    // `cargo test --benches` runs each benchmark once; memory is for `cargo bench`.
    if std::env::args().any(|a| a == "--bench") {
        report_memory();
    }
}
