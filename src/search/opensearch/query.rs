//! The search request sleuth sends (a `bool` query: `multi_match` over the
//! text, title and heading fields, `must_not` for excluded terms, with
//! highlighting) and how the answer's hits become passages, folded to one
//! per page like the local corpus's.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::OpenSearchConfig;
use super::mapping::{KIND_FIELD, KIND_PAGE, WORDS_FIELD};

/// Highlight markers the snippet strips again (the products' default).
const PRE_TAG: &str = "<em>";
const POST_TAG: &str = "</em>";
/// Characters per highlighted fragment, and fragments per passage.
const FRAGMENT_CHARS: u64 = 160;
const FRAGMENTS: u64 = 3;

/// The `_search` body for `text`, without the terms of `exclude`.
pub fn search_body(cfg: &OpenSearchConfig, text: &str, exclude: &[String], limit: usize) -> Value {
    let mut fields = vec![json!(format!("{}^{}", cfg.text_field, 1))];
    if !cfg.title_field.is_empty() {
        fields.push(json!(format!("{}^{}", cfg.title_field, cfg.title_boost)));
    }
    if !cfg.heading_field.is_empty() {
        fields.push(json!(format!("{}^{}", cfg.heading_field, cfg.heading_boost)));
    }
    // `most_fields` sums each field's BM25, as the local index's query does.
    let must = json!({ "multi_match": { "query": text, "fields": fields, "type": "most_fields" } });
    // Page documents (sleuth's own mapping) hold whole pages for fetches: never hits.
    let mut must_not = vec![json!({ "term": { (KIND_FIELD): KIND_PAGE } })];
    let excluded: Vec<&str> = exclude.iter().map(|e| e.trim()).filter(|e| !e.is_empty()).collect();
    if !excluded.is_empty() {
        let mut fields = vec![json!(cfg.text_field)];
        if !cfg.title_field.is_empty() {
            fields.push(json!(cfg.title_field));
        }
        must_not.push(json!({ "multi_match": { "query": excluded.join(" "), "fields": fields, "operator": "or" } }));
    }
    let mut source = vec![cfg.text_field.clone(), cfg.url_field.clone(), "path".into(), WORDS_FIELD.into()];
    for f in [&cfg.title_field, &cfg.heading_field, &cfg.anchor_field] {
        if !f.is_empty() {
            source.push(f.clone());
        }
    }
    json!({
        "size": cfg.candidates_per_query.max(limit * 4),
        "query": { "bool": { "must": [must], "must_not": must_not } },
        "_source": source,
        "highlight": {
            "pre_tags": [PRE_TAG],
            "post_tags": [POST_TAG],
            "fields": { (cfg.text_field.clone()): { "fragment_size": FRAGMENT_CHARS, "number_of_fragments": FRAGMENTS } }
        },
        "track_total_hits": false
    })
}

/// One passage of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageHit {
    pub id: String,
    /// The page: sleuth's corpus-relative path, or the URL without fragment.
    pub page: String,
    /// Sleuth's own mapping records the corpus-relative path.
    pub path: Option<String>,
    pub url: Option<String>,
    pub anchor: Option<String>,
    pub title: String,
    pub heading: Option<String>,
    pub text: String,
    /// The highlighted fragments, markers removed.
    pub fragments: Vec<String>,
    pub score: f32,
}

/// The hits of a `_search` answer, best page first, one per page: a page
/// scores its best passage plus a decaying share of its next ones.
pub fn parse_hits(cfg: &OpenSearchConfig, answer: &Value, limit: usize) -> Result<Vec<PassageHit>, String> {
    let hits = answer
        .pointer("/hits/hits")
        .and_then(Value::as_array)
        .ok_or_else(|| "the answer has no hits.hits list".to_string())?;
    let mut pages: Vec<(f32, f32, PassageHit)> = Vec::new();
    let mut by_page: HashMap<String, usize> = HashMap::new();
    let mut scored: Vec<PassageHit> = hits.iter().filter_map(|h| passage(cfg, h)).collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    for hit in scored {
        match by_page.get(&hit.page) {
            Some(&k) => {
                let (total, factor, _) = &mut pages[k];
                *factor *= cfg.passage_decay as f32;
                *total += hit.score * *factor;
            }
            None => {
                by_page.insert(hit.page.clone(), pages.len());
                pages.push((hit.score, 1.0, hit));
            }
        }
    }
    pages.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.page.cmp(&b.2.page)));
    Ok(pages.into_iter().take(limit).map(|(total, _, hit)| PassageHit { score: total, ..hit }).collect())
}

