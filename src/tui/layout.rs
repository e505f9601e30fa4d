//! Where everything goes, as a pure function of the terminal size, shared
//! by the views and by `update` (paging and the document cache need the
//! same widths the frames use).

use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::app::App;

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;
/// Monitor rows plus its border.
const MONITOR_HEIGHT: u16 = 10;
/// The selected source's details under the citations list.
pub const CITATION_FOOTER: u16 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub title: Rect,
    pub monitor: Rect,
    pub iterations: Rect,
    pub detail: Rect,
    pub banner: Rect,
    pub status: Rect,
}

pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

pub fn areas(app: &App, area: Rect) -> Areas {
    let banner_h = u16::from(app.banner.is_some());
    let [title, body, banner, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(banner_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let left_w = if area.width >= 110 { 42 } else { 36 };
    let [left, detail] = Layout::horizontal([Constraint::Length(left_w), Constraint::Min(0)]).areas(body);
    let [monitor, iterations] = Layout::vertical([Constraint::Length(MONITOR_HEIGHT), Constraint::Min(0)]).areas(left);
    Areas { title, monitor, iterations, detail, banner, status }
}

fn screen(app: &App) -> Rect {
    Rect::new(0, 0, app.size.0.max(MIN_WIDTH), app.size.1.max(MIN_HEIGHT))
}

/// The inside of a bordered block.
pub fn inner(r: Rect) -> Rect {
    Rect::new(r.x + 1, r.y + 1, r.width.saturating_sub(2), r.height.saturating_sub(2))
}

/// Text area of the detail column (inside the border, one column kept free
/// for the scroll mark).
pub fn detail_text_area(app: &App) -> Rect {
    let i = inner(areas(app, screen(app)).detail);
    Rect::new(i.x, i.y, i.width.saturating_sub(1), i.height)
}

pub fn detail_text_width(app: &App) -> usize {
    detail_text_area(app).width as usize
}

pub fn detail_text_height(app: &App) -> usize {
    detail_text_area(app).height as usize
}

/// The big centred window used for help and source text.
pub fn big_overlay(area: Rect) -> Rect {
    let w = area.width.saturating_sub(6).min(110);
    let h = area.height.saturating_sub(4);
    centered(area, w, h)
}

pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h)
}

pub fn overlay_text_width(app: &App) -> usize {
    inner(big_overlay(screen(app))).width.saturating_sub(1) as usize
}

pub fn overlay_text_height(app: &App) -> usize {
    inner(big_overlay(screen(app))).height as usize
}
