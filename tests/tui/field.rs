//! The TUI points of issue 16 item 19, each on the test backend where the
//! user meets it: the screen as drawn, not the state behind it.

use crossterm::event::KeyCode;
use sleuth::engine::protocol::{Event, EventRecord, Steer};
use sleuth::tui::sample::{Sample, Stop};
use sleuth::tui::{App, Msg};

use super::snapshots::{draw, key, live};

fn screen(app: &App) -> String {
    draw(app, app.size.0, app.size.1).backend().to_string()
}

fn feed(app: &mut App, event: Event) {
    let record = EventRecord { seq: app.state.last_seq + 1, at_ms: 0, elapsed_ms: app.state.elapsed_ms, event };
    app.update(Msg::Engine(Box::new(record)));
}

/// The rows of the screen that contain `needle`.
fn rows_with(screen: &str, needle: &str) -> Vec<String> {
    screen.lines().filter(|l| l.contains(needle)).map(str::to_string).collect()
}

#[test]
fn h_in_a_live_session_moves_the_report_pane_and_the_monitor_to_that_iteration() {
    let mut app = live(Sample { stop: Stop::Paused, ..Sample::default() }, 100, 30);
    let latest = screen(&app);
    assert!(latest.contains("Draft 3") && latest.contains("3 of"), "{latest}");
    key(&mut app, KeyCode::Char('h'));
    for _ in 0..3 {
        key(&mut app, KeyCode::Tab);
    }
    let s = screen(&app);
    assert!(s.contains("Draft of iteration 2"), "the report pane follows: {s}");
    assert!(s.contains("2 of") && s.contains("viewing, now 3"), "the monitor follows: {s}");
    let conf2 = format!("{:.2}", app.state.iteration_record(2).unwrap().evaluation.as_ref().unwrap().confidence);
    let confidence_row = rows_with(&s, "confidence").join("\n");
    assert!(confidence_row.contains(&conf2), "confidence of iteration 2 ({conf2}): {confidence_row}");
}

#[test]
fn after_o_the_iteration_row_reads_output() {
    let mut app = live(Sample { stop: Stop::Paused, ..Sample::default() }, 100, 30);
    assert_eq!(rows_with(&screen(&app), "3 CONTINUE").len(), 1);
    feed(&mut app, Event::OutputForced);
    let s = screen(&app);
    let row = rows_with(&s, "forced by you");
    assert_eq!(row.len(), 1, "{s}");
    assert!(row[0].contains("3 OUTPUT") && !row[0].contains("CONTINUE"), "{}", row[0]);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::End);
    let s = screen(&app);
    assert!(s.contains("Output forced"), "the reflection says so too: {s}");
}

#[test]
fn markdown_emphasis_is_drawn_not_shown_as_underscores() {
    let mut app = live(Sample { stop: Stop::Writing, report_chunks: 1, ..Sample::default() }, 100, 30);
    feed(&mut app, Event::ReportDelta { text: "\n\n_This answer is extractive: **no model** wrote it._\n".into() });
    let s = screen(&app);
    assert!(s.contains("This answer is extractive: no model wrote it."), "{s}");
    assert!(!s.contains("_This") && !s.contains("**"), "{s}");
}

#[test]
fn refinement_lines_show_only_what_they_have_and_counts_agree() {
    let mut app = live(Sample { stop: Stop::Paused, ..Sample::default() }, 100, 30);
    // Iteration 2 of the sample: one critique issue, one duplicate.
    key(&mut app, KeyCode::Char('h'));
    app.focus = sleuth::tui::app::Pane::Reflection;
    let mut text = String::new();
    // Scroll through the whole reflection of the last iteration.
    for _ in 0..6 {
        text.push_str(&screen(&app));
        key(&mut app, KeyCode::PageDown);
    }
    assert!(text.contains("· 1 issue") && !text.contains("1 issues"), "{text}");
    assert!(!text.contains("1 duplicates"), "{text}");
    assert!(!text.contains("[]"), "no empty keyword lists: {text}");
}

#[test]
fn the_plan_shows_the_steering_beside_it() {
    let mut app = live(Sample { stop: Stop::Paused, ..Sample::default() }, 100, 30);
    feed(&mut app, Event::Steered { edit: Steer::AddNote { text: "only the 2021 edition".into() } });
    key(&mut app, KeyCode::Tab);
    let s = screen(&app);
    assert!(s.contains("your answers and notes") && s.contains("only the 2021 edition"), "{s}");
}

#[test]
fn citation_marks_are_explained() {
    let mut app = live(Sample::default(), 100, 30);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    let s = screen(&app);
    assert!(s.contains("✓ verified") && s.contains("✗ quote not found") && s.contains("· cited"), "{s}");
    key(&mut app, KeyCode::Char('?'));
    let help = screen(&app);
    assert!(help.contains("Marks in the Citations pane") && help.contains("✓ its quotes were found"), "{help}");
}

#[test]
fn the_breakdown_names_the_aspects_it_counts() {
    let mut app = live(Sample { stop: Stop::Paused, ..Sample::default() }, 100, 30);
    // Iteration 2 of the sample covers three of its four aspects.
    key(&mut app, KeyCode::Char('h'));
    key(&mut app, KeyCode::Char('c'));
    let s = screen(&app);
    let covered = rows_with(&s, "covered:").join("");
    let missing = rows_with(&s, "missing:").join("");
    assert!(covered.contains("aspect 1") && covered.contains("aspect 3"), "{s}");
    assert!(missing.contains("aspect 4") && !missing.contains("aspect 1"), "{s}");
}

#[test]
fn the_status_bar_keeps_the_stage_with_ban_and_pin_at_120_columns() {
    let mut app = live(Sample { stop: Stop::Paused, ..Sample::default() }, 120, 30);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    let s = screen(&app);
    let status = s.lines().last().unwrap_or_default().to_string();
    assert!(status.contains("ban") && status.contains("pin"), "{status}");
    assert!(status.contains(app.stage_label().as_str()), "{status}");
}
