//! Research-quality benchmark of the embedded defaults (local corpus +
//! built-in reasoner) on question sets with gold pages and facts
//! (the evaluation sets' README). Runs every question headless through the
//! real engine, standard preset, and prints per question and in total:
//! gold recall among the cited sources, facts found in the report,
//! iterations, decisions and wall time, beside the baseline (gold pages in
//! the top 10 of one BM25 query of the question). Then the latency of
//! every query the sessions ran (p50, p99).
//!
//!   cargo bench --bench quality                       # the dev set
//!   cargo bench --bench quality -- bench/questions-extra.jsonl
//!
//! Uses `SLEUTH_HOME` (or the platform data dir) for the index; builds it
//! on first use.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "support/local_session.rs"]
mod local_session;

use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use sleuth::builtin::BuiltinReasoner;
use sleuth::engine::model::{Clarification, Critique, Draft, Role, SourceVerdict};
use sleuth::engine::reasoner::{
    ClarifyContext, CritiqueContext, DraftContext, PlanContext, PlanOutput, Reasoner, ReasonerError, Reply,
    ReportStream, ReviewContext, WriteContext, WriteOutput,
};

use serde::Deserialize;
use sleuth::config::{Config, Overrides};
use sleuth::paths::Paths;
use sleuth::search::local::{self, LocalCorpus, Ranking};

#[derive(Deserialize)]
struct Question {
    id: String,
    question: String,
    /// `answerable` or `unanswerable` (user set); absent means answerable.
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    gold: Vec<String>,
    #[serde(default)]
    facts: Vec<String>,
}

impl Question {
    fn answerable(&self) -> bool {
        self.kind.as_deref() != Some("unanswerable")
    }
}

/// The report's first block of text that is not a heading (the sets' scoring rule).
fn first_paragraph(report: &str) -> &str {
    report.split("\n\n").map(str::trim).find(|b| !b.is_empty() && !b.starts_with('#')).unwrap_or_default()
}

/// What reads badly in a report: a sentence quoted twice, a "Related:" section.
fn defects(report: &str) -> Vec<String> {
    let mut out = Vec::new();
    // A related concept's own section (`## Related: …`); a section of an
    // asked aspect may begin with the word ("## Related crates").
    if report.lines().any(|l| l.starts_with("## Related:")) {
        out.push("a “Related:” section".to_string());
    }
    let mut seen = std::collections::HashSet::new();
    // The answer only: the verification section lists the statements it
    // could not verify again by design, and the caveats are sleuth's own.
    let body = report.split("\n## Verification").next().unwrap_or_default();
    let body = body.split("\n## Caveats").next().unwrap_or_default();
    for line in body.lines().map(str::trim).filter(|l| !l.starts_with('#') && !l.starts_with('_')) {
        for s in line.trim_start_matches("- ").split(". ") {
            let s = s.split(" [").next().unwrap_or_default().trim().to_lowercase();
            if s.split_whitespace().count() >= 5 && !seen.insert(s.clone()) {
                out.push(format!("quoted twice: “{s}”"));
            }
        }
    }
    out
}

/// The same document under another path counts (the sets' scoring rule): `core/` and
/// `alloc/` for `std/`, old book editions for `book/`.
fn equivalent(path: &str) -> String {
    let p = path.split('#').next().unwrap_or(path);
    for lib in ["core/", "alloc/"] {
        if let Some(rest) = p.strip_prefix(lib) {
            return format!("std/{rest}");
        }
    }
    for old in ["book/second-edition/", "book/2018-edition/", "book/first-edition/"] {
        if let Some(rest) = p.strip_prefix(old) {
            return format!("book/{rest}");
        }
    }
    p.to_string()
}

fn recall(gold: &[String], found: &[String]) -> (usize, usize) {
    let found: Vec<String> = found.iter().map(|f| equivalent(f)).collect();
    (gold.iter().filter(|g| found.contains(&equivalent(g))).count(), gold.len())
}

struct Row {
    id: String,
    answerable: bool,
    recall: (usize, usize),
    first: (usize, usize),
    confidence: f64,
    relevance: f64,
    /// The report opens by saying the sources do not answer.
    says_unanswered: bool,
    defects: Vec<String>,
    baseline: (usize, usize),
    facts: (usize, usize),
    iterations: usize,
    decisions: String,
    wall: Duration,
    cited: usize,
    queries: Vec<String>,
    detail: String,
}

