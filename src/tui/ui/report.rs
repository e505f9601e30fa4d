//! The draft while researching, then the final report as it streams, with
//! citation ids highlighted; caveats and unsupported claims at the end.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::widgets::{heading, scrolled};
use crate::tui::app::{App, Pane, SearchTarget};
use crate::tui::text::{inline, prose, wrap};

pub struct ReportPane<'a>(pub &'a App);

/// The report is arriving (its end is followed unless scrolled up).
pub fn streaming(app: &App) -> bool {
    app.state.report.is_none() && !app.state.report_stream.is_empty()
}

/// The tab title: what the pane is showing.
pub fn title(app: &App) -> String {
    let s = &app.state;
    if s.report.is_some() {
        "Report".into()
    } else if !s.report_stream.is_empty() {
        "Report…".into()
    } else {
        match app.shown_iteration().filter(|it| it.draft.is_some()) {
            Some(it) => format!("Draft {}", it.iteration),
            None => "Draft".into(),
        }
    }
}

/// The pane's lines wrapped to `width`, search matches marked.
pub fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let s = &app.state;
    let search = app.search_term(SearchTarget::Pane(Pane::Report)).map(|term| (term, t.search_match));
    let mut out = Vec::new();
    let body = if let Some(r) = &s.report {
        let from = r.based_on_iteration.map_or(String::new(), |n| format!(" from the draft of iteration {n}"));
        let verified = match &s.verification {
            Some(v) => format!(" · {} of {} claims verified", v.claims_supported, v.claims_checked),
            None => " · verifying…".to_string(),
        };
        out.push(Line::from(Span::styled(format!("Final report{from}{verified}"), t.heading)));
        r.markdown.as_str()
    } else if !s.report_stream.is_empty() {
        out.push(Line::from(Span::styled("Writing the report…", t.heading)));
        s.report_stream.as_str()
    } else if let Some((n, d)) = app.shown_iteration().and_then(|it| it.draft.as_ref().map(|d| (it.iteration, d))) {
        out.push(Line::from(Span::styled(
            format!("Draft of iteration {n} · {} claims, {} sources cited", d.claims.len(), d.cited_sources().len()),
            t.heading,
        )));
        d.markdown.as_str()
    } else {
        out.push(Line::from(Span::styled("no draft yet", t.muted)));
        ""
    };
    out.push(Line::default());
    out.extend(prose(body, t.text, t.citation, t.heading, search));
    if let Some(r) = &s.report
        && !r.caveats.is_empty()
    {
        out.push(Line::default());
        out.push(heading(t, "Caveats"));
        for c in &r.caveats {
            out.push(Line::from(Span::styled(format!("  • {}", inline(c)), t.severity_medium)));
        }
    }
    if let Some(v) = &s.verification
        && (!v.unsupported.is_empty() || !v.unknown_ids.is_empty())
    {
        out.push(Line::default());
        out.push(heading(t, "Not verified"));
        for u in &v.unsupported {
            let src = u.source.map_or(String::new(), |id| format!(" {id}"));
            out.push(Line::from(vec![
                Span::styled(format!("  ✗{src} "), t.unverified),
                Span::styled(format!("{} — {}", inline(&u.claim), inline(&u.why)), t.text),
            ]));
        }
        for id in &v.unknown_ids {
            out.push(Line::from(Span::styled(format!("  ✗ [{id}] names no retrieved source"), t.unverified)));
        }
    }
    wrap(out, width)
}

impl Widget for ReportPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        super::detail_block(app, app.focus == Pane::Report).render(area, buf);
        let (text_area, mark_col) = super::text_and_mark(area);
        let lines = lines(app, text_area.width as usize);
        let max = lines.len().saturating_sub(text_area.height as usize);
        let scroll = if streaming(app) && app.cursors.report_pinned { max } else { app.cursors.report.min(max) };
        scrolled(&lines, scroll, text_area, buf, Some((mark_col, app.theme.muted)));
    }
}