fn passage(cfg: &OpenSearchConfig, hit: &Value) -> Option<PassageHit> {
    let source = hit.get("_source")?;
    let field = |name: &str| -> Option<String> {
        if name.is_empty() {
            return None;
        }
        // A field may hold one value or a list (an index sleuth did not write).
        let v = source.get(name)?;
        let s = v.as_str().or_else(|| v.as_array()?.iter().find_map(Value::as_str))?;
        let s = crate::text::sanitize_inline(s);
        (!s.trim().is_empty()).then_some(s)
    };
    let id = hit.get("_id").and_then(Value::as_str).unwrap_or_default().to_string();
    let text = source.get(&cfg.text_field).and_then(|v| v.as_str()).map(crate::text::sanitize).unwrap_or_default();
    let url = field(&cfg.url_field);
    let path = field("path");
    let page = path
        .clone()
        .or_else(|| url.as_ref().map(|u| u.split('#').next().unwrap_or(u).to_string()))
        .unwrap_or_else(|| id.clone());
    let fragments: Vec<String> = hit
        .pointer(&format!("/highlight/{}", cfg.text_field.replace('~', "~0").replace('/', "~1")))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(strip_markers).collect())
        .unwrap_or_default();
    let raw = hit.get("_score").and_then(Value::as_f64).unwrap_or(0.0) as f32;
    Some(PassageHit {
        id,
        page,
        path,
        url,
        anchor: field(&cfg.anchor_field),
        title: field(&cfg.title_field).unwrap_or_default(),
        heading: field(&cfg.heading_field),
        fragments,
        score: raw * brevity(source.get(WORDS_FIELD).and_then(Value::as_u64), cfg.short_passage_words),
        text,
    })
}

/// As the local corpus: a passage shorter than `short` words says little
/// (the square root of the share of `short` it reaches, at least 0.2).
fn brevity(words: Option<u64>, short: usize) -> f32 {
    match words {
        Some(w) if short > 0 => ((w as f32 / short as f32).min(1.0)).sqrt().max(0.2),
        _ => 1.0,
    }
}

fn strip_markers(fragment: &str) -> String {
    crate::text::sanitize_inline(&fragment.replace(PRE_TAG, "").replace(POST_TAG, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, path: &str, score: f64, words: u64) -> Value {
        json!({ "_id": id, "_score": score, "_source": { "path": path, "url": format!("file:///c/{path}"),
            "title": "T", "text": "some text", "words": words },
            "highlight": { "text": ["a <em>match</em>\u{1b}[31m here"] } })
    }

    #[test]
    fn passages_fold_to_one_per_page_with_a_decaying_bonus() {
        let cfg = OpenSearchConfig::default();
        let answer = json!({ "hits": { "hits": [
            hit("a#0", "a.md", 3.0, 100), hit("b#0", "b.md", 4.0, 100), hit("a#1", "a.md", 2.0, 100),
        ] } });
        let hits = parse_hits(&cfg, &answer, 10).unwrap();
        assert_eq!(hits.iter().map(|h| h.page.as_str()).collect::<Vec<_>>(), vec!["a.md", "b.md"]);
        assert!((hits[0].score - 4.0).abs() < 1e-6, "3 + 0.5 × 2");
        assert_eq!(hits[0].fragments, vec!["a match here"], "markers and escapes are gone");
        assert_eq!(parse_hits(&cfg, &answer, 1).unwrap().len(), 1);
    }

    #[test]
    fn a_short_passage_scores_lower_where_words_are_known() {
        let cfg = OpenSearchConfig::default();
        let answer = json!({ "hits": { "hits": [ hit("a#0", "a.md", 4.0, 10), hit("b#0", "b.md", 3.0, 100) ] } });
        let hits = parse_hits(&cfg, &answer, 10).unwrap();
        assert_eq!(hits[0].page, "b.md");
    }
}
