//! insta snapshots of the whole screen on `TestBackend`, at 100×30 and
//! 80×24, for every pane and mode; states are folded from sample events.
//! Theme snapshots record styles too (the buffer's Debug form).

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::Widget;
use sleuth::config::Preset;
use sleuth::engine::model::SourceId;
use sleuth::engine::protocol::{Event, EventRecord};
use sleuth::engine::tiers::SourceMode;
use sleuth::session::list::Status;
use sleuth::tui::picker::{Picker, SessionSummary};
use sleuth::tui::prompt::Prompt;
use sleuth::tui::sample::{Sample, Stop, source_text};
use sleuth::tui::{App, Keymap, Msg, Theme};

pub fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    terminal
}

fn draw_widget(w: u16, h: u16, widget: impl Widget) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(widget, f.area())).unwrap();
    terminal
}

pub fn live(sample: Sample, w: u16, h: u16) -> App {
    App::live(sample.state(), Theme::default(), Keymap::default()).with_size(w, h)
}

pub fn key(app: &mut App, code: KeyCode) {
    app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

pub fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn both(name: &str, make: impl Fn(u16, u16) -> App) {
    for (w, h) in [(100, 30), (80, 24)] {
        let app = make(w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), draw(&app, w, h).backend());
    }
}

fn sample(stop: Stop) -> Sample {
    Sample { stop, answered_ask_at: Some(1), ..Sample::default() }
}

#[test]
fn running() {
    both("running", |w, h| live(sample(Stop::Searching), w, h));
}

#[test]
fn streaming_report() {
    both("streaming_report", |w, h| live(Sample { stop: Stop::Writing, ..Sample::default() }, w, h));
}

#[test]
fn step_pause() {
    both("step_pause", |w, h| live(sample(Stop::Paused), w, h));
}

#[test]
fn steering_panel() {
    both("steering_panel", |w, h| {
        let mut app = live(sample(Stop::Paused), w, h);
        keys(&mut app, "ej");
        app
    });
}

#[test]
fn ask_modal() {
    both("ask_modal", |w, h| live(sample(Stop::AskOpen), w, h));
}

#[test]
fn free_text_answer() {
    both("free_text_answer", |w, h| {
        let mut app = live(sample(Stop::AskOpen), w, h);
        key(&mut app, KeyCode::Down);
        key(&mut app, KeyCode::Down);
        key(&mut app, KeyCode::Enter);
        keys(&mut app, "only Result, please");
        app
    });
}

#[test]
fn finished_report() {
    both("finished_report", |w, h| live(sample(Stop::Finished), w, h));
}

#[test]
fn each_pane_focused() {
    for (name, tabs) in [("monitor", 4), ("reflection", 1), ("citations", 2), ("report", 3)] {
        both(&format!("pane_{name}"), |w, h| {
            let mut app = live(sample(Stop::Finished), w, h);
            for _ in 0..tabs {
                key(&mut app, KeyCode::Tab);
            }
            app
        });
    }
}

#[test]
fn confidence_breakdown() {
    both("confidence_breakdown", |w, h| {
        let mut app = live(sample(Stop::Paused), w, h);
        keys(&mut app, "c");
        app
    });
}

