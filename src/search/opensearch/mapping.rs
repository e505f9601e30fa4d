//! Sleuth's own index: the explicit mapping `sleuth index --to opensearch`
//! creates (English-analysed text, keyword path and anchor), the files
//! index beside it (what each file was when indexed, for incremental runs),
//! and the document ids both use.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::OpenSearchConfig;
use super::client::{Body, ClusterClient, status_error};
use crate::search::ProviderError;

/// `passage` (searched) or `page` (a whole page, for fetches).
pub const KIND_FIELD: &str = "kind";
pub const KIND_PASSAGE: &str = "passage";
pub const KIND_PAGE: &str = "page";
/// A passage's word count (ranking: short passages say little).
pub const WORDS_FIELD: &str = "words";
/// Page documents: the title and the whole text a fetch returns (stored, not searched).
pub const PAGE_TITLE_FIELD: &str = "page_title";
pub const PAGE_TEXT_FIELD: &str = "page_text";

/// The index of files beside `cfg.index`.
pub fn files_index(cfg: &OpenSearchConfig) -> String {
    format!("{}-files", cfg.index)
}

/// The body that creates the passage index.
pub fn index_body(cfg: &OpenSearchConfig) -> Value {
    let text = json!({ "type": "text", "analyzer": "english" });
    let keyword = json!({ "type": "keyword" });
    let mut properties = serde_json::Map::new();
    properties.insert(KIND_FIELD.into(), keyword.clone());
    properties.insert("path".into(), keyword.clone());
    for f in [&cfg.anchor_field, &cfg.url_field] {
        properties.insert(f.clone(), keyword.clone());
    }
    for f in [&cfg.text_field, &cfg.title_field, &cfg.heading_field] {
        properties.insert(f.clone(), text.clone());
    }
    properties.insert("lang".into(), keyword);
    properties.insert(WORDS_FIELD.into(), json!({ "type": "integer" }));
    properties.insert(PAGE_TITLE_FIELD.into(), json!({ "type": "text", "index": false }));
    properties.insert(PAGE_TEXT_FIELD.into(), json!({ "type": "text", "index": false }));
    properties.insert("mtime".into(), json!({ "type": "long" }));
    json!({
        "settings": { "index": { "number_of_shards": cfg.shards.max(1), "number_of_replicas": cfg.replicas } },
        "mappings": { "dynamic": false, "properties": properties }
    })
}

/// The body that creates the files index: one document per corpus file,
/// its record kept whole in `_source` and not indexed.
pub fn files_index_body() -> Value {
    json!({
        "settings": { "index": { "number_of_shards": 1, "number_of_replicas": 1 } },
        "mappings": { "dynamic": false, "properties": {
            "path": { "type": "keyword" },
            "present": { "type": "boolean" },
            "record": { "type": "object", "enabled": false }
        } }
    })
}

/// Whether an index exists (`HEAD /{index}`).
pub async fn exists(client: &ClusterClient, index: &str) -> Result<bool, ProviderError> {
    let reply = client.send(Method::HEAD, &encode(index), &Body::None, client.timeout).await?;
    match reply.status {
        s if s.is_success() => Ok(true),
        StatusCode::NOT_FOUND => Ok(false),
        _ => Err(status_error(&reply, index)),
    }
}

/// Creates both indexes where absent; says which it created.
pub async fn ensure_indexes(client: &ClusterClient, cfg: &OpenSearchConfig) -> Result<Vec<String>, ProviderError> {
    let mut created = Vec::new();
    for (index, body) in [(cfg.index.clone(), index_body(cfg)), (files_index(cfg), files_index_body())] {
        if exists(client, &index).await? {
            continue;
        }
        let reply = client.send(Method::PUT, &encode(&index), &Body::Json(body), client.timeout).await?;
        // Another writer may have created it since: that is as good.
        if !reply.status.is_success() && !reply.error_text().contains("resource_already_exists_exception") {
            return Err(status_error(&reply, &index));
        }
        created.push(index);
    }
    Ok(created)
}

/// A document id of at most 512 bytes (the products' limit): long paths
/// keep their tail and gain a hash of the whole.
pub fn doc_id(key: &str) -> String {
    if key.len() <= 400 {
        return key.to_string();
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let cut = (key.len() - 300..key.len()).find(|i| key.is_char_boundary(*i)).unwrap_or(key.len());
    format!("{h:016x}…{}", &key[cut..])
}

/// The id of passage `n` of the page at `path`, and of the page itself.
pub fn passage_id(path: &str, n: u32) -> String {
    doc_id(&format!("{path}#{n}"))
}

pub fn page_id(path: &str) -> String {
    doc_id(&format!("page:{path}"))
}

/// A path segment (index name or document id), percent-encoded.
pub fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_under_the_limit_and_apart() {
        let long_a = format!("{}/a.html", "x".repeat(600));
        let long_b = format!("{}/b.html", "x".repeat(600));
        assert!(doc_id(&long_a).len() <= 512);
        assert_ne!(doc_id(&long_a), doc_id(&long_b));
        assert_eq!(passage_id("std/index.html", 2), "std/index.html#2");
        assert_eq!(encode("std/a b#2"), "std%2Fa%20b%232");
    }

    #[test]
    fn the_mapping_names_the_configured_fields() {
        let cfg = OpenSearchConfig { text_field: "body".into(), ..OpenSearchConfig::default() };
        let body = index_body(&cfg);
        assert_eq!(body.pointer("/mappings/properties/body/analyzer"), Some(&json!("english")));
        assert_eq!(body.pointer("/mappings/properties/path/type"), Some(&json!("keyword")));
        assert_eq!(body.pointer("/mappings/properties/anchor/type"), Some(&json!("keyword")));
    }
}
