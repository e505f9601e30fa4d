//! `?`: every key of every mode, from the keymap in force.

use ratatui::text::{Line, Span};

use crate::tui::app::App;
use crate::tui::keymap::Mode;
use crate::tui::theme::heading;

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

/// The help window's lines (not wrapped: each fits the window).
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut out = vec![
        Line::from(Span::styled("Keys can be changed in config.toml, section [tui.keys.<mode>].", t.muted)),
        Line::from(Span::styled("ctrl-c always quits; 1-9 pick an answer in the ASK window.", t.muted)),
        Line::default(),
        heading(t, "Marks in the Citations pane"),
        Line::from(vec![Span::styled("  ✓", t.verified), Span::styled(" its quotes were found in the source", t.text)]),
        Line::from(vec![Span::styled("  ✗", t.unverified), Span::styled(" a quote was not found in it", t.text)]),
        Line::from(vec![Span::styled("  ·", t.citation), Span::styled(" cited by the draft, not checked yet", t.text)]),
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