/// The breakdown of a calibrated confidence: the components, then the fitted
/// mapping term by term (fixed coefficients here, so a refit of the
/// defaults does not change the snapshot).
#[test]
fn confidence_breakdown_with_its_calibration() {
    use sleuth::engine::calibration::CalibrationSettings;
    use sleuth::engine::model::ConfidenceCalibration;
    let settings = CalibrationSettings {
        enabled: true,
        intercept: -5.0,
        coefficients: [
            ("answer_relevance", 1.0),
            ("coverage", 0.6),
            ("opening_relevance", 2.6),
            ("agreed_name_sources", 2.2),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        fitted_on: "a test".into(),
        applies_to: Default::default(),
    };
    both("confidence_breakdown_calibrated", |w, h| {
        let mut state = sample(Stop::Paused).state();
        let e = state.iterations.last_mut().and_then(|it| it.evaluation.as_mut()).unwrap();
        let features: std::collections::BTreeMap<String, f64> = [
            ("answer_relevance", 0.8),
            ("coverage", 1.0),
            ("opening_relevance", 0.85),
            ("agreed_name_sources", 3f64.ln()),
            ("citation_density", 0.7),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mapping = settings.apply(&features);
        e.confidence = mapping.probability;
        e.calibration = Some(ConfidenceCalibration { features, mapping: Some(mapping) });
        let mut app = App::live(state, Theme::default(), Keymap::default()).with_size(w, h);
        keys(&mut app, "c");
        app
    });
}

#[test]
fn review_at_an_early_iteration() {
    both("review_early", |w, h| {
        let records = Sample { iterations: 4, answered_ask_at: Some(2), ..Sample::default() }.records();
        let mut app = App::review(records, Theme::default(), Keymap::default()).with_size(w, h);
        key(&mut app, KeyCode::Left);
        key(&mut app, KeyCode::Left);
        app
    });
}

/// Iteration 1 in review, reflection focused: the lessons its plan was
/// given, one line each (a hostile one drawn as plain text), and the
/// monitor's stage row whole.
#[test]
fn review_lessons_from_memory() {
    both("review_lessons", |w, h| {
        let lessons = vec![
            "The draft cited a forum post as if it were the reference documentation for the ? operator".into(),
            "Missed \u{1b}[31mthe From\u{7} impl\u{1b}]0;pwned\u{7} that the conversion relies on".into(),
        ];
        let records = Sample { lessons, ..Sample::default() }.records();
        let mut app = App::review(records, Theme::default(), Keymap::default()).with_size(w, h);
        key(&mut app, KeyCode::Left);
        key(&mut app, KeyCode::Left);
        key(&mut app, KeyCode::Tab);
        app
    });
}

#[test]
fn help() {
    both("help", |w, h| {
        let mut app = live(sample(Stop::Paused), w, h);
        keys(&mut app, "?");
        app
    });
}

#[test]
fn engine_error_banner_and_quit_confirmation() {
    both("error_banner_confirm_quit", |w, h| {
        let mut app = live(sample(Stop::Searching), w, h);
        let record = EventRecord {
            seq: app.state.last_seq + 1,
            at_ms: 0,
            elapsed_ms: app.state.elapsed_ms,
            event: Event::Error {
                phase: sleuth::engine::model::Phase::Search,
                message: "local index: disk full".into(),
            },
        };
        app.update(Msg::Engine(Box::new(record)));
        keys(&mut app, "q");
        app
    });
}

#[test]
fn too_small_terminal() {
    let app = live(sample(Stop::Paused), 60, 20);
    insta::assert_snapshot!("too_small_60x20", draw(&app, 60, 20).backend());
}

#[test]
fn source_text_is_drawn_as_plain_text_with_quotes_highlighted() {
    both("source_hostile", |w, h| {
        let mut app = live(Sample { hostile_source: true, ..Sample::default() }, w, h);
        key(&mut app, KeyCode::Tab);
        key(&mut app, KeyCode::Tab);
        keys(&mut app, "j");
        key(&mut app, KeyCode::Enter);
        app.update(Msg::SourceLoaded { id: SourceId(2), text: Some(source_text(2, true)) });
        app
    });
    // No escape byte or its payload survives anywhere on screen.
    let mut app = live(Sample { hostile_source: true, ..Sample::default() }, 100, 30);
    app.update(Msg::SourceLoaded { id: SourceId(2), text: Some(source_text(2, true)) });
    for keys_in in ["", "\t\tj\n"] {
        for c in keys_in.chars() {
            let code = match c {
                '\t' => KeyCode::Tab,
                '\n' => KeyCode::Enter,
                c => KeyCode::Char(c),
            };
            key(&mut app, code);
        }
        app.update(Msg::SourceLoaded { id: SourceId(2), text: Some(source_text(2, true)) });
        let t = draw(&app, 100, 30);
        let screen = t.backend().to_string();
        assert!(!screen.contains('\u{1b}') && !screen.contains('\u{7}'), "{screen}");
        assert!(!screen.contains("pwned") && !screen.contains("[2J"), "{screen}");
    }
}

#[test]
fn question_prompt() {
    let mut p = Prompt::new(Theme::default(), Keymap::default(), Preset::Standard, SourceMode::Discovery, true);
    p.update(Msg::Paste("What is the orphan rule,\nand why does it exist?".into()));
    insta::assert_snapshot!("prompt_100x30", draw_widget(100, 30, &p).backend());
    insta::assert_snapshot!("prompt_80x24", draw_widget(80, 24, &p).backend());
}

#[test]
fn session_picker() {
    let s = |id: &str, status: Status, q: &str, problem: Option<&str>| SessionSummary {
        id: id.into(),
        path: PathBuf::from(id),
        question: q.into(),
        status,
        problem: problem.map(str::to_string),
    };
    let sessions = vec![
        s("20260103-101500-9f3e", Status::WaitingOnAsk, "Which ? do you mean", None),
        s("20260102-090000-1a2b", Status::Damaged, "", Some("events.jsonl, line 1: damaged event (expected value)")),
        s("20260101-000000-abcd", Status::Finished, "How does the ? operator convert errors in Rust?", None),
    ];
    let p = Picker::new(
        Theme::default(),
        Keymap::default(),
        PathBuf::from("/home/me/.local/share/sleuth/sessions"),
        sessions,
    );
    insta::assert_snapshot!("picker_100x30", draw_widget(100, 30, &p).backend());
    insta::assert_snapshot!("picker_80x24", draw_widget(80, 24, &p).backend());
}

/// `/` in the picker: typing narrows the list (id or question, any case),
/// enter keeps the filter and opens from the narrowed list, esc clears it.
#[test]
fn session_picker_filter() {
    let s = |id: &str, q: &str| SessionSummary {
        id: id.into(),
        path: PathBuf::from(id),
        question: q.into(),
        status: Status::Finished,
        problem: None,
    };
    let sessions = vec![
        s("20260103-101500-9f3e", "Which trait objects are dyn compatible?"),
        s("20260102-090000-1a2b", "What does the ? OPERATOR desugar to?"),
        s("20260101-000000-abcd", "How does the ? operator convert errors?"),
    ];
    let mut p = Picker::new(Theme::default(), Keymap::default(), PathBuf::from("/sessions"), sessions);
    let press = |p: &mut Picker, code: KeyCode| p.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    press(&mut p, KeyCode::Char('/'));
    for c in "operator".chars() {
        press(&mut p, KeyCode::Char(c));
    }
    insta::assert_snapshot!("picker_filter_typing_80x24", draw_widget(80, 24, &p).backend());
    press(&mut p, KeyCode::Enter);
    assert_eq!(p.shown().len(), 2);
    press(&mut p, KeyCode::Char('j'));
    let opened = press(&mut p, KeyCode::Enter);
    assert_eq!(opened, vec![sleuth::tui::Effect::Open(PathBuf::from("20260101-000000-abcd"))]);
    press(&mut p, KeyCode::Esc);
    assert_eq!(p.shown().len(), 3, "esc clears the filter");
    press(&mut p, KeyCode::Char('/'));
    for c in "zzz".chars() {
        press(&mut p, KeyCode::Char(c));
    }
    let screen = draw_widget(80, 24, &p).backend().to_string();
    assert!(screen.contains("No session matches `zzz`"), "{screen}");
}

#[test]
fn each_theme_once_with_styles() {
    for name in ["dark", "light", "high-contrast"] {
        let theme = Theme::builtin(name).unwrap();
        let app = App::live(sample(Stop::Paused).state(), theme, Keymap::default()).with_size(80, 24);
        let t = draw(&app, 80, 24);
        insta::assert_debug_snapshot!(format!("theme_{name}"), t.backend().buffer());
    }
}
