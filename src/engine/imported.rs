//! A follow-up session's starting point: the finished session it builds
//! on. It travels in the follow-up's header (one atomic event), and the
//! fold turns it into sources known from the start plus one constraint
//! carrying the earlier findings, so every phase sees them.

use serde::{Deserialize, Serialize};

use super::model::{SourceMeta, SourceVerdict};

/// The earlier findings given to the reasoner are cut to this many characters.
const MAX_FINDINGS_CHARS: usize = 2_000;

/// How the imported-findings constraint begins: reasoners tell it apart
/// from what the user said (it is context, not words to search for).
pub const IMPORTED_CONSTRAINT_PREFIX: &str = "This follows up an earlier research session";

/// Whether `constraint` is the earlier findings a follow-up starts from.
pub fn is_imported_constraint(constraint: &str) -> bool {
    constraint.starts_with(IMPORTED_CONSTRAINT_PREFIX)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedContext {
    /// The finished session this one follows up.
    pub session_id: String,
    pub question: String,
    /// The earlier report's claims, each ending with its citation ids
    /// (`X does Y [3]`). The ids stay valid: sources keep their numbers.
    pub findings: Vec<String>,
    /// Every source of the earlier session in id order (ids 1..=n), with its
    /// verdict. Their texts are copied into the follow-up's own folder.
    pub sources: Vec<ImportedSource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedSource {
    /// `iteration` is 0: the source was known before the first iteration.
    pub meta: SourceMeta,
    /// The earlier review's verdict; sources the user banned there come as rejected.
    pub verdict: Option<SourceVerdict>,
}

impl ImportedContext {
    /// The constraint every phase works under: what was asked and found
    /// before, so the follow-up builds on it instead of starting over.
    pub fn as_constraint(&self) -> String {
        let mut text = format!(
            "{IMPORTED_CONSTRAINT_PREFIX} (\"{}\"); its sources [1]–[{}] are already known. Its findings:",
            self.question,
            self.sources.len()
        );
        for finding in &self.findings {
            if text.len() + finding.len() + 3 > MAX_FINDINGS_CHARS {
                text.push_str(" …");
                break;
            }
            text.push_str(" • ");
            text.push_str(finding);
        }
        if self.findings.is_empty() {
            text.push_str(" none recorded.");
        }
        text
    }
}
