//! `summary.json`: what `sleuth sessions` and `sleuth stats` show, so they
//! read one small file per session instead of replaying every log. It is
//! derived from the log alone and carries the log's stamp when it was
//! built (length, modification and change times, inode): when the log has
//! changed since (grown after a crash between checkpoints, edited in place,
//! damaged, replaced), it is out of date and rebuilt by replaying the log,
//! which finds any damage. The length alone is not enough: a log with two
//! lines swapped or a bit flipped keeps its length.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::SessionDir;
use super::read::{LogError, LogStamp, read_log};
use crate::engine::model::{Action, DecisionReason, Outcome, StopReason};
use crate::engine::protocol::ForkOrigin;
use crate::engine::state::{QueryResult, SessionState};
use crate::engine::status::SessionStatus;

/// Bumped whenever the summary's fields change; older summaries are rebuilt.
/// 3: `status` is the engine's `SessionStatus` (degraded and forked
/// sessions have their own), the waiting question and the error beside it;
/// the log's stamp instead of its length alone.
pub const SUMMARY_VERSION: u32 = 3;

/// How the research loop ended: converged, or stopped on a limit.
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

/// Per-session figures behind `sleuth stats`.
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
    /// The log's stamp when this was built, and when that was (Unix ns):
    /// the summary stands for the log while the stamp still matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_stamp: Option<StampTaken>,
}

/// A log's stamp, and the wall-clock time it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StampTaken {
    pub stamp: LogStamp,
    pub taken_at_ns: i64,
}

/// File times tick coarsely (a few milliseconds on Linux): a log changed
/// this soon after its stamp was taken may keep the stamp's times, so such
/// a stamp proves nothing and the summary is rebuilt (git's "racily
/// clean" entries, the same way).
const STAMP_RACE_NS: i64 = 100_000_000;

impl StampTaken {
    pub fn now(stamp: LogStamp) -> Self {
        let taken_at_ns =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64);
        Self { stamp, taken_at_ns }
    }

    /// Whether the log at `path` is still the one stamped.
    fn matches(&self, path: &Path) -> bool {
        let settled = self.stamp.mtime_ns.max(self.stamp.ctime_ns) + STAMP_RACE_NS < self.taken_at_ns;
        settled && LogStamp::current(path) == Some(self.stamp)
    }
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
            log_stamp: None,
        }
    }

    /// The same summary, stamped with the log it was built from.
    pub fn stamped(mut self, stamp: Option<LogStamp>) -> Self {
        self.log_stamp = stamp.filter(|s| s.bytes == self.log_bytes).map(StampTaken::now);
        self
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
    let written = std::fs::write(&tmp, text.as_bytes()).and_then(|_| std::fs::rename(&tmp, dir.summary_path()));
    if written.is_err() {
        // A full disk: leave no half-written temporary behind.
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// How a summary was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// `summary.json` matched the log.
    Stored,
    /// Missing, unreadable or out of date: rebuilt by replaying the log.
    Rebuilt,
}

/// The session's summary: the stored one when the log still carries the
/// stamp it was built from, otherwise rebuilt from the log (an error only
/// when the log itself cannot be read).
pub fn load_summary(dir: &SessionDir) -> Result<(SessionSummary, Freshness), LogError> {
    let log_path = dir.log_path();
    if let Some(stored) = read_stored(&dir.summary_path())
        && stored.summary_version == SUMMARY_VERSION
        && stored.id == dir.id
        && stored.log_stamp.is_some_and(|s| s.matches(&log_path))
    {
        return Ok((stored, Freshness::Stored));
    }
    let log = read_log(&log_path)?;
    let state = SessionState::replay(&log.records);
    Ok((SessionSummary::from_state(&dir.id, &state, log.bytes).stamped(log.stamp), Freshness::Rebuilt))
}

/// A summary is a few KiB; anything far larger is not one.
const MAX_SUMMARY_BYTES: u64 = 16 << 20;

fn read_stored(path: &Path) -> Option<SessionSummary> {
    let bytes = crate::files::read_capped(path, MAX_SUMMARY_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}