/// The built-in reasoner, keeping the last draft's context: what the
/// answer model weighed (`--units FILE` writes it, to fit `[builtin.answer]`).
struct Recording {
    inner: BuiltinReasoner,
    last_draft: Mutex<Option<DraftContext>>,
}

#[async_trait]
impl Reasoner for Recording {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn uses_model(&self, role: Role) -> bool {
        self.inner.uses_model(role)
    }
    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        self.inner.plan(ctx).await
    }
    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError> {
        self.inner.review(ctx).await
    }
    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        *self.last_draft.lock().unwrap() = Some(ctx.clone());
        self.inner.draft(ctx).await
    }
    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        self.inner.critique(ctx).await
    }
    async fn write(&self, ctx: WriteContext, stream: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError> {
        self.inner.write(ctx, stream).await
    }
    async fn clarify(&self, ctx: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError> {
        self.inner.clarify(ctx).await
    }
}

async fn run_one(q: &Question, corpus: &Arc<LocalCorpus>, config: &Config, units: Option<&Mutex<File>>) -> Row {
    // The baseline: plain BM25 over passages, one query, top 10 pages.
    let baseline_hits = corpus.search_with(&q.question, &[], 10, &Ranking::plain()).unwrap_or_default();
    let baseline: Vec<String> = baseline_hits.iter().map(|h| h.path.clone()).collect();
    let started = Instant::now();
    let reasoner = Arc::new(Recording { inner: local_session::builtin(corpus, config), last_draft: Mutex::new(None) });
    let state =
        local_session::run_session_with(format!("bench-{}", q.id), &q.question, corpus, config, reasoner.clone()).await;
    let wall = started.elapsed();
    if let (Some(out), Some(ctx)) = (units, reasoner.last_draft.lock().unwrap().as_ref()) {
        let mut out = out.lock().unwrap();
        for u in reasoner.inner.answer_units(ctx) {
            let facts: Vec<&String> =
                q.facts.iter().filter(|f| u.text.to_lowercase().contains(&f.to_lowercase())).collect();
            let gold = q.gold.iter().any(|g| equivalent(g) == equivalent(&u.source));
            let line = serde_json::json!({"id": q.id, "gold": gold, "facts": facts, "unit": u});
            writeln!(out, "{line}").unwrap();
        }
    }
    let cited: Vec<String> = state
        .verification
        .as_ref()
        .map(|v| v.cited.iter().filter_map(|id| state.source(*id)).map(|s| s.meta.canonical.clone()).collect())
        .unwrap_or_default();
    let report = state.report.as_ref().map(|r| r.markdown.to_lowercase()).unwrap_or_default();
    let facts = q.facts.iter().filter(|f| report.contains(&f.to_lowercase())).count();
    let first = first_paragraph(&report);
    let first_facts = q.facts.iter().filter(|f| first.contains(&f.to_lowercase())).count();
    let says_unanswered = first.contains("do not answer");
    let confidence = state.confidence;
    // The answer-relevance component of the draft the report was written from.
    let relevance = state
        .report
        .as_ref()
        .and_then(|r| r.based_on_iteration)
        .and_then(|n| state.iteration_record(n))
        .and_then(|it| it.evaluation.as_ref())
        .map_or(0.0, |e| e.components.answer_relevance);
    let defects = defects(state.report.as_ref().map(|r| r.markdown.as_str()).unwrap_or_default());
    if std::env::var("QUALITY_REPORT").is_ok_and(|ids| ids.split(',').any(|i| i == q.id)) {
        println!("{}", state.report.as_ref().map(|r| r.markdown.as_str()).unwrap_or_default());
    }
    let decisions: Vec<String> =
        state.iterations.iter().filter_map(|it| it.decision.as_ref()).map(|d| format!("{}", d.action)).collect();
    let queries: Vec<String> =
        state.iterations.iter().flat_map(|it| it.queries.iter().map(|q| q.query.text.clone())).collect();
    let gold: Vec<String> = q.gold.iter().map(|g| equivalent(g)).collect();
    let mark = |p: &String| if gold.contains(&equivalent(p)) { format!("*{p}") } else { p.clone() };
    // Where each gold page stood: never found, or found and reviewed.
    let seen: Vec<String> = q
        .gold
        .iter()
        .map(|g| {
            let entry = state.sources.iter().find(|e| equivalent(&e.meta.canonical) == equivalent(g));
            match entry.and_then(|e| e.verdict.as_ref()) {
                None if entry.is_some() => format!("{g} (found, not reviewed)"),
                None => format!("{g} (never found)"),
                Some(v) if v.kept => format!("{g} (kept {:.2})", v.relevance),
                Some(v) => format!("{g} ({} {:.2})", v.reason.as_deref().unwrap_or("rejected"), v.relevance),
            }
        })
        .collect();
    let detail = format!(
        "  aspects: {}\n  plan: {}\n  queries: {}\n  cited: {}\n  baseline: {}\n  gold: {}\n  facts missing: {}\n  first paragraph: {}\n  last critique: {}\n",
        state
            .iterations
            .first()
            .and_then(|it| it.critique.as_ref())
            .map(|c| c.aspects_required.join(" | "))
            .unwrap_or_default(),
        state.iterations.first().and_then(|it| it.reflection.as_ref()).map(|r| r.plan.clone()).unwrap_or_default(),
        queries.join(" | "),
        cited.iter().map(mark).collect::<Vec<_>>().join(" "),
        baseline.iter().map(mark).collect::<Vec<_>>().join(" "),
        seen.join(" "),
        q.facts.iter().filter(|f| !report.contains(&f.to_lowercase())).cloned().collect::<Vec<_>>().join(", "),
        first_paragraph(state.report.as_ref().map(|r| r.markdown.as_str()).unwrap_or_default()),
        state
            .iterations
            .iter()
            .rev()
            .find_map(|it| it.critique.as_ref())
            .map(|c| c.issues.iter().map(|i| i.description.clone()).collect::<Vec<_>>().join(" · "))
            .unwrap_or_default(),
    );
    Row {
        id: q.id.clone(),
        answerable: q.answerable(),
        recall: recall(&q.gold, &cited),
        first: (first_facts, q.facts.len()),
        confidence,
        relevance,
        says_unanswered,
        defects,
        baseline: recall(&q.gold, &baseline),
        facts: (facts, q.facts.len()),
        iterations: state.iterations.len(),
        decisions: decisions.join(">"),
        wall,
        cited: cited.len(),
        queries,
        detail,
    }
}

fn ratio((a, b): (usize, usize)) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    // `--units FILE`: every sentence the answer model weighed, with its
    // signals and the facts it holds, one JSON object a line.
    let units_file = all.iter().position(|a| a == "--units").and_then(|i| all.get(i + 1)).cloned();
    let units = units_file.as_ref().map(|f| Mutex::new(File::create(f).expect("the --units file")));
    let args: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || all[i - 1] != "--units"))
        .map(|(_, a)| a.clone())
        .collect();
    let verbose = std::env::args().any(|a| a == "--verbose") || std::env::var_os("QUALITY_VERBOSE").is_some();
    // The dev set sits in `shared/eval/` next to the checkout (or two levels
    // up, from a worktree).
    let file = args.first().cloned().unwrap_or_else(|| {
        ["../shared/eval/rust-docs-dev.jsonl", "../../shared/eval/rust-docs-dev.jsonl"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .unwrap_or("../shared/eval/rust-docs-dev.jsonl")
            .to_string()
    });
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let questions: Vec<Question> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("question line"))
        .collect();
    let paths = Paths::discover().expect("paths");
    // The user's config file and SLEUTH__SECTION__KEY variables apply, as in a run.
    let (config, _) = sleuth::config::load(None, &paths.config_file(), std::env::vars(), &Overrides::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let cfg = config.local.clone();
    let progress = |l: &str| eprintln!("{l}");
    let corpus = local::shared(&cfg, &local::index_root(&cfg, &paths), &progress).expect("local corpus");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    println!(
        "{file}: {} questions, {} preset, built-in reasoner, local corpus",
        questions.len(),
        config.research.preset
    );
    println!(
        "{:<5} {:>8} {:>9} {:>7} {:>7} {:>5} {:>5} {:>5} {:>6} {:>8}  decisions",
        "id", "recall", "baseline", "facts", "first", "conf", "rel", "iter", "cited", "wall"
    );
    let mut rows = Vec::new();
    for q in &questions {
        let row = rt.block_on(run_one(q, &corpus, &config, units.as_ref()));
        let kind = match (row.answerable, row.says_unanswered) {
            (true, false) => "",
            (true, true) => " (says the sources do not answer)",
            (false, true) => " (unanswerable; says so)",
            (false, false) => " (unanswerable)",
        };
        println!(
            "{:<5} {:>3}/{:<4} {:>4}/{:<4} {:>3}/{:<3} {:>3}/{:<3} {:>5.2} {:>5.2} {:>5} {:>6} {:>6.0}ms  {}{kind}",
            row.id,
            row.recall.0,
            row.recall.1,
            row.baseline.0,
            row.baseline.1,
            row.facts.0,
            row.facts.1,
            row.first.0,
            row.first.1,
            row.confidence,
            row.relevance,
            row.iterations,
            row.cited,
            row.wall.as_secs_f64() * 1000.0,
            row.decisions
        );
        for d in &row.defects {
            println!("      defect: {d}");
        }
        if verbose {
            print!("{}", row.detail);
        }
        rows.push(row);
    }
    let answerable: Vec<&Row> = rows.iter().filter(|r| r.answerable).collect();
    let unanswerable: Vec<&Row> = rows.iter().filter(|r| !r.answerable).collect();
    let sum = |f: &dyn Fn(&Row) -> (usize, usize)| {
        answerable.iter().map(|r| f(r)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    };
    let (rec, base, facts, first) = (sum(&|r| r.recall), sum(&|r| r.baseline), sum(&|r| r.facts), sum(&|r| r.first));
    let mut walls: Vec<Duration> = rows.iter().map(|r| r.wall).collect();
    walls.sort();
    let iters: f64 = rows.iter().map(|r| r.iterations as f64).sum::<f64>() / rows.len().max(1) as f64;
    println!(
        "total ({} answerable): recall {:.3} ({}/{})  baseline {:.3} ({}/{})  facts {:.3} ({}/{})  first {:.3} ({}/{})  \
         mean confidence {:.2}  mean iterations {:.2}  session wall p50 {:.0} ms, max {:.0} ms",
        answerable.len(),
        ratio(rec),
        rec.0,
        rec.1,
        ratio(base),
        base.0,
        base.1,
        ratio(facts),
        facts.0,
        facts.1,
        ratio(first),
        first.0,
        first.1,
        answerable.iter().map(|r| r.confidence).sum::<f64>() / answerable.len().max(1) as f64,
        iters,
        percentile(&walls, 0.5).as_secs_f64() * 1000.0,
        walls.last().copied().unwrap_or_default().as_secs_f64() * 1000.0
    );
    if !unanswerable.is_empty() {
        let low = unanswerable.iter().filter(|r| r.confidence < 0.6 && r.says_unanswered).count();
        println!(
            "unanswerable ({}): mean confidence {:.2}, {low} end below 0.6 and say the sources do not answer",
            unanswerable.len(),
            unanswerable.iter().map(|r| r.confidence).sum::<f64>() / unanswerable.len() as f64,
        );
    }
    let defects: usize = rows.iter().map(|r| r.defects.len()).sum();
    println!("report defects (sentence quoted twice, “Related:” section): {defects}");
    // A report that repeats itself or grows sections of common words is a
    // regression whatever the figures say: the benchmark fails on it.
    assert_eq!(defects, 0, "reports with defects (listed above)");
    // Search latency over every query the sessions ran (3 rounds, warm).
    let queries: Vec<&String> = rows.iter().flat_map(|r| &r.queries).collect();
    let mut times = Vec::new();
    for _ in 0..3 {
        for q in &queries {
            let t = Instant::now();
            let _ = corpus.search(q, &[], 5);
            times.push(t.elapsed());
        }
    }
    times.sort();
    println!(
        "search latency over {} queries x3: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        queries.len(),
        percentile(&times, 0.5).as_secs_f64() * 1000.0,
        percentile(&times, 0.99).as_secs_f64() * 1000.0,
        times.last().copied().unwrap_or_default().as_secs_f64() * 1000.0
    );
}
