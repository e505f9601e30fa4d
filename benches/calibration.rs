//! Calibration benchmark: is confidence the probability that the report
//! answers the question? Runs every question of the eval sets headless
//! (local corpus, built-in reasoner, standard preset, ASKs answered with
//! the first option), prints per question its confidence, facts found and
//! gold recall, and per set:
//!
//! - (a) AUROC of confidence, good answers (≥ 2/3 of the facts) vs the
//!   other answerable ones;
//! - (b) AUROC of confidence, good answers vs unanswerable questions;
//! - (c) the share of unanswerable questions ending below 0.6 AND saying
//!   the sources do not answer;
//! - answerable questions refused (ending "the sources do not answer");
//! - expected calibration error (10 bins) of confidence against "good"
//!   (what the probability claims) and against the share of facts found;
//! - reports called provisional (confidence below DECIDE's threshold), and
//!   mean iterations and session wall time (the speed target).
//!
//! Every row, with every feature EVALUATE computed for the report's draft
//! and the labels, is written to `target/calibration/features.jsonl`.
//!
//!   cargo bench --bench calibration                    # the three sets, in-sample figures
//!   cargo bench --bench calibration -- --fit           # … and the cross-validated fit
//!   cargo bench --bench calibration -- --fit --write   # … and write the fit as the defaults
//!   cargo bench --bench calibration -- --fit --from target/calibration/features.jsonl  # refit, no sessions
//!   cargo bench --bench calibration -- some.jsonl      # other sets
//!
//! Fit options: `--features a,b,c` (default: the features the current
//! defaults name), `--l2 X`, `--folds K` (defaults in
//! `src/engine/calibration/fitted.rs`). Uses `SLEUTH_HOME` (or the platform
//! data dir) for the index; builds it on first use.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "support/local_session.rs"]
mod local_session;

#[path = "support/calibration_fit.rs"]
mod calibration_fit;

use std::collections::BTreeMap;
use std::sync::Arc;

use calibration_fit::{Labelled, set_figures};
use serde::Deserialize;
use sleuth::config::{Config, Overrides};
use sleuth::engine::model::AnswerStatus;
use sleuth::paths::Paths;
use sleuth::search::local::{self, LocalCorpus};

#[derive(Deserialize)]
struct Question {
    id: String,
    question: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    gold: Vec<String>,
    #[serde(default)]
    facts: Vec<String>,
}

/// The same document under another path counts (the sets' scoring rule).
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

async fn run_one(set: &str, q: &Question, corpus: &Arc<LocalCorpus>, config: &Config) -> Labelled {
    let state = local_session::run_session(format!("calibration-{}", q.id), &q.question, corpus, config).await;
    let cited: Vec<String> = state
        .verification
        .as_ref()
        .map(|v| v.cited.iter().filter_map(|id| state.source(*id)).map(|s| equivalent(&s.meta.canonical)).collect())
        .unwrap_or_default();
    let report = state.report.as_ref().map(|r| r.markdown.to_lowercase()).unwrap_or_default();
    let facts = q.facts.iter().filter(|f| report.contains(&f.to_lowercase())).count();
    let recall = q.gold.iter().filter(|g| cited.contains(&equivalent(g))).count();
    let says_unanswered = state.report.as_ref().is_some_and(|r| r.answer != AnswerStatus::Answered);
    // The features of the draft the report was written from.
    let based_on = state.report.as_ref().and_then(|r| r.based_on_iteration);
    let features: BTreeMap<String, f64> = based_on
        .and_then(|n| state.iteration_record(n))
        .and_then(|it| it.evaluation.as_ref())
        .and_then(|e| e.calibration.as_ref())
        .map(|c| c.features.clone())
        .unwrap_or_default();
    Labelled {
        set: set.to_string(),
        id: q.id.clone(),
        answerable: q.kind.as_deref() != Some("unanswerable"),
        facts: (facts, q.facts.len()),
        recall: (recall, q.gold.len()),
        says_unanswered,
        confidence: state.confidence,
        iterations: state.iteration(),
        wall_ms: state.elapsed_ms,
        features,
        question: q.question.clone(),
        report: state.report.as_ref().map(|r| r.markdown.clone()).unwrap_or_default(),
    }
}

