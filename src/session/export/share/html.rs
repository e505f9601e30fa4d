//! `export --format html`: one self-contained file. The report with every
//! cited sentence marked ✓ or ✗ (its quote or passage in the `title`, shown
//! on hover, and in a `<details>` below, opened by a click — no script),
//! then every cited source with its address, retrieval time and SHA-256.
//! Styles are inline; nothing is loaded from anywhere (links are links).

use std::fmt::Write;

use super::markdown::{DocBlock, Inline, is_address};
use super::{ShareClaim, ShareDoc};
use crate::engine::model::CheckRule;

const STYLE: &str = "body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}\
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}code,pre{font-family:ui-monospace,monospace;background:#f4f4f5}\
pre{padding:.6rem;overflow-x:auto}.meta{color:#555;font-size:.9rem}.claim{border-bottom:1px dotted #888}\
.claim.bad{background:#fde8e8}.mark{font-size:.8rem;text-decoration:none;margin-left:.15rem}.mark.ok{color:#137333}\
.mark.bad{color:#b3261e;font-weight:bold}a.cite{text-decoration:none}table{border-collapse:collapse}\
td,th{border:1px solid #ccc;padding:.2rem .5rem}details{margin:.4rem 0}details blockquote{margin:.3rem 0 .3rem 1rem;color:#333}\
.hash{font-family:ui-monospace,monospace;font-size:.8rem;word-break:break-all;color:#555}";

/// The HTML document.
pub fn html(doc: &ShareDoc) -> String {
    let mut out = String::with_capacity(8192);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", esc(&doc.title));
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(
        out,
        "<p class=\"meta\">sleuth session {} · {} · exported {}</p>",
        esc(&doc.session_id),
        esc(&doc.status),
        esc(&doc.exported_at)
    );
    let _ = writeln!(out, "<p class=\"meta\">{} Verdicts: {}.</p>", esc(&doc.summary), esc(&doc.verdicts_from));
    for r in &doc.rechecks {
        let _ = writeln!(out, "<p class=\"meta\">{}</p>", esc(r));
    }
    let mut list: Option<&'static str> = None;
    for b in &doc.blocks {
        // Consecutive items make one list.
        let kind = match b {
            DocBlock::Item { ordered: Some(_), .. } => Some("ol"),
            DocBlock::Item { ordered: None, .. } => Some("ul"),
            _ => None,
        };
        if list != kind {
            if let Some(l) = list {
                let _ = writeln!(out, "</{l}>");
            }
            if let Some(k) = kind {
                let start = match b {
                    DocBlock::Item { ordered: Some(n), .. } => format!(" start=\"{n}\""),
                    _ => String::new(),
                };
                let _ = writeln!(out, "<{k}{start}>");
            }
            list = kind;
        }
        block(&mut out, b, doc);
    }
    if let Some(l) = list {
        let _ = writeln!(out, "</{l}>");
    }
    claims(&mut out, doc);
    sources(&mut out, doc);
    out.push_str("</body>\n</html>\n");
    out
}

