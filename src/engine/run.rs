//! The async orchestrator. It folds every event it emits into its own
//! `SessionState` and asks that state what to do next, so a fresh run and a
//! resumed one follow the same path. Phases live in `phases/`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};
use tokio::time::Instant;

use super::command::on_command;
use super::memory::MemoryStore;
use super::model::{self, DecisionReason, Outcome, SourceId, StopReason, Usage};
use super::next::NextStep;
use super::ports::{EventSink, Searcher, StoreError, TextStore};
use super::protocol::{Command, Event, EventRecord, SCHEMA_VERSION, SessionHeader};
use super::reasoner::Reasoner;
use super::settings::EngineSettings;
use super::state::SessionState;

/// The engine's collaborators.
pub struct EngineParts {
    pub reasoner: Arc<dyn Reasoner>,
    pub search: Arc<dyn Searcher>,
    pub texts: Arc<dyn TextStore>,
    pub memory: Arc<dyn MemoryStore>,
    pub log: Box<dyn EventSink>,
}

/// How many times in a row one step may run before the loop is declared
/// stuck (each run emits events, but the state does not move past it).
const MAX_STEP_REPEATS: u32 = 3;

/// The UI's end of the engine: commands in, events out.
pub struct EngineHandle {
    pub commands: UnboundedSender<Command>,
    pub events: UnboundedReceiver<EventRecord>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The session log could not be written: stopping is the only way not
    /// to lose events.
    #[error("could not save the session: {0}")]
    Store(StoreError),
}

// Not `#[from]`: that would also make the store error the source, and
// `{:#}` printed its message twice ("No space left on device: No space
// left on device").
impl From<StoreError> for EngineError {
    fn from(e: StoreError) -> Self {
        EngineError::Store(e)
    }
}

/// A phase's outcome: `None` when a Cancel or ForceOutput interrupted it.
pub(super) type Phase<T> = Result<Option<T>, EngineError>;

/// Active research time: stops while waiting for the user.
struct Clock {
    offset_ms: u64,
    running_since: Option<Instant>,
}

impl Clock {
    fn elapsed_ms(&self) -> u64 {
        self.offset_ms + self.running_since.map_or(0, |t| t.elapsed().as_millis() as u64)
    }
    fn pause(&mut self) {
        self.offset_ms = self.elapsed_ms();
        self.running_since = None;
    }
    fn resume(&mut self) {
        if self.running_since.is_none() {
            self.running_since = Some(Instant::now());
        }
    }
}

pub struct Engine {
    pub(super) settings: Arc<EngineSettings>,
    pub(super) reasoner: Arc<dyn Reasoner>,
    pub(super) search: Arc<dyn Searcher>,
    pub(super) texts: Arc<dyn TextStore>,
    pub(super) memory: Arc<dyn MemoryStore>,
    log: Box<dyn EventSink>,
    pub(super) state: SessionState,
    commands: UnboundedReceiver<Command>,
    events: UnboundedSender<EventRecord>,
    clock: Clock,
    text_cache: HashMap<SourceId, Arc<str>>,
    pub(super) meta_cache: HashMap<SourceId, Arc<crate::engine::model::SourceMeta>>,
    /// Source texts through `normalize_for_match`, for quote checks.
    norm_cache: HashMap<SourceId, Arc<str>>,
    /// Shingle index of known sources, for near-duplicate detection.
    pub(super) fingerprints: Option<super::dedupe::NearDuplicates>,
}

impl Engine {
    /// An engine continuing from `state` (empty for a new session, replayed
    /// from a log to resume).
    pub fn new(settings: EngineSettings, parts: EngineParts, state: SessionState) -> (Self, EngineHandle) {
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let (ev_tx, ev_rx) = mpsc::unbounded_channel();
        let clock = Clock { offset_ms: state.elapsed_ms, running_since: None };
        // A session the built-in took over stays with it when resumed.
        let reasoner = match (&state.takeover, parts.reasoner.stand_in()) {
            (Some(_), Some(stand_in)) => stand_in,
            _ => parts.reasoner,
        };
        let engine = Engine {
            settings: Arc::new(settings),
            reasoner,
            search: parts.search,
            texts: parts.texts,
            memory: parts.memory,
            log: parts.log,
            state,
            commands: cmd_rx,
            events: ev_tx,
            clock,
            text_cache: HashMap::new(),
            meta_cache: HashMap::new(),
            norm_cache: HashMap::new(),
            fingerprints: None,
        };
        (engine, EngineHandle { commands: cmd_tx, events: ev_rx })
    }

    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Active research time so far (the clock stops while waiting for the user).
    pub(super) fn elapsed_ms(&self) -> u64 {
        self.clock.elapsed_ms().max(self.state.elapsed_ms)
    }