fn default_files() -> Vec<String> {
    let base = ["../shared/eval", "../../shared/eval"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("../shared/eval");
    ["rust-docs-user.jsonl", "rust-docs-user-2.jsonl", "rust-docs-dev.jsonl"]
        .iter()
        .map(|f| format!("{base}/{f}"))
        .filter(|p| std::path::Path::new(p).exists())
        .collect()
}

fn run_sessions(files: &[String], config: &Config) -> Vec<Labelled> {
    let paths = Paths::discover().expect("paths");
    let cfg = config.local.clone();
    let progress = |l: &str| eprintln!("{l}");
    let corpus = local::shared(&cfg, &local::index_root(&cfg, &paths), &progress).expect("local corpus");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let mut rows = Vec::new();
    println!("{:<6} {:<12} {:>6} {:>7} {:>7}  says-unanswered", "id", "kind", "conf", "facts", "recall");
    for file in files {
        let set = std::path::Path::new(file).file_stem().map_or(file.clone(), |s| s.to_string_lossy().into_owned());
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let q: Question = serde_json::from_str(line).expect("question line");
            let row = rt.block_on(run_one(&set, &q, &corpus, config));
            println!(
                "{:<6} {:<12} {:>6.3} {:>3}/{:<3} {:>3}/{:<3}  {}",
                row.id,
                if row.answerable { "answerable" } else { "unanswerable" },
                row.confidence,
                row.facts.0,
                row.facts.1,
                row.recall.0,
                row.recall.1,
                row.says_unanswered
            );
            rows.push(row);
        }
    }
    rows
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut files = Vec::new();
    let mut fit = calibration_fit::FitOptions::default();
    let mut from: Option<String> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--fit" => fit.enabled = true,
            "--write" => fit.write = true,
            "--from" => from = args.next(),
            "--features" => fit.features = args.next().map(|l| l.split(',').map(str::to_string).collect()),
            "--l2" => fit.l2 = args.next().and_then(|v| v.parse().ok()),
            "--folds" => fit.folds = args.next().and_then(|v| v.parse().ok()),
            other if other.starts_with("--") => {}
            other => files.push(other.to_string()),
        }
    }
    let paths = Paths::discover().expect("paths");
    let (config, _) = sleuth::config::load(None, &paths.config_file(), std::env::vars(), &Overrides::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let dump = calibration_fit::dump_path();
    let rows = match &from {
        Some(file) => calibration_fit::read_rows(file),
        None => {
            let files = if files.is_empty() { default_files() } else { files };
            let rows = run_sessions(&files, &config);
            calibration_fit::write_rows(&dump, &rows);
            println!("features of {} questions written to {}", rows.len(), dump.display());
            rows
        }
    };
    let threshold = config.decide.confidence_threshold;
    println!();
    println!("As run (the session's own confidence; in-sample where the defaults were fitted on these sets):");
    for (set, figures) in set_figures(&rows, |r| r.confidence, threshold) {
        println!("{set}: {figures}");
        if from.is_none() {
            let of_set: Vec<&Labelled> = rows.iter().filter(|r| r.set == set || set == "all").collect();
            let mut walls: Vec<u64> = of_set.iter().map(|r| r.wall_ms).collect();
            walls.sort_unstable();
            let iterations = of_set.iter().map(|r| f64::from(r.iterations)).sum::<f64>() / of_set.len().max(1) as f64;
            println!(
                "{set}: mean iterations {iterations:.2}, session wall p50 {} ms, max {} ms",
                walls.get(walls.len() / 2).copied().unwrap_or(0),
                walls.last().copied().unwrap_or(0)
            );
        }
    }
    if fit.enabled {
        calibration_fit::fit_and_report(&rows, &fit, threshold);
    }
}
