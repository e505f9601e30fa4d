//! The engine's typed protocol (codex-style): `Command`s in, `Event`s out.
//! A question to the user is an event carrying an `ask_id`; it is answered
//! by a `Command::Answer` naming the same id. Events are serialised one per
//! line into the session log, so every variant is part of the file format:
//! add fields with `#[serde(default)]`, bump `SCHEMA_VERSION` for anything else.

use serde::{Deserialize, Serialize};

use super::preset::SessionPreset;
use super::takeover::Takeover;

pub use super::imported::{ImportedContext, ImportedSource};
pub use super::model::Answer;
use super::model::{
    Clarification, Critique, Decision, Degradation, Draft, Evaluation, Outcome, Phase, PlannedQuery, QualityReport,
    Recheck, Refinement, Reflection, Report, SourceId, SourceMeta, SourceVerdict, Usage, Verification,
};

/// Version of the event-log format written by this build. History:
/// 1 — the first format; 2 — `SessionHeader::imported` (follow-up
/// sessions: a build that ignored it would reuse the imported source ids);
/// 3 — reasons as types: `degraded_mode` carries a `cause` (schema 2 wrote
/// a `reason` sentence), `no_valid_sources` says whether strict mode was
/// the cause, `error` names a known phase; and `Event::ReportRestarted` (a
/// build that ignored it would show a dead WRITE's fragments run into the
/// new report); and `Event::Rechecked` (`sleuth recheck`'s results). A fixture log of every version lives in `tests/fixtures/`;
/// older ones read as they always did.
pub const SCHEMA_VERSION: u32 = 3;

/// What a UI (or the headless printer) can ask of the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Begin a new session with this question.
    Start { question: String },
    /// At a step pause: run one more iteration, then pause again.
    Step,
    /// At a step pause: leave step mode and run to the end.
    Continue,
    /// Switch between step mode and auto mode while running.
    SetStepMode { on: bool },
    /// Answer the question raised by `Event::AskRaised` with this id.
    Answer { ask_id: String, answer: Answer },
    /// At a step pause: change what the next iteration will do.
    Steer { edit: Steer },
    /// Stop researching and write the report from the best draft now.
    ForceOutput,
    /// Stop; a partial report is still recorded.
    Cancel,
}

/// A user's edit to the next iteration, made at a step pause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Steer {
    EditQuery {
        index: usize,
        text: String,
    },
    DeleteQuery {
        index: usize,
    },
    AddQuery {
        text: String,
    },
    /// A note that becomes a constraint of the task.
    AddNote {
        text: String,
    },
    /// Never use this source again (rejected at review, left out of drafts).
    BanSource {
        id: SourceId,
    },
    /// Always keep this source.
    PinSource {
        id: SourceId,
    },
}

/// The limits a session runs under, resolved from preset and overrides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    pub max_iterations: u32,
    /// Queries per iteration.
    pub max_queries: u32,
    /// New sources per iteration.
    pub max_sources: u32,
    pub time_limit_secs: u64,
    pub cost_budget_usd: f64,
    pub token_budget: u64,
}

/// The first event of every log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionHeader {
    pub schema_version: u32,
    pub sleuth_version: String,
    pub session_id: String,
    pub question: String,
    pub preset: SessionPreset,
    pub limits: Limits,
    pub step_mode: bool,
    pub reasoner: String,
    /// Provider fallback chains, each tried in order.
    pub providers: Vec<Vec<String>>,
    /// The effective configuration with secrets removed.
    pub config: serde_json::Value,
    /// Set when this session was forked from another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkOrigin>,
    /// Set when this session follows up a finished one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up_of: Option<String>,
    /// A follow-up's starting point: the earlier sources and findings (schema 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportedContext>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkOrigin {
    pub session_id: String,
    pub iteration: u32,
}

