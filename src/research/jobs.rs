//! Research jobs shared by `sleuth serve` and `sleuth mcp`: admission
//! (at most `max_concurrent` running, `max_queued` waiting, the rest
//! refused), one session per job started by `Sessions` exactly as the CLI
//! starts one (same store, so `sleuth sessions` lists it and `sleuth
//! resume` continues it), its records kept for replay, and a shutdown
//! that stops every session at its next checkpoint.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::handle::FinishError;
use super::job::is_over;
pub use super::job::{Job, JobError, JobFailure};
use super::metrics::{Metrics, SessionTotals};
use super::sessions::{Sessions, SessionsError};
use crate::config::{Config, ServeConfig};
use crate::engine::SessionStatus;
use crate::engine::protocol::Event;

/// Why a job was not admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubmitError {
    QueueFull { retry_after_secs: u64 },
    ShuttingDown,
}

/// Every job of this process.
pub struct Jobs {
    sessions: Arc<Sessions>,
    slots: Arc<Semaphore>,
    concurrency: usize,
    /// Running plus queued; admission keeps it at most `capacity`.
    admitted: AtomicUsize,
    capacity: usize,
    running: AtomicUsize,
    jobs: Mutex<HashMap<String, Arc<Job>>>,
    pub metrics: Metrics,
    stopping: watch::Sender<bool>,
    grace: Duration,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    /// Ended jobs, oldest first: past `KEPT_ENDED` the oldest is forgotten
    /// (its session stays in the store; `/sessions/{id}` still has it).
    ended: Mutex<std::collections::VecDeque<String>>,
    next: AtomicU64,
}

/// Ended jobs a long-running server remembers (with their events).
const KEPT_ENDED: usize = 256;

pub(super) fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The data behind these locks stays consistent between statements.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Jobs {
    pub fn new(sessions: Arc<Sessions>, serve: &ServeConfig) -> Arc<Self> {
        let concurrency = serve.concurrency();
        Arc::new(Self {
            sessions,
            slots: Arc::new(Semaphore::new(concurrency)),
            concurrency,
            admitted: AtomicUsize::new(0),
            capacity: concurrency + serve.max_queued,
            running: AtomicUsize::new(0),
            jobs: Mutex::new(HashMap::new()),
            metrics: Metrics::default(),
            stopping: watch::Sender::new(false),
            grace: Duration::from_secs(serve.shutdown_grace_secs),
            tasks: Mutex::new(Vec::new()),
            ended: Mutex::new(std::collections::VecDeque::new()),
            next: AtomicU64::new(1),
        })
    }

    pub fn sessions(&self) -> &Arc<Sessions> {
        &self.sessions
    }

    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    pub fn queued(&self) -> usize {
        self.admitted.load(Ordering::SeqCst).saturating_sub(self.running())
    }

    pub fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// Admits a session researching `question` under `config` (both
    /// checked by `Sessions::check`), or refuses it when every slot and
    /// queue place is taken. Nothing is written for a refused job.
    pub fn submit(
        self: &Arc<Self>,
        question: String,
        config: Config,
        answer_first: bool,
    ) -> Result<Arc<Job>, SubmitError> {
        if self.is_stopping() {
            return Err(SubmitError::ShuttingDown);
        }
        let admitted =
            self.admitted.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < self.capacity).then_some(n + 1));
        if admitted.is_err() {
            self.metrics.rejected();
            return Err(SubmitError::QueueFull { retry_after_secs: self.retry_after() });
        }
        let id = format!("job-{}-{:04x}", self.next.fetch_add(1, Ordering::SeqCst), fastrand::u16(..));
        let job = Arc::new(Job::new(id.clone(), answer_first));
        locked(&self.jobs).insert(id, job.clone());
        let task = tokio::spawn(drive(self.clone(), job.clone(), question, config));
        let mut tasks = locked(&self.tasks);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
        Ok(job)
    }

    /// A job by its id or by its session's id.
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        let jobs = locked(&self.jobs);
        jobs.get(id).cloned().or_else(|| jobs.values().find(|j| j.session_id().as_deref() == Some(id)).cloned())
    }

    /// Seconds until a slot is likely free: the queue ahead times the mean session.
    fn retry_after(&self) -> u64 {
        let mean = self.metrics.mean_seconds().unwrap_or(5.0);
        let rounds = (self.queued() as f64 / self.concurrency.max(1) as f64).max(1.0);
        (mean * rounds).ceil().clamp(1.0, 600.0) as u64
    }

    /// Stops admitting; running sessions stop at their next checkpoint.
    pub fn stop(&self) {
        self.stopping.send_replace(true);
    }

    /// Waits for every job task to end (after `stop`, within the grace time).
    pub async fn wait_all(&self) {
        let tasks = std::mem::take(&mut *locked(&self.tasks));
        for t in tasks {
            let _ = t.await;
        }
    }

    fn release(&self) {
        self.admitted.fetch_sub(1, Ordering::SeqCst);
    }

    /// Remembers that `id` ended, forgetting the oldest ended job past the limit.
    fn ended(&self, id: &str) {
        let mut ended = locked(&self.ended);
        ended.push_back(id.to_string());
        while ended.len() > KEPT_ENDED {
            if let Some(old) = ended.pop_front() {
                locked(&self.jobs).remove(&old);
            }
        }
    }
}

