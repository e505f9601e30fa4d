//! The ASK modal: the question, its options, and "Other…" with a text box.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::bars::{ask_keys, first_key};
use super::widgets::modal;
use crate::tui::app::{App, AskModal};
use crate::tui::keymap::{Action, Mode};
use crate::tui::layout::centered;
use crate::tui::text::{clean, inline, truncate, wrap};

pub fn render(app: &App, m: &AskModal, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let Some(ask) = app.state.asks.iter().find(|a| a.ask_id == m.ask_id) else { return };
    let width = area.width.saturating_sub(8).min(76);
    let text_w = width.saturating_sub(4) as usize;
    let question = wrap(
        clean(&ask.clarification.question).lines().map(|l| Line::from(Span::styled(l.to_string(), t.modal))).collect(),
        text_w,
    );
    let options = ask.clarification.options.len() + 1;
    let editor_h: u16 = if m.other.is_some() { 5 } else { 0 };
    let height = (question.len() as u16 + 1 + options as u16 + 2 + editor_h + 2).min(area.height.saturating_sub(2));
    let frame = centered(area, width, height);
    let inner = modal(frame, buf, t, &format!("sleuth asks (iteration {})", ask.iteration));
    let body = Rect::new(inner.x + 1, inner.y, inner.width.saturating_sub(2), inner.height);
    let mut y = body.y;
    for line in &question {
        if y >= body.bottom() {
            return;
        }
        buf.set_line(body.x, y, line, body.width);
        y += 1;
    }
    y += 1;
    let labels = ask.clarification.options.iter().map(|o| inline(o)).chain(std::iter::once("Other…".to_string()));
    for (i, label) in labels.enumerate() {
        if y >= body.bottom() {
            return;
        }
        let selected = i == m.cursor;
        let marker = if selected { "▶" } else { " " };
        let text = truncate(&format!("{marker} {}. {label}", i + 1), body.width as usize);
        let style = if selected { t.selection } else { t.modal };
        buf.set_string(body.x, y, text, style);
        if selected {
            buf.set_style(Rect::new(body.x, y, body.width, 1), t.selection);
        }
        y += 1;
    }
    if let Some(editor) = &m.other {
        y += 1;
        let h = editor_h.saturating_sub(1).min(body.bottom().saturating_sub(y));
        if h >= 3 {
            let block = Block::default().borders(Borders::ALL).border_style(t.modal_border).title(" Your answer ");
            let r = Rect::new(body.x, y, body.width, h);
            let inner = block.inner(r);
            block.render(r, buf);
            (&editor.area).render(inner, buf);
        }
    }
    // The status bar's words for the same keys (one list, `ask_keys`).
    let pairs: Vec<String> = ask_keys(app, m).iter().map(|(k, label)| format!("{k} {label}")).collect();
    let mut hint = pairs.join(" · ");
    if m.other.is_none() {
        hint.push_str(&format!(" ({} reopens)", first_key(app, Mode::Control, Action::Answer)));
    }
    buf.set_string(body.x, body.bottom().saturating_sub(1), truncate(&hint, body.width as usize), t.muted);
}
