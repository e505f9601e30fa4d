//! The range of every numeric key, checked at load. A value the type
//! allows can still take the process down (a `candidates_per_query` of
//! 2^32 asks for a 32 GiB buffer) or make no sense (a negative weight):
//! each key gets bounds that hold every sensible setting and stop there.
//! `config.toml.example` documents the same ranges; a test keeps the two
//! in step, and another fails when a numeric key has no range here.

use super::validate::Invalid;

/// A key (`*` for a name the user chooses, `[]` for a list item) and its
/// inclusive bounds.
pub struct Range {
    pub key: &'static str,
    pub min: f64,
    pub max: f64,
}

const fn r(key: &'static str, min: f64, max: f64) -> Range {
    Range { key, min, max }
}

const UNIT: (f64, f64) = (0.0, 1.0);

pub const RANGES: &[Range] = &[
    r("research.max_question_chars", 100.0, 1_000_000.0),
    r("limits.max_iterations", 1.0, 100.0),
    r("limits.max_queries", 1.0, 50.0),
    r("limits.max_sources", 1.0, 500.0),
    r("limits.time_limit_secs", 0.0, 604_800.0),
    r("limits.cost_budget_usd", 0.0, 10_000.0),
    r("limits.token_budget", 0.0, 1e9),
    r("decide.confidence_threshold", UNIT.0, UNIT.1),
    r("decide.coverage_threshold", UNIT.0, UNIT.1),
    r("decide.diminishing_returns_threshold", UNIT.0, UNIT.1),
    r("decide.diminishing_returns_window", 1.0, 100.0),
    r("decide.convergence_similarity", UNIT.0, UNIT.1),
    r("decide.severity_plateau_window", 1.0, 100.0),
    r("decide.max_asks", 0.0, 10.0),
    r("evaluate.weights.*", UNIT.0, UNIT.1),
    r("evaluate.dimension_weights.*", UNIT.0, UNIT.1),
    r("evaluate.tier_quality.[]", UNIT.0, UNIT.1),
    r("evaluate.unknown_tier_quality", UNIT.0, UNIT.1),
    r("evaluate.recency_half_life_days", 1.0, 36_500.0),
    r("evaluate.recency_unknown", UNIT.0, UNIT.1),
    r("evaluate.contradiction_penalty", UNIT.0, UNIT.1),
    r("evaluate.min_sources_for_confidence", 0.0, 100.0),
    r("evaluate.min_answer_relevance", UNIT.0, UNIT.1),
    r("evaluate.held_back_confidence_cap", UNIT.0, UNIT.1),
    r("evaluate.calibration.intercept", -50.0, 50.0),
    r("evaluate.calibration.coefficients.*", -50.0, 50.0),
    r("refine.expand_below_coverage", UNIT.0, UNIT.1),
    r("refine.narrow_below_confidence", UNIT.0, UNIT.1),
    r("refine.narrow_above_coverage", UNIT.0, UNIT.1),
    r("refine.min_results", 0.0, 100.0),
    r("refine.pivot_after_iterations", 1.0, 100.0),
    r("review.quality_threshold", UNIT.0, UNIT.1),
    r("review.max_signal_keywords", 0.0, 20.0),
    r("search.concurrency", 1.0, 64.0),
    r("search.fetch_concurrency", 1.0, 256.0),
    r("search.results_per_query", 1.0, 100.0),
    r("search.attempts", 1.0, 10.0),
    r("search.backoff_min_ms", 0.0, 60_000.0),
    r("search.backoff_max_ms", 0.0, 600_000.0),
    r("search.retry_after_max_secs", 0.0, 3_600.0),
    r("search.breaker_failures", 1.0, 100.0),
    r("search.breaker_cooldown_secs", 0.0, 86_400.0),
    r("search.degraded_failure_ratio", UNIT.0, UNIT.1),
    r("search.dedupe_similarity", UNIT.0, UNIT.1),
    r("memory.similarity_threshold", UNIT.0, UNIT.1),
    r("memory.max_entries", 1.0, 100_000.0),
    r("memory.max_in_prompt", 0.0, 20.0),
    r("memory.min_gain", UNIT.0, UNIT.1),
    r("memory.max_per_question", 1.0, 100.0),
    r("source_tiers.*.tier", 1.0, 5.0),
    r("local.tier", 1.0, 5.0),
    r("local.max_file_mb", 1.0, 1_024.0),
    r("local.duplicate_max_bits", 0.0, 64.0),
    r("local.stub_max_words", 0.0, 10_000.0),
    r("local.passage_words", 10.0, 10_000.0),
    r("local.title_boost", 0.0, 100.0),
    r("local.heading_boost", 0.0, 100.0),
    r("local.candidates_per_query", 1.0, 10_000.0),
    r("local.passage_decay", UNIT.0, UNIT.1),
    r("local.coordination", UNIT.0, UNIT.1),
    r("local.short_passage_words", 0.0, 10_000.0),
    r("local.threads", 0.0, 256.0),
    r("local.stale_check_ms", 0.0, 60_000.0),
    r("builtin.max_aspects", 1.0, 50.0),
    r("builtin.related_aspects", 0.0, 20.0),
    r("builtin.relevance_threshold", UNIT.0, UNIT.1),
    r("builtin.min_words", 0.0, 100_000.0),
    r("builtin.duplicate_similarity", UNIT.0, UNIT.1),
    r("builtin.mmr_lambda", UNIT.0, UNIT.1),
    r("builtin.answer_sentences", 1.0, 50.0),
    r("builtin.sentences_per_aspect", 0.0, 50.0),
    r("builtin.draft_sources", 1.0, 1_000.0),
    r("builtin.cover_sources", 0.0, 100.0),
    r("builtin.opening_sources", 0.0, 100.0),
    r("builtin.ask_sources", 0.0, 100.0),
    r("builtin.ask_max_similarity", UNIT.0, UNIT.1),
    r("builtin.ask_min_group", 1.0, 100.0),
    r("builtin.ask_separation", 1.0, 100.0),
    r("builtin.answer_per_part", 1.0, 50.0),
    r("builtin.answer_words", 0.0, 10_000.0),
    r("builtin.answer_examples", 0.0, 10.0),
    r("builtin.heading_gain", 0.0, 10.0),
    r("builtin.subject_gain", 0.0, 10.0),
    r("builtin.answer_weights.*", 0.0, 10.0),
    r("builtin.draft_weights.*", 0.0, 10.0),
    r("builtin.answer.*", -20.0, 20.0),
    r("llm.max_repairs", 0.0, 10.0),
    r("llm.temperature", 0.0, 2.0),
    r("llm.max_output_tokens", 256.0, 1_000_000.0),
    r("llm.context_window", 1_024.0, 10_000_000.0),
    r("llm.max_prompt_tokens", 0.0, 10_000_000.0),
    r("llm.timeout_secs", 1.0, 3_600.0),
    r("llm.connect_timeout_secs", 1.0, 600.0),
    r("llm.concurrency", 1.0, 256.0),
    r("llm.attempts", 1.0, 10.0),
    r("llm.max_list_items", 1.0, 1_000.0),
    r("llm.prompt_tokens.plan", 0.0, 10_000_000.0),
    r("llm.prompt_tokens.review", 0.0, 10_000_000.0),
    r("llm.prompt_tokens.draft", 0.0, 10_000_000.0),
    r("llm.prompt_tokens.critique", 0.0, 10_000_000.0),
    r("llm.prompt_tokens.write", 0.0, 10_000_000.0),
    r("llm.prompt_tokens.clarify", 0.0, 10_000_000.0),
    r("serve.max_concurrent", 0.0, 1_024.0),
    r("serve.max_queued", 0.0, 100_000.0),
    r("serve.max_body_bytes", 1_024.0, 104_857_600.0),
    r("serve.request_timeout_secs", 1.0, 3_600.0),
    r("serve.run_wait_secs", 1.0, 86_400.0),
    r("serve.shutdown_grace_secs", 0.0, 3_600.0),
    r("llm.backoff_min_ms", 0.0, 60_000.0),
    r("llm.backoff_max_ms", 0.0, 600_000.0),
    r("llm.retry_after_max_secs", 0.0, 3_600.0),
    r("llm.endpoints.*.context_window", 1_024.0, 10_000_000.0),
    r("llm.endpoints.*.timeout_secs", 1.0, 3_600.0),
    r("llm.endpoints.*.concurrency", 1.0, 256.0),
    r("llm.pricing.*.input", 0.0, 10_000.0),
    r("llm.pricing.*.output", 0.0, 10_000.0),
    r("web.search_timeout_secs", 1.0, 600.0),
    r("web.fetch_timeout_secs", 1.0, 600.0),
    r("web.connect_timeout_secs", 1.0, 600.0),
    r("web.max_page_bytes", 1_024.0, 268_435_456.0),
    r("web.max_pdf_bytes", 1_024.0, 1_073_741_824.0),
    r("web.max_redirects", 0.0, 50.0),
    r("web.per_host_concurrency", 1.0, 64.0),
    r("web.politeness_delay_ms", 0.0, 60_000.0),
    r("wikipedia.maxlag_secs", 0.0, 60.0),
    r("wikipedia.min_interval_ms", 0.0, 600_000.0),
    r("arxiv.min_interval_ms", 0.0, 600_000.0),
    r("openalex.min_interval_ms", 0.0, 600_000.0),
    r("semanticscholar.min_interval_ms", 0.0, 600_000.0),
    r("europepmc.min_interval_ms", 0.0, 600_000.0),
    r("opensearch.connect_timeout_secs", 1.0, 600.0),
    r("opensearch.timeout_secs", 1.0, 600.0),
    r("opensearch.bulk_timeout_secs", 1.0, 3_600.0),
    r("opensearch.title_boost", 0.0, 100.0),
    r("opensearch.heading_boost", 0.0, 100.0),
    r("opensearch.candidates_per_query", 1.0, 10_000.0),
    r("opensearch.passage_decay", 0.0, 1.0),
    r("opensearch.short_passage_words", 0.0, 10_000.0),
    r("opensearch.tier", 1.0, 5.0),
    r("opensearch.bulk_docs", 1.0, 100_000.0),
    r("opensearch.bulk_in_flight", 1.0, 64.0),
    r("opensearch.bulk_retries", 0.0, 100.0),
    r("opensearch.shards", 1.0, 1_024.0),
    r("opensearch.replicas", 0.0, 64.0),
    r("sessions.max_log_mb", 1.0, 1_048_576.0),
    r("sessions.max_line_mb", 1.0, 4_096.0),
];