/// Everything the engine does, in the order it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    SessionStarted(SessionHeader),
    IterationStarted {
        iteration: u32,
        /// Queries decided by the previous iteration's refinement (and any
        /// steering); empty for the first iteration, which plans its own.
        #[serde(default)]
        queries: Vec<PlannedQuery>,
    },
    Planned {
        iteration: u32,
        reflection: Reflection,
        queries: Vec<PlannedQuery>,
        /// Reflexion memories offered to the planner (their ids).
        #[serde(default)]
        memories_used: Vec<String>,
        /// The mistakes those memories record, in the same order: what the
        /// reflection log shows (ids alone say nothing to the reader).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        lessons_used: Vec<String>,
    },
    QuerySearched {
        iteration: u32,
        query_index: usize,
        query: String,
        provider: String,
        hits: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reformulated_from: Option<String>,
    },
    QueryFailed {
        iteration: u32,
        query_index: usize,
        query: String,
        error: String,
        attempts: u32,
    },
    ProviderFallback {
        iteration: u32,
        from: String,
        to: String,
        error: String,
    },
    CircuitOpened {
        iteration: u32,
        provider: String,
        reason: String,
    },
    /// A provider's open circuit closed: a call succeeded (the trial after
    /// the cool-down, or one already in flight when it opened).
    CircuitClosed {
        iteration: u32,
        provider: String,
    },
    DegradedMode {
        iteration: u32,
        /// Why (schema 2: a `reason` sentence, read into the same type).
        #[serde(alias = "reason", deserialize_with = "Degradation::read")]
        cause: Degradation,
    },
    /// The model could not do the work: the built-in reasoner does every
    /// phase from here on (a resumed session keeps it so).
    BuiltinTookOver {
        takeover: Takeover,
    },
    SourceAdded {
        source: SourceMeta,
    },
    /// A hit that turned out to be a source already known (same canonical
    /// locator or near-identical text).
    SourceDuplicate {
        iteration: u32,
        of: SourceId,
        locator: String,
    },
    SourceSkipped {
        iteration: u32,
        locator: String,
        reason: String,
    },
    SearchCompleted {
        iteration: u32,
        new_sources: usize,
    },
    Reviewed {
        iteration: u32,
        verdicts: Vec<SourceVerdict>,
        report: QualityReport,
    },
    /// Review left nothing to draft from (e.g. strict mode dropped all).
    NoValidSources {
        iteration: u32,
        reason: String,
        /// Strict mode's tier filter left nothing (schema 3; before, the
        /// reason's first words said so).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
    Drafted {
        iteration: u32,
        draft: Draft,
    },
    Critiqued {
        iteration: u32,
        critique: Critique,
    },
    Evaluated {
        iteration: u32,
        evaluation: Evaluation,
    },
    Decided {
        iteration: u32,
        decision: Decision,
    },
    Refined {
        iteration: u32,
        refinement: Refinement,
    },
    /// Step mode: the engine waits for `Step` or `Continue`.
    Paused {
        iteration: u32,
    },
    /// The pause after `iteration` ended.
    Resumed {
        iteration: u32,
    },
    ModeChanged {
        step_mode: bool,
    },
    Steered {
        edit: Steer,
    },
    AskRaised {
        ask_id: String,
        iteration: u32,
        clarification: Clarification,
    },
    AskAnswered {
        ask_id: String,
        answer: Answer,
    },
    UsageRecorded {
        usage: Usage,
    },
    Error {
        phase: Phase,
        message: String,
    },
    MemoryStored {
        mistake: String,
        correction: String,
    },
    OutputForced,
    CancelRequested,
    /// A command the session could not take (an answer to a question that
    /// is not open, a second start), recorded so every front end can show it.
    CommandRejected {
        command: String,
        reason: String,
    },
    /// A batch of streamed report text.
    ReportDelta {
        text: String,
    },
    /// WRITE starts again from the beginning: every `report_delta` before
    /// this one belongs to a write that did not finish (the process died,
    /// or a cancel interrupted it) and is void. Whoever shows the stream
    /// clears it here.
    ReportRestarted {
        /// Bytes of streamed text discarded.
        discarded_bytes: u64,
    },
    ReportWritten {
        report: Report,
    },
    Verified {
        verification: Verification,
    },
    SessionEnded {
        outcome: Outcome,
    },
    /// `sleuth recheck`: the cited sources fetched again after the end,
    /// and whether each claim still stands.
    Rechecked {
        recheck: Recheck,
    },
}

