use serde::{Deserialize, Serialize};

use super::SourceId;

/// An answer written from kept sources only. `markdown` is what a reader
/// sees; `claims` are the checkable statements inside it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub markdown: String,
    #[serde(default)]
    pub claims: Vec<Claim>,
}

/// A statement with the sources that support it and, for each, the exact
/// words quoted from that source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub text: String,
    #[serde(default)]
    pub citations: Vec<Citation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    pub source: SourceId,
    #[serde(default)]
    pub quote: String,
}

impl Draft {
    /// Every source id cited by a claim, in first-cited order, without repeats.
    pub fn cited_sources(&self) -> Vec<SourceId> {
        let mut out = Vec::new();
        for c in self.claims.iter().flat_map(|c| &c.citations) {
            if !out.contains(&c.source) {
                out.push(c.source);
            }
        }
        out
    }
}
