//! When the model cannot do the work, the built-in reasoner takes over.
//! A model that answers `{}` to every request, or fails the same phase a
//! second time, will not do better for being asked again: every later call
//! only waits and spends. From that point the reasoner's stand-in (the
//! built-in, model-free reasoner) does every remaining phase, at once; the
//! session is degraded and its report says whose it is.

use serde::{Deserialize, Serialize};

use super::model::{Phase, Role};
use super::reasoner::ReasonerError;
use super::state::SessionState;

/// Why the built-in reasoner took over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TakeoverCause {
    /// The model's replies to a call were empty (`{}`, blank) every time.
    EmptyReplies,
    /// The model failed the same phase a second time in the session.
    FailedTwice,
}

/// The moment the built-in reasoner took over from the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Takeover {
    /// The iteration in which it happened.
    pub iteration: u32,
    /// The role whose failure decided it (the built-in did that call too).
    pub role: Role,
    pub cause: TakeoverCause,
    /// The failure itself, as the reasoner reported it.
    pub error: String,
}

impl Takeover {
    /// The report's caveat: whose report it is, and why.
    pub fn caveat(&self) -> String {
        let why = match self.cause {
            TakeoverCause::EmptyReplies => format!("its {} replies were empty", self.role),
            TakeoverCause::FailedTwice => format!("it failed {} a second time", self.role),
        };
        format!(
            "The model could not do the work ({why}), so sleuth's built-in, model-free reasoner took over from {} in \
             iteration {} and did every phase after it: this report is the built-in reasoner's.",
            self.role, self.iteration
        )
    }
}

/// Whether the failure of `role` just now hands the session to the
/// built-in reasoner: an empty-reply failure at once, any other failure
/// when the same phase already failed earlier in the session. A pure
/// function of the state before the failure is recorded.
pub fn takeover_due(state: &SessionState, role: Role, error: &ReasonerError) -> Option<TakeoverCause> {
    if state.takeover.is_some() {
        return None;
    }
    if matches!(error, ReasonerError::Empty { .. }) {
        return Some(TakeoverCause::EmptyReplies);
    }
    let failed_before = state.errors.iter().any(|e| e.phase == Phase::from(role));
    failed_before.then_some(TakeoverCause::FailedTwice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::ErrorRecord;

    fn failed(phase: Phase) -> ErrorRecord {
        ErrorRecord { iteration: 1, phase, message: "bad".into() }
    }

    #[test]
    fn empty_replies_hand_over_at_once_and_other_failures_the_second_time() {
        let bad = ReasonerError::Malformed { role: "draft".into(), attempts: 3, last_error: "x".into() };
        let empty = ReasonerError::Empty { role: "plan".into(), attempts: 2 };
        let mut state = SessionState::default();
        assert_eq!(takeover_due(&state, Role::Plan, &empty), Some(TakeoverCause::EmptyReplies));
        assert_eq!(takeover_due(&state, Role::Draft, &bad), None, "a first failure falls back");
        state.errors.push(failed(Phase::Plan));
        assert_eq!(takeover_due(&state, Role::Draft, &bad), None, "another phase's failure does not count");
        state.errors.push(failed(Phase::Draft));
        assert_eq!(takeover_due(&state, Role::Draft, &bad), Some(TakeoverCause::FailedTwice));
        state.takeover =
            Some(Takeover { iteration: 1, role: Role::Draft, cause: TakeoverCause::FailedTwice, error: "x".into() });
        assert_eq!(takeover_due(&state, Role::Plan, &empty), None, "once is enough");
    }
}