/// The range of a key as written in a config (`llm.pricing.gpt-4o.input`
/// matches `llm.pricing.*.input`), if it has one.
pub fn range_of(path: &[String]) -> Option<&'static Range> {
    RANGES.iter().find(|r| {
        let pattern: Vec<&str> = r.key.split('.').collect();
        pattern.len() == path.len() && pattern.iter().zip(path).all(|(p, k)| *p == "*" || p == k)
    })
}

/// Every numeric value of `config` outside its range, in key order. The
/// TOML form keeps what JSON cannot hold (NaN, infinities).
pub fn check(config: &toml::Value) -> Vec<Invalid> {
    let mut out = Vec::new();
    walk(config, &mut Vec::new(), &mut out);
    out
}

fn walk(value: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Invalid>) {
    let (x, shown) = match value {
        toml::Value::Table(map) => {
            for (k, v) in map {
                path.push(k.clone());
                walk(v, path, out);
                path.pop();
            }
            return;
        }
        toml::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push("[]".into());
                let before = out.len();
                walk(v, path, out);
                path.pop();
                // Name the item: `evaluate.tier_quality[2]`.
                for inv in &mut out[before..] {
                    inv.key = inv.key.replacen("[]", &format!("[{i}]"), 1);
                }
            }
            return;
        }
        toml::Value::Integer(n) => (*n as f64, n.to_string()),
        toml::Value::Float(f) => (*f, f.to_string()),
        _ => return,
    };
    let key = path.join(".").replace(".[]", "[]");
    match range_of(path) {
        Some(r) if x.is_nan() || x < r.min || x > r.max => out
            .push(Invalid { key, message: format!("must be between {} and {} (got {shown})", fmt(r.min), fmt(r.max)) }),
        Some(_) => {}
        // A key added without a range: caught by a test, never by a user.
        None => tracing::debug!(key, "numeric config key without a documented range"),
    }
}