impl Event {
    /// The iteration an event belongs to, when it names one.
    pub fn iteration(&self) -> Option<u32> {
        match self {
            Event::IterationStarted { iteration, .. }
            | Event::Planned { iteration, .. }
            | Event::QuerySearched { iteration, .. }
            | Event::QueryFailed { iteration, .. }
            | Event::ProviderFallback { iteration, .. }
            | Event::CircuitOpened { iteration, .. }
            | Event::CircuitClosed { iteration, .. }
            | Event::DegradedMode { iteration, .. }
            | Event::SourceDuplicate { iteration, .. }
            | Event::SourceSkipped { iteration, .. }
            | Event::SearchCompleted { iteration, .. }
            | Event::Reviewed { iteration, .. }
            | Event::NoValidSources { iteration, .. }
            | Event::Drafted { iteration, .. }
            | Event::Critiqued { iteration, .. }
            | Event::Evaluated { iteration, .. }
            | Event::Decided { iteration, .. }
            | Event::Refined { iteration, .. }
            | Event::Paused { iteration }
            | Event::Resumed { iteration }
            | Event::AskRaised { iteration, .. } => Some(*iteration),
            Event::SourceAdded { source } => Some(source.iteration),
            _ => None,
        }
    }

    /// Snake-case name of the variant, for progress lines and filters.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::SessionStarted(_) => "session_started",
            Event::IterationStarted { .. } => "iteration_started",
            Event::Planned { .. } => "planned",
            Event::QuerySearched { .. } => "query_searched",
            Event::QueryFailed { .. } => "query_failed",
            Event::ProviderFallback { .. } => "provider_fallback",
            Event::CircuitOpened { .. } => "circuit_opened",
            Event::CircuitClosed { .. } => "circuit_closed",
            Event::DegradedMode { .. } => "degraded_mode",
            Event::BuiltinTookOver { .. } => "builtin_took_over",
            Event::SourceAdded { .. } => "source_added",
            Event::SourceDuplicate { .. } => "source_duplicate",
            Event::SourceSkipped { .. } => "source_skipped",
            Event::SearchCompleted { .. } => "search_completed",
            Event::Reviewed { .. } => "reviewed",
            Event::NoValidSources { .. } => "no_valid_sources",
            Event::Drafted { .. } => "drafted",
            Event::Critiqued { .. } => "critiqued",
            Event::Evaluated { .. } => "evaluated",
            Event::Decided { .. } => "decided",
            Event::Refined { .. } => "refined",
            Event::Paused { .. } => "paused",
            Event::Resumed { .. } => "resumed",
            Event::ModeChanged { .. } => "mode_changed",
            Event::Steered { .. } => "steered",
            Event::AskRaised { .. } => "ask_raised",
            Event::AskAnswered { .. } => "ask_answered",
            Event::UsageRecorded { .. } => "usage_recorded",
            Event::Error { .. } => "error",
            Event::MemoryStored { .. } => "memory_stored",
            Event::OutputForced => "output_forced",
            Event::CancelRequested => "cancel_requested",
            Event::CommandRejected { .. } => "command_rejected",
            Event::ReportDelta { .. } => "report_delta",
            Event::ReportRestarted { .. } => "report_restarted",
            Event::ReportWritten { .. } => "report_written",
            Event::Verified { .. } => "verified",
            Event::SessionEnded { .. } => "session_ended",
            Event::Rechecked { .. } => "rechecked",
        }
    }
}

/// One line of the session log: an event with its sequence number and times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// 1-based, gapless within a session.
    pub seq: u64,
    /// Wall-clock time (Unix milliseconds); for display only.
    pub at_ms: u64,
    /// Active research time since the session started, across resumes.
    pub elapsed_ms: u64,
    pub event: Event,
}
