//! The JSON export: the summary and the whole replayed state (header with
//! its secret-free configuration, every iteration, source, ask, usage and
//! the report), for scripts and archives.

use serde::Serialize;

use crate::engine::state::SessionState;
use crate::session::summary::SessionSummary;

/// Bumped when the export's shape changes.
pub const JSON_EXPORT_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonExport<'a> {
    export_version: u32,
    summary: &'a SessionSummary,
    session: &'a SessionState,
}

pub fn json(state: &SessionState, summary: &SessionSummary) -> String {
    let doc = JsonExport { export_version: JSON_EXPORT_VERSION, summary, session: state };
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
