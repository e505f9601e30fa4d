//! Calibration benchmark: does confidence measure whether the question is
//! answered? Runs every question of the eval sets headless (local corpus,
//! built-in reasoner, standard preset, ASKs answered with the first
//! option) and prints per question its confidence, facts found and gold
//! recall; then over the answerable and unanswerable questions:
//!
//! - (a) AUROC of confidence, good answers (≥ 2/3 of the facts) vs the
//!   other answerable ones;
//! - (b) AUROC of confidence, good answers vs unanswerable questions;
//! - (c) the share of unanswerable questions ending below 0.6 AND saying
//!   the sources do not answer;
//! - (d) expected calibration error (10 bins) of confidence against the
//!   share of facts found (0 for an unanswerable question).
//!
//!   cargo bench --bench calibration                 # user + dev sets
//!   cargo bench --bench calibration -- some.jsonl   # other sets
//!
//! Uses `SLEUTH_HOME` (or the platform data dir) for the index; builds it
//! on first use. Targets on the dev sets: (a) ≥ 0.75, (b) ≥ 0.95, (c) ≥ 0.8.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

#[path = "support/local_session.rs"]
mod local_session;

use std::sync::Arc;

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

impl Question {
    fn answerable(&self) -> bool {
        self.kind.as_deref() != Some("unanswerable")
    }
}

struct Row {
    id: String,
    answerable: bool,
    confidence: f64,
    facts: (usize, usize),
    recall: (usize, usize),
    says_unanswered: bool,
}

impl Row {
    fn fact_share(&self) -> f64 {
        if self.facts.1 == 0 { 0.0 } else { self.facts.0 as f64 / self.facts.1 as f64 }
    }
    fn good(&self) -> bool {
        self.answerable && self.facts.1 > 0 && self.facts.0 * 3 >= self.facts.1 * 2
    }
}

/// The same document under another path counts (eval README).
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

async fn run_one(q: &Question, corpus: &Arc<LocalCorpus>, config: &Config) -> Row {
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
    Row {
        id: q.id.clone(),
        answerable: q.answerable(),
        confidence: state.confidence,
        facts: (facts, q.facts.len()),
        recall: (recall, q.gold.len()),
        says_unanswered,
    }
}

/// Probability that a positive scores above a negative (ties count half).
fn auroc(pos: &[f64], neg: &[f64]) -> Option<f64> {
    if pos.is_empty() || neg.is_empty() {
        return None;
    }
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    Some(wins / (pos.len() * neg.len()) as f64)
}

/// Expected calibration error over 10 equal-width confidence bins.
fn ece(pairs: &[(f64, f64)]) -> f64 {
    let mut bins = [(0.0f64, 0.0f64, 0usize); 10];
    for (conf, truth) in pairs {
        let b = ((conf * 10.0) as usize).min(9);
        bins[b].0 += conf;
        bins[b].1 += truth;
        bins[b].2 += 1;
    }
    let n = pairs.len().max(1) as f64;
    bins.iter().filter(|b| b.2 > 0).map(|(c, t, k)| (*k as f64 / n) * ((c - t) / *k as f64).abs()).sum()
}

fn fmt(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let files: Vec<String> = if args.is_empty() {
        let base = ["../shared/eval", "../../shared/eval"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .unwrap_or("../shared/eval");
        vec![format!("{base}/rust-docs-user.jsonl"), format!("{base}/rust-docs-dev.jsonl")]
    } else {
        args
    };
    let paths = Paths::discover().expect("paths");
    let (config, _) = sleuth::config::load(None, &paths.config_file(), std::env::vars(), &Overrides::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let cfg = config.local.clone();
    let progress = |l: &str| eprintln!("{l}");
    let corpus = local::shared(&cfg, &local::index_root(&cfg, &paths), &progress).expect("local corpus");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let mut rows = Vec::new();
    println!("{:<6} {:<12} {:>6} {:>7} {:>7}  says-unanswered", "id", "kind", "conf", "facts", "recall");
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let q: Question = serde_json::from_str(line).expect("question line");
            let row = rt.block_on(run_one(&q, &corpus, &config));
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
    let good: Vec<f64> = rows.iter().filter(|r| r.good()).map(|r| r.confidence).collect();
    let rest: Vec<f64> = rows.iter().filter(|r| r.answerable && !r.good()).map(|r| r.confidence).collect();
    let unanswerable: Vec<&Row> = rows.iter().filter(|r| !r.answerable).collect();
    let neg: Vec<f64> = unanswerable.iter().map(|r| r.confidence).collect();
    let honest = unanswerable.iter().filter(|r| r.confidence < 0.6 && r.says_unanswered).count();
    let pairs: Vec<(f64, f64)> = rows.iter().map(|r| (r.confidence, r.fact_share())).collect();
    let answerable_pairs: Vec<(f64, f64)> =
        rows.iter().filter(|r| r.answerable).map(|r| (r.confidence, r.fact_share())).collect();
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
    println!(
        "{} questions: {} good, {} other answerable, {} unanswerable; mean confidence good {:.3}, other {:.3}, unanswerable {:.3}",
        rows.len(),
        good.len(),
        rest.len(),
        neg.len(),
        mean(&good),
        mean(&rest),
        mean(&neg)
    );
    println!("(a) AUROC good vs other answerable: {}  (target ≥ 0.75)", fmt(auroc(&good, &rest)));
    println!("(b) AUROC good vs unanswerable:     {}  (target ≥ 0.95)", fmt(auroc(&good, &neg)));
    println!(
        "(c) unanswerable below 0.6 and saying so: {}/{} = {}  (target ≥ 0.8)",
        honest,
        unanswerable.len(),
        fmt((!unanswerable.is_empty()).then(|| honest as f64 / unanswerable.len() as f64))
    );
    println!("(d) ECE vs share of facts: {:.3} (all), {:.3} (answerable only)", ece(&pairs), ece(&answerable_pairs));
}
