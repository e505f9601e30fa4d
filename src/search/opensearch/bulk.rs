//! `_bulk` loading: actions rendered as NDJSON (each action line followed
//! by its source line, a final newline), sent in batches with a bound on
//! the batches in flight. A batch the cluster refuses with 429 is sent
//! again after a pause; so are the items it rejects one by one (429,
//! `es_rejected_execution_exception`: its write queue is full). Other item
//! failures are counted against their file, which is then not recorded as
//! indexed (the next run tries it again).

use std::collections::BTreeMap;
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::client::{Body, ClusterClient, status_error};
use crate::search::ProviderError;

/// One write.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Index { index: String, id: String, source: Value },
    Delete { index: String, id: String },
}

/// An action and the corpus file it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub file: String,
    pub action: Action,
}

/// The request body of `items`: NDJSON, newline-terminated.
pub fn ndjson(items: &[Item]) -> String {
    let mut out = String::new();
    for item in items {
        match &item.action {
            Action::Index { index, id, source } => {
                out.push_str(&json!({ "index": { "_index": index, "_id": id } }).to_string());
                out.push('\n');
                out.push_str(&source.to_string());
                out.push('\n');
            }
            Action::Delete { index, id } => {
                out.push_str(&json!({ "delete": { "_index": index, "_id": id } }).to_string());
                out.push('\n');
            }
        }
    }
    out
}

/// How batches are sent.
#[derive(Debug, Clone, Copy)]
pub struct BulkPolicy {
    pub in_flight: usize,
    pub retries: u32,
    /// The first pause before a retry; each next one doubles.
    pub backoff: Duration,
}

/// What loading did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BulkReport {
    pub written: usize,
    pub batches: usize,
    /// Batches or items sent again after a 429 or a full queue.
    pub retried: usize,
    /// Files some of whose actions failed for good, with the first reason.
    pub failed: BTreeMap<String, String>,
}

/// Sends every batch `batches` yields, at most `policy.in_flight` at once;
/// `progress` hears the running report after each batch. An error means
/// the cluster could not be reached or refused a batch outright.
pub async fn load(
    client: &ClusterClient,
    policy: BulkPolicy,
    mut batches: tokio::sync::mpsc::Receiver<Vec<Item>>,
    progress: &(dyn Fn(&BulkReport) + Send + Sync),
) -> Result<BulkReport, ProviderError> {
    let mut report = BulkReport::default();
    let mut running = FuturesUnordered::new();
    let mut exhausted = false;
    let cap = policy.in_flight.max(1);
    while !(exhausted && running.is_empty()) {
        tokio::select! {
            batch = batches.recv(), if !exhausted && running.len() < cap => match batch {
                Some(batch) if !batch.is_empty() => running.push(send_batch(client, policy, batch)),
                Some(_) => {}
                None => exhausted = true,
            },
            Some(done) = running.next(), if !running.is_empty() => {
                let done = done?;
                report.written += done.written;
                report.batches += 1;
                report.retried += done.retried;
                for (file, why) in done.failed {
                    report.failed.entry(file).or_insert(why);
                }
                progress(&report);
            }
        }
    }
    Ok(report)
}

/// Sends one batch, again for what the cluster pushed back on.
async fn send_batch(client: &ClusterClient, policy: BulkPolicy, batch: Vec<Item>) -> Result<BulkReport, ProviderError> {
    let mut report = BulkReport::default();
    let mut pending = batch;
    let mut attempt = 0u32;
    loop {
        let reply = client.send(Method::POST, "_bulk", &Body::NdJson(ndjson(&pending)), client.bulk_timeout).await?;
        let retry: Vec<Item> = if reply.status == StatusCode::TOO_MANY_REQUESTS {
            std::mem::take(&mut pending)
        } else if !reply.status.is_success() {
            return Err(status_error(&reply, "_bulk"));
        } else {
            let answer: Value = serde_json::from_slice(&reply.body)
                .map_err(|e| ProviderError::permanent(format!("opensearch: _bulk: the answer is not JSON: {e}")))?;
            let (written, retry, failed) = sort_items(&answer, std::mem::take(&mut pending))?;
            report.written += written;
            for (file, why) in failed {
                report.failed.entry(file).or_insert(why);
            }
            retry
        };
        if retry.is_empty() {
            return Ok(report);
        }
        attempt += 1;
        if attempt > policy.retries {
            let why = format!("the cluster pushed back {} times (429 / queue full)", policy.retries + 1);
            for item in retry {
                report.failed.entry(item.file).or_insert_with(|| why.clone());
            }
            return Ok(report);
        }
        report.retried += 1;
        let pause = reply.retry_after.unwrap_or(policy.backoff * 2u32.saturating_pow(attempt - 1));
        tokio::time::sleep(pause.min(Duration::from_secs(60))).await;
        pending = retry;
    }
}

