//! The iterations timeline: one row per iteration with its decision and reason.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::widgets::pane_block;
use crate::engine::model::Action;
use crate::engine::state::IterationRecord;
use crate::tui::app::{App, Pane};
use crate::tui::doc::reflection::forced_here;
use crate::tui::layout::inner;
use crate::tui::text::truncate;

pub struct Timeline<'a>(pub &'a App);

fn row<'a>(app: &App, it: &IterationRecord, width: usize) -> Line<'a> {
    let t = &app.theme;
    let mut spans = vec![Span::styled(format!("{:>3} ", it.iteration), t.muted)];
    if forced_here(app, it) {
        // `o` overrules the iteration's own decision: the report comes next.
        spans.push(Span::styled(format!("{:<9}", Action::Output.to_string()), t.action(Action::Output)));
        let conf = it.confidence_after().map_or("  -  ".to_string(), |c| format!("{c:.2} "));
        spans.push(Span::styled(conf, t.text));
        spans.push(Span::styled(truncate("forced by you", width.saturating_sub(4 + 9 + 5)), t.muted));
        return Line::from(spans);
    }
    match &it.decision {
        Some(d) => {
            let mut label = d.action.to_string();
            if d.action == Action::Ask {
                let answered =
                    app.state.asks.iter().any(|a| Some(&a.ask_id) == it.ask_id.as_ref() && a.answer.is_some());
                label.push_str(if answered { " ✓" } else { " …" });
            }
            spans.push(Span::styled(format!("{label:<9}"), t.action(d.action)));
            let conf = it.confidence_after().map_or("  -  ".to_string(), |c| format!("{c:.2} "));
            spans.push(Span::styled(conf, t.text));
            let room = width.saturating_sub(4 + 9 + 5);
            spans.push(Span::styled(truncate(d.reason.label(), room), t.muted));
        }
        None => {
            let doing = if app.state.current().map(|c| c.iteration) == Some(it.iteration) && !app.state.is_finished() {
                format!("{}…", app.stage().label())
            } else {
                "(no decision)".to_string()
            };
            spans.push(Span::styled(truncate(&doing, width.saturating_sub(4)), t.muted));
        }
    }
    Line::from(spans)
}

impl Widget for Timeline<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let focused = app.focus == Pane::Iterations;
        let total = app.iteration_count();
        let title = format!(" Iterations ({}/{}) ", app.state.iteration(), app.state.max_iterations().max(total));
        pane_block(t, Line::from(title), focused).render(area, buf);
        let body = inner(area);
        let its = &app.state.iterations;
        if its.is_empty() {
            buf.set_string(body.x, body.y, "waiting for the first plan…", t.muted);
            return;
        }
        let h = body.height as usize;
        let selected = app.selected.unwrap_or(app.state.iteration()).saturating_sub(1) as usize;
        // Keep the selected row in view, the latest at the bottom by default.
        let start = if its.len() <= h { 0 } else { selected.saturating_sub(h - 1).min(its.len() - h) };
        for (i, it) in its.iter().enumerate().skip(start).take(h) {
            let y = body.y + (i - start) as u16;
            let line = row(app, it, body.width as usize);
            buf.set_line(body.x, y, &line, body.width);
            if i == selected {
                buf.set_style(Rect::new(body.x, y, body.width, 1), t.selection);
                buf.set_string(body.x, y, if app.selected.is_some() { "▶" } else { "•" }, t.selection);
            }
        }
    }
}
