//! The exports that need more than the replayed state — the session's
//! stored source texts and its log: HTML, PDF and the evidence bundle.
//! The command line and the TUI both write them through here.

use super::bundle::{BundleError, BundleParts, bundle, bundle_bytes};
use super::share::html::html;
use super::share::pdf::{PdfError, pdf};
use super::share::share_doc;
use crate::engine::model::SourceId;
use crate::engine::ports::TextStore;
use crate::engine::redact::Redactor;
use crate::engine::state::SessionState;
use crate::session::summary::SessionSummary;
use crate::session::{DirTexts, SessionDir};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RichFormat {
    Html,
    Pdf,
    Bundle,
}

impl RichFormat {
    pub fn extension(self) -> &'static str {
        match self {
            RichFormat::Html => "html",
            RichFormat::Pdf => "pdf",
            RichFormat::Bundle => "bundle.json",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RichExportError {
    #[error(transparent)]
    Bundle(#[from] BundleError),
    #[error(transparent)]
    Pdf(#[from] PdfError),
    #[error("cannot read the session log {path}: {message}")]
    Log { path: String, message: String },
}

/// The export of the session in `dir` (replayed into `state`) as `format`,
/// every text passed through `redactor`.
pub fn export_rich(
    dir: &SessionDir,
    state: &SessionState,
    summary: &SessionSummary,
    redactor: &Redactor,
    format: RichFormat,
    now_ms: u64,
) -> Result<Vec<u8>, RichExportError> {
    let texts = DirTexts::new(dir.sources_dir());
    let text_of = |id: SourceId| texts.get(id).map(|t| t.to_string());
    let redact = |t: &str| redactor.redact(t).into_owned();
    match format {
        RichFormat::Html => {
            let doc = share_doc(state, summary, &text_of, &redact, now_ms);
            Ok(redact(&html(&doc)).into_bytes())
        }
        RichFormat::Pdf => Ok(pdf(&share_doc(state, summary, &text_of, &redact, now_ms))?),
        RichFormat::Bundle => {
            let path = dir.log_path();
            let log = std::fs::read_to_string(&path)
                .map_err(|e| RichExportError::Log { path: path.display().to_string(), message: e.to_string() })?;
            let parts = BundleParts {
                state,
                session_id: &summary.id,
                log_jsonl: &log,
                text_of: &text_of,
                redact: &redact,
                now_ms,
            };
            Ok(bundle_bytes(&bundle(&parts)?, &redact)?)
        }
    }
}
