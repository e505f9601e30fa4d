//! Confidence as a calibrated probability: the chance that the report
//! answers the question (holds at least two thirds of what a correct
//! answer says), from EVALUATE's features (the confidence components and the
//! signals beside them, [`features`]) through a logistic regression fitted
//! on the project's labelled question sets with cross-validation
//! (`cargo bench --bench calibration -- --fit`, see docs/scoring.md).
//!
//! The fitted numbers are `[evaluate.calibration]` in the configuration;
//! their defaults, and where they came from, are in [`fitted`], which the
//! fit writes.

pub mod features;
pub mod fit;
pub mod fitted;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use features::{FEATURES, FeatureInput, features};

use super::model::{CalibratedConfidence, CalibrationTerm};

/// `[evaluate.calibration]`: the logistic mapping from features to the
/// probability of a good answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CalibrationSettings {
    /// Off: confidence is the components' weighted average, as before
    /// calibration (no probability).
    pub enabled: bool,
    /// The log-odds of a good answer when every feature is 0.
    pub intercept: f64,
    /// Feature name → its weight in the log-odds; a feature not listed
    /// weighs nothing. Names: [`FEATURES`].
    pub coefficients: BTreeMap<String, f64>,
    /// Where the numbers came from: sets, folds, regularisation, date.
    pub fitted_on: String,
    /// Which sessions the mapping holds for. A probability fitted on one
    /// corpus is no probability on another: its features (names several
    /// pages of the documentation agree on, relevance among 83,000
    /// passages) mean something else in ten notes of one's own.
    pub applies_to: CalibrationScope,
}

/// Which sessions a fitted mapping holds for; elsewhere confidence is the
/// components' weighted average with its own threshold (the builder
/// decides, since it knows the corpus).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalibrationScope {
    /// The built-in reasoner on the default local corpus alone (the Rust
    /// documentation rustup installs), which the defaults were fitted on.
    #[default]
    FittedCorpus,
    /// Every session of the built-in reasoner: for a mapping refitted on
    /// one's own questions and corpus.
    AnyCorpus,
}

impl Default for CalibrationSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            intercept: fitted::INTERCEPT,
            coefficients: fitted::COEFFICIENTS.iter().map(|(k, v)| ((*k).to_string(), *v)).collect(),
            fitted_on: fitted::FITTED_ON.to_string(),
            applies_to: CalibrationScope::default(),
        }
    }
}

impl CalibrationSettings {
    /// Coefficient names that are no feature (a typo in the config).
    pub fn unknown_features(&self) -> Vec<String> {
        self.coefficients.keys().filter(|k| !FEATURES.iter().any(|(n, _)| n == k)).cloned().collect()
    }

    /// What is wrong with these settings, as (config key, message): a
    /// coefficient naming no feature. (Numbers are range-checked with the
    /// rest of the configuration.)
    pub fn problems(&self) -> Vec<(String, String)> {
        let names: Vec<&str> = FEATURES.iter().map(|(n, _)| *n).collect();
        self.unknown_features()
            .into_iter()
            .map(|name| {
                (
                    format!("evaluate.calibration.coefficients.{name}"),
                    format!("is no feature EVALUATE computes; the features are {}", names.join(", ")),
                )
            })
            .collect()
    }

    /// The probability of a good answer for these features, with each
    /// term of the log-odds kept for the breakdown. It is scaled by the
    /// share of claims whose quote checks out (`citation_density`): the
    /// built-in reasoner quotes verbatim, so the fit never saw an
    /// unsupported claim and cannot say what one costs; a claim whose quote
    /// does not check out is counted as no answer.
    pub fn apply(&self, features: &BTreeMap<String, f64>) -> CalibratedConfidence {
        let terms: Vec<CalibrationTerm> = self
            .coefficients
            .iter()
            .map(|(name, coefficient)| CalibrationTerm {
                feature: name.clone(),
                value: features.get(name).copied().unwrap_or(0.0),
                coefficient: *coefficient,
            })
            .collect();
        let log_odds = self.intercept + terms.iter().map(|t| t.value * t.coefficient).sum::<f64>();
        let fitted = sigmoid(log_odds);
        let citation_density = features.get("citation_density").copied().unwrap_or(1.0).clamp(0.0, 1.0);
        CalibratedConfidence {
            probability: fitted * citation_density,
            fitted,
            citation_density,
            log_odds,
            intercept: self.intercept,
            terms,
        }
    }
}

pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(intercept: f64, coefficients: &[(&str, f64)]) -> CalibrationSettings {
        CalibrationSettings {
            enabled: true,
            intercept,
            coefficients: coefficients.iter().map(|(k, v)| ((*k).to_string(), *v)).collect(),
            fitted_on: String::new(),
            applies_to: CalibrationScope::default(),
        }
    }

    #[test]
    fn the_probability_is_the_logistic_of_the_intercept_plus_the_weighted_features() {
        let s = settings(-2.0, &[("answer_relevance", 3.0), ("unanswered", -4.0)]);
        let f: BTreeMap<String, f64> =
            [("answer_relevance".to_string(), 0.9), ("unanswered".to_string(), 0.0), ("coverage".to_string(), 1.0)]
                .into();
        let c = s.apply(&f);
        assert!((c.log_odds - 0.7).abs() < 1e-12, "{}", c.log_odds);
        assert!((c.probability - 1.0 / (1.0 + (-0.7f64).exp())).abs() < 1e-12);
        // Coverage has no coefficient: it weighs nothing and is not a term.
        assert_eq!(c.terms.iter().map(|t| t.feature.as_str()).collect::<Vec<_>>(), ["answer_relevance", "unanswered"]);
        let mut off = f.clone();
        off.insert("unanswered".into(), 1.0);
        assert!(s.apply(&off).probability < 0.05, "the critic saying unanswered pulls it down");
        // Half the claims' quotes do not check out: half the probability.
        let mut half = f.clone();
        half.insert("citation_density".into(), 0.5);
        let h = s.apply(&half);
        assert!((h.probability - c.fitted / 2.0).abs() < 1e-12 && h.fitted == c.fitted);
    }

    #[test]
    fn the_defaults_name_only_features_that_exist() {
        let d = CalibrationSettings::default();
        assert!(d.unknown_features().is_empty(), "{:?}", d.unknown_features());
        assert!(!d.coefficients.is_empty() && !d.fitted_on.is_empty());
        assert_eq!(settings(0.0, &[("answer_relevanse", 1.0)]).unknown_features(), ["answer_relevanse"]);
        assert!(d.problems().is_empty());
        let bad = settings(0.0, &[("coverage", 1.0), ("answer_relevanse", 1.0)]);
        let keys: Vec<String> = bad.problems().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["evaluate.calibration.coefficients.answer_relevanse"]);
    }

    #[test]
    fn the_sigmoid_is_stable_at_the_extremes() {
        assert_eq!(sigmoid(0.0), 0.5);
        assert!(sigmoid(-800.0) >= 0.0 && sigmoid(800.0) <= 1.0);
        assert!(sigmoid(-800.0).is_finite() && sigmoid(800.0).is_finite());
    }
}
