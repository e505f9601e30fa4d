//! `?`: every key of every mode (the lines are `doc::help`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::widgets::{modal, scrolled};
use crate::tui::app::App;
use crate::tui::doc;
use crate::tui::layout::big_overlay;

pub fn render(app: &App, scroll: usize, area: Rect, buf: &mut Buffer) {
    let frame = big_overlay(area);
    let inner = modal(frame, buf, &app.theme, "Keys");
    let text = Rect::new(inner.x, inner.y, inner.width.saturating_sub(1), inner.height);
    let mark = Rect::new(inner.right().saturating_sub(1), inner.y, 1, inner.height);
    scrolled(&doc::help::lines(app), scroll, text, buf, Some((mark, app.theme.muted)), None);
}
