//! `sleuth doctor`'s look at the cluster: reachable (and which product and
//! version), credentials accepted, health, the index present with its
//! document count and the configured fields in its mapping, a test query.

use std::time::Instant;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use super::client::{Body, status_error};
use super::mapping::{KIND_FIELD, KIND_PASSAGE, encode, exists};
use super::{OpenSearchConfig, OpenSearchProvider};
use crate::search::SearchQuery;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    Ok,
    Warn,
    Fail,
}

/// One row of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub name: &'static str,
    pub status: CheckStatus,
    pub detail: String,
}

fn check(name: &'static str, status: CheckStatus, detail: impl Into<String>) -> Check {
    Check { name, status, detail: detail.into() }
}

/// Every check, in order; a check that cannot run after an earlier
/// failure is left out.
pub async fn check_cluster(cfg: &OpenSearchConfig, query: &str) -> Vec<Check> {
    use CheckStatus::{Fail, Ok as Good, Warn};
    let mut out = Vec::new();
    let provider = match OpenSearchProvider::new(cfg) {
        Ok(p) => p,
        Err(e) => return vec![check("setup", Fail, e)],
    };
    let client = provider.client();
    let started = Instant::now();
    let root = match client.send(Method::GET, "", &Body::None, client.timeout).await {
        Ok(reply) => reply,
        Err(e) => return vec![check("reachable", Fail, e.to_string())],
    };
    let ms = started.elapsed().as_millis();
    if root.status == StatusCode::UNAUTHORIZED || root.status == StatusCode::FORBIDDEN {
        out.push(check("reachable", Good, format!("answered in {ms} ms")));
        out.push(check("auth", Fail, status_error(&root, "/").to_string()));
        return out;
    }
    let info: Value = serde_json::from_slice(&root.body).unwrap_or(Value::Null);
    let product = match info.pointer("/version/distribution").and_then(Value::as_str) {
        Some(d) => d.to_string(),
        None if info.get("tagline").is_some() => "elasticsearch".into(),
        None => "unknown product".into(),
    };
    let version = info.pointer("/version/number").and_then(Value::as_str).unwrap_or("?");
    out.push(check("reachable", Good, format!("{product} {version}, answered in {ms} ms")));
    let auth = if cfg.api_key_env.is_empty() && cfg.username_env.is_empty() {
        "no credentials configured; the cluster did not ask for any".to_string()
    } else {
        format!(
            "accepted (${} is set; value not shown)",
            if cfg.api_key_env.is_empty() { &cfg.username_env } else { &cfg.api_key_env }
        )
    };
    out.push(check("auth", Good, auth));
    match client.json(Method::GET, "_cluster/health", &Body::None).await {
        Ok(h) => {
            let status = h.get("status").and_then(Value::as_str).unwrap_or("?");
            let nodes = h.get("number_of_nodes").and_then(Value::as_u64).unwrap_or(0);
            let s = match status {
                "green" => Good,
                "yellow" => Warn,
                _ => Fail,
            };
            out.push(check(
                "cluster health",
                s,
                format!("{status}, {}", crate::text::counted(nodes as usize, "node", "nodes")),
            ));
        }
        Err(e) => out.push(check("cluster health", Warn, e.to_string())),
    }
    match exists(client, &cfg.index).await {
        Ok(true) => out.push(check("index", Good, format!("{} exists", cfg.index))),
        Ok(false) => {
            out.push(check(
                "index",
                Fail,
                format!("{} does not exist; run `sleuth index --to opensearch PATH`", cfg.index),
            ));
            return out;
        }
        Err(e) => {
            out.push(check("index", Fail, e.to_string()));
            return out;
        }
    }
    let index = encode(&cfg.index);
    let count = serde_json::json!({ "query": { "bool": { "must_not": [ { "term": { (KIND_FIELD): "page" } } ] } } });
    match client.json(Method::POST, &format!("{index}/_count"), &Body::Json(count)).await {
        Ok(c) => {
            let n = c.get("count").and_then(Value::as_u64).unwrap_or(0);
            out.push(check(
                "documents",
                if n == 0 { Warn } else { Good },
                format!("{n} searchable documents ({KIND_PASSAGE}s)"),
            ));
        }
        Err(e) => out.push(check("documents", Fail, e.to_string())),
    }
    match client.json(Method::GET, &format!("{index}/_mapping"), &Body::None).await {
        Ok(m) => out.push(mapping_check(cfg, &m)),
        Err(e) => out.push(check("mapping", Fail, e.to_string())),
    }
    let q = SearchQuery { text: query.to_string(), exclude: Vec::new(), limit: 3 };
    let started = Instant::now();
    match provider.passages(&q).await {
        Ok(hits) => {
            let s = if hits.is_empty() { Warn } else { Good };
            out.push(check(
                "test query",
                s,
                format!(
                    "{} for \"{query}\" in {} ms",
                    crate::text::counted(hits.len(), "hit", "hits"),
                    started.elapsed().as_millis()
                ),
            ));
        }
        Err(e) => out.push(check("test query", Fail, e.to_string())),
    }
    out
}

