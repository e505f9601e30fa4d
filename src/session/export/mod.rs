//! Exports of a session, built from its replayed state (the log is the
//! truth): Markdown, JSON, BibTeX, CSL-JSON, and one JSON file per
//! iteration. Everything here is pure; the caller writes the result and
//! passes it through the redactor, so an export never carries a secret.

mod bibtex;
pub mod bundle;
mod csl;
mod dates;
mod iterations;
mod json;
mod markdown;
pub mod rich;
pub mod share;
#[cfg(test)]
mod tests_scholarly;

use crate::engine::model::SourceId;
use crate::engine::state::{SessionState, SourceEntry};

pub use bibtex::bibtex;
pub use csl::csl_json;
pub use dates::{iso_date, iso_datetime};
pub use iterations::{IterationFile, iteration_files};
pub use json::json;
pub use markdown::markdown;

use super::summary::SessionSummary;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Markdown,
    Json,
    Bibtex,
    CslJson,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Markdown => "md",
            ExportFormat::Json => "json",
            ExportFormat::Bibtex => "bib",
            ExportFormat::CslJson => "csl.json",
        }
    }
}

/// The export of `state` in `format`.
pub fn export(state: &SessionState, summary: &SessionSummary, format: ExportFormat) -> String {
    match format {
        ExportFormat::Markdown => markdown(state, summary),
        ExportFormat::Json => json(state, summary),
        ExportFormat::Bibtex => bibtex(state, &summary.id),
        ExportFormat::CslJson => csl_json(state, &summary.id),
    }
}

/// The sources a bibliography lists: those the report cites, or while
/// there is no report, those the research kept.
pub fn cited_sources(state: &SessionState) -> Vec<&SourceEntry> {
    let ids: Vec<SourceId> = match (&state.verification, &state.report) {
        (Some(v), _) if !v.cited.is_empty() => v.cited.clone(),
        (_, Some(r)) => {
            let mut ids = Vec::new();
            for c in r.claims.iter().flat_map(|c| &c.citations) {
                if !ids.contains(&c.source) {
                    ids.push(c.source);
                }
            }
            ids
        }
        (_, None) => state.usable_sources().map(|s| s.meta.id).collect(),
    };
    let mut entries: Vec<&SourceEntry> = ids.iter().filter_map(|id| state.source(*id)).collect();
    entries.sort_by_key(|s| s.meta.id);
    entries
}

/// Whether the report cites `id`.
pub fn is_cited(state: &SessionState, id: SourceId) -> bool {
    state.verification.as_ref().is_some_and(|v| v.cited.contains(&id))
        || state.report.as_ref().is_some_and(|r| r.claims.iter().flat_map(|c| &c.citations).any(|c| c.source == id))
}
