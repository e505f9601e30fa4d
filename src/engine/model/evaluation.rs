use serde::{Deserialize, Serialize};

use super::Verdict;

/// The five inputs of confidence (seed 004), each in `[0, 1]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceComponents {
    pub source_quality: f64,
    pub coverage: f64,
    pub citation_density: f64,
    pub consistency: f64,
    pub recency: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConfidenceWeights {
    pub source_quality: f64,
    pub coverage: f64,
    pub citation_density: f64,
    pub consistency: f64,
    pub recency: f64,
}

impl Default for ConfidenceWeights {
    fn default() -> Self {
        Self { source_quality: 0.30, coverage: 0.25, citation_density: 0.20, consistency: 0.15, recency: 0.10 }
    }
}

impl ConfidenceWeights {
    pub fn sum(&self) -> f64 {
        self.source_quality + self.coverage + self.citation_density + self.consistency + self.recency
    }
}

/// The critique's quality dimensions (DESIGN §1), each in `[0, 1]`.
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
}
