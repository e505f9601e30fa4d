//! A source's stored text, with the spans quoted by claims highlighted.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::layout::big_overlay;
use super::widgets::{modal, scrolled};
use crate::engine::model::SourceId;
use crate::tui::app::{App, SearchTarget, SourceView};
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
            let term = app.search_term(SearchTarget::Source);
            for para in clean(text).lines() {
                out.push(Line::from(highlight(para, &quotes, term, t.text, t.quote, t.search_match)));
            }
        }
    }
    wrap(out, width)
}

fn highlight(
    para: &str,
    quotes: &[String],
    term: Option<&str>,
    base: Style,
    quote: Style,
    matched: Style,
) -> Vec<Span<'static>> {
    let mut ranges: Vec<(Range<usize>, Style)> = Vec::new();
    for q in quotes {
        ranges.extend(find_all(para, q).into_iter().map(|r| (r, quote)));
    }
    if let Some(term) = term {
        ranges.extend(find_all(para, term).into_iter().map(|r| (r, matched)));
    }
    styled(para, base, &ranges)
}

pub fn render(app: &App, view: &SourceView, area: Rect, buf: &mut Buffer) {
    let frame = big_overlay(area);
    let inner = modal(frame, buf, &app.theme, &format!("Source {}", view.id));
    let text = Rect::new(inner.x, inner.y, inner.width.saturating_sub(1), inner.height);
    let mark = Rect::new(inner.right().saturating_sub(1), inner.y, 1, inner.height);
    let lines = lines(app, view, text.width as usize);
    scrolled(&lines, view.scroll, text, buf, Some((mark, app.theme.muted)));
}
