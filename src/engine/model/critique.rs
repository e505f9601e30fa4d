use serde::{Deserialize, Serialize};

use super::{DimensionScores, SourceId, lenient};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Pass,
    Warn,
    Reject,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    /// Weight used when summing severities for the plateau check.
    pub fn weight(self) -> f64 {
        match self {
            Severity::Low => 1.0,
            Severity::Medium => 2.0,
            Severity::High => 3.0,
            Severity::Critical => 5.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    pub severity: Severity,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contradiction {
    pub claim: String,
    pub source_a: SourceId,
    pub source_b: SourceId,
    #[serde(default)]
    pub resolution_needed: bool,
}

/// A question for the user and the answers on offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clarification {
    pub question: String,
    #[serde(default)]
    pub options: Vec<String>,
}

/// CRITIQUE's output: the critic's verdicts and issues, and the gaps (what
/// the draft does not yet answer) that steer the next iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Critique {
    pub verdict: Verdict,
    #[serde(default)]
    pub issues: Vec<Issue>,
    /// The aspects a complete answer must address.
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub aspects_required: Vec<String>,
    /// The subset of `aspects_required` the draft addresses with support.
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub aspects_addressed: Vec<String>,
    /// Addressed, but thinly (one weak source).
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub weak_aspects: Vec<String>,
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub gaps: Vec<String>,
    /// Concepts the sources pair with the question that it does not ask
    /// (`AspectKind::Related`): pointers for a "See also", never among the
    /// aspects required, addressed or the gaps, so never in coverage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_aspects: Vec<String>,
    #[serde(default)]
    pub contradictions: Vec<Contradiction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_clarification: Option<Clarification>,
    /// The critic's own dimension scores; derived from signals when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<DimensionScores>,
    /// How well the draft's direct answer (its first paragraph) addresses
    /// the question as asked, in `[0, 1]`: the built-in measures it from
    /// the quoted passages, the LLM critic judges it with the evidence.
    /// `None` when nobody judged it (a fallback, a log from before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_relevance: Option<f64>,
    /// The critic found that the sources do not answer the question at
    /// all, as opposed to answering it weakly.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
}

impl Critique {
    /// Sum of issue severities: the quantity whose plateau means converged.
    pub fn severity_total(&self) -> f64 {
        self.issues.iter().map(|i| i.severity.weight()).sum()
    }
}
