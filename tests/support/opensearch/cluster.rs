//! A one-node cluster on loopback (wiremock) that keeps what it is sent
//! and answers in OpenSearch's documented JSON shapes: `GET /`,
//! `_cluster/health`, `HEAD`/`PUT` of an index, `_bulk`, `_search` (a
//! word-count score, `sort` + `search_after` on a keyword field), `_count`,
//! `_mapping`, `_doc`. It can push back: whole `_bulk` requests with 429,
//! or single items with `es_rejected_execution_exception`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[derive(Default)]
pub struct State {
    /// Index → (creation body, documents by id).
    pub indexes: HashMap<String, (Value, BTreeMap<String, Value>)>,
    /// Every request: method, decoded path, body.
    pub requests: Vec<(String, String, String)>,
    /// The next this many `_bulk` requests get 429.
    pub refuse_bulk: usize,
    /// The next this many bulk items get `es_rejected_execution_exception`.
    pub reject_items: usize,
    /// Requests need this `Authorization` header when set.
    pub auth: Option<String>,
    /// `_bulk` answers wait this long; when each arrived is recorded.
    pub bulk_delay: std::time::Duration,
    pub bulk_arrivals: Vec<std::time::Instant>,
}

#[derive(Clone, Default)]
pub struct FakeCluster(pub Arc<Mutex<State>>);

impl FakeCluster {
    pub async fn start() -> (MockServer, FakeCluster) {
        let server = MockServer::start().await;
        let fake = FakeCluster::default();
        Mock::given(any()).respond_with(fake.clone()).mount(&server).await;
        (server, fake)
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap()
    }

    /// Bodies of the requests to `path` with `method`.
    pub fn bodies(&self, method: &str, path: &str) -> Vec<String> {
        let s = self.state();
        s.requests.iter().filter(|(m, p, _)| m == method && p == path).map(|(_, _, b)| b.clone()).collect()
    }

    pub fn docs(&self, index: &str) -> BTreeMap<String, Value> {
        self.state().indexes.get(index).map(|(_, d)| d.clone()).unwrap_or_default()
    }
}

fn json_reply(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.to_string().into_bytes(), "application/json")
}

fn error(status: u16, kind: &str, reason: &str) -> ResponseTemplate {
    json_reply(status, json!({ "error": { "type": kind, "reason": reason }, "status": status }))
}

pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

impl Respond for FakeCluster {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let method = req.method.to_string();
        let raw_path = req.url.path().trim_start_matches('/').to_string();
        let segments: Vec<String> = raw_path.split('/').map(decode).collect();
        let body = String::from_utf8_lossy(&req.body).into_owned();
        let mut s = self.state();
        s.requests.push((method.clone(), segments.join("/"), body.clone()));
        if let Some(auth) = &s.auth {
            let sent = req.headers.get("authorization").and_then(|v| v.to_str().ok());
            if sent != Some(auth.as_str()) {
                return error(401, "security_exception", "missing authentication credentials");
            }
        }
        let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
        match (method.as_str(), seg.as_slice()) {
            ("GET", [""]) => json_reply(
                200,
                json!({ "name": "node-1", "cluster_name": "test",
                "version": { "distribution": "opensearch", "number": "2.19.1" },
                "tagline": "The OpenSearch Project: https://opensearch.org/" }),
            ),
            ("GET", ["_cluster", "health"]) => json_reply(
                200,
                json!({ "cluster_name": "test", "status": "green",
                "timed_out": false, "number_of_nodes": 1, "active_shards": 2 }),
            ),
            ("HEAD", [index]) => ResponseTemplate::new(if s.indexes.contains_key(*index) { 200 } else { 404 }),
            ("PUT", [index]) => {
                if s.indexes.contains_key(*index) {
                    return error(400, "resource_already_exists_exception", &format!("index [{index}] already exists"));
                }
                let created: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                s.indexes.insert(index.to_string(), (created, BTreeMap::new()));
                json_reply(200, json!({ "acknowledged": true, "shards_acknowledged": true, "index": index }))
            }
            ("POST", ["_bulk"]) => {
                s.bulk_arrivals.push(std::time::Instant::now());
                let delay = s.bulk_delay;
                bulk(&mut s, &body).set_delay(delay)
            }
            ("POST", [index, "_search"]) => match s.indexes.get(*index) {
                None => error(404, "index_not_found_exception", &format!("no such index [{index}]")),
                Some((_, docs)) => json_reply(200, search(docs, &serde_json::from_str(&body).unwrap())),
            },
            ("POST", [index, "_count"]) => match s.indexes.get(*index) {
                None => error(404, "index_not_found_exception", &format!("no such index [{index}]")),
                Some((_, docs)) => {
                    let n = docs.values().filter(|d| d["kind"] != "page").count();
                    json_reply(200, json!({ "count": n, "_shards": { "total": 1, "successful": 1, "failed": 0 } }))
                }
            },
            ("GET", [index, "_mapping"]) => match s.indexes.get(*index) {
                None => error(404, "index_not_found_exception", &format!("no such index [{index}]")),
                Some((created, _)) => {
                    json_reply(200, json!({ (index.to_string()): { "mappings": created["mappings"] } }))
                }
            },
            ("GET", [index, "_doc", id]) => match s.indexes.get(*index).and_then(|(_, d)| d.get(*id)) {
                Some(doc) => json_reply(200, json!({ "_index": index, "_id": id, "found": true, "_source": doc })),
                None => json_reply(404, json!({ "_index": index, "_id": id, "found": false })),
            },
            _ => error(400, "illegal_argument_exception", &format!("unsupported: {method} /{raw_path}")),
        }
    }
}

