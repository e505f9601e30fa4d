//! Seed 002's IterationLogger: one JSON file per iteration (what each
//! phase produced, the sources it found, what it cost) and a session
//! summary (`total_iterations`, `final_status`, `mode`, metadata).

use serde::Serialize;
use serde_json::json;

use crate::engine::model::SourceMeta;
use crate::engine::state::{IterationRecord, SessionState};
use crate::session::summary::SessionSummary;

/// A file to write: its name inside the folder and its contents.
#[derive(Debug, Clone, PartialEq)]
pub struct IterationFile {
    pub name: String,
    pub contents: String,
}

#[derive(Serialize)]
struct IterationDoc<'a> {
    session_id: &'a str,
    #[serde(flatten)]
    record: &'a IterationRecord,
    sources_found: Vec<&'a SourceMeta>,
    duration_ms: u64,
}

/// `iteration-001.json` … and `session.json`.
pub fn iteration_files(state: &SessionState, summary: &SessionSummary) -> Vec<IterationFile> {
    let mut files: Vec<IterationFile> = state
        .iterations
        .iter()
        .map(|it| {
            let doc = IterationDoc {
                session_id: &summary.id,
                record: it,
                sources_found: it.new_sources.iter().filter_map(|id| state.source(*id)).map(|s| &s.meta).collect(),
                duration_ms: it.last_elapsed_ms.saturating_sub(it.started_elapsed_ms),
            };
            IterationFile {
                name: format!("iteration-{:03}.json", it.iteration),
                contents: serde_json::to_string_pretty(&doc).unwrap_or_default(),
            }
        })
        .collect();
    let header = state.header.as_ref();
    let session = json!({
        "session_id": summary.id,
        "question": summary.question,
        "total_iterations": summary.iterations,
        "final_status": summary.status,
        "mode": {
            "preset": summary.preset,
            "reasoner": summary.reasoner,
            "source_mode": header.and_then(|h| h.config.pointer("/research/source_mode")).cloned(),
            "step_mode": state.step_mode,
        },
        "metadata": {
            "started_at_ms": summary.started_at_ms,
            "updated_at_ms": summary.updated_at_ms,
            "elapsed_ms": summary.elapsed_ms,
            "confidence": summary.confidence,
            "coverage": summary.coverage,
            "cost_usd": summary.cost_usd,
            "tokens": summary.tokens,
            "sources": summary.sources,
            "stop": state.report.as_ref().map(|r| r.stop),
            "report_based_on_iteration": state.report.as_ref().and_then(|r| r.based_on_iteration),
            "limits": header.map(|h| &h.limits),
            "forked_from": summary.forked_from,
            "follow_up_of": summary.follow_up_of,
            "metrics": summary.metrics,
        },
    });
    files.push(IterationFile {
        name: "session.json".into(),
        contents: serde_json::to_string_pretty(&session).unwrap_or_default(),
    });
    files
}
