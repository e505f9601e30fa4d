use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Verdict;

/// The inputs of confidence (answer relevance, source quality, coverage,
/// citation density, consistency, recency; docs/scoring.md), each
/// in `[0, 1]`. Each is evidence that the question is answered; a part
/// nobody could judge (a failed phase, a critic that gave no figure) is 0,
/// never a free 1.0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceComponents {
    /// Whether the draft's direct answer (its first paragraph) addresses
    /// the question as asked: the critic's `answer_relevance`.
    #[serde(default)]
    pub answer_relevance: f64,
    pub source_quality: f64,
    pub coverage: f64,
    pub citation_density: f64,
    pub consistency: f64,
    pub recency: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConfidenceWeights {
    pub answer_relevance: f64,
    pub source_quality: f64,
    pub coverage: f64,
    pub citation_density: f64,
    pub consistency: f64,
    pub recency: f64,
}

impl Default for ConfidenceWeights {
    fn default() -> Self {
        // Whether the question is answered weighs most; recency only
        // counts for a time-sensitive question (see `evaluate`).
        Self {
            answer_relevance: 0.30,
            source_quality: 0.20,
            coverage: 0.20,
            citation_density: 0.15,
            consistency: 0.10,
            recency: 0.05,
        }
    }
}

impl ConfidenceWeights {
    pub fn sum(&self) -> f64 {
        self.answer_relevance
            + self.source_quality
            + self.coverage
            + self.citation_density
            + self.consistency
            + self.recency
    }
}

/// The critique's quality dimensions, each in `[0, 1]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct DimensionScores {
    pub completeness: f64,
    pub accuracy: f64,
    pub relevance: f64,
    pub freshness: f64,
    pub coherence: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DimensionWeights {
    pub completeness: f64,
    pub accuracy: f64,
    pub relevance: f64,
    pub freshness: f64,
    pub coherence: f64,
}

impl Default for DimensionWeights {
    fn default() -> Self {
        Self { completeness: 0.30, accuracy: 0.25, relevance: 0.20, freshness: 0.15, coherence: 0.10 }
    }
}

impl DimensionWeights {
    pub fn sum(&self) -> f64 {
        self.completeness + self.accuracy + self.relevance + self.freshness + self.coherence
    }
}

/// EVALUATE's result: every number the decision uses, with its parts kept
/// so the TUI can show where a confidence came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub confidence: f64,
    pub components: ConfidenceComponents,
    /// The weights applied: the configured ones, with recency's at 0 when
    /// the question is not time-sensitive.
    pub weights: ConfidenceWeights,
    pub coverage: f64,
    pub aspects_required: usize,
    pub aspects_addressed: usize,
    pub dimensions: DimensionScores,
    /// Weighted dimension score.
    pub quality: f64,
    pub verdict: Verdict,
    pub severity_total: f64,
    pub gaps: Vec<String>,
    pub contradictions: usize,
    pub claims: usize,
    pub supported_claims: usize,
    pub cited_sources: usize,
    pub needs_clarification: bool,
    /// Confidence gain over the previous iteration (the convergence trend).
    pub gain: f64,
    /// Similarity of this draft to the previous one, in `[0, 1]`.
    pub draft_similarity: Option<f64>,
    /// Phases of this iteration that failed and fell back to sleuth's
    /// simple defaults: what they produced is no evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_phases: Vec<String>,
    /// The critic found that the sources do not answer the question.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
    /// The question asks about dates, versions or the latest state of
    /// things, so recency counts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub time_sensitive: bool,
    /// Why this draft may not end the session on its thresholds (and its
    /// confidence is capped): unanswered, a phase fell back, or a direct
    /// answer that does not address the question. `None`: nothing holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_back: Option<String>,
    /// The features behind confidence and, when calibration is on, the
    /// mapping that turned them into the probability of a good answer.
    /// `None` in logs from before calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<ConfidenceCalibration>,
}

impl Evaluation {
    /// The claims line as every view prints it, saying what was checked:
    /// a claim counts when its quote is in the cited source and carries at
    /// least half of the claim's content words. It is a check of the
    /// quotes, not that the answer is right.
    pub fn claims_line(&self) -> String {
        format!(
            "{} of {} claims backed by their quote (in the cited source, saying what the claim says)",
            self.supported_claims, self.claims
        )
    }
}

/// What EVALUATE knew about a draft (every feature, by name) and how it
/// became the probability of a good answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceCalibration {
    pub features: BTreeMap<String, f64>,
    /// `None` when calibration is off: confidence is then the components'
    /// weighted average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<CalibratedConfidence>,
}

/// The logistic mapping as applied: σ(intercept + Σ coefficient × value),
/// times the share of claims whose quote checks out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibratedConfidence {
    /// `fitted × citation_density`, before the held-back cap.
    pub probability: f64,
    /// σ(log_odds): the fitted probability of a good answer.
    pub fitted: f64,
    /// The share of claims whose quote is in its source and says what the
    /// claim says. The fit saw only drafts whose quotes all check out, so
    /// it cannot price an unsupported claim: it scales the probability.
    pub citation_density: f64,
    pub log_odds: f64,
    pub intercept: f64,
    pub terms: Vec<CalibrationTerm>,
}

/// One feature's part of the log-odds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationTerm {
    pub feature: String,
    pub value: f64,
    pub coefficient: f64,
}