    /// Runs until the session ends, or until every command sender is gone
    /// while the engine waits for the user (the session stays resumable).
    pub async fn run(mut self) -> Result<SessionState, EngineError> {
        let mut last: Option<(NextStep, u64)> = None;
        let (mut stalls, mut repeats) = (0, 0);
        loop {
            if !self.drain_commands()? {
                return self.detach();
            }
            let step = self.over_time(self.state.next_step());
            let waits = matches!(step, NextStep::AwaitStart | NextStep::AwaitStep(_) | NextStep::AwaitAnswer(_));
            // Every step but a wait must emit something; a step that repeats
            // with no new event is a bug, and spinning on it would hide it.
            // Nor does a step follow itself: each one's events move the
            // state on. A state that does not move (folded from a damaged
            // log, say) fails the session instead of looping, whatever the
            // log says.
            let same_step = last.as_ref().is_some_and(|(s, _)| *s == step);
            let here = (step.clone(), self.state.last_seq);
            stalls = if last.as_ref() == Some(&here) { stalls + 1 } else { 0 };
            repeats = if same_step { repeats + 1 } else { 0 };
            last = Some(here);
            if !waits && (stalls >= 3 || repeats >= MAX_STEP_REPEATS) {
                let error = if stalls >= 3 {
                    format!("internal error: the loop made no progress at {step:?}")
                } else {
                    format!(
                        "the session cannot go on: {step:?} ran {} times in a row without moving on (is the \
                         session log damaged?)",
                        repeats + 1
                    )
                };
                self.emit_error(model::Phase::Engine, error.clone())?;
                self.emit(Event::SessionEnded { outcome: Outcome::Failed { error } })?;
                continue;
            }
            if waits {
                self.clock.pause()
            } else {
                self.clock.resume()
            }
            match step {
                NextStep::Done => {
                    self.log.checkpoint()?;
                    return Ok(self.state);
                }
                NextStep::AwaitStart | NextStep::AwaitAnswer(_) => {
                    self.log.checkpoint()?;
                    if !self.wait_for_command().await? {
                        return self.detach();
                    }
                }
                NextStep::AwaitStep(n) => {
                    if !self.state.current().is_some_and(|it| it.paused) {
                        self.emit(Event::Paused { iteration: n })?;
                    }
                    self.log.checkpoint()?;
                    if !self.wait_for_command().await? {
                        return self.detach();
                    }
                }
                NextStep::StartIteration(n) => {
                    self.log.checkpoint()?;
                    let queries = std::mem::take(&mut self.state.pending_queries);
                    self.emit(Event::IterationStarted { iteration: n, queries })?;
                }
                NextStep::Plan(n) => self.plan_phase(n).await?,
                NextStep::Search(n) => self.search_phase(n).await?,
                NextStep::Review(n) => self.review_phase(n).await?,
                NextStep::Draft(n) => self.draft_phase(n).await?,
                NextStep::Critique(n) => self.critique_phase(n).await?,
                NextStep::Evaluate(n) => self.evaluate_phase(n)?,
                NextStep::Decide(n) => self.decide_phase(n)?,
                NextStep::RaiseAsk(n) => self.ask_phase(n).await?,
                NextStep::Refine(n) => self.refine_phase(n).await?,
                NextStep::Write(stop) => self.write_phase(stop).await?,
                NextStep::Verify => self.verify_phase()?,
                NextStep::Finish => {
                    let outcome = if self.state.cancel_requested { Outcome::Cancelled } else { Outcome::Finished };
                    self.emit(Event::SessionEnded { outcome })?;
                }
            }
        }
    }

    /// `step`, unless the time limit has passed: then no new research
    /// starts (a new iteration, a plan, a search, a refinement) and the
    /// report is written from what there is. Results already fetched are
    /// still reviewed and drafted, so the decision step records the stop on
    /// the time limit; this bounds what happens when it is not reached (a
    /// slow phase, or a state that never gets there).
    fn over_time(&self, step: NextStep) -> NextStep {
        let limit_ms = self.settings.limits.time_limit_secs.saturating_mul(1000);
        let researching =
            matches!(step, NextStep::StartIteration(_) | NextStep::Plan(_) | NextStep::Search(_) | NextStep::Refine(_));
        if researching && limit_ms > 0 && self.elapsed_ms() >= limit_ms {
            return NextStep::Write(StopReason::Decision(DecisionReason::TimeBudget));
        }
        step
    }

    fn detach(mut self) -> Result<SessionState, EngineError> {
        self.log.checkpoint()?;
        Ok(self.state)
    }

    /// Blanks secrets in an event, appends it to the log, folds it, then
    /// tells the UI. This is where events leave the engine, and the only
    /// place they are redacted: the log, the state (and so the summary,
    /// memory and reports), the TUI, the headless printer and the server's
    /// streams all get the clean record. The log comes first: a UI never
    /// shows what a crash could lose.
    pub(super) fn emit(&mut self, event: Event) -> Result<(), EngineError> {
        let record = EventRecord {
            seq: self.state.last_seq + 1,
            at_ms: now_ms(),
            elapsed_ms: self.clock.elapsed_ms().max(self.state.elapsed_ms),
            event,
        };
        let record = self.settings.redactor.redact_record(record);
        self.log.record(&record)?;
        self.state.apply(&record);
        // The UI may have gone away; the log is the truth.
        let _ = self.events.send(record);
        Ok(())
    }

