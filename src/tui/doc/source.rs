//! A source's stored text, with the spans quoted by claims highlighted.

use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::engine::model::SourceId;
use crate::tui::app::{App, SourceView};
use crate::tui::text::{clean, find_all, inline, styled, wrap};

/// Every quote any draft or the report attributes to `id`.
pub fn quotes(app: &App, id: SourceId) -> Vec<String> {
    let s = &app.state;
    let report = s.report.iter().flat_map(|r| r.claims.iter());
    let drafts = s.iterations.iter().filter_map(|it| it.draft.as_ref()).flat_map(|d| d.claims.iter());
    let mut out: Vec<String> = Vec::new();
    for c in report.chain(drafts).flat_map(|c| c.citations.iter()).filter(|c| c.source == id) {
        let q = clean(c.quote.trim());
        if !q.is_empty() && !out.contains(&q) {
            out.push(q);
        }
    }
    out
}

/// The source window's lines wrapped to `width`.
pub fn lines(app: &App, view: &SourceView, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = Vec::new();
    let Some(entry) = app.state.source(view.id) else {
        return vec![Line::from(Span::styled("unknown source", t.muted))];
    };
    out.push(Line::from(vec![
        Span::styled(format!("{} ", entry.meta.id), t.citation),
        Span::styled(inline(&entry.meta.title), t.heading),
    ]));
    out.push(Line::from(Span::styled(inline(&entry.meta.locator), t.muted)));
    let quotes = quotes(app, view.id);
    if !quotes.is_empty() {
        out.push(Line::from(vec![
            Span::styled(format!("{} quoted passages ", quotes.len()), t.muted),
            Span::styled("highlighted like this", t.quote),
        ]));
    }
    out.push(Line::default());
    match (&view.text, view.missing) {
        (None, _) => out.push(Line::from(Span::styled("loading…", t.muted))),
        (Some(_), true) => {
            out.push(Line::from(Span::styled("the text of this source was not stored with the session", t.rejected)))
        }
        (Some(text), false) => {
            for para in clean(text).lines() {
                out.push(Line::from(highlight(para, &quotes, t.text, t.quote)));
            }
        }
    }
    wrap(out, width)
}

fn highlight(para: &str, quotes: &[String], base: Style, quote: Style) -> Vec<Span<'static>> {
    let mut ranges: Vec<(Range<usize>, Style)> = Vec::new();
    for q in quotes {
        ranges.extend(find_all(para, q).into_iter().map(|r| (r, quote)));
    }
    styled(para, base, &ranges)
}