fn block(out: &mut String, b: &DocBlock, doc: &ShareDoc) {
    match b {
        DocBlock::Heading { level, inlines } => {
            let l = (*level).clamp(1, 6);
            let _ = writeln!(out, "<h{l}>{}</h{l}>", spans(inlines, doc));
        }
        DocBlock::Para(i) => {
            let _ = writeln!(out, "<p>{}</p>", spans(i, doc));
        }
        DocBlock::Item { inlines, .. } => {
            let _ = writeln!(out, "<li>{}</li>", spans(inlines, doc));
        }
        DocBlock::Quote(i) => {
            let _ = writeln!(out, "<blockquote>{}</blockquote>", spans(i, doc));
        }
        DocBlock::Code(c) => {
            let _ = writeln!(out, "<pre><code>{}</code></pre>", esc(c));
        }
        DocBlock::Table(rows) => {
            out.push_str("<table>\n");
            for (r, row) in rows.iter().enumerate() {
                let tag = if r == 0 { "th" } else { "td" };
                out.push_str("<tr>");
                for cell in row {
                    let _ = write!(out, "<{tag}>{}</{tag}>", spans(cell, doc));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
        DocBlock::Rule => out.push_str("<hr>\n"),
    }
}

fn spans(inlines: &[Inline], doc: &ShareDoc) -> String {
    let mut out = String::new();
    let mut open: Option<&ShareClaim> = None;
    for i in inlines {
        match i {
            Inline::Text { text, style } => {
                let mut t = esc(text);
                if style.code {
                    t = format!("<code>{t}</code>");
                }
                if style.italic {
                    t = format!("<em>{t}</em>");
                }
                if style.bold {
                    t = format!("<strong>{t}</strong>");
                }
                out.push_str(&t);
            }
            Inline::Link { text, url } if is_address(url) => {
                let _ = write!(out, "<a href=\"{}\" rel=\"noreferrer\">{}</a>", esc(url), esc(text));
            }
            Inline::Link { text, .. } => out.push_str(&esc(text)),
            Inline::Cite(n) => {
                let _ = write!(out, "<a class=\"cite\" href=\"#source-{n}\">[{n}]</a>");
            }
            Inline::ClaimStart(k) => {
                open = doc.claims.get(k.saturating_sub(1));
                if let Some(c) = open {
                    let class = if c.supported() { "claim ok" } else { "claim bad" };
                    let _ = write!(
                        out,
                        "<span class=\"{class}\" id=\"claim-{}\" title=\"{}\">",
                        c.number,
                        esc(&tooltip(c))
                    );
                }
            }
            Inline::ClaimEnd(_) => {
                if let Some(c) = open.take() {
                    let class = if c.supported() { "mark ok" } else { "mark bad" };
                    let _ = write!(
                        out,
                        "</span><a class=\"{class}\" href=\"#evidence-{}\" title=\"{}\">{}</a>",
                        c.number,
                        esc(&tooltip(c)),
                        if c.supported() { "✓" } else { "✗" }
                    );
                }
            }
        }
    }
    if open.is_some() {
        out.push_str("</span>");
    }
    out
}

/// What hovering a claim shows: its verdict, the rule, and the evidence.
fn tooltip(c: &ShareClaim) -> String {
    let src = c.source.map(|n| format!(" [{n}]")).unwrap_or_default();
    let evidence = if c.evidence.is_empty() { String::new() } else { format!(" — “{}”", c.evidence) };
    format!("{} by {} rule{src}{evidence}", c.mark(), rule_name(c.rule))
}

fn rule_name(r: CheckRule) -> &'static str {
    match r {
        CheckRule::Quote => "the quote",
        CheckRule::Passage => "the passage",
        CheckRule::None => "no",
    }
}

fn claims(out: &mut String, doc: &ShareDoc) {
    if doc.claims.is_empty() {
        return;
    }
    out.push_str("<h2>Claims and their evidence</h2>\n");
    for c in &doc.claims {
        let class = if c.supported() { "mark ok" } else { "mark bad" };
        let cites: Vec<String> = c.cites.iter().map(|n| format!("<a href=\"#source-{n}\">[{n}]</a>")).collect();
        let _ = writeln!(
            out,
            "<details id=\"evidence-{n}\"><summary><span class=\"{class}\">{mark}</span> {n}. {text} {cites}</summary>",
            n = c.number,
            mark = esc(&c.mark()),
            text = esc(&c.text),
            cites = cites.join(" ")
        );
        let label = match c.rule {
            CheckRule::Quote => "Quote",
            CheckRule::Passage => "Closest passage",
            CheckRule::None => "Evidence",
        };
        if !c.evidence.is_empty() {
            let src = c.source.map(|n| format!(" from <a href=\"#source-{n}\">[{n}]</a>")).unwrap_or_default();
            let _ = writeln!(out, "<p>{label}{src}:</p><blockquote>{}</blockquote>", esc(&c.evidence));
        }
        let _ =
            writeln!(out, "<p class=\"meta\">Decided by {} rule: {}.</p></details>", rule_name(c.rule), esc(&c.why));
    }
}

fn sources(out: &mut String, doc: &ShareDoc) {
    if doc.sources.is_empty() {
        return;
    }
    out.push_str("<h2>Sources</h2>\n<ol class=\"sources\">\n");
    for s in &doc.sources {
        let link = if is_address(&s.url) {
            format!("<a href=\"{u}\" rel=\"noreferrer\">{u}</a>", u = esc(&s.url))
        } else {
            esc(&s.url)
        };
        let hash = match &s.sha256 {
            Some(h) => format!("SHA-256 of the stored text: {h}"),
            None => "the stored text was lost; no hash".into(),
        };
        let _ = writeln!(
            out,
            "<li id=\"source-{id}\" value=\"{id}\">[{id}] {title} — {link} — retrieved {at}<br><span class=\"hash\">{hash}</span></li>",
            id = s.id,
            title = esc(&s.title),
            at = esc(&s.retrieved_at),
            hash = esc(&hash)
        );
    }
    out.push_str("</ol>\n");
}

/// Text safe inside HTML elements and double-quoted attributes.
fn esc(text: &str) -> String {
    html_escape::encode_double_quoted_attribute(text).into_owned()
}
