//! What a command does to a session, decided from the state alone: the
//! events to record, or why the command is refused. The orchestrator
//! (`run.rs`) records what this returns; a refusal is recorded too, as
//! `Event::CommandRejected`, so every front end can show it.

use super::next::NextStep;
use super::protocol::{Command, Event, SessionHeader};
use super::state::SessionState;

/// A command the session cannot take now, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{command}: {reason}")]
pub struct Rejected {
    /// The command's name (`start`, `answer`, …).
    pub command: &'static str,
    pub reason: String,
}

impl Rejected {
    fn new(command: &'static str, reason: impl Into<String>) -> Self {
        Self { command, reason: reason.into() }
    }

    /// The event that records this refusal.
    pub fn event(&self) -> Event {
        Event::CommandRejected { command: self.command.to_string(), reason: self.reason.clone() }
    }
}

/// The command's name, as a refusal names it.
pub fn command_name(cmd: &Command) -> &'static str {
    match cmd {
        Command::Start { .. } => "start",
        Command::Step => "step",
        Command::Continue => "continue",
        Command::SetStepMode { .. } => "set_step_mode",
        Command::Answer { .. } => "answer",
        Command::Steer { .. } => "steer",
        Command::ForceOutput => "force_output",
        Command::Cancel => "cancel",
    }
}

/// The events `cmd` causes in `state`. `header` makes the header a `Start`
/// records for its question (called only then). A command with nothing to
/// do (cancel twice, step mode already on) causes no event and is not refused.
pub fn on_command(
    state: &SessionState,
    cmd: &Command,
    header: impl FnOnce(&str) -> SessionHeader,
) -> Result<Vec<Event>, Rejected> {
    let step = state.next_step();
    let events = match cmd {
        Command::Start { question } => {
            if state.header.is_some() {
                return Err(Rejected::new("start", "the session has already started"));
            }
            vec![Event::SessionStarted(header(question))]
        }
        Command::Step => match step {
            NextStep::AwaitStep(n) => vec![Event::Resumed { iteration: n }],
            _ if !state.step_mode => vec![Event::ModeChanged { step_mode: true }],
            _ => vec![],
        },
        Command::Continue => {
            let mut events = Vec::new();
            if state.step_mode {
                events.push(Event::ModeChanged { step_mode: false });
            }
            if let NextStep::AwaitStep(n) = step {
                events.push(Event::Resumed { iteration: n });
            }
            events
        }
        Command::SetStepMode { on } => {
            let mut events = Vec::new();
            if *on != state.step_mode {
                events.push(Event::ModeChanged { step_mode: *on });
            }
            if let (false, NextStep::AwaitStep(n)) = (*on, step) {
                events.push(Event::Resumed { iteration: n });
            }
            events
        }
        Command::Answer { ask_id, answer } => {
            if state.open_ask().is_none_or(|a| &a.ask_id != ask_id) {
                return Err(Rejected::new("answer", format!("no open question has the id {ask_id}")));
            }
            vec![Event::AskAnswered { ask_id: ask_id.clone(), answer: answer.clone() }]
        }
        Command::Steer { edit } => vec![Event::Steered { edit: edit.clone() }],
        Command::ForceOutput => {
            let writing = matches!(step, NextStep::Write(_) | NextStep::Verify | NextStep::Finish | NextStep::Done);
            if !writing && state.header.is_some() && !state.force_output { vec![Event::OutputForced] } else { vec![] }
        }
        Command::Cancel => {
            let ending = matches!(step, NextStep::Verify | NextStep::Finish | NextStep::Done);
            // Before Start there is nothing to record; after the report, nothing to stop.
            if !state.cancel_requested && !ending && state.header.is_some() {
                vec![Event::CancelRequested]
            } else {
                vec![]
            }
        }
    };
    Ok(events)
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
