//! One research job of a server (`sleuth serve`, `sleuth mcp`): its
//! status, its session's records (typed, as the engine emitted them), and
//! the commands a client sends it (answer, cancel).

use std::sync::Mutex;

use tokio::sync::{mpsc::UnboundedSender, watch};

use super::answer::{JobView, PendingAsk, RunAnswer, answer_of, pending_ask};
use super::jobs::locked;
use crate::engine::SessionStatus;
use crate::engine::model::AnswerError;
use crate::engine::protocol::{Answer, Command, Event, EventRecord};
use crate::engine::state::SessionState;

/// Why a job ended without a session's own end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobFailure {
    /// What the session needs could not be set up (the model's endpoint
    /// does not answer, a provider cannot start): try again later.
    Unavailable(String),
    /// The session failed.
    Failed(String),
}

impl JobFailure {
    pub fn message(&self) -> &str {
        match self {
            JobFailure::Unavailable(m) | JobFailure::Failed(m) => m,
        }
    }
}

/// Why a command to a job was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    #[error("the job is not waiting on a question (it is {})", .0.label())]
    NotWaiting(SessionStatus),
    #[error("the job waits on ask `{expected}`, not `{given}`")]
    WrongAsk { expected: String, given: String },
    #[error("the job has ended ({})", .0.label())]
    Ended(SessionStatus),
    #[error("{0}")]
    BadAnswer(AnswerError),
}

/// One research job and what it has recorded so far.
pub struct Job {
    pub id: String,
    pub(super) inner: Mutex<JobInner>,
    changed: watch::Sender<u64>,
}

pub(super) struct JobInner {
    pub(super) status: SessionStatus,
    pub(super) session_id: Option<String>,
    /// Every record of the session, in order.
    pub(super) events: Vec<EventRecord>,
    pub(super) state: SessionState,
    pub(super) commands: Option<UnboundedSender<Command>>,
    pub(super) failure: Option<JobFailure>,
    pub(super) answer_first: bool,
}

impl Job {
    pub(super) fn new(id: String, answer_first: bool) -> Self {
        let inner = JobInner {
            status: SessionStatus::Queued,
            session_id: None,
            events: Vec::new(),
            state: SessionState::default(),
            commands: None,
            failure: None,
            answer_first,
        };
        Self { id, inner: Mutex::new(inner), changed: watch::Sender::new(0) }
    }

    pub(super) fn update(&self, f: impl FnOnce(&mut JobInner)) {
        f(&mut locked(&self.inner));
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn status(&self) -> SessionStatus {
        locked(&self.inner).status
    }

    /// Whether the job has stopped for good (ended, failed, interrupted).
    pub fn is_over(&self) -> bool {
        is_over(self.status())
    }

    pub fn session_id(&self) -> Option<String> {
        locked(&self.inner).session_id.clone()
    }

    pub fn failure(&self) -> Option<JobFailure> {
        locked(&self.inner).failure.clone()
    }

    pub fn ask(&self) -> Option<PendingAsk> {
        let inner = locked(&self.inner);
        (inner.status == SessionStatus::WaitingOnAsk).then(|| pending_ask(&inner.state)).flatten()
    }

    /// A receiver that wakes on every change of this job.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The records after sequence number `after`, and whether the job is over.
    pub fn events_after(&self, after: u64) -> (Vec<EventRecord>, bool) {
        let inner = locked(&self.inner);
        let start = inner.events.partition_point(|r| r.seq <= after);
        (inner.events[start..].to_vec(), is_over(inner.status))
    }

    /// The sequence number of the last record so far.
    pub fn last_seq(&self) -> u64 {
        locked(&self.inner).events.last().map_or(0, |r| r.seq)
    }

    /// The answer so far: the report once the job is over, the question while it waits.
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
            ask: (inner.status == SessionStatus::WaitingOnAsk).then(|| pending_ask(&inner.state)).flatten(),
            answer: is_over(inner.status).then(|| answer_of(&self.id, session, inner.status, &inner.state)),
            error: inner.failure.as_ref().map(|f| f.message().to_string()),
        }
    }

    /// Waits until the job is over or waits on a question.
    pub async fn settled(&self) -> SessionStatus {
        let mut rx = self.subscribe();
        loop {
            let s = self.status();
            if is_over(s) || s == SessionStatus::WaitingOnAsk {
                return s;
            }
            if rx.changed().await.is_err() {
                return self.status();
            }
        }
    }

    /// Answers the question the job waits on, read as every front end
    /// reads an answer (`Clarification::read_answer`).
    pub fn answer_ask(&self, ask_id: &str, text: &str) -> Result<(), JobError> {
        let mut inner = locked(&self.inner);
        if inner.status != SessionStatus::WaitingOnAsk {
            return Err(JobError::NotWaiting(inner.status));
        }
        let Some(open) = inner.state.open_ask() else { return Err(JobError::NotWaiting(inner.status)) };
        if open.ask_id != ask_id {
            return Err(JobError::WrongAsk { expected: open.ask_id.clone(), given: ask_id.to_string() });
        }
        let answer = open.clarification.read_answer(text).map_err(JobError::BadAnswer)?;
        let command = Command::Answer { ask_id: ask_id.to_string(), answer };
        match &inner.commands {
            Some(tx) if tx.send(command).is_ok() => {
                // Running again from now: a second answer to the same ask is a conflict.
                inner.status = SessionStatus::Running;
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
        if is_over(inner.status) {
            return Err(JobError::Ended(inner.status));
        }
        if inner.status == SessionStatus::Queued {
            // Not started: it ends before making a session.
            inner.status = SessionStatus::Cancelled;
            drop(inner);
            self.changed.send_modify(|n| *n += 1);
            return Ok(());
        }
        match &inner.commands {
            Some(tx) if tx.send(Command::Cancel).is_ok() => Ok(()),
            _ => Err(JobError::Ended(inner.status)),
        }
    }

    /// One engine record, secrets already blanked by the engine.
    pub(super) fn record(&self, record: EventRecord) {
        self.update(|inner| {
            inner.state.apply(&record);
            let mut status = SessionStatus::of(&inner.state, true);
            if status.has_ended() {
                // Published by the job's driver once the engine has stopped
                // and released the session's lock: whoever sees the end
                // finds the slot free and `sleuth sessions` agreeing.
                status = SessionStatus::Running;
            }
            if let (Event::AskRaised { ask_id, clarification, .. }, true) = (&record.event, inner.answer_first)
                && let (Some(tx), Some(label)) = (&inner.commands, clarification.options.first())
            {
                let answer = Answer::Choice { index: 0, label: label.clone() };
                let _ = tx.send(Command::Answer { ask_id: ask_id.clone(), answer });
                status = SessionStatus::Running;
            }
            inner.events.push(record);
            if !is_over(inner.status) {
                inner.status = status;
            }
        });
    }
}

/// A job's status that no later event changes.
pub fn is_over(status: SessionStatus) -> bool {
    status.has_ended() || matches!(status, SessionStatus::Interrupted | SessionStatus::Damaged)
}
