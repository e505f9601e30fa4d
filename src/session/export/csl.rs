//! CSL-JSON (the citation format of Zotero, Pandoc and citeproc) for the
//! sources a report cites.

use serde_json::{Value, json};

use super::cited_sources;
use super::dates::{date_parts, published_parts};
use crate::engine::model::{Scholarly, SourceKind};
use crate::engine::state::SessionState;
use crate::text::sanitize_inline;

pub fn csl_json(state: &SessionState, session_id: &str) -> String {
    let items: Vec<Value> = cited_sources(state)
        .into_iter()
        .map(|s| {
            let m = &s.meta;
            let mut item = json!({
                "id": super::bibtex::key(session_id, m.id.0),
                "type": csl_type(m.kind, m.scholarly.as_ref()),
                "title": sanitize_inline(&m.title),
                "accessed": { "date-parts": [date_parts(m.accessed_at_ms)] },
                "note": format!("Cited as [{}] by sleuth session {session_id}", m.id.0),
            });
            let obj = item.as_object_mut();
            if let Some(obj) = obj {
                match m.kind {
                    SourceKind::Web => {
                        obj.insert("URL".into(), Value::String(sanitize_inline(&m.locator)));
                    }
                    SourceKind::Local => {
                        obj.insert("archive_location".into(), Value::String(sanitize_inline(&m.locator)));
                    }
                }
                match m.scholarly.as_ref().and_then(|w| w.venue.as_deref()) {
                    Some(venue) => {
                        obj.insert("container-title".into(), Value::String(sanitize_inline(venue)));
                    }
                    None if !m.site.is_empty() => {
                        obj.insert("container-title".into(), Value::String(sanitize_inline(&m.site)));
                    }
                    None => {}
                }
                if let Some(w) = &m.scholarly {
                    scholarly_fields(obj, w);
                }
                // A local file's date is when it was last modified, not published.
                let published = m.published.as_deref().filter(|_| m.kind == SourceKind::Web);
                let mut issued = published.map(published_parts).unwrap_or_default();
                if issued.is_empty()
                    && let Some(y) = m.scholarly.as_ref().and_then(|w| w.year)
                {
                    issued = vec![i64::from(y)];
                }
                if !issued.is_empty() {
                    obj.insert("issued".into(), json!({ "date-parts": [issued] }));
                }
            }
            item
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into())
}

/// `article-journal` for a published work, `article` for a preprint (CSL's
/// type for one), `webpage` and `document` for the rest.
fn csl_type(kind: SourceKind, w: Option<&Scholarly>) -> &'static str {
    match (w, kind) {
        (Some(w), _) if w.preprint => "article",
        (Some(w), _) if w.venue.is_some() => "article-journal",
        (_, SourceKind::Web) => "webpage",
        (_, SourceKind::Local) => "document",
    }
}

/// Authors (as literal names: an index's display name is not split into
/// family and given reliably), DOI, PMID, e-print and status.
fn scholarly_fields(obj: &mut serde_json::Map<String, Value>, w: &Scholarly) {
    if !w.authors.is_empty() {
        let authors: Vec<Value> = w.authors.iter().map(|a| json!({ "literal": sanitize_inline(a) })).collect();
        obj.insert("author".into(), Value::Array(authors));
    }
    if let Some(doi) = &w.doi {
        obj.insert("DOI".into(), Value::String(sanitize_inline(doi)));
    }
    if let Some(pmid) = &w.pmid {
        obj.insert("PMID".into(), Value::String(sanitize_inline(pmid)));
    }
    if let Some(id) = &w.arxiv {
        obj.insert("number".into(), Value::String(format!("arXiv:{}", sanitize_inline(id))));
    }
    let status = match (w.retracted, w.preprint) {
        (true, _) => Some("retracted"),
        (false, true) => Some("preprint"),
        (false, false) => None,
    };
    if let Some(status) = status {
        obj.insert("status".into(), Value::String(status.into()));
    }
}