type Sorted = (usize, Vec<Item>, Vec<(String, String)>);

/// Splits a `_bulk` answer's items: written, to send again, failed for good.
fn sort_items(answer: &Value, sent: Vec<Item>) -> Result<Sorted, ProviderError> {
    let items = answer.get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if items.len() != sent.len() {
        return Err(ProviderError::permanent(format!(
            "opensearch: _bulk answered {} items for {} actions",
            items.len(),
            sent.len()
        )));
    }
    let (mut written, mut retry, mut failed) = (0, Vec::new(), Vec::new());
    for (result, item) in items.iter().zip(sent) {
        // Each item is `{"index": {...}}` or `{"delete": {...}}`.
        let Some(result) = result.as_object().and_then(|o| o.values().next()) else { continue };
        let status = result.get("status").and_then(Value::as_u64).unwrap_or(0);
        let kind = result.pointer("/error/type").and_then(Value::as_str).unwrap_or("");
        let is_delete = matches!(item.action, Action::Delete { .. });
        if (200..300).contains(&status) || (is_delete && status == 404) {
            written += 1;
        } else if status == 429 || kind == "es_rejected_execution_exception" {
            retry.push(item);
        } else {
            let reason = result.pointer("/error/reason").and_then(Value::as_str).unwrap_or("");
            failed.push((item.file, crate::text::sanitize_inline(&format!("HTTP {status} {kind}: {reason}"))));
        }
    }
    Ok((written, retry, failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(file: &str, id: &str, delete: bool) -> Item {
        let (index, id) = ("i".to_string(), id.to_string());
        let action = if delete {
            Action::Delete { index, id }
        } else {
            Action::Index { index, id, source: json!({"text": "x"}) }
        };
        Item { file: file.into(), action }
    }

    #[test]
    fn every_action_line_is_followed_by_its_source_and_the_body_ends_in_a_newline() {
        let body = ndjson(&[item("a", "a#0", false), item("b", "b#0", true), item("c", "c#0", false)]);
        let lines: Vec<&str> = body.split_terminator('\n').collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[0].starts_with(r#"{"index":"#) && lines[1] == r#"{"text":"x"}"#);
        assert!(lines[2].starts_with(r#"{"delete":"#));
        assert!(lines[3].starts_with(r#"{"index":"#));
        assert!(body.ends_with('\n'));
    }

    #[test]
    fn item_results_split_into_written_retried_and_failed() {
        let answer = json!({ "errors": true, "items": [
            { "index": { "status": 201 } },
            { "index": { "status": 429, "error": { "type": "es_rejected_execution_exception", "reason": "queue full" } } },
            { "index": { "status": 400, "error": { "type": "mapper_parsing_exception", "reason": "bad field" } } },
            { "delete": { "status": 404, "result": "not_found" } },
        ] });
        let sent = vec![item("a", "1", false), item("b", "2", false), item("c", "3", false), item("d", "4", true)];
        let (written, retry, failed) = sort_items(&answer, sent).unwrap();
        assert_eq!(written, 2);
        assert_eq!(retry.iter().map(|i| i.file.as_str()).collect::<Vec<_>>(), vec!["b"]);
        assert_eq!(failed.len(), 1);
        assert!(failed[0].1.contains("mapper_parsing_exception"));
    }
}
