//! The small windows: steering at a step pause, a text box, quitting.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::widgets::{heading, modal};
use crate::tui::app::{App, Editor};
use crate::tui::layout::centered;
use crate::tui::text::{inline, truncate};

pub fn steer(app: &App, cursor: usize, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let s = &app.state;
    let next = s.iteration() + 1;
    let width = area.width.saturating_sub(10).min(84);
    let text_w = width.saturating_sub(4) as usize;
    let mut lines = vec![heading(t, format!("Queries of iteration {next}"))];
    if s.pending_queries.is_empty() {
        lines.push(Line::from(Span::styled("  (none: the planner will choose)", t.muted)));
    }
    for (i, q) in s.pending_queries.iter().enumerate() {
        let text = truncate(&format!("{} {}. {}", if i == cursor { "▶" } else { " " }, i + 1, inline(&q.text)), text_w);
        lines.push(Line::from(Span::styled(text, if i == cursor { t.selection } else { t.modal })));
    }
    lines.push(Line::default());
    lines.push(heading(t, "Constraints"));
    if s.constraints.is_empty() {
        lines.push(Line::from(Span::styled("  (none yet: n adds a note)", t.muted)));
    }
    for c in s.constraints.iter().rev().take(4).rev() {
        lines.push(Line::from(Span::styled(truncate(&format!("  • {}", inline(c)), text_w), t.modal)));
    }
    let ids = |set: &std::collections::BTreeSet<crate::engine::model::SourceId>| {
        set.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
    };
    lines.push(Line::from(vec![
        Span::styled("  banned ", t.muted),
        Span::styled(ids(&s.banned), t.banned),
        Span::styled("  pinned ", t.muted),
        Span::styled(ids(&s.pinned), t.pinned),
        Span::styled("  (b / p in Citations)", t.muted),
    ]));
    lines.push(Line::default());
    lines.push(Line::from(Span::styled("e edit · d delete · a add query · n add note · s step · esc close", t.muted)));
    let frame = centered(area, width, lines.len() as u16 + 2);
    let inner = modal(frame, buf, t, &format!("Steer · paused after iteration {}", s.iteration()));
    for (i, l) in lines.iter().enumerate().take(inner.height as usize) {
        buf.set_line(inner.x + 1, inner.y + i as u16, l, inner.width.saturating_sub(2));
    }
}

pub fn editor(app: &App, editor: &Editor, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let width = area.width.saturating_sub(10).min(84);
    let frame = centered(area, width, 7);
    let inner = modal(frame, buf, t, &editor.purpose.title());
    let box_area = Rect::new(inner.x + 1, inner.y, inner.width.saturating_sub(2), inner.height.saturating_sub(1));
    let block = Block::default().borders(Borders::ALL).border_style(t.border);
    let text_area = block.inner(box_area);
    block.render(box_area, buf);
    (&editor.area).render(text_area, buf);
    buf.set_string(inner.x + 1, inner.bottom().saturating_sub(1), "enter submit · esc cancel", t.muted);
}

pub fn confirm_quit(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let frame = centered(area, 62, 6);
    let inner = modal(frame, buf, t, "Quit?");
    let lines = [
        "The engine is still working. Quit now?",
        "The session stops here; everything so far is saved",
        "and it can be resumed later.",
        "y quit · n stay",
    ];
    for (i, l) in lines.iter().enumerate().take(inner.height as usize) {
        buf.set_string(inner.x + 1, inner.y + i as u16, *l, if i == 3 { t.status_key } else { t.modal });
    }
}
