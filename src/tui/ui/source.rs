//! The source window: a source's stored text (`doc::source`), drawn from
//! the cache, with search matches marked.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::widgets::{modal, scrolled};
use crate::tui::app::{App, SearchTarget, SourceView};
use crate::tui::layout::big_overlay;

pub fn render(app: &App, view: &SourceView, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let frame = big_overlay(area);
    let inner = modal(frame, buf, t, &format!("Source {}", view.id));
    let text = Rect::new(inner.x, inner.y, inner.width.saturating_sub(1), inner.height);
    let mark = Rect::new(inner.right().saturating_sub(1), inner.y, 1, inner.height);
    let term = app.search_term(SearchTarget::Source).map(|s| (s, t.search_match));
    let doc = app.source_doc(view, text.width as usize);
    scrolled(&doc.lines, view.scroll, text, buf, Some((mark, t.muted)), term);
}
