//! The calibration fit on recorded fixtures, checked on a fixture it never
//! saw. `tests/fixtures/calibration/rows.jsonl` holds, per question of the
//! three evaluation sets, the features EVALUATE computed for the report's
//! draft (built-in reasoner, local corpus) and its labels (good: at least
//! 2/3 of the expected facts; answerable). No question text: the rows are
//! what the fit sees. The refit command (`cargo bench --bench calibration --
//! --fit --write`) re-records them with the defaults.
//!
//! Each test fits on some sets with the code the refit command uses
//! (`cargo bench --bench calibration -- --fit --write`), turns the fit into
//! `[evaluate.calibration]` settings, and scores the set held apart through
//! those settings, as a session would.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::collections::BTreeMap;

use serde::Deserialize;
use sleuth::engine::calibration::fit::{Model, auroc, fit_logistic};
use sleuth::engine::calibration::{CalibrationSettings, FEATURES, fitted};

#[derive(Deserialize)]
struct Row {
    set: String,
    answerable: bool,
    good: bool,
    features: BTreeMap<String, f64>,
}

fn rows() -> Vec<Row> {
    let text = include_str!("fixtures/calibration/rows.jsonl");
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("fixture row")).collect()
}

/// The features the default calibration uses (whatever the last refit chose).
fn names() -> Vec<String> {
    fitted::COEFFICIENTS.iter().map(|(k, _)| (*k).to_string()).collect()
}

fn design(rows: &[&Row], names: &[String]) -> (Vec<Vec<f64>>, Vec<bool>) {
    let x = rows.iter().map(|r| names.iter().map(|n| r.features.get(n).copied().unwrap_or(0.0)).collect()).collect();
    (x, rows.iter().map(|r| r.good).collect())
}

/// A fit as the configuration holds it.
fn settings(m: &Model, names: &[String]) -> CalibrationSettings {
    CalibrationSettings {
        enabled: true,
        intercept: m.intercept,
        coefficients: names.iter().cloned().zip(m.coefficients.iter().copied()).collect(),
        fitted_on: "a test".into(),
        applies_to: Default::default(),
    }
}

struct HeldApart {
    good_vs_other: f64,
    good_vs_unanswerable: f64,
    unanswerable_low: usize,
    unanswerable: usize,
}

/// Fits on every set but `held`, then scores `held` through the settings.
fn fit_without(held: &str) -> HeldApart {
    let all = rows();
    let names = names();
    let train: Vec<&Row> = all.iter().filter(|r| r.set != held).collect();
    let test: Vec<&Row> = all.iter().filter(|r| r.set == held).collect();
    assert!(!test.is_empty() && !train.is_empty(), "the fixture holds {held} and other sets");
    let (x, y) = design(&train, &names);
    let model = fit_logistic(&x, &y, fitted::L2).expect("fit");
    let s = settings(&model, &names);
    let p = |r: &Row| s.apply(&r.features).probability;
    // The settings map a row exactly as the fitted model does (citation
    // density is 1 in these rows: the built-in reasoner quotes verbatim).
    for r in &test {
        let raw: Vec<f64> = names.iter().map(|n| r.features.get(n).copied().unwrap_or(0.0)).collect();
        assert!((p(r) - model.predict(&raw)).abs() < 1e-9);
    }
    let good: Vec<f64> = test.iter().filter(|r| r.good).map(|r| p(r)).collect();
    let other: Vec<f64> = test.iter().filter(|r| r.answerable && !r.good).map(|r| p(r)).collect();
    let unanswerable: Vec<&&Row> = test.iter().filter(|r| !r.answerable).collect();
    let neg: Vec<f64> = unanswerable.iter().map(|r| p(r)).collect();
    HeldApart {
        good_vs_other: auroc(&good, &other).expect("good and other rows"),
        good_vs_unanswerable: auroc(&good, &neg).expect("good and unanswerable rows"),
        unanswerable_low: neg.iter().filter(|v| **v < 0.6).count(),
        unanswerable: neg.len(),
    }
}

#[test]
fn a_fit_on_the_other_sets_ranks_the_held_apart_user_set() {
    let h = fit_without("rust-docs-user");
    // Measured 0.80 / 0.97 (docs/benchmarks.md, Calibration); the bars
    // leave room for a refit, not for a broken fit (chance is 0.5).
    assert!(h.good_vs_other >= 0.72, "good vs other answerable: {:.3}", h.good_vs_other);
    assert!(h.good_vs_unanswerable >= 0.90, "good vs unanswerable: {:.3}", h.good_vs_unanswerable);
    assert_eq!(h.unanswerable_low, h.unanswerable, "every unanswerable question below 0.6");
}

#[test]
fn a_fit_on_the_other_sets_ranks_the_held_apart_user_2_set() {
    let h = fit_without("rust-docs-user-2");
    // Measured 0.66 / 0.92: below the 0.80 / 0.95 targets (docs/benchmarks.md).
    assert!(h.good_vs_other >= 0.62, "good vs other answerable: {:.3}", h.good_vs_other);
    assert!(h.good_vs_unanswerable >= 0.85, "good vs unanswerable: {:.3}", h.good_vs_unanswerable);
    assert_eq!(h.unanswerable_low, h.unanswerable, "every unanswerable question below 0.6");
}

#[test]
fn the_held_apart_probabilities_are_probabilities_of_a_good_answer() {
    // Fit on the user sets, check the dev set: of its reports, the share
    // that are good is near the mean predicted probability (calibration in
    // the large), and a fit on labels that say nothing ranks at chance.
    let all = rows();
    let names = names();
    let train: Vec<&Row> = all.iter().filter(|r| r.set != "rust-docs-dev").collect();
    let test: Vec<&Row> = all.iter().filter(|r| r.set == "rust-docs-dev").collect();
    let (x, y) = design(&train, &names);
    let s = settings(&fit_logistic(&x, &y, fitted::L2).expect("fit"), &names);
    let mean = test.iter().map(|r| s.apply(&r.features).probability).sum::<f64>() / test.len() as f64;
    let share = test.iter().filter(|r| r.good).count() as f64 / test.len() as f64;
    assert!((0.0..1.0).contains(&mean) && mean > 0.0);
    assert!((mean - share).abs() < 0.35, "mean probability {mean:.2} vs share good {share:.2}");
    // The same fit on labels that alternate regardless of the features.
    let noise: Vec<bool> = (0..y.len()).map(|i| i % 2 == 0).collect();
    let n = settings(&fit_logistic(&x, &noise, fitted::L2).expect("fit"), &names);
    let held: Vec<&Row> = all.iter().filter(|r| r.set == "rust-docs-user-2").collect();
    let good: Vec<f64> = held.iter().filter(|r| r.good).map(|r| n.apply(&r.features).probability).collect();
    let rest: Vec<f64> = held.iter().filter(|r| !r.good).map(|r| n.apply(&r.features).probability).collect();
    let a = auroc(&good, &rest).expect("rows");
    assert!((0.2..0.8).contains(&a), "a fit on noise ranks near chance: {a:.3}");
}

#[test]
fn the_fixture_rows_carry_every_feature_evaluate_computes() {
    // A feature added to EVALUATE without re-recording the fixture would
    // be fitted on zeros here: re-record with the refit command.
    for r in rows() {
        for (name, _) in FEATURES {
            assert!(r.features.contains_key(*name), "a fixture row lacks `{name}`");
        }
        assert!(r.answerable || !r.good);
    }
}
