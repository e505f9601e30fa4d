//! The files index beside the passage index: one document per corpus file
//! with its record (size, mtime, fingerprint, links: what the local index
//! keeps in its manifest) and whether its passages are in the passage
//! index. `sleuth index --to opensearch` reads it to skip unchanged files
//! and delete removed ones.

use std::collections::BTreeMap;

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::client::{Body, ClusterClient};
use super::mapping::encode;
use crate::search::ProviderError;
use crate::search::local::steps::FileRecord;

/// Files read per page of the files index.
const PAGE: usize = 1000;

/// A file as the files index records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredFile {
    pub path: String,
    /// Its passages (and page document) are in the passage index: it was
    /// indexed and is the canonical copy of its group.
    pub present: bool,
    pub record: FileRecord,
    /// Per stem, how many of its passages hold it (`stats`); absent in
    /// records an older sleuth wrote, which are read again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<BTreeMap<String, u32>>,
}

/// Every file of the files index `index`, by path (empty when it has none).
pub async fn load(client: &ClusterClient, index: &str) -> Result<BTreeMap<String, StoredFile>, ProviderError> {
    let mut out = BTreeMap::new();
    let mut after: Option<String> = None;
    loop {
        let mut body = json!({ "size": PAGE, "query": { "match_all": {} }, "sort": [ { "path": "asc" } ] });
        if let Some(last) = &after {
            body["search_after"] = json!([last]);
        }
        let answer = client.json(Method::POST, &format!("{}/_search", encode(index)), &Body::Json(body)).await?;
        let hits = answer.pointer("/hits/hits").and_then(Value::as_array).cloned().unwrap_or_default();
        for hit in &hits {
            // The corpus statistics live beside the files' records.
            if hit.get("_id").and_then(Value::as_str) == Some(super::stats::STATS_ID) {
                continue;
            }
            let Some(source) = hit.get("_source") else { continue };
            match serde_json::from_value::<StoredFile>(source.clone()) {
                Ok(f) => {
                    out.insert(f.path.clone(), f);
                }
                // A record this sleuth cannot read: the file is read again.
                Err(e) => tracing::warn!(error = %e, "unreadable record in the files index"),
            }
        }
        if hits.len() < PAGE {
            return Ok(out);
        }
        after = hits.last().and_then(|h| h.pointer("/sort/0")).and_then(Value::as_str).map(str::to_string);
        if after.is_none() {
            return Ok(out);
        }
    }
}
