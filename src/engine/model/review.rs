use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::SourceId;

/// REVIEW's judgement of one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceVerdict {
    pub id: SourceId,
    pub kept: bool,
    /// Rejection reason key (`off_topic`, `duplicate`, `too_short`, …); also
    /// used as the key of the refinement table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Relevance to the question in `[0, 1]`.
    #[serde(default)]
    pub relevance: f32,
    /// Terms that characterise why it was rejected (candidate negative keywords).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<String>,
}

/// Seed 000's QualityReport: how much of what was fetched survived review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QualityReport {
    pub total_fetched: usize,
    pub verified: usize,
    pub rejected: usize,
    pub rejection_breakdown: BTreeMap<String, usize>,
    pub quality_score: f64,
    pub meets_threshold: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_refinement: Option<SuggestedRefinement>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedRefinement {
    pub reason: String,
    pub add_negative_keywords: Vec<String>,
    pub add_positive_keywords: Vec<String>,
}
