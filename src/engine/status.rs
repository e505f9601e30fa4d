//! Where a session stands, in the one vocabulary every front end uses:
//! `sleuth sessions`, the HTTP jobs, the MCP tools and the exit codes all
//! call `SessionStatus::of` on the folded state. Whether a process is
//! writing the session right now is not in its log: the caller says so
//! (the session's lock is held, the job's engine is running).

use serde::{Deserialize, Serialize};

use super::model::{AnswerStatus, Outcome};
use super::state::SessionState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// Admitted by a server, waiting for a free slot (no session yet).
    Queued,
    /// Being researched by a live process.
    Running,
    /// Waiting for the user to answer a clarifying question.
    WaitingOnAsk,
    /// Made by `sleuth fork` and not yet continued: `sleuth resume` runs it.
    Forked,
    /// Stopped before its end with nobody writing it: `sleuth resume` continues it.
    Interrupted,
    /// Finished with an answer.
    Finished,
    /// Finished, but the sources found do not answer the question.
    Unanswered,
    /// Finished without searching anything: every search failed.
    NotSearched,
    /// Finished and answered, but phases the model was to do fell back to
    /// built-in, model-free results.
    Degraded,
    /// Stopped by the user; a partial report was written.
    Cancelled,
    Failed,
    /// The log cannot be read.
    Damaged,
}

impl SessionStatus {
    /// The status of a session in `state`; `live` when a process is
    /// researching it now (its lock is held, its engine task runs).
    pub fn of(state: &SessionState, live: bool) -> Self {
        match &state.outcome {
            Some(Outcome::Finished) => match state.report.as_ref().map(|r| r.answer) {
                Some(AnswerStatus::Unanswered) => Self::Unanswered,
                Some(AnswerStatus::NotSearched) => Self::NotSearched,
                _ if state.reasoning_degraded() => Self::Degraded,
                _ => Self::Finished,
            },
            Some(Outcome::Cancelled) => Self::Cancelled,
            Some(Outcome::Failed { .. }) => Self::Failed,
            None if state.open_ask().is_some() => Self::WaitingOnAsk,
            None if live => Self::Running,
            None if is_unstarted_fork(state) => Self::Forked,
            None => Self::Interrupted,
        }
    }

    /// As `sleuth sessions` prints it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::WaitingOnAsk => "waiting on ASK",
            Self::Forked => "forked",
            Self::Interrupted => "interrupted",
            Self::Finished => "finished",
            Self::Unanswered => "unanswered",
            Self::NotSearched => "not searched",
            Self::Degraded => "degraded",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
            Self::Damaged => "damaged",
        }
    }

    /// The snake-case name the JSON outputs use (`waiting_on_ask`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::WaitingOnAsk => "waiting_on_ask",
            Self::Forked => "forked",
            Self::Interrupted => "interrupted",
            Self::Finished => "finished",
            Self::Unanswered => "unanswered",
            Self::NotSearched => "not_searched",
            Self::Degraded => "degraded",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
            Self::Damaged => "damaged",
        }
    }

    /// The session reached its end (a report, a cancel or a failure).
    pub fn has_ended(self) -> bool {
        matches!(
            self,
            Self::Finished | Self::Unanswered | Self::NotSearched | Self::Degraded | Self::Cancelled | Self::Failed
        )
    }

    /// Ended with a report that is the session's answer (whatever it says).
    pub fn has_report(self) -> bool {
        matches!(self, Self::Finished | Self::Unanswered | Self::NotSearched | Self::Degraded | Self::Cancelled)
    }
}

impl std::fmt::Display for SessionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A fork's log ends just before its iteration's decision (or after the
/// header alone, for `--from 0`): nothing of its own was recorded yet.
fn is_unstarted_fork(state: &SessionState) -> bool {
    let Some(origin) = state.header.as_ref().and_then(|h| h.forked_from.as_ref()) else { return false };
    state.iteration() == origin.iteration && state.current().is_none_or(|it| it.decision.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::protocol::{Event, EventRecord, ForkOrigin, Limits, SessionHeader};

    fn header(forked_from: Option<ForkOrigin>) -> SessionHeader {
        SessionHeader {
            schema_version: crate::engine::protocol::SCHEMA_VERSION,
            sleuth_version: "0".into(),
            session_id: "s".into(),
            question: "q".into(),
            preset: "simple".into(),
            limits: Limits {
                max_iterations: 2,
                max_queries: 3,
                max_sources: 5,
                time_limit_secs: 60,
                cost_budget_usd: 0.0,
                token_budget: 0,
            },
            step_mode: false,
            reasoner: "builtin".into(),
            providers: vec![],
            config: serde_json::Value::Null,
            forked_from,
            follow_up_of: None,
            imported: None,
        }
    }

    fn state(events: Vec<Event>) -> SessionState {
        let records: Vec<EventRecord> = events
            .into_iter()
            .enumerate()
            .map(|(i, event)| EventRecord { seq: i as u64 + 1, at_ms: 1, elapsed_ms: 0, event })
            .collect();
        SessionState::replay(&records)
    }

    #[test]
    fn liveness_decides_only_between_running_and_interrupted() {
        let started = state(vec![Event::SessionStarted(header(None))]);
        assert_eq!(SessionStatus::of(&started, true), SessionStatus::Running);
        assert_eq!(SessionStatus::of(&started, false), SessionStatus::Interrupted);
        let ended =
            state(vec![Event::SessionStarted(header(None)), Event::SessionEnded { outcome: Outcome::Cancelled }]);
        assert_eq!(SessionStatus::of(&ended, true), SessionStatus::Cancelled);
        assert!(SessionStatus::Cancelled.has_ended() && !SessionStatus::Forked.has_ended());
    }

    #[test]
    fn a_fork_not_yet_continued_is_forked_not_interrupted() {
        let origin = ForkOrigin { session_id: "a".into(), iteration: 0 };
        let fork = state(vec![Event::SessionStarted(header(Some(origin)))]);
        assert_eq!(SessionStatus::of(&fork, false), SessionStatus::Forked);
        let origin = ForkOrigin { session_id: "a".into(), iteration: 0 };
        let started = state(vec![
            Event::SessionStarted(header(Some(origin))),
            Event::IterationStarted { iteration: 1, queries: vec![] },
        ]);
        assert_eq!(SessionStatus::of(&started, false), SessionStatus::Interrupted);
    }

    #[test]
    fn names_and_labels_match_serde() {
        for s in [SessionStatus::WaitingOnAsk, SessionStatus::NotSearched, SessionStatus::Degraded] {
            assert_eq!(serde_json::to_value(s).expect("json"), serde_json::json!(s.name()));
        }
    }
}
