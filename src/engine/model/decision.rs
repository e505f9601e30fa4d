use std::fmt;

use serde::{Deserialize, Serialize};

use super::{PlannedQuery, Reflection};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Action {
    Continue,
    Output,
    Ask,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Continue => "CONTINUE",
            Action::Output => "OUTPUT",
            Action::Ask => "ASK",
        })
    }
}

/// Which branch of the decision tree fired (in the order the rules are
/// tried; docs/scoring.md#the-decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionReason {
    Thresholds,
    MaxIterations,
    CostBudget,
    TokenBudget,
    TimeBudget,
    NeedsClarification,
    DiminishingReturns,
    Converged,
    BelowThresholds,
}

impl DecisionReason {
    /// Whether an OUTPUT for this reason means the answer met the bar
    /// (as opposed to stopping on a limit).
    pub fn is_convergence(self) -> bool {
        matches!(self, DecisionReason::Thresholds)
    }

    pub fn label(self) -> &'static str {
        match self {
            DecisionReason::Thresholds => "confidence and coverage thresholds met",
            DecisionReason::MaxIterations => "maximum iterations reached (best effort)",
            DecisionReason::CostBudget => "cost budget spent",
            DecisionReason::TokenBudget => "token budget spent",
            DecisionReason::TimeBudget => "time limit reached",
            DecisionReason::NeedsClarification => "the question needs clarification",
            DecisionReason::DiminishingReturns => "diminishing returns",
            DecisionReason::Converged => "draft converged",
            DecisionReason::BelowThresholds => "below thresholds; more research can help",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub action: Action,
    pub reason: DecisionReason,
    /// The numbers behind the reason, for people.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Strategy {
    /// Broaden: coverage is low.
    Expand,
    /// Focus on weak areas: coverage is high but confidence low.
    Narrow,
    /// Try a different angle: no improvement for several iterations.
    Pivot,
    /// More detail on a partially covered aspect.
    Deepen,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Expand => "EXPAND",
            Strategy::Narrow => "NARROW",
            Strategy::Pivot => "PIVOT",
            Strategy::Deepen => "DEEPEN",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reformulation {
    pub from: String,
    pub to: String,
    pub why: String,
}

/// REFINE's output: the strategy, the next iteration's queries and how they
/// were obtained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refinement {
    pub strategy: Strategy,
    pub rationale: String,
    /// The planner's reflection on the new queries.
    pub reflection: Reflection,
    pub queries: Vec<PlannedQuery>,
    #[serde(default)]
    pub negative_keywords: Vec<String>,
    #[serde(default)]
    pub positive_keywords: Vec<String>,
    #[serde(default)]
    pub reformulations: Vec<Reformulation>,
    /// Aspects the next iteration concentrates on.
    #[serde(default)]
    pub focus: Vec<String>,
}