fn bulk(s: &mut State, body: &str) -> ResponseTemplate {
    if s.refuse_bulk > 0 {
        s.refuse_bulk -= 1;
        return error(429, "es_rejected_execution_exception", "rejected execution of coordinating operation");
    }
    let mut lines = body.split_terminator('\n');
    let mut items = Vec::new();
    let mut errors = false;
    while let Some(line) = lines.next() {
        let action: Value = serde_json::from_str(line).unwrap();
        let (op, meta) = action.as_object().unwrap().iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap();
        let index = meta["_index"].as_str().unwrap().to_string();
        let id = meta["_id"].as_str().unwrap().to_string();
        let source: Option<Value> =
            if op == "delete" { None } else { Some(serde_json::from_str(lines.next().unwrap()).unwrap()) };
        if s.reject_items > 0 {
            s.reject_items -= 1;
            errors = true;
            items.push(json!({ (op): { "_index": index, "_id": id, "status": 429,
                "error": { "type": "es_rejected_execution_exception", "reason": "rejected execution (queue capacity 200)" } } }));
            continue;
        }
        let docs = &mut s.indexes.entry(index.clone()).or_insert_with(|| (Value::Null, BTreeMap::new())).1;
        let (status, result) = match source {
            Some(src) => (if docs.insert(id.clone(), src).is_some() { 200 } else { 201 }, "created"),
            None => match docs.remove(&id) {
                Some(_) => (200, "deleted"),
                None => (404, "not_found"),
            },
        };
        items.push(json!({ (op): { "_index": index, "_id": id, "status": status, "result": result } }));
    }
    json_reply(200, json!({ "took": 3, "errors": errors, "items": items }))
}

/// `match_all` sorted on a field with `search_after`, or a word-count score
/// of the `multi_match` query over its fields (page documents left out).
fn search(docs: &BTreeMap<String, Value>, body: &Value) -> Value {
    let size = body["size"].as_u64().unwrap_or(10) as usize;
    let mut hits: Vec<(f64, &String, &Value)> = Vec::new();
    if let Some(field) = body.pointer("/sort/0").and_then(|s| s.as_object()).and_then(|o| o.keys().next()) {
        let after = body.pointer("/search_after/0").and_then(Value::as_str);
        let mut sorted: Vec<(&String, &Value)> = docs.iter().collect();
        sorted.sort_by(|a, b| a.1[field].as_str().cmp(&b.1[field].as_str()));
        for (id, d) in sorted.into_iter().filter(|(_, d)| after.is_none_or(|a| d[field].as_str().unwrap_or("") > a)) {
            hits.push((1.0, id, d));
        }
        let hits: Vec<Value> = hits
            .into_iter()
            .take(size)
            .map(|(_, id, d)| json!({ "_index": "x", "_id": id, "_score": null, "_source": d, "sort": [d[field]] }))
            .collect();
        return json!({ "took": 1, "timed_out": false, "hits": { "max_score": null, "hits": hits } });
    }
    if let Some(should) = body.pointer("/query/bool/should").and_then(Value::as_array) {
        let matches = |d: &Value| {
            should.iter().any(|q| {
                let (kind, clause) = q.as_object().unwrap().iter().next().unwrap();
                let (field, value) = clause.as_object().unwrap().iter().next().unwrap();
                let (have, want) = (d[field].as_str().unwrap_or(""), value.as_str().unwrap_or(""));
                if kind == "prefix" { have.starts_with(want) } else { have == want }
            })
        };
        let hits: Vec<Value> = docs
            .iter()
            .filter(|(_, d)| matches(d))
            .take(size)
            .map(|(id, d)| json!({ "_index": "x", "_id": id, "_score": 1.0, "_source": d }))
            .collect();
        return json!({ "took": 1, "timed_out": false, "hits": { "hits": hits } });
    }
    let mm = body.pointer("/query/bool/must/0/multi_match").cloned().unwrap_or(Value::Null);
    let words: Vec<String> =
        mm["query"].as_str().unwrap_or("").to_lowercase().split_whitespace().map(str::to_string).collect();
    let fields: Vec<String> = mm["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str())
        .map(|f| f.split('^').next().unwrap().to_string())
        .collect();
    for (id, d) in docs.iter().filter(|(_, d)| d["kind"] != "page") {
        let text: String = fields.iter().filter_map(|f| d[f].as_str()).collect::<Vec<_>>().join(" ").to_lowercase();
        let score = words.iter().map(|w| text.matches(w.as_str()).count()).sum::<usize>() as f64;
        if score > 0.0 {
            hits.push((score, id, d));
        }
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let hits: Vec<Value> = hits
        .into_iter()
        .take(size)
        .map(|(score, id, d)| json!({ "_index": "x", "_id": id, "_score": score, "_source": d }))
        .collect();
    json!({ "took": 1, "timed_out": false, "hits": { "total": { "value": hits.len(), "relation": "eq" }, "max_score": null, "hits": hits } })
}
