//! A running session as every front end holds it: the command sender, the
//! record subscription and the state folded from the records so far. The
//! headless driver, the TUI, the HTTP jobs and the MCP tools all get one
//! from `Sessions::start`, `resume` or `follow_up`, and nothing else.

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use crate::engine::protocol::{Command, EventRecord};
use crate::engine::state::SessionState;
use crate::engine::{Engine, EngineError, EngineHandle, SessionStatus};
use crate::session::SessionDir;
use crate::session::lock::SessionLock;

/// The engine task's result.
pub type EngineTask = JoinHandle<Result<SessionState, EngineError>>;

pub struct SessionHandle {
    pub id: String,
    pub dir: SessionDir,
    /// Commands to the engine (answers, cancel, step…). Dropping every
    /// sender lets an engine waiting on the user detach, resumable.
    pub commands: UnboundedSender<Command>,
    /// Every record the engine emits, secrets already blanked.
    pub records: UnboundedReceiver<EventRecord>,
    /// Folded from the records received through `next` (replayed from
    /// the log for a resumed session).
    pub state: SessionState,
    task: EngineTask,
    /// A resumed session's lock, held until the engine has stopped writing.
    lock: Option<SessionLock>,
}

/// What the TUI takes: the task, the engine's handle, the starting state,
/// the folder, and the lock to keep until the view ends.
pub struct HandleParts {
    pub task: EngineTask,
    pub engine: EngineHandle,
    pub state: SessionState,
    pub dir: SessionDir,
    pub lock: Option<SessionLock>,
}

impl SessionHandle {
    /// Starts `engine` (from `state`); `start` is the question of a new session.
    pub(super) fn spawn(
        engine: Engine,
        handle: EngineHandle,
        dir: SessionDir,
        start: Option<String>,
        lock: Option<SessionLock>,
    ) -> Self {
        let state = engine.state().clone();
        let EngineHandle { commands, events } = handle;
        if let Some(question) = start {
            // Queued before the engine runs: it starts on this question.
            let _ = commands.send(Command::Start { question });
        }
        let task = tokio::spawn(engine.run());
        Self { id: dir.id.clone(), dir, commands, records: events, state, task, lock }
    }

    /// The next record, folded into `state`; `None` once the engine stopped.
    pub async fn next(&mut self) -> Option<EventRecord> {
        let record = self.records.recv().await?;
        self.state.apply(&record);
        Some(record)
    }

    /// Sends a command; false when the engine is gone.
    pub fn send(&self, command: Command) -> bool {
        self.commands.send(command).is_ok()
    }

    /// The status of the state folded so far, the engine being live.
    pub fn status(&self) -> SessionStatus {
        SessionStatus::of(&self.state, !self.task.is_finished())
    }

    /// Lets the engine be aborted from elsewhere (a server's shutdown grace).
    pub fn abort_handle(&self) -> tokio::task::AbortHandle {
        self.task.abort_handle()
    }

    /// Waits for the engine to stop and returns its final state; a
    /// resumed session's lock is released after it.
    pub async fn finish(self) -> Result<SessionState, FinishError> {
        let Self { task, lock, commands, records, .. } = self;
        // Without a sender an engine waiting on the user detaches (resumable).
        drop(commands);
        drop(records);
        let result = task.await;
        drop(lock);
        match result {
            Ok(Ok(state)) => Ok(state),
            Ok(Err(e)) => Err(FinishError::Engine(e)),
            Err(e) if e.is_cancelled() => Err(FinishError::Aborted),
            Err(e) => Err(FinishError::Panicked(e.to_string())),
        }
    }

    /// The parts, for a front end that drives the engine itself (the TUI).
    pub fn into_parts(self) -> HandleParts {
        HandleParts {
            task: self.task,
            engine: EngineHandle { commands: self.commands, events: self.records },
            state: self.state,
            dir: self.dir,
            lock: self.lock,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FinishError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Stopped from outside (a server's shutdown): the log is intact and resumable.
    #[error("the session was stopped before its end; it can be resumed")]
    Aborted,
    #[error("the session task failed: {0}")]
    Panicked(String),
}
