use std::fmt;

use serde::{Deserialize, Serialize};

/// A source's stable citation number: `[n]` in drafts and reports. Assigned
/// in order of discovery and never reused within a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SourceId(pub u32);

impl SourceId {
    /// Index into `SessionState::sources` (ids start at 1).
    pub fn index(self) -> usize {
        (self.0 as usize).saturating_sub(1)
    }
}

impl fmt::Display for SourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Local,
    Web,
}

/// What the session knows about a source. The text itself lives in the
/// session's source store (too large for the event log); `text_hash` ties
/// the two together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceMeta {
    pub id: SourceId,
    /// URL, or corpus-relative path with an optional `#anchor`.
    pub locator: String,
    /// Dedupe key: canonical URL or path without anchor.
    pub canonical: String,
    pub title: String,
    /// Domain for web pages, corpus folder for local files.
    pub site: String,
    pub provider: String,
    pub kind: SourceKind,
    /// 1 official … 5 social; `None` when no tier table entry matches.
    #[serde(default)]
    pub tier: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<String>,
    /// Heading of the passage that matched, for passage-level hits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// Publication or modification date (ISO 8601), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    pub accessed_at_ms: u64,
    pub iteration: u32,
    /// The query that first found it.
    pub query: String,
    /// The provider's relevance score for that query.
    pub score: f32,
    pub text_len: usize,
    pub text_hash: String,
}
