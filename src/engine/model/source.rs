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
    /// What a scholarly index knows about the work (authors, venue, DOI,
    /// preprint or retracted); `None` for pages and files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scholarly: Option<Scholarly>,
}

/// Bibliographic metadata of a scholarly work, as its index gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scholarly {
    /// Display names, in the order of authorship.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// Journal, proceedings or server (`arXiv`, `bioRxiv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    /// Bare DOI (`10.1234/abc`), without the resolver's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// Not peer reviewed (yet): an arXiv e-print, a bioRxiv posting.
    #[serde(default)]
    pub preprint: bool,
    /// The work was retracted; REVIEW rejects it with that reason.
    #[serde(default)]
    pub retracted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_by: Option<u64>,
    /// The arXiv identifier (`2101.00001`), when the work is an e-print.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    /// The PubMed identifier, when the work is in PubMed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    /// Where an open-access copy (a PDF or a page) can be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oa_url: Option<String>,
}

impl Scholarly {
    /// `Smith`, `Smith and Jones`, `Smith et al.`: how a citation names the authors.
    pub fn short_authors(&self) -> Option<String> {
        // `Ada Lovelace` → Lovelace; `Nakamura H` (family name first, then
        // initials, as PubMed writes names) → Nakamura.
        let family = |a: &String| {
            let words: Vec<&str> = a.split_whitespace().collect();
            let initials = |w: &str| w.len() <= 3 && w.chars().all(|c| c.is_uppercase() || c == '.');
            match words.as_slice() {
                [first, .., last] if initials(last) => first.to_string(),
                [.., last] => last.to_string(),
                [] => a.clone(),
            }
        };
        match self.authors.as_slice() {
            [] => None,
            [a] => Some(family(a)),
            [a, b] => Some(format!("{} and {}", family(a), family(b))),
            [a, ..] => Some(format!("{} et al.", family(a))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_name_authors_by_family_name() {
        let s = |a: &[&str]| Scholarly { authors: a.iter().map(|x| x.to_string()).collect(), ..Scholarly::default() };
        assert_eq!(s(&["Ada Lovelace"]).short_authors().as_deref(), Some("Lovelace"));
        assert_eq!(s(&["Nakamura H", "Bauer KJ"]).short_authors().as_deref(), Some("Nakamura and Bauer"));
        assert_eq!(s(&["A Smith", "B Jones", "C Wu"]).short_authors().as_deref(), Some("Smith et al."));
        assert_eq!(s(&[]).short_authors(), None);
    }
}