async fn stopped(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// The life of one job: a slot, the session, the end.
async fn drive(jobs: Arc<Jobs>, job: Arc<Job>, question: String, config: Config) {
    let mut stopping = jobs.stopping.subscribe();
    let permit = tokio::select! {
        p = jobs.slots.clone().acquire_owned() => p.ok(),
        _ = stopped(&mut stopping) => None,
    };
    let Some(permit) = permit else {
        jobs.release();
        job.update(|i| {
            i.status = SessionStatus::Interrupted;
            i.failure = Some(JobFailure::Failed("the server shut down before the job started".into()));
        });
        jobs.ended(&job.id);
        return;
    };
    if job.status() == SessionStatus::Cancelled {
        jobs.release();
        jobs.ended(&job.id);
        return;
    }
    jobs.running.fetch_add(1, Ordering::SeqCst);
    let ended = run_session(&jobs, &job, question, &config, &mut stopping).await;
    jobs.running.fetch_sub(1, Ordering::SeqCst);
    drop(permit);
    jobs.release();
    // Published last: whoever sees the end finds the slot free and the lock released.
    job.update(|i| match ended {
        Ok(status) => i.status = status,
        Err(failure) => {
            i.status = SessionStatus::Failed;
            i.failure = Some(failure);
        }
    });
    jobs.ended(&job.id);
}

/// Starts, runs and records one session; returns its final status.
async fn run_session(
    jobs: &Jobs,
    job: &Job,
    question: String,
    config: &Config,
    stopping: &mut watch::Receiver<bool>,
) -> Result<SessionStatus, JobFailure> {
    let handle = jobs.sessions.start_checked(question, config).await.map_err(|e| match e {
        SessionsError::Unavailable(m) => JobFailure::Unavailable(m),
        other => JobFailure::Failed(other.to_string()),
    })?;
    let started = std::time::Instant::now();
    let session_id = handle.id.clone();
    let abort = handle.abort_handle();
    // The job holds the only sender: dropping it lets a waiting engine detach.
    job.update(|i| {
        i.session_id = Some(session_id.clone());
        i.status = SessionStatus::Running;
        i.commands = Some(handle.commands.clone());
    });
    tracing::info!(job = %job.id, session = %session_id, "session started");
    let mut handle = handle;
    let mut stop_at: Option<Instant> = None;
    let mut interrupted = false;
    loop {
        let deadline = stop_at.map(|t| t + jobs.grace);
        tokio::select! {
            record = handle.records.recv() => {
                let Some(record) = record else { break };
                if matches!(record.event, Event::QueryFailed { .. }) {
                    jobs.metrics.search_failed();
                }
                let checkpoint = matches!(record.event, Event::IterationStarted { .. });
                job.record(record);
                // The engine syncs its log just before starting an iteration: stop there.
                if stop_at.is_some() && checkpoint {
                    abort.abort();
                    interrupted = true;
                    break;
                }
            }
            _ = stopped(stopping), if stop_at.is_none() => {
                stop_at = Some(Instant::now());
                // A session waiting on a question detaches (resumable) once nobody can answer.
                job.update(|i| i.commands = None);
            }
            _ = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                abort.abort();
                interrupted = true;
                break;
            }
        }
    }
    // The engine (holding the session's lock) is awaited: the lock is
    // released before anyone hears of the end, so `sleuth sessions` agrees.
    let result = handle.finish().await;
    let state = locked(&job.inner).state.clone();
    let status = match result {
        Ok(_) if !interrupted && state.outcome.is_some() => SessionStatus::of(&state, false),
        Ok(_) | Err(FinishError::Aborted) => SessionStatus::Interrupted,
        Err(e) => return Err(JobFailure::Failed(e.to_string())),
    };
    jobs.metrics.session_ended(&SessionTotals {
        status: status.name(),
        seconds: started.elapsed().as_secs_f64(),
        iterations: state.iteration(),
        tokens: state.prompt_tokens + state.completion_tokens,
        cost_usd: state.cost_usd,
    });
    tracing::info!(job = %job.id, session = %session_id, status = status.name(), "session ended");
    debug_assert!(is_over(status));
    Ok(status)
}
