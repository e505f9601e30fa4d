//! Where the loop stands: derived from the folded state alone, so a live
//! run and a resumed one take the same next step.

use serde::Serialize;

use super::model::{Action, StopReason};
use super::state::SessionState;

/// The engine's next move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextStep {
    /// No `SessionStarted` yet: wait for `Command::Start`.
    AwaitStart,
    StartIteration(u32),
    Plan(u32),
    Search(u32),
    Review(u32),
    Draft(u32),
    Critique(u32),
    Evaluate(u32),
    Decide(u32),
    RaiseAsk(u32),
    AwaitAnswer(String),
    Refine(u32),
    AwaitStep(u32),
    Write(StopReason),
    Verify,
    Finish,
    Done,
}

/// What the session is doing, for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Idle,
    Planning,
    Searching,
    Reviewing,
    Drafting,
    Critiquing,
    Evaluating,
    Deciding,
    Refining,
    Paused,
    WaitingForAnswer,
    Writing,
    Verifying,
    Finished,
    Cancelled,
    Failed,
}

impl Stage {
    pub fn label(self) -> &'static str {
        match self {
            Stage::Idle => "idle",
            Stage::Planning => "planning",
            Stage::Searching => "searching",
            Stage::Reviewing => "reviewing",
            Stage::Drafting => "drafting",
            Stage::Critiquing => "critiquing",
            Stage::Evaluating => "evaluating",
            Stage::Deciding => "deciding",
            Stage::Refining => "refining",
            Stage::Paused => "paused (step mode)",
            Stage::WaitingForAnswer => "waiting for your answer",
            Stage::Writing => "writing report",
            Stage::Verifying => "verifying citations",
            Stage::Finished => "finished",
            Stage::Cancelled => "cancelled",
            Stage::Failed => "failed",
        }
    }
}

impl SessionState {
    pub fn next_step(&self) -> NextStep {
        if self.outcome.is_some() {
            return NextStep::Done;
        }
        if self.report.is_some() {
            return if self.verification.is_none() { NextStep::Verify } else { NextStep::Finish };
        }
        if self.header.is_none() {
            return NextStep::AwaitStart;
        }
        if self.cancel_requested {
            return NextStep::Write(StopReason::Cancelled);
        }
        if self.force_output {
            return NextStep::Write(StopReason::ForcedByUser);
        }
        let Some(cur) = self.current() else {
            return NextStep::StartIteration(1);
        };
        let n = cur.iteration;
        if !cur.planned {
            return NextStep::Plan(n);
        }
        if !cur.search_completed {
            return NextStep::Search(n);
        }
        if cur.review.is_none() {
            return NextStep::Review(n);
        }
        // With nothing usable to draft from, the loop evaluates the empty
        // result and refines instead of drafting from nothing.
        let nothing_to_draft = cur.no_valid_sources.is_some();
        if cur.draft.is_none() && !nothing_to_draft {
            return NextStep::Draft(n);
        }
        if cur.critique.is_none() && !nothing_to_draft {
            return NextStep::Critique(n);
        }
        if cur.evaluation.is_none() {
            return NextStep::Evaluate(n);
        }
        let Some(decision) = &cur.decision else {
            return NextStep::Decide(n);
        };
        match decision.action {
            Action::Output => return NextStep::Write(StopReason::Decision(decision.reason)),
            Action::Ask => match &cur.ask_id {
                None => return NextStep::RaiseAsk(n),
                Some(id) => {
                    let answered = self.asks.iter().any(|a| &a.ask_id == id && a.answer.is_some());
                    if !answered {
                        return NextStep::AwaitAnswer(id.clone());
                    }
                }
            },
            Action::Continue => {}
        }
        if cur.refinement.is_none() {
            return NextStep::Refine(n);
        }
        if self.step_mode && !cur.resumed {
            return NextStep::AwaitStep(n);
        }
        NextStep::StartIteration(n + 1)
    }

    pub fn stage(&self) -> Stage {
        use super::model::Outcome;
        match self.next_step() {
            NextStep::Done => match &self.outcome {
                Some(Outcome::Cancelled) => Stage::Cancelled,
                Some(Outcome::Failed { .. }) => Stage::Failed,
                _ => Stage::Finished,
            },
            NextStep::AwaitStart => Stage::Idle,
            NextStep::StartIteration(_) | NextStep::Plan(_) => Stage::Planning,
            NextStep::Search(_) => Stage::Searching,
            NextStep::Review(_) => Stage::Reviewing,
            NextStep::Draft(_) => Stage::Drafting,
            NextStep::Critique(_) => Stage::Critiquing,
            NextStep::Evaluate(_) => Stage::Evaluating,
            NextStep::Decide(_) => Stage::Deciding,
            NextStep::RaiseAsk(_) | NextStep::AwaitAnswer(_) => Stage::WaitingForAnswer,
            NextStep::Refine(_) => Stage::Refining,
            NextStep::AwaitStep(_) => Stage::Paused,
            NextStep::Write(_) => Stage::Writing,
            NextStep::Verify | NextStep::Finish => Stage::Verifying,
        }
    }
}
