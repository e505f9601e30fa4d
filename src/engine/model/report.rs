use serde::{Deserialize, Serialize};

use super::{Claim, DecisionReason, SourceId, StatementCheck};

/// Why the loop stopped and wrote its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Decision(DecisionReason),
    ForcedByUser,
    Cancelled,
}

/// The final report, written from the best draft across iterations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub markdown: String,
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// The iteration whose draft the report was written from.
    pub based_on_iteration: Option<u32>,
    #[serde(default)]
    pub caveats: Vec<String>,
    pub stop: StopReason,
    /// Whether the report answers the question (a script tells the cases
    /// apart by the exit code; see `AnswerStatus`).
    #[serde(default, skip_serializing_if = "AnswerStatus::is_answered")]
    pub answer: AnswerStatus,
}

/// What the report could do with the question.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// Written from a draft that answers it (however confidently).
    #[default]
    Answered,
    /// Sources were searched, but what they say does not answer it: the
    /// report says so first and gives the closest material.
    Unanswered,
    /// No source could be searched at all (every search failed).
    NotSearched,
}

impl AnswerStatus {
    pub fn is_answered(&self) -> bool {
        *self == AnswerStatus::Answered
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedClaim {
    pub claim: String,
    pub source: Option<SourceId>,
    pub quote: String,
    pub why: String,
}

/// VERIFY's result (the phase after WRITE): ids exist, quotes are in their sources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    pub cited: Vec<SourceId>,
    /// `[n]` markers in the text that name no retrieved source.
    pub unknown_ids: Vec<u32>,
    pub claims_checked: usize,
    pub claims_supported: usize,
    pub unsupported: Vec<UnsupportedClaim>,
    /// Every cited sentence of the report, each checked against its
    /// sources (`engine::check`); empty in logs written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statements: Vec<StatementCheck>,
}

impl Verification {
    pub fn all_verified(&self) -> bool {
        self.unknown_ids.is_empty() && self.unsupported.is_empty() && self.statements.iter().all(|s| s.supported())
    }

    /// Cited sentences whose sources say what they say.
    pub fn statements_supported(&self) -> usize {
        self.statements.iter().filter(|s| s.supported()).count()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    Finished,
    Cancelled,
    Failed { error: String },
}