    pub(super) fn emit_usage(&mut self, usage: Vec<Usage>) -> Result<(), EngineError> {
        for usage in usage {
            self.emit(Event::UsageRecorded { usage })?;
        }
        Ok(())
    }

    pub(super) fn emit_error(&mut self, phase: model::Phase, message: impl Into<String>) -> Result<(), EngineError> {
        // Blanked here too: the tracing log is written before `emit`.
        let message = self.settings.redactor.redact(&message.into()).into_owned();
        tracing::warn!(phase = phase.as_str(), %message, "phase degraded");
        self.emit(Event::Error { phase, message })
    }

    pub(super) fn checkpoint(&mut self) -> Result<(), EngineError> {
        Ok(self.log.checkpoint()?)
    }

    /// Handles every queued command; false when the UI hung up.
    fn drain_commands(&mut self) -> Result<bool, EngineError> {
        loop {
            match self.commands.try_recv() {
                Ok(cmd) => {
                    self.handle_command(cmd)?;
                }
                Err(mpsc::error::TryRecvError::Empty) => return Ok(true),
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    // Without a UI nobody can answer a wait; anything else runs on.
                    let waits = matches!(
                        self.state.next_step(),
                        NextStep::AwaitStart | NextStep::AwaitStep(_) | NextStep::AwaitAnswer(_)
                    );
                    return Ok(!waits);
                }
            }
        }
    }

    /// Blocks until one command arrives and handles it; false on hang-up.
    async fn wait_for_command(&mut self) -> Result<bool, EngineError> {
        match self.commands.recv().await {
            Some(cmd) => {
                self.handle_command(cmd)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Awaits `work` while still serving commands. Returns `None` if a
    /// Cancel or ForceOutput arrived (the work is dropped, i.e. cancelled).
    pub(super) async fn await_work<T>(&mut self, work: impl Future<Output = T>) -> Phase<T> {
        tokio::pin!(work);
        loop {
            tokio::select! {
                biased;
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => {
                        if self.handle_command(cmd)? {
                            return Ok(None);
                        }
                    }
                    // No UI left: finish the work without listening.
                    None => return Ok(Some(work.await)),
                },
                out = &mut work => return Ok(Some(out)),
            }
        }
    }

    /// Applies a command; true when it interrupts the phase under way
    /// (a new Cancel, or a ForceOutput while still researching).
    /// Records what `cmd` does (decided by `on_command` from the state
    /// alone); true when it interrupts the running phase.
    fn handle_command(&mut self, cmd: Command) -> Result<bool, EngineError> {
        let events = match on_command(&self.state, &cmd, |q| self.header(q.to_string())) {
            Ok(events) => events,
            Err(rejected) => {
                tracing::warn!(%rejected, "command refused");
                vec![rejected.event()]
            }
        };
        let mut interrupts = false;
        for event in events {
            let durable = matches!(event, Event::SessionStarted(_) | Event::AskAnswered { .. });
            interrupts |= matches!(event, Event::OutputForced | Event::CancelRequested);
            self.emit(event)?;
            if durable {
                self.checkpoint()?;
            }
        }
        Ok(interrupts)
    }

    fn header(&self, question: String) -> SessionHeader {
        let s = &self.settings;
        SessionHeader {
            schema_version: SCHEMA_VERSION,
            sleuth_version: env!("CARGO_PKG_VERSION").to_string(),
            session_id: s.session_id.clone(),
            question,
            preset: s.preset,
            limits: s.limits.clone(),
            step_mode: s.step_mode,
            reasoner: self.reasoner.name(),
            providers: self.search.provider_names(),
            config: s.config_snapshot.clone(),
            forked_from: s.forked_from.clone(),
            follow_up_of: s.follow_up_of.clone(),
            imported: s.imported.clone(),
        }
    }

    /// A source's stored text (cached after the first read).
    pub(super) fn text_of(&mut self, id: SourceId) -> Option<Arc<str>> {
        if let Some(t) = self.text_cache.get(&id) {
            return Some(t.clone());
        }
        let t = self.texts.get(id)?;
        self.text_cache.insert(id, t.clone());
        Some(t)
    }

    /// A source's text normalised for quote matching (cached).
    pub(super) fn normalized_text_of(&mut self, id: SourceId) -> Option<Arc<str>> {
        if let Some(t) = self.norm_cache.get(&id) {
            return Some(t.clone());
        }
        let t: Arc<str> = Arc::from(crate::text::normalize_for_match(&self.text_of(id)?));
        self.norm_cache.insert(id, t.clone());
        Some(t)
    }

    pub(super) fn cache_text(&mut self, id: SourceId, text: Arc<str>) {
        self.text_cache.insert(id, text);
    }
}

pub(super) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