/// `1000000` rather than `1e6`, `0.5` as is.
fn fmt(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// The default configuration with every optional number and every
    /// user-named table filled in, so each numeric key appears.
    fn everything() -> toml::Value {
        let mut v = Config::default().snapshot();
        v["limits"] = serde_json::json!({
            "max_iterations": 3, "max_queries": 3, "max_sources": 3,
            "time_limit_secs": 60, "cost_budget_usd": 1.0, "token_budget": 1000
        });
        v["llm"]["endpoints"] =
            serde_json::json!({"local": {"context_window": 8192, "timeout_secs": 60, "concurrency": 1}});
        v["llm"]["pricing"] = serde_json::json!({"m": {"input": 1.0, "output": 2.0}});
        v["source_tiers"] = serde_json::json!({"example.org": {"tier": 2, "type": "official"}});
        strip_nulls(&mut v);
        toml::Value::try_from(v).unwrap()
    }

    fn strip_nulls(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|_, x| !x.is_null());
                map.values_mut().for_each(strip_nulls);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip_nulls),
            _ => {}
        }
    }

    fn numeric_keys(value: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match value {
            toml::Value::Table(map) => {
                for (k, v) in map {
                    path.push(k.clone());
                    numeric_keys(v, path, out);
                    path.pop();
                }
            }
            toml::Value::Array(items) => {
                path.push("[]".into());
                items.iter().for_each(|v| numeric_keys(v, path, out));
                path.pop();
            }
            toml::Value::Integer(_) | toml::Value::Float(_) => out.push(path.clone()),
            _ => {}
        }
    }

    #[test]
    fn every_numeric_key_has_a_range_and_its_default_is_inside() {
        let mut keys = Vec::new();
        numeric_keys(&everything(), &mut Vec::new(), &mut keys);
        assert!(keys.len() > 90, "{} keys", keys.len());
        let missing: Vec<String> = keys.iter().filter(|k| range_of(k).is_none()).map(|k| k.join(".")).collect();
        assert_eq!(missing, Vec::<String>::new(), "numeric keys without a range");
        assert_eq!(check(&everything()).into_iter().map(|i| i.key).collect::<Vec<_>>(), Vec::<String>::new());
    }

    #[test]
    fn out_of_range_values_name_the_key_and_the_range() {
        let mut json = Config::default().snapshot();
        json["local"]["candidates_per_query"] = serde_json::json!(9_223_372_036_854_775_807u64);
        json["evaluate"]["tier_quality"][2] = serde_json::json!(1.5);
        json["llm"]["pricing"] = serde_json::json!({"m": {"input": 1.0, "output": -1.0}});
        strip_nulls(&mut json);
        let mut v = toml::Value::try_from(json).unwrap();
        v["decide"]["confidence_threshold"] = toml::Value::Float(f64::NAN);
        let got: Vec<(String, String)> = check(&v).into_iter().map(|i| (i.key, i.message)).collect();
        assert_eq!(
            got,
            vec![
                ("decide.confidence_threshold".to_string(), "must be between 0 and 1 (got NaN)".to_string()),
                ("evaluate.tier_quality[2]".to_string(), "must be between 0 and 1 (got 1.5)".to_string()),
                ("llm.pricing.m.output".to_string(), "must be between 0 and 10000 (got -1)".to_string()),
                (
                    "local.candidates_per_query".to_string(),
                    "must be between 1 and 10000 (got 9223372036854775807)".to_string()
                ),
            ]
        );
    }

    #[test]
    fn the_example_file_documents_every_range() {
        let example = include_str!("../../config.toml.example");
        let lines: Vec<&str> = example.lines().collect();
        let missing: Vec<&str> = RANGES
            .iter()
            .filter(|r| {
                let documented = format!("{}..{}", fmt(r.min), fmt(r.max));
                if let Some(table) = r.key.strip_suffix(".*") {
                    // Every key of a table of numbers: each line of the table.
                    let header = format!("[{table}]");
                    let Some(start) = lines.iter().position(|l| l.starts_with(&header)) else { return true };
                    let keys: Vec<&&str> = lines[start + 1..]
                        .iter()
                        .take_while(|l| !l.starts_with('['))
                        .filter(|l| l.contains(" = "))
                        .collect();
                    return keys.is_empty() || keys.iter().any(|l| !l.contains(&documented));
                }
                let name = r.key.rsplit('.').next().unwrap_or(r.key);
                let name = if name == "[]" || name == "*" { r.key.split('.').nth(1).unwrap_or(name) } else { name };
                !lines.iter().any(|l| l.contains(name) && l.contains(&documented))
            })
            .map(|r| r.key)
            .collect();
        assert_eq!(missing, Vec::<&str>::new(), "ranges missing from config.toml.example (as `min..max`)");
    }
}
