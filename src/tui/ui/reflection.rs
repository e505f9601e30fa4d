//! The reflection pane: the shown iteration's document (see
//! `doc::reflection`), drawn from the cache.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::widgets::scrolled;
use crate::tui::app::{App, Pane, SearchTarget};
use crate::tui::doc::DocKind;

pub struct ReflectionPane<'a>(pub &'a App);

impl Widget for ReflectionPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Reflection;
        super::detail_block(app, focused).render(area, buf);
        let (text_area, mark_col) = super::text_and_mark(area);
        let doc = app.doc(DocKind::Reflection, text_area.width as usize);
        let term = app.search_term(SearchTarget::Pane(Pane::Reflection)).map(|s| (s, t.search_match));
        scrolled(&doc.lines, app.cursors.reflection, text_area, buf, Some((mark_col, t.muted)), term);
    }
}
