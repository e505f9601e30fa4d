//! Views: functions of `&App` drawing into a buffer. Nothing here mutates
//! or clones the state; untrusted text is sanitised on its way in.

mod ask;
pub mod bars;
mod breakdown;
pub mod citations;
pub mod help;
mod monitor;
mod overlays;
pub mod reflection;
pub mod report;
pub mod source;
mod timeline;
pub mod widgets;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::app::{App, Overlay, Pane};
use super::layout;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        buf.set_style(area, self.theme.text);
        if layout::too_small(area) {
            render_too_small(self, area, buf);
            return;
        }
        let a = layout::areas(self, area);
        bars::title(self, a.title, buf);
        monitor::Monitor(self).render(a.monitor, buf);
        timeline::Timeline(self).render(a.iterations, buf);
        match self.detail {
            Pane::Citations => citations::Citations(self).render(a.detail, buf),
            Pane::Report => report::ReportPane(self).render(a.detail, buf),
            _ => reflection::ReflectionPane(self).render(a.detail, buf),
        }
        bars::banner(self, a.banner, buf);
        bars::status(self, a.status, buf);
        for overlay in &self.overlays {
            match overlay {
                Overlay::Help { scroll } => help::render(self, *scroll, area, buf),
                Overlay::Ask(modal) => ask::render(self, modal, area, buf),
                Overlay::Steer { cursor } => overlays::steer(self, *cursor, area, buf),
                Overlay::Editor(editor) => overlays::editor(self, editor, area, buf),
                Overlay::Source(view) => source::render(self, view, area, buf),
                Overlay::Breakdown => breakdown::render(self, area, buf),
                Overlay::ConfirmQuit => overlays::confirm_quit(self, area, buf),
            }
        }
    }
}

/// The detail column's frame, its title a tab strip of the three detail panes.
fn detail_block(app: &App, focused: bool) -> ratatui::widgets::Block<'static> {
    use ratatui::text::Span;
    let t = &app.theme;
    let mut spans = vec![Span::raw(" ")];
    for (i, pane) in [Pane::Reflection, Pane::Citations, Pane::Report].into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", t.border));
        }
        let title = match pane {
            Pane::Reflection => match app.shown_iteration() {
                Some(it) => format!("Reflection {}", it.iteration),
                None => "Reflection".to_string(),
            },
            Pane::Citations => format!("Citations {}", app.state.sources.len()),
            _ => report::title(app),
        };
        spans.push(Span::styled(title, if pane == app.detail { t.tab_active } else { t.tab_inactive }));
    }
    spans.push(Span::raw(" "));
    widgets::pane_block(t, Line::from(spans), focused)
}

/// A detail pane's text area and the column for its scroll mark.
fn text_and_mark(area: Rect) -> (Rect, Rect) {
    let body = layout::inner(area);
    let text = Rect::new(body.x, body.y, body.width.saturating_sub(1), body.height);
    let mark = Rect::new(body.right().saturating_sub(1), body.y, 1, body.height);
    (text, mark)
}

fn render_too_small(app: &App, area: Rect, buf: &mut Buffer) {
    let text = vec![
        Line::from(format!("sleuth needs a terminal of at least {}×{}.", layout::MIN_WIDTH, layout::MIN_HEIGHT)),
        Line::from(format!("This one is {}×{}: enlarge it, or press q to quit.", area.width, area.height)),
    ];
    let h = 2.min(area.height);
    let y = area.y + area.height.saturating_sub(h) / 2;
    Paragraph::new(text)
        .style(app.theme.text)
        .wrap(Wrap { trim: true })
        .centered()
        .render(Rect::new(area.x, y, area.width, area.height - (y - area.y)), buf);
}
