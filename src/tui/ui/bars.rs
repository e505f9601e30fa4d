//! The title bar, the banner and the status bar with the keys of the moment.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::engine::Stage;
use crate::tui::app::{App, AskModal, Banner, Engine, Overlay, Pane};
use crate::tui::keymap::{Action, Mode};
use crate::tui::text::{inline, truncate, width};

pub fn title(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    buf.set_style(area, t.title);
    let mode = match &app.review {
        Some(r) => format!(" REVIEW {} of {} ", r.at, r.iterations()),
        None => format!(" {} ", app.live_mode()),
    };
    let id = app.state.header.as_ref().map(|h| inline(&h.session_id)).unwrap_or_default();
    let fixed = width(" sleuth ") + width(&mode) + width(&id) + 3;
    let question = truncate(&inline(app.state.question()), (area.width as usize).saturating_sub(fixed));
    let line = Line::from(vec![
        Span::styled(" sleuth ", t.title),
        Span::styled(mode, t.title),
        Span::styled(format!(" {question}"), t.title),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
    let x = area.right().saturating_sub(width(&id) as u16 + 1);
    if x > area.x + fixed as u16 {
        buf.set_string(x, area.y, &id, t.title);
    }
}

pub fn banner(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(b) = &app.banner else { return };
    if area.height == 0 {
        return;
    }
    let (style, text) = match b {
        Banner::Error(m) => (app.theme.banner_error, format!(" ⚠ {}  (esc to dismiss)", inline(m))),
        Banner::Info(m) => (app.theme.banner_info, format!(" {}", inline(m))),
    };
    buf.set_style(area, style);
    buf.set_string(area.x, area.y, truncate(&text, area.width as usize), style);
}

/// (keys, label) pairs for the status bar, for whatever has the keys now.
pub fn hints(app: &App) -> Vec<(String, &'static str)> {
    let k = |mode: Mode, action: Action| (first_key(app, mode, action), action.short());
    match app.overlays.last() {
        Some(Overlay::Ask(m)) if m.other.is_some() => ask_keys(app, m),
        Some(Overlay::Ask(m)) => {
            let mut keys = ask_keys(app, m);
            keys.push(k(Mode::Global, Action::Quit));
            keys
        }
        Some(Overlay::Steer { .. }) => vec![
            k(Mode::Steer, Action::EditQuery),
            k(Mode::Steer, Action::DeleteQuery),
            k(Mode::Steer, Action::AddQuery),
            k(Mode::Steer, Action::AddNote),
            k(Mode::Steer, Action::Step),
            k(Mode::Steer, Action::Back),
        ],
        Some(Overlay::Editor(_)) => vec![k(Mode::Editor, Action::Submit), k(Mode::Editor, Action::Back)],
        Some(Overlay::Source(_)) => vec![
            ("↑↓".into(), "scroll"),
            k(Mode::Main, Action::Search),
            k(Mode::Main, Action::SearchNext),
            k(Mode::Global, Action::Back),
        ],
        Some(Overlay::Help { .. }) | Some(Overlay::Breakdown) => {
            vec![("↑↓".into(), "scroll"), k(Mode::Global, Action::Back)]
        }
        Some(Overlay::ConfirmQuit) => vec![("y".into(), "quit"), ("n".into(), "stay")],
        None => main_hints(app),
    }
}

/// The ASK window's keys as (keys, label): the window's hint line and the
/// status bar both show these, so the two never word them differently.
pub fn ask_keys(app: &App, m: &AskModal) -> Vec<(String, &'static str)> {
    let k = |mode: Mode, action: Action, label| (first_key(app, mode, action), label);
    if m.other.is_some() {
        vec![
            k(Mode::Editor, Action::Submit, "answer"),
            k(Mode::Editor, Action::Newline, "new line"),
            k(Mode::Editor, Action::Back, "back"),
        ]
    } else {
        vec![("↑↓/1-9".into(), "choose"), k(Mode::Ask, Action::Open, "answer"), k(Mode::Ask, Action::Back, "later")]
    }
}

fn main_hints(app: &App) -> Vec<(String, &'static str)> {
    let k = |mode: Mode, action: Action| (first_key(app, mode, action), action.short());
    let mut out = Vec::new();
    if app.is_live() && app.engine == Engine::Attached && !app.state.is_finished() {
        if app.state.open_ask().is_some() {
            out.push(k(Mode::Control, Action::Answer));
        }
        out.push(k(Mode::Control, Action::Step));
        out.push(k(Mode::Control, Action::Auto));
        if app.stage() == Stage::Paused {
            out.push(k(Mode::Control, Action::Steer));
        }
        out.push(k(Mode::Control, Action::ForceOutput));
        out.push(k(Mode::Control, Action::Cancel));
        if app.focus == Pane::Citations {
            out.push(k(Mode::Control, Action::Ban));
            out.push(k(Mode::Control, Action::Pin));
        }
    } else {
        out.push((
            format!(
                "{}/{}",
                first_key(app, Mode::Main, Action::IterationPrev),
                first_key(app, Mode::Main, Action::IterationNext)
            ),
            "iteration",
        ));
    }
    out.push(k(Mode::Main, Action::FocusNext));
    if app.focus == Pane::Citations {
        out.push(k(Mode::Main, Action::Open));
    }
    out.push(k(Mode::Main, Action::Search));
    out.push(k(Mode::Global, Action::Help));
    out.push(k(Mode::Global, Action::Quit));
    out
}

pub(super) fn first_key(app: &App, mode: Mode, action: Action) -> String {
    app.keymap
        .table(mode)
        .iter()
        .find(|b| b.action == action)
        .and_then(|b| b.keys.first())
        .map(ToString::to_string)
        .unwrap_or_else(|| "-".into())
}

pub fn status(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    buf.set_style(area, t.status_bar);
    let hints = hints(app);
    let stage = app.stage_label();
    let sw = width(&stage) as u16 + 2;
    let cost = |(k, l): &(String, &str)| width(k) + width(l) + 3;
    // The last two (help and quit, or the window's way out) and the stage
    // always show; others are left out, whole, when the bar is too narrow.
    let tail: usize = hints.iter().rev().take(2).map(cost).sum();
    let room = (area.width as usize).saturating_sub(tail + sw as usize);
    let mut used = 0;
    let mut spans = Vec::new();
    for (i, h) in hints.iter().enumerate() {
        let is_tail = i + 2 >= hints.len();
        if !is_tail && used + cost(h) > room {
            continue;
        }
        used += cost(h);
        spans.push(Span::styled(format!(" {}", h.0), t.status_key));
        spans.push(Span::styled(format!(" {} ", h.1), t.status_bar));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    if area.width > sw && used as u16 + sw < area.width {
        buf.set_string(area.right() - sw, area.y, format!(" {stage} "), t.status_key);
    }
}
