//! One research job: its status, its session's events as `sleuth run
//! --json` prints them, and the commands a client sends it (answer, cancel).

use std::sync::Mutex;

use tokio::sync::{mpsc::UnboundedSender, watch};

use super::api::{JobStatus, JobView, PendingAsk, RunAnswer, answer_of, pending_ask, status_of};
use super::jobs::{JobError, locked};
use crate::engine::model::Clarification;
use crate::engine::protocol::{Answer, Command, Event, EventRecord};
use crate::engine::state::SessionState;

/// One research job and what it has recorded so far.
pub struct Job {
    pub id: String,
    pub(super) inner: Mutex<JobInner>,
    changed: watch::Sender<u64>,
}

pub(super) struct JobInner {
    pub(super) status: JobStatus,
    pub(super) session_id: Option<String>,
    /// Every event as `sleuth run --json` prints it, with its sequence number.
    pub(super) events: Vec<(u64, String)>,
    pub(super) state: SessionState,
    pub(super) commands: Option<UnboundedSender<Command>>,
    pub(super) error: Option<String>,
    pub(super) answer_first: bool,
}

impl Job {
    pub(super) fn new(id: String, answer_first: bool) -> Self {
        let inner = JobInner {
            status: JobStatus::Queued,
            session_id: None,
            events: Vec::new(),
            state: SessionState::default(),
            commands: None,
            error: None,
            answer_first,
        };
        Self { id, inner: Mutex::new(inner), changed: watch::Sender::new(0) }
    }

    pub(super) fn update(&self, f: impl FnOnce(&mut JobInner)) {
        f(&mut locked(&self.inner));
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn status(&self) -> JobStatus {
        locked(&self.inner).status
    }

    pub fn session_id(&self) -> Option<String> {
        locked(&self.inner).session_id.clone()
    }

    pub fn ask(&self) -> Option<PendingAsk> {
        let inner = locked(&self.inner);
        (inner.status == JobStatus::WaitingOnAsk).then(|| pending_ask(&inner.state)).flatten()
    }

    /// A receiver that wakes on every change of this job.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The events after sequence number `after`, and whether the job has ended.
    pub fn events_after(&self, after: u64) -> (Vec<(u64, String)>, bool) {
        let inner = locked(&self.inner);
        let start = inner.events.partition_point(|(seq, _)| *seq <= after);
        (inner.events[start..].to_vec(), inner.status.is_final())
    }

    /// The answer so far: the report once the job has ended, the question while it waits.
    pub fn answer(&self) -> RunAnswer {
        let inner = locked(&self.inner);
        answer_of(&self.id, inner.session_id.as_deref().unwrap_or(""), inner.status, &inner.state)
    }

    pub fn view(&self) -> JobView {
        let inner = locked(&self.inner);
        let session = inner.session_id.as_deref().unwrap_or("");
        JobView {
            job_id: self.id.clone(),
            status: inner.status,
            session_id: inner.session_id.clone(),
            events: inner.events.len() as u64,
            ask: (inner.status == JobStatus::WaitingOnAsk).then(|| pending_ask(&inner.state)).flatten(),
            answer: inner.status.is_final().then(|| answer_of(&self.id, session, inner.status, &inner.state)),
            error: inner.error.clone(),
        }
    }

    /// Waits until the job has ended or waits on a question.
    pub async fn settled(&self) -> JobStatus {
        let mut rx = self.subscribe();
        loop {
            let s = self.status();
            if s.is_final() || s == JobStatus::WaitingOnAsk {
                return s;
            }
            if rx.changed().await.is_err() {
                return self.status();
            }
        }
    }

    /// Answers the question the job waits on: an option's number (from 1)
    /// or text picks it, anything else is a free-text answer.
    pub fn answer_ask(&self, ask_id: &str, text: &str) -> Result<(), JobError> {
        let mut inner = locked(&self.inner);
        if inner.status != JobStatus::WaitingOnAsk {
            return Err(JobError::NotWaiting(inner.status));
        }
        let Some(open) = inner.state.open_ask() else { return Err(JobError::NotWaiting(inner.status)) };
        if open.ask_id != ask_id {
            return Err(JobError::WrongAsk { expected: open.ask_id.clone(), given: ask_id.to_string() });
        }
        let answer = parse_answer(&open.clarification, text);
        let command = Command::Answer { ask_id: ask_id.to_string(), answer };
        match &inner.commands {
            Some(tx) if tx.send(command).is_ok() => {
                // Running again from now: a second answer to the same ask is a conflict.
                inner.status = JobStatus::Running;
                drop(inner);
                self.changed.send_modify(|n| *n += 1);
                Ok(())
            }
            _ => Err(JobError::Ended(inner.status)),
        }
    }

    /// Asks the session to stop; it writes a partial report and ends cancelled.
    pub fn cancel(&self) -> Result<(), JobError> {
        let mut inner = locked(&self.inner);
        if inner.status.is_final() {
            return Err(JobError::Ended(inner.status));
        }
        if inner.status == JobStatus::Queued {
            // Not started: it ends before making a session.
            inner.status = JobStatus::Cancelled;
            drop(inner);
            self.changed.send_modify(|n| *n += 1);
            return Ok(());
        }
        match &inner.commands {
            Some(tx) if tx.send(Command::Cancel).is_ok() => Ok(()),
            _ => Err(JobError::Ended(inner.status)),
        }
    }

    /// One engine event, secrets already blanked by the engine (`engine::redact`).
    pub(super) fn record(&self, record: &EventRecord) {
        let line = serde_json::to_string(record).unwrap_or_default();
        self.update(|inner| {
            inner.state.apply(record);
            inner.events.push((record.seq, line));
            let mut status = status_of(&inner.state);
            if let (Event::AskRaised { ask_id, clarification, .. }, true) = (&record.event, inner.answer_first)
                && let (Some(tx), Some(label)) = (&inner.commands, clarification.options.first())
            {
                let answer = Answer::Choice { index: 0, label: label.clone() };
                let _ = tx.send(Command::Answer { ask_id: ask_id.clone(), answer });
                status = JobStatus::Running;
            }
            if !inner.status.is_final() {
                inner.status = status;
            }
        });
    }
}

/// An answer typed by a client: a number or an option's text picks that option.
fn parse_answer(c: &Clarification, text: &str) -> Answer {
    let text = text.trim();
    if let Ok(n) = text.parse::<usize>()
        && (1..=c.options.len()).contains(&n)
    {
        return Answer::Choice { index: n - 1, label: c.options[n - 1].clone() };
    }
    match c.options.iter().position(|o| o.eq_ignore_ascii_case(text)) {
        Some(i) => Answer::Choice { index: i, label: c.options[i].clone() },
        None => Answer::Text { text: text.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_picks_an_option_by_number_or_text_else_is_free_text() {
        let c = Clarification { question: "Which?".into(), options: vec!["the planet".into(), "the metal".into()] };
        assert_eq!(parse_answer(&c, "2"), Answer::Choice { index: 1, label: "the metal".into() });
        assert_eq!(parse_answer(&c, "The Planet"), Answer::Choice { index: 0, label: "the planet".into() });
        assert_eq!(parse_answer(&c, "7"), Answer::Text { text: "7".into() });
        assert_eq!(parse_answer(&c, " the god "), Answer::Text { text: "the god".into() });
    }
}
