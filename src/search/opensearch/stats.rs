//! Term statistics of a passage index sleuth loaded: how many passages it
//! holds and in how many of them each term occurs, stemmed as the local
//! index stems its passages. The built-in reasoner weighs a question's
//! words by them as it does by the local index's, so a small folder
//! searched in a cluster is judged by the same small-corpus rules as the
//! same folder indexed locally (a word three notes never use says little).
//!
//! `sleuth index --to opensearch` keeps each file's terms in its record of
//! the files index and writes the totals there as one more document; a
//! session reads that document once. An index sleuth did not load has
//! none, and the reasoner goes by the sources it found.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::{Method, StatusCode};
use serde::{Deserialize, Serialize};

use super::OpenSearchConfig;
use super::client::{Body, ClusterClient};
use super::mapping::{encode, files_index};

/// The statistics document's id in the files index.
pub const STATS_ID: &str = "sleuth:corpus-statistics";

/// Passages, and per stem the passages holding it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CorpusStats {
    pub passages: u64,
    pub df: BTreeMap<String, u64>,
}

impl CorpusStats {
    /// The totals of files' terms: `(passages, terms)` per file present.
    pub fn total<'a>(files: impl Iterator<Item = (u32, &'a BTreeMap<String, u32>)>) -> Self {
        let mut out = CorpusStats::default();
        for (passages, terms) in files {
            out.passages += u64::from(passages);
            for (stem, n) in terms {
                *out.df.entry(stem.clone()).or_default() += u64::from(*n);
            }
        }
        out
    }

    pub fn frequency(&self, stem: &str) -> u64 {
        self.df.get(stem).copied().unwrap_or(0)
    }
}

/// In how many of `passages` each stem occurs (the local index's analysis).
pub fn passage_terms<'a>(passages: impl Iterator<Item = &'a str>) -> BTreeMap<String, u32> {
    let mut analyzer = crate::search::local::analyzer();
    let mut out: BTreeMap<String, u32> = BTreeMap::new();
    for text in passages {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            seen.insert(stream.token().text.clone());
        }
        for stem in seen {
            *out.entry(stem).or_default() += 1;
        }
    }
    out
}

/// The statistics document's body.
pub fn document(stats: &CorpusStats) -> serde_json::Value {
    serde_json::json!({ "kind": "corpus_statistics", "passages": stats.passages, "df": stats.df })
}

/// The statistics of the index `cfg` names, when sleuth wrote them; `None`
/// (and a log line) when there are none or the cluster does not answer.
pub async fn load(cfg: &OpenSearchConfig) -> Option<CorpusStats> {
    let client = ClusterClient::new(cfg).map_err(|e| tracing::warn!(error = %e, "opensearch statistics")).ok()?;
    read(&client, &files_index(cfg)).await
}

/// The statistics document of the files index `files`, if any.
pub async fn read(client: &ClusterClient, files: &str) -> Option<CorpusStats> {
    let path = format!("{}/_doc/{}", encode(files), encode(STATS_ID));
    let reply = match client.send(Method::GET, &path, &Body::None, client.timeout).await {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "opensearch statistics not read");
            return None;
        }
    };
    if reply.status == StatusCode::NOT_FOUND || !reply.status.is_success() {
        tracing::info!(status = %reply.status, "no corpus statistics in the files index");
        return None;
    }
    let doc: serde_json::Value = serde_json::from_slice(&reply.body).ok()?;
    let stats: CorpusStats = serde_json::from_value(doc.get("_source")?.clone()).ok()?;
    (stats.passages > 0).then_some(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_count_passages_and_totals_add_files() {
        let a = passage_terms(["The buddy program lasts eight weeks.", "Buddies answer questions."].into_iter());
        assert_eq!(a.get("buddi"), Some(&2), "{a:?}");
        assert_eq!(a.get("program"), Some(&1));
        let b = passage_terms(["A program of its own."].into_iter());
        let stats = CorpusStats::total([(2, &a), (1, &b)].into_iter());
        assert_eq!((stats.passages, stats.frequency("program"), stats.frequency("absent")), (3, 2, 0));
        let back: CorpusStats = serde_json::from_value(document(&stats)).unwrap_or_default();
        assert_eq!(back, stats);
    }
}
