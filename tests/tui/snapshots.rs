//! insta snapshots of the whole screen on `TestBackend`, at 100×30 and
//! 80×24, for every pane and mode. States are folded from sample events.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sleuth::tui::sample::{Sample, Stop};
use sleuth::tui::{App, Keymap, Msg, Theme};

pub fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    terminal
}

pub fn live(sample: Sample, w: u16, h: u16) -> App {
    App::live(sample.state(), Theme::default(), Keymap::default()).with_size(w, h)
}

pub fn press(app: &mut App, keys: &[KeyCode]) {
    for k in keys {
        app.update(Msg::Key(KeyEvent::new(*k, KeyModifiers::NONE)));
    }
}

fn both(name: &str, make: impl Fn(u16, u16) -> App) {
    for (w, h) in [(100, 30), (80, 24)] {
        let app = make(w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), draw(&app, w, h).backend());
    }
}

#[test]
fn running() {
    both("running", |w, h| live(Sample { stop: Stop::Searching, ..Sample::default() }, w, h));
}

#[test]
fn step_pause() {
    both("step_pause", |w, h| live(Sample { stop: Stop::Paused, ..Sample::default() }, w, h));
}

#[test]
fn ask_modal() {
    both("ask_modal", |w, h| live(Sample { stop: Stop::AskOpen, ..Sample::default() }, w, h));
}

#[test]
fn finished_report() {
    both("finished_report", |w, h| live(Sample::default(), w, h));
}
