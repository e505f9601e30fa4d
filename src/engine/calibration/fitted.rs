//! The default calibration, written by `cargo bench --bench calibration --
//! --fit --write` (do not edit by hand: re-run the fit). The figures it
//! printed are in docs/benchmarks.md (Calibration).

/// Where these numbers came from.
pub const FITTED_ON: &str = "rust-docs-dev (12), rust-docs-user (40), rust-docs-user-2 (60): logistic regression, L2 4 on standardised features, 5-fold CV stratified by set and label, fitted 2026-11-27 by `cargo bench --bench calibration -- --fit --write`";

/// The regularisation and folds the fit uses (the next refit too).
pub const L2: f64 = 4.0;
pub const FOLDS: usize = 5;

/// The log-odds of a good answer when every feature is 0.
pub const INTERCEPT: f64 = -5.6706;

/// Feature → weight in the log-odds (features: `super::FEATURES`).
pub const COEFFICIENTS: &[(&str, f64)] = &[
    ("answer_relevance", 1.2146),
    ("coverage", 0.5844),
    ("opening_relevance", 2.8308),
    ("agreed_name_sources", 2.1239),
];
