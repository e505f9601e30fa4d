//! The draft while researching, then the final report as it streams (the
//! document is `doc::report`, drawn from the cache).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::widgets::scrolled;
use crate::tui::app::{App, Pane, SearchTarget};
use crate::tui::doc::DocKind;
use crate::tui::doc::report::{streaming, viewing_earlier};

pub struct ReportPane<'a>(pub &'a App);

/// The tab title: what the pane is showing.
pub fn title(app: &App) -> String {
    let s = &app.state;
    let earlier = viewing_earlier(app);
    if s.report.is_some() && !earlier {
        "Report".into()
    } else if !s.report_stream.is_empty() && !earlier {
        "Report…".into()
    } else {
        match app.shown_iteration().filter(|it| it.draft.is_some()) {
            Some(it) => format!("Draft {}", it.iteration),
            None => "Draft".into(),
        }
    }
}

impl Widget for ReportPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        super::detail_block(app, app.focus == Pane::Report).render(area, buf);
        let (text_area, mark_col) = super::text_and_mark(area);
        let doc = app.doc(DocKind::Report, text_area.width as usize);
        let max = doc.len().saturating_sub(text_area.height as usize);
        let scroll = if streaming(app) && app.cursors.report_pinned { max } else { app.cursors.report.min(max) };
        let term = app.search_term(SearchTarget::Pane(Pane::Report)).map(|s| (s, t.search_match));
        scrolled(&doc.lines, scroll, text_area, buf, Some((mark_col, t.muted)), term);
    }
}
