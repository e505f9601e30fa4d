//! The built-in PLAN on long questions: the time to plan
//! grows with the question's length, and must grow linearly — doubling the
//! question at most about doubles the time. A 40,000-word question is what
//! a client once sent; every front end now caps questions (10,000
//! characters by default), so this measures the planner alone, uncapped.
//! Prints the median of several runs per length and the ratio to the
//! length before (harness = false; run with `cargo bench --bench plan_length`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench code: a failure is a panic

use std::time::{Duration, Instant};

use sleuth::builtin::{BuiltinConfig, BuiltinReasoner};
use sleuth::engine::reasoner::{PlanContext, Reasoner};

/// A question of `words` words: varied content words and function words,
/// with punctuation, as a pasted document would read.
fn question(words: usize) -> String {
    let vocabulary = [
        "widget",
        "gadget",
        "latency",
        "bolt",
        "clamp",
        "buffer",
        "frames",
        "thermal",
        "limit",
        "power",
        "draws",
        "connects",
        "through",
        "bus",
        "width",
        "measured",
        "lab",
        "engineers",
        "recommend",
        "pairing",
        "throughput",
    ];
    let function = ["the", "of", "and", "to", "in", "a", "with", "when", "how", "does"];
    let mut out = String::with_capacity(words * 8);
    for i in 0..words {
        let w = if i % 3 == 2 { function[i % function.len()] } else { vocabulary[(i * 7 + i / 13) % vocabulary.len()] };
        out.push_str(w);
        // A number makes words distinct, as real text's words are.
        if i % 5 == 0 {
            out.push_str(&(i % 997).to_string());
        }
        out.push(if i % 17 == 16 {
            '.'
        } else if i % 11 == 10 {
            ','
        } else {
            ' '
        });
        if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.push('?');
    out
}

fn context(question: String) -> PlanContext {
    PlanContext {
        question,
        constraints: Vec::new(),
        iteration: 1,
        max_queries: 10,
        strategy: None,
        strategy_rationale: String::new(),
        prior: None,
        sources: Vec::new(),
        already_run: Vec::new(),
        memories: Vec::new(),
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let reasoner = BuiltinReasoner::new(BuiltinConfig::default(), None, 1.0);
    let mut previous: Option<(usize, Duration)> = None;
    println!("built-in PLAN, first iteration, no corpus statistics (median of 5 runs)");
    for words in [2_500, 5_000, 10_000, 20_000, 40_000] {
        let q = question(words);
        let mut samples = Vec::new();
        for _ in 0..5 {
            let ctx = context(q.clone());
            let start = Instant::now();
            let out = rt.block_on(reasoner.plan(ctx)).expect("a plan");
            samples.push(start.elapsed());
            assert!(!out.value.queries.is_empty());
        }
        let m = median(samples);
        let ratio = previous.map(|(w, d)| {
            format!(
                " · ×{:.2} for ×{:.0} the words",
                m.as_secs_f64() / d.as_secs_f64().max(1e-9),
                words as f64 / w as f64
            )
        });
        println!(
            "{words:>6} words ({} chars): {:>9.2} ms{}",
            q.len(),
            m.as_secs_f64() * 1000.0,
            ratio.unwrap_or_default()
        );
        previous = Some((words, m));
    }
}
