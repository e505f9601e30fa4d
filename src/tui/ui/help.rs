//! `?`: every key of every mode, from the keymap in force.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::layout::big_overlay;
use super::widgets::{heading, modal, scrolled};
use crate::tui::app::App;
use crate::tui::keymap::Mode;

fn mode_title(mode: Mode) -> &'static str {
    match mode {
        Mode::Global => "Everywhere [tui.keys.global]",
        Mode::Main => "Moving around [tui.keys.main]",
        Mode::Control => "Controlling a live session [tui.keys.control]",
        Mode::Ask => "A question from sleuth (ASK) [tui.keys.ask]",
        Mode::Steer => "Steering at a step pause [tui.keys.steer]",
        Mode::Editor => "Typing text [tui.keys.editor]",
        Mode::Prompt => "The question prompt [tui.keys.prompt]",
    }
}

pub fn lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = vec![
        Line::from(Span::styled("Keys can be changed in config.toml, section [tui.keys.<mode>].", t.muted)),
        Line::from(Span::styled("ctrl-c always quits; 1-9 pick an answer in the ASK window.", t.muted)),
    ];
    let order = [Mode::Global, Mode::Main, Mode::Control, Mode::Ask, Mode::Steer, Mode::Editor, Mode::Prompt];
    for mode in order {
        out.push(Line::default());
        out.push(heading(t, mode_title(mode)));
        for b in app.keymap.table(mode) {
            let keys = b.keys.iter().map(ToString::to_string).collect::<Vec<_>>().join(" / ");
            out.push(Line::from(vec![
                Span::styled(format!("  {keys:<18}"), t.status_key),
                Span::styled(format!(" {}", b.action.describe()), t.text),
                Span::styled(format!("  ({})", b.name), t.muted),
            ]));
        }
    }
    out
}

pub fn render(app: &App, scroll: usize, area: Rect, buf: &mut Buffer) {
    let frame = big_overlay(area);
    let inner = modal(frame, buf, &app.theme, "Keys");
    let text = Rect::new(inner.x, inner.y, inner.width.saturating_sub(1), inner.height);
    let mark = Rect::new(inner.right().saturating_sub(1), inner.y, 1, inner.height);
    scrolled(&lines(app), scroll, text, buf, Some((mark, app.theme.muted)));
}
