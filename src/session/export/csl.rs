//! CSL-JSON (the citation format of Zotero, Pandoc and citeproc) for the
//! sources a report cites.

use serde_json::{Value, json};

use super::cited_sources;
use super::dates::{date_parts, published_parts};
use crate::engine::model::SourceKind;
use crate::engine::state::SessionState;
use crate::text::sanitize_inline;

pub fn csl_json(state: &SessionState, session_id: &str) -> String {
    let items: Vec<Value> = cited_sources(state)
        .into_iter()
        .map(|s| {
            let m = &s.meta;
            let mut item = json!({
                "id": super::bibtex::key(session_id, m.id.0),
                "type": if m.kind == SourceKind::Web { "webpage" } else { "document" },
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
                if !m.site.is_empty() {
                    obj.insert("container-title".into(), Value::String(sanitize_inline(&m.site)));
                }
                // A local file's date is when it was last modified, not published.
                let published = m.published.as_deref().filter(|_| m.kind == SourceKind::Web);
                let issued = published.map(published_parts).unwrap_or_default();
                if !issued.is_empty() {
                    obj.insert("issued".into(), json!({ "date-parts": [issued] }));
                }
            }
            item
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into())
}
