//! Citations: every source with its id, title, domain or path, tier,
//! kept or rejected (with the reason), and whether its citations verified.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::engine::model::SourceId;
use crate::engine::state::SourceEntry;
use crate::tui::app::{App, Pane, SearchTarget};
use crate::tui::layout::CITATION_FOOTER;
use crate::tui::text::{inline, mark, truncate};

pub struct Citations<'a>(pub &'a App);

/// Whether a source's citations checked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Verified,
    Unsupported,
    /// Cited by the draft; the report is not verified yet.
    Cited,
    NotCited,
}

pub fn check(app: &App, id: SourceId) -> Check {
    let s = &app.state;
    match &s.verification {
        Some(v) if v.unsupported.iter().any(|u| u.source == Some(id)) => Check::Unsupported,
        Some(v) if v.cited.contains(&id) => Check::Verified,
        Some(_) => Check::NotCited,
        None => {
            let cited = app
                .shown_iteration()
                .and_then(|it| it.draft.as_ref())
                .is_some_and(|d| d.claims.iter().any(|c| c.citations.iter().any(|x| x.source == id)));
            if cited { Check::Cited } else { Check::NotCited }
        }
    }
}

/// The status word and its style.
pub fn status(app: &App, e: &SourceEntry) -> (String, Style) {
    let t = &app.theme;
    let id = e.meta.id;
    if app.state.banned.contains(&id) {
        return ("banned".into(), t.banned);
    }
    if app.state.pinned.contains(&id) {
        return ("pinned".into(), t.pinned);
    }
    match &e.verdict {
        Some(v) if v.kept => ("kept".into(), t.kept),
        Some(v) => (format!("rejected: {}", inline(v.reason.as_deref().unwrap_or("no reason"))), t.rejected),
        None => ("new".into(), t.muted),
    }
}

fn row(app: &App, e: &SourceEntry, width: usize) -> Line<'static> {
    let t = &app.theme;
    let (word, style) = status(app, e);
    // Wider panes have room for the rejection reason, then the site.
    let wide = width >= 56;
    let word_w = if wide { 20 } else { 9 };
    let word = if !wide && word.starts_with("rejected") { "rejected".to_string() } else { truncate(&word, word_w - 1) };
    let (sym, sym_style) = match check(app, e.meta.id) {
        Check::Verified => ("✓", t.verified),
        Check::Unsupported => ("✗", t.unverified),
        Check::Cited => ("·", t.citation),
        Check::NotCited => (" ", t.muted),
    };
    let tier = e.meta.tier.map_or("T?".to_string(), |n| format!("T{n}"));
    let title = inline(&e.meta.title);
    let site = if width >= 90 { format!(" — {}", inline(&e.meta.site)) } else { String::new() };
    let room = width.saturating_sub(6 + word_w + 3 + 2 + site.chars().count());
    let line = Line::from(vec![
        Span::styled(format!("{:>5} ", e.meta.id.to_string()), t.citation),
        Span::styled(format!("{word:<word_w$}"), style),
        Span::styled(format!("{tier} "), t.muted),
        Span::styled(format!("{sym} "), sym_style),
        Span::styled(truncate(&title, room), t.text),
        Span::styled(site, t.muted),
    ]);
    mark(line, app.search_term(SearchTarget::Pane(Pane::Citations)), t.search_match)
}

fn footer(app: &App, e: &SourceEntry) -> Vec<Line<'static>> {
    let t = &app.theme;
    let (word, style) = status(app, e);
    let mut second = vec![Span::styled(word, style)];
    if let Some(v) = &e.verdict {
        second.push(Span::styled(format!(" · relevance {:.2}", v.relevance), t.muted));
    }
    let check = match check(app, e.meta.id) {
        Check::Verified => Span::styled(" · quotes verified", t.verified),
        Check::Unsupported => Span::styled(" · a quote was not found", t.unverified),
        Check::Cited => Span::styled(" · cited, not verified yet", t.muted),
        Check::NotCited => Span::styled(" · not cited", t.muted),
    };
    second.push(check);
    vec![
        Line::from(vec![
            Span::styled(inline(&e.meta.site), t.heading),
            Span::styled(format!("  {}", inline(&e.meta.locator)), t.muted),
        ]),
        Line::from(second),
        Line::from(Span::styled(
            format!("found by \"{}\" in iteration {} · enter: read it", inline(&e.meta.query), e.meta.iteration),
            t.muted,
        )),
    ]
}

impl Widget for Citations<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Citations;
        super::detail_block(app, focused).render(area, buf);
        let (body, _) = super::text_and_mark(area);
        let sources = &app.state.sources;
        if sources.is_empty() {
            buf.set_string(body.x, body.y, "no sources yet", t.muted);
            return;
        }
        let list_h = body.height.saturating_sub(CITATION_FOOTER + 1) as usize;
        let cursor = app.cursors.citations.min(sources.len() - 1);
        // Only the visible rows are built: a session may hold thousands.
        let start =
            if sources.len() <= list_h { 0 } else { cursor.saturating_sub(list_h / 2).min(sources.len() - list_h) };
        for (i, e) in sources.iter().enumerate().skip(start).take(list_h) {
            let y = body.y + (i - start) as u16;
            buf.set_line(body.x, y, &row(app, e, body.width as usize), body.width);
            if i == cursor && focused {
                buf.set_style(Rect::new(body.x, y, body.width, 1), t.selection);
            }
        }
        let sep_y = body.y + list_h as u16;
        buf.set_string(body.x, sep_y, "─".repeat(body.width as usize), t.border);
        // What the marks before the titles mean.
        let legend = Line::from(vec![
            Span::styled("─ ", t.border),
            Span::styled("✓", t.verified),
            Span::styled(" verified ", t.muted),
            Span::styled("✗", t.unverified),
            Span::styled(" quote not found ", t.muted),
            Span::styled("·", t.citation),
            Span::styled(" cited, not checked yet ", t.muted),
        ]);
        buf.set_line(body.x, sep_y, &legend, body.width);
        for (i, line) in footer(app, &sources[cursor]).iter().enumerate() {
            buf.set_line(body.x, sep_y + 1 + i as u16, line, body.width);
        }
    }
}
