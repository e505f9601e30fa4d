//! The TUI points of issue 27 item 18 on the test backend: the header of a
//! session that has ended, and the ASK window's keys said once.

use crossterm::event::KeyCode;
use sleuth::config::tui::KeyConfig;
use sleuth::engine::model::{Degradation, Role};
use sleuth::tui::sample::{Sample, Stop};
use sleuth::tui::{App, Keymap, Theme};

use super::snapshots::{draw, key, keys};

fn screen(app: &App) -> String {
    draw(app, app.size.0, app.size.1).backend().to_string()
}

/// The sample's state as a session in step mode left it: the header keeps
/// `step_mode` after the end (no event turns it off).
fn ended_in_step_mode(sample: Sample) -> sleuth::engine::SessionState {
    let mut state = sample.state();
    state.step_mode = true;
    state
}

#[test]
fn a_step_mode_session_that_ended_says_so_in_the_header() {
    for (w, h) in [(100, 30), (80, 24)] {
        let app = App::live(ended_in_step_mode(Sample::default()), Theme::default(), Keymap::default()).with_size(w, h);
        insta::assert_snapshot!(format!("ended_in_step_mode_{w}x{h}"), draw(&app, w, h).backend());
        let s = screen(&app);
        let header = s.lines().next().unwrap_or_default();
        assert!(header.contains("ENDED · finished") && !header.contains("step mode"), "{header}");
        // The monitor's iteration row does not claim a mode either.
        let row = s.lines().find(|l| l.contains("iteration  ")).unwrap_or_default();
        assert!(!row.contains("step mode") && !row.contains("auto"), "{row}");
    }
}

#[test]
fn the_header_names_how_the_session_ended() {
    let mut state = ended_in_step_mode(Sample::default());
    state.degraded.push(Degradation::ModelFailed { phases: vec![Role::Draft] });
    let app = App::live(state, Theme::default(), Keymap::default()).with_size(100, 30);
    let s = screen(&app);
    assert!(s.lines().next().unwrap_or_default().contains("ENDED · degraded"), "{s}");
    // Still running: the mode, as before.
    let app =
        App::live(Sample { stop: Stop::Paused, ..Sample::default() }.state(), Theme::default(), Keymap::default())
            .with_size(100, 30);
    assert!(screen(&app).lines().next().unwrap_or_default().contains("LIVE · step mode"));
}

/// Every "key label" pair the status bar shows for the ASK window is on
/// the window too, worded the same.
fn assert_one_wording(app: &App) {
    let s = screen(app);
    let lines: Vec<&str> = s.lines().collect();
    let status = lines.last().copied().unwrap_or_default();
    let hints = sleuth::tui::ui::bars::hints(app);
    let window = lines[..lines.len() - 1].join("\n");
    let quit = hints.last().map(|h| h.1);
    for (k, label) in &hints {
        let said = format!("{k} {label}");
        assert!(status.contains(&said), "status bar lacks `{said}`: {status}");
        if Some(*label) != quit {
            assert!(window.contains(&said), "the window lacks `{said}`:\n{window}");
        }
    }
}

#[test]
fn the_ask_window_and_the_status_bar_say_the_same_keys() {
    let sample = Sample { stop: Stop::AskOpen, answered_ask_at: Some(1), ..Sample::default() };
    let mut app = App::live(sample.state(), Theme::default(), Keymap::default()).with_size(100, 30);
    assert_one_wording(&app);
    let s = screen(&app);
    assert!(s.contains("enter answer") && !s.contains("enter open"), "{s}");
    // "Other…": the text box's keys, the same way.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "only Result");
    assert_one_wording(&app);
}

#[test]
fn the_ask_window_shows_the_keys_the_user_bound() {
    let mut config = KeyConfig::default();
    config.ask.choose = vec!["space".into()];
    config.ask.hide = vec!["ctrl-h".into()];
    let keymap = Keymap::from_config(&config).expect("valid keys");
    let sample = Sample { stop: Stop::AskOpen, answered_ask_at: Some(1), ..Sample::default() };
    let app = App::live(sample.state(), Theme::default(), keymap).with_size(100, 30);
    let s = screen(&app);
    let window: Vec<&str> = s.lines().filter(|l| l.contains("1-9 choose") && l.contains('║')).collect();
    assert_eq!(window.len(), 1, "{s}");
    assert!(window[0].contains("space answer") && window[0].contains("ctrl-h later"), "{}", window[0]);
    assert!(!window[0].contains("enter") && !window[0].contains("esc"), "{}", window[0]);
    assert_one_wording(&app);
}

/// 27.18 on the real binary in tmux: a session recorded in step mode,
/// forked with `--theme`, continues in the TUI in that theme; stepped to its
/// end, the header says it ended instead of `LIVE · step mode`.
#[test]
fn a_fork_with_a_theme_steps_to_its_end_in_the_tui_and_the_header_says_it_ended() {
    use std::time::{Duration, Instant};

    use super::tmux::{self, Tmux};
    if crate::support::bin::missing_tool("tmux", tmux::available(), "apt-get install tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let corpus = home.join("corpus");
    crate::support::e2e::write_corpus(&corpus);
    let flag = format!("local.corpus={}", corpus.display());
    let question = "How does widget 3 connect to its gadget?";
    let config = format!(
        "[research]\nstep_mode = true\n[limits]\nmax_iterations = 2\n[decide]\nconfidence_threshold = 1.0\n[local]\ncorpus = {:?}\n",
        corpus.display().to_string()
    );
    std::fs::write(home.join("config.toml"), config).unwrap();
    // Headless, step mode runs on: nobody can step without a terminal.
    let ran = crate::support::bin::sleuth(home, &["run", "--set", &flag, question]);
    assert!(matches!(ran.code, Some(0) | Some(4)), "{}", ran.stderr);
    let id = crate::support::e2e::session_ids(home).pop().expect("the session");

    let t = Tmux::start("fork-theme", home, &["fork", &id, "--from", "1", "--theme", "light"], 100, 30);
    t.wait_for(&["LIVE", question], Duration::from_secs(20));
    // The light theme's title bar (#005faf), not the dark one's.
    let styled = t.styled_screen();
    let title = styled.lines().next().unwrap_or_default();
    assert!(title.contains("48;2;0;95;175"), "the title bar is not in the light theme: {title:?}");
    // Step until it ends.
    let deadline = Instant::now() + Duration::from_secs(60);
    let ended = loop {
        let screen = t.screen();
        if screen.lines().next().is_some_and(|l| l.contains("ENDED")) {
            break screen;
        }
        if screen.contains("paused (step mode)") {
            t.keys(&["s"]);
        }
        assert!(Instant::now() < deadline, "the fork did not end:\n{screen}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let header = ended.lines().next().unwrap_or_default();
    assert!(!header.contains("step mode") && !header.contains("LIVE"), "{header}");
    assert!(header.contains("ENDED · finished") || header.contains("ENDED · unanswered"), "{header}");
    t.keys(&["q"]);
    let bye = t.wait_for(&["[exit"], Duration::from_secs(20));
    assert!(bye.contains("session saved:"), "{bye}");
}