/// The configured fields against the index's mapping: the text field must
/// be there (and be text); the others only lose a part of each hit.
fn mapping_check(cfg: &OpenSearchConfig, mapping: &Value) -> Check {
    let props = mapping.as_object().and_then(|o| o.values().next()).and_then(|m| m.pointer("/mappings/properties"));
    let Some(props) = props.and_then(Value::as_object) else {
        return check("mapping", CheckStatus::Warn, "the index has no field mapping");
    };
    let kind = |f: &str| props.get(f).and_then(|p| p.get("type")).and_then(Value::as_str).unwrap_or("object");
    let fields = [
        ("text_field", &cfg.text_field),
        ("title_field", &cfg.title_field),
        ("url_field", &cfg.url_field),
        ("heading_field", &cfg.heading_field),
        ("anchor_field", &cfg.anchor_field),
    ];
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for (key, field) in fields.iter().filter(|(_, f)| !f.is_empty()) {
        if props.contains_key(field.as_str()) {
            found.push(format!("{field} ({})", kind(field)));
        } else {
            missing.push(format!("{field} (opensearch.{key})"));
        }
    }
    let status = if !props.contains_key(cfg.text_field.as_str()) || kind(&cfg.text_field) != "text" {
        CheckStatus::Fail
    } else if missing.is_empty() {
        CheckStatus::Ok
    } else {
        CheckStatus::Warn
    };
    let mut detail = format!("fields: {}", found.join(", "));
    if !missing.is_empty() {
        detail.push_str(&format!("; not in the mapping: {}", missing.join(", ")));
    }
    if status == CheckStatus::Fail {
        detail.push_str(&format!("; the text field `{}` must be a text field", cfg.text_field));
    }
    check("mapping", status, detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_text_field_fails_and_a_missing_heading_warns() {
        let cfg = OpenSearchConfig::default();
        let full = json!({ "docs-v2": { "mappings": { "properties": {
            "text": { "type": "text" }, "title": { "type": "text" }, "url": { "type": "keyword" },
            "heading": { "type": "text" }, "anchor": { "type": "keyword" } } } } });
        assert_eq!(mapping_check(&cfg, &full).status, CheckStatus::Ok);
        let no_heading = json!({ "docs": { "mappings": { "properties": {
            "text": { "type": "text" }, "title": { "type": "text" }, "url": { "type": "keyword" } } } } });
        let c = mapping_check(&cfg, &no_heading);
        assert_eq!(c.status, CheckStatus::Warn);
        assert!(c.detail.contains("heading (opensearch.heading_field)"), "{}", c.detail);
        let keyword_text = json!({ "docs": { "mappings": { "properties": { "text": { "type": "keyword" } } } } });
        assert_eq!(mapping_check(&cfg, &keyword_text).status, CheckStatus::Fail);
    }
}
