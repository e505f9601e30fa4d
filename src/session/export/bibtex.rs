//! BibTeX (biblatex) entries for the sources a report cites: `@article`
//! for a published scholarly work, `@online` with its e-print for a
//! preprint, `@online` for web pages, `@misc` for local files. A scholarly
//! work carries its authors, venue, year, DOI and status.

use std::fmt::Write;

use super::cited_sources;
use super::dates::{iso_date, published_parts};
use crate::engine::model::{Scholarly, SourceKind};
use crate::engine::state::SessionState;
use crate::text::sanitize_inline;

pub fn bibtex(state: &SessionState, session_id: &str) -> String {
    let mut out = String::new();
    for s in cited_sources(state) {
        let m = &s.meta;
        let kind = match (&m.scholarly, m.kind) {
            (Some(w), _) if !w.preprint && w.venue.is_some() => "article",
            (_, SourceKind::Web) => "online",
            (_, SourceKind::Local) => "misc",
        };
        let _ = writeln!(out, "@{kind}{{{},", key(session_id, m.id.0));
        field(&mut out, "title", &escape(&m.title));
        if let Some(w) = &m.scholarly {
            scholarly_fields(&mut out, w);
        }
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
        if m.published.is_none()
            && let Some(y) = m.scholarly.as_ref().and_then(|w| w.year)
        {
            field(&mut out, "date", &format!("{y:04}"));
        }
        if !m.site.is_empty() && m.scholarly.is_none() {
            field(&mut out, "organization", &escape(&m.site));
        }
        field(&mut out, "note", &format!("Cited as [{}] by sleuth session {}", m.id.0, escape(session_id)));
        out.push_str("}\n\n");
    }
    out
}

/// Authors, venue, DOI, e-print and status of a scholarly work.
fn scholarly_fields(out: &mut String, w: &Scholarly) {
    if !w.authors.is_empty() {
        // Braced: a name is taken as written, not split by BibTeX's rules.
        let names: Vec<String> = w.authors.iter().map(|a| format!("{{{}}}", escape(a))).collect();
        field(out, "author", &names.join(" and "));
    }
    if let Some(v) = &w.venue {
        field(out, if w.preprint { "howpublished" } else { "journaltitle" }, &escape(v));
    }
    if let Some(doi) = &w.doi {
        field(out, "doi", &url(doi));
    }
    if let Some(id) = &w.arxiv {
        field(out, "eprint", &escape(id));
        field(out, "eprinttype", "arxiv");
    }
    if let Some(pmid) = &w.pmid {
        field(out, "pmid", &escape(pmid));
    }
    if w.preprint {
        field(out, "pubstate", "preprint");
    }
    if w.retracted {
        field(out, "addendum", "Retracted");
    }
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
