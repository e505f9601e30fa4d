//! The research data the loop produces and the protocol carries. Plain
//! serde types with no behaviour beyond small helpers.

mod answer;
mod check;
mod critique;
mod decision;
mod draft;
mod evaluation;
mod lenient;
mod query;
mod reasons;
mod recheck;
mod report;
mod review;
mod source;
mod usage;

pub use answer::{Answer, AnswerError};
pub use check::{CheckOutcome, CheckRule, StatementCheck};
pub use critique::{Clarification, Contradiction, Critique, Issue, Severity, Verdict};
pub use decision::{Action, Decision, DecisionReason, Refinement, Reformulation, Strategy};
pub use draft::{Citation, Claim, Draft};
pub use evaluation::{
    CalibratedConfidence, CalibrationTerm, ConfidenceCalibration, ConfidenceComponents, ConfidenceWeights,
    DimensionScores, DimensionWeights, Evaluation,
};
pub use query::{AspectKind, PlannedQuery, Reflection};
pub use reasons::{Degradation, Phase, legacy_strict_reason};
pub use recheck::{ClaimStatus, PageStatus, Recheck, RecheckedClaim, RecheckedSource};
pub use report::{AnswerStatus, Outcome, Report, StopReason, UnsupportedClaim, Verification};
pub use review::{QualityReport, SourceVerdict, SuggestedRefinement};
pub use source::{Scholarly, SourceId, SourceKind, SourceMeta};
pub use usage::{Role, Usage};
