//! A follow-up question on a finished session: a new session that starts
//! from the earlier one's sources and findings. Its folder gets the earlier
//! source texts (same ids, hard-linked), and its header carries an
//! `ImportedContext`: the earlier sources with their verdicts (usable from
//! the first iteration) and the report's claims as findings, which the
//! fold turns into a constraint every phase sees. The earlier session is
//! only read, never changed.

use std::path::{Path, PathBuf};

use super::SessionDir;
use super::create::staging_path;
use super::fork::link_or_copy;
use super::read::{LogError, read_log};
use crate::engine::imported::{ImportedContext, ImportedSource};
use crate::engine::model::{Claim, SourceVerdict};
use crate::engine::state::SessionState;

#[derive(Debug, thiserror::Error)]
pub enum FollowUpError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error(
        "session {id} has not finished: a follow-up starts from a finished session's report; `sleuth resume {id}` first"
    )]
    NotFinished { id: String },
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
}

/// What the earlier session leaves to its follow-up (pure).
pub fn imported_context(id: &str, state: &SessionState) -> ImportedContext {
    let claims: Vec<Claim> = match &state.report {
        Some(r) if !r.claims.is_empty() => r.claims.clone(),
        _ => state.best_iteration().and_then(|it| it.draft.as_ref()).map(|d| d.claims.clone()).unwrap_or_default(),
    };
    let findings = claims.iter().map(finding).filter(|f| !f.is_empty()).collect();
    let sources = state
        .sources
        .iter()
        .map(|s| {
            let id = s.meta.id;
            let mut meta = s.meta.clone();
            meta.iteration = 0;
            let verdict = if state.banned.contains(&id) {
                Some(SourceVerdict {
                    id,
                    kept: false,
                    reason: Some("banned".into()),
                    relevance: 0.0,
                    signals: Vec::new(),
                })
            } else if state.pinned.contains(&id) {
                let relevance = s.verdict.as_ref().map_or(1.0, |v| v.relevance);
                Some(SourceVerdict { id, kept: true, reason: None, relevance, signals: Vec::new() })
            } else {
                s.verdict.clone()
            };
            ImportedSource { meta, verdict }
        })
        .collect();
    ImportedContext { session_id: id.to_string(), question: state.question().to_string(), findings, sources }
}

fn finding(claim: &Claim) -> String {
    let text = crate::text::sanitize_inline(&claim.text).trim().to_string();
    let mut ids: Vec<u32> = claim.citations.iter().map(|c| c.source.0).collect();
    ids.dedup();
    if ids.is_empty() || text.is_empty() {
        return text;
    }
    let marks: Vec<String> = ids.iter().map(|i| format!("[{i}]")).collect();
    format!("{text} {}", marks.join(""))
}

/// Reads finished session `prev_id`, stages the folder of session
/// `new_id` with the earlier source texts (a `NewSessionLog` for `new_id`
/// moves it into place with the header), and returns the session's folder
/// and what its header must carry.
pub fn prepare_follow_up(
    root: &Path,
    prev_id: &str,
    new_id: &str,
) -> Result<(SessionDir, ImportedContext), FollowUpError> {
    let prev = SessionDir::new(root, prev_id);
    let state = SessionState::replay(&read_log(&prev.log_path())?.records);
    if !state.is_finished() {
        return Err(FollowUpError::NotFinished { id: prev_id.to_string() });
    }
    let imported = imported_context(prev_id, &state);
    let io = |path: &Path, e: std::io::Error| FollowUpError::Io { path: path.to_path_buf(), message: e.to_string() };
    // The texts wait in the staging folder: the session appears, with
    // them, when its header is recorded (see `create.rs`).
    let staging = SessionDir { id: new_id.to_string(), path: staging_path(root, new_id) };
    std::fs::create_dir_all(staging.sources_dir()).map_err(|e| io(&staging.sources_dir(), e))?;
    for s in &imported.sources {
        let name = format!("{}.txt", s.meta.id.0);
        let from = prev.sources_dir().join(&name);
        if from.exists() {
            let to = staging.sources_dir().join(&name);
            link_or_copy(&from, &to).map_err(|e| io(&to, e))?;
        }
    }
    Ok((SessionDir::new(root, new_id), imported))
}
