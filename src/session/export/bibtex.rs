//! BibTeX (biblatex) entries for the sources a report cites: `@online`
//! for web pages, `@misc` for local files.

use std::fmt::Write;

use super::cited_sources;
use super::dates::{iso_date, published_parts};
use crate::engine::model::SourceKind;
use crate::engine::state::SessionState;
use crate::text::sanitize_inline;

pub fn bibtex(state: &SessionState, session_id: &str) -> String {
    let mut out = String::new();
    for s in cited_sources(state) {
        let m = &s.meta;
        let kind = if m.kind == SourceKind::Web { "online" } else { "misc" };
        let _ = writeln!(out, "@{kind}{{{},", key(session_id, m.id.0));
        field(&mut out, "title", &escape(&m.title));
        match m.kind {
            SourceKind::Web => field(&mut out, "url", &url(&m.locator)),
            SourceKind::Local => field(&mut out, "howpublished", &format!("Local file: {}", escape(&m.locator))),
        }
        field(&mut out, "urldate", &iso_date(m.accessed_at_ms));
        // A local file's date is when it was last modified, not published.
        if let Some(p) = m.published.as_ref().filter(|_| m.kind == SourceKind::Web) {
            let parts = published_parts(p);
            if !parts.is_empty() {
                let date: Vec<String> = parts
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if i == 0 { format!("{v:04}") } else { format!("{v:02}") })
                    .collect();
                field(&mut out, "date", &date.join("-"));
            }
        }
        if !m.site.is_empty() {
            field(&mut out, "organization", &escape(&m.site));
        }
        field(&mut out, "note", &format!("Cited as [{}] by sleuth session {}", m.id.0, escape(session_id)));
        out.push_str("}\n\n");
    }
    out
}

/// `sleuth:<session id>:<n>`, stable across exports of the same session.
pub fn key(session_id: &str, n: u32) -> String {
    let id: String = session_id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    format!("sleuth:{id}:{n}")
}

fn field(out: &mut String, name: &str, value: &str) {
    let _ = writeln!(out, "  {name} = {{{value}}},");
}

/// Text with TeX's special characters escaped (and braces balanced).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in sanitize_inline(text).chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            c => out.push(c),
        }
    }
    out
}

/// biblatex reads `url` verbatim; only braces (which would end the field)
/// and whitespace must be encoded.
fn url(locator: &str) -> String {
    sanitize_inline(locator)
        .chars()
        .map(|c| match c {
            '{' => "%7B".to_string(),
            '}' => "%7D".to_string(),
            ' ' => "%20".to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tex_specials_and_keeps_braces_balanced() {
        assert_eq!(escape("50% of R&D_{x}"), "50\\% of R\\&D\\_\\{x\\}");
        assert_eq!(escape("a\\b~c^"), "a\\textbackslash{}b\\textasciitilde{}c\\textasciicircum{}");
        assert_eq!(url("https://x.org/a b?q={1}"), "https://x.org/a%20b?q=%7B1%7D");
        assert_eq!(key("20250101-120000-ab12", 3), "sleuth:20250101-120000-ab12:3");
    }
}
