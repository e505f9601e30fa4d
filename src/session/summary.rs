//! `summary.json`: what `sleuth sessions` and `sleuth stats` show, so they
//! read one small file per session instead of replaying every log. It is
//! derived from the log alone and carries the log length it was built
//! from: when the log has grown since (a crash between checkpoints, an
//! older sleuth), it is out of date and rebuilt by replaying the log.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::SessionDir;
use super::log::{LogError, read_log};
use crate::engine::model::{Action, DecisionReason, Outcome, StopReason};
use crate::engine::protocol::ForkOrigin;
use crate::engine::state::{QueryResult, SessionState};
use crate::engine::status::SessionStatus;

/// Bumped whenever the summary's fields change; older summaries are rebuilt.
/// 3: `status` is the engine's `SessionStatus` (degraded and forked
/// sessions have their own), the waiting question and the error beside it.
pub const SUMMARY_VERSION: u32 = 3;

/// How the research loop ended (seed 004: converged vs stopped on a limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// OUTPUT because confidence and coverage met their thresholds.
    Thresholds,
    /// OUTPUT because the answer stopped improving (diminishing returns,
    /// converged drafts).
    Plateau,
    /// OUTPUT because an iteration, cost, token or time limit was reached.
    Limit,
    /// Output forced, or cancelled, by the user.
    User,
}

impl StopKind {
    pub fn of(stop: StopReason) -> Self {
        match stop {
            StopReason::Decision(DecisionReason::Thresholds) => StopKind::Thresholds,
            StopReason::Decision(DecisionReason::DiminishingReturns | DecisionReason::Converged) => StopKind::Plateau,
            StopReason::Decision(_) => StopKind::Limit,
            StopReason::ForcedByUser | StopReason::Cancelled => StopKind::User,
        }
    }
}

/// Per-session figures behind `sleuth stats` (seeds 001 and 004).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionMetrics {
    /// Set once a report was written.
    pub stop: Option<StopKind>,
    pub stop_reason: Option<StopReason>,
    pub continue_decisions: u32,
    /// A CONTINUE followed by an OUTPUT whose iteration gained no
    /// confidence: the extra iteration was undone by the next decision.
    pub reversals: u32,
    pub queries: u32,
    pub failed_queries: u32,
    pub provider_fallbacks: u32,
    pub degraded: bool,
    pub errors: u32,
    pub memories_used: u32,
    pub memories_stored: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub summary_version: u32,
    pub id: String,
    pub question: String,
    pub started_at_ms: u64,
    pub updated_at_ms: u64,
    /// As the log tells it, with nobody writing the session (`interrupted`
    /// for one stopped part-way); the list says `running` when its lock is held.
    pub status: SessionStatus,
    /// The clarifying question the session waits on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_on: Option<String>,
    /// Why the session failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub preset: String,
    pub reasoner: String,
    pub iterations: u32,
    pub max_iterations: u32,
    pub confidence: f64,
    pub coverage: f64,
    pub cost_usd: f64,
    pub cost_estimated: bool,
    pub tokens: u64,
    /// Active research time (waiting for the user does not count).
    pub elapsed_ms: u64,
    pub sources: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkOrigin>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up_of: Option<String>,
    pub metrics: SessionMetrics,
    /// The log this was built from: its length and last sequence number.
    pub log_bytes: u64,
    pub last_seq: u64,
}

impl SessionSummary {
    /// The summary of a replayed session whose log is `log_bytes` long.
    pub fn from_state(id: &str, state: &SessionState, log_bytes: u64) -> Self {
        let header = state.header.as_ref();
        Self {
            summary_version: SUMMARY_VERSION,
            id: id.to_string(),
            question: state.question().to_string(),
            started_at_ms: state.started_at_ms,
            updated_at_ms: state.updated_at_ms,
            status: SessionStatus::of(state, false),
            waiting_on: state.open_ask().map(|a| a.clarification.question.clone()),
            error: match &state.outcome {
                Some(Outcome::Failed { error }) => Some(error.clone()),
                _ => None,
            },
            preset: header.map_or_else(String::new, |h| h.preset.to_string()),
            reasoner: header.map_or_else(String::new, |h| h.reasoner.clone()),
            iterations: state.iteration(),
            max_iterations: state.max_iterations(),
            confidence: state.confidence,
            coverage: state.coverage,
            cost_usd: state.cost_usd,
            cost_estimated: state.usage_estimated,
            tokens: state.total_tokens(),
            elapsed_ms: state.elapsed_ms,
            sources: state.sources.len(),
            forked_from: header.and_then(|h| h.forked_from.clone()),
            follow_up_of: header.and_then(|h| h.follow_up_of.clone()),
            metrics: metrics(state),
            log_bytes,
            last_seq: state.last_seq,
        }
    }
}

fn metrics(state: &SessionState) -> SessionMetrics {
    let mut m = SessionMetrics {
        stop_reason: state.report.as_ref().map(|r| r.stop),
        degraded: !state.degraded.is_empty(),
        errors: state.errors.len() as u32,
        memories_stored: state.memories_stored as u32,
        ..Default::default()
    };
    m.stop = m.stop_reason.map(StopKind::of);
    let mut previous: Option<(Action, f64)> = None;
    for it in &state.iterations {
        for q in &it.queries {
            match &q.result {
                Some(QueryResult::Searched { .. }) => m.queries += 1,
                Some(QueryResult::Failed { .. }) => {
                    m.queries += 1;
                    m.failed_queries += 1;
                }
                None => {}
            }
        }
        m.provider_fallbacks += it.fallbacks.len() as u32;
        m.memories_used += it.memories_used.len() as u32;
        let (Some(decision), Some(confidence)) = (&it.decision, it.confidence_after()) else { continue };
        if decision.action == Action::Continue {
            m.continue_decisions += 1;
        }
        if let Some((Action::Continue, before)) = previous
            && decision.action == Action::Output
            && confidence <= before
        {
            m.reversals += 1;
        }
        previous = Some((decision.action, confidence));
    }
    m
}

/// Writes `summary.json` atomically (temp file, then rename). It is not
/// synced: a summary lost in a crash is rebuilt from the log.
pub fn write_summary(dir: &SessionDir, summary: &SessionSummary) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    let tmp = dir.path.join(".summary.json.tmp");
    std::fs::write(&tmp, text.as_bytes())?;
    std::fs::rename(&tmp, dir.summary_path())
}

/// How a summary was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// `summary.json` matched the log.
    Stored,
    /// Missing, unreadable or out of date: rebuilt by replaying the log.
    Rebuilt,
}

/// The session's summary: the stored one when it matches the log's
/// length, otherwise rebuilt from the log (an error only when the log
/// itself cannot be read).
pub fn load_summary(dir: &SessionDir) -> Result<(SessionSummary, Freshness), LogError> {
    let log_path = dir.log_path();
    let log_len = std::fs::metadata(&log_path).map(|m| m.len()).ok();
    if let (Some(len), Some(stored)) = (log_len, read_stored(&dir.summary_path()))
        && stored.summary_version == SUMMARY_VERSION
        && stored.log_bytes == len
        && stored.id == dir.id
    {
        return Ok((stored, Freshness::Stored));
    }
    let log = read_log(&log_path)?;
    let state = SessionState::replay(&log.records);
    Ok((SessionSummary::from_state(&dir.id, &state, log.bytes), Freshness::Rebuilt))
}

fn read_stored(path: &Path) -> Option<SessionSummary> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}
