//! The real binary in tmux. Skipped (with a printed reason) only when tmux
//! is missing.

use std::time::Duration;

use sleuth::tui::sample::{Sample, Stop};

use super::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(20);

fn skip() -> bool {
    if tmux::available() {
        return false;
    }
    eprintln!("SKIPPED: tmux is not installed; the TUI end-to-end tests need it");
    true
}

#[test]
fn review_a_saved_session_moves_through_iterations_offline() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let id = "20260101-000000-abcd";
    Sample { iterations: 4, hostile_source: true, ..Sample::default() }
        .write_to(&home.path().join("sessions").join(id))
        .unwrap();
    let t = Tmux::start("review", home.path(), &["open", id], 100, 30);
    let last = t.wait_for(&["REVIEW 4 of 4", "Final report", "finished"], WAIT);
    assert!(last.contains("Iterations (4/5)"), "{last}");
    t.keys(&["Left", "Left", "Left"]);
    let first = t.wait_for(&["REVIEW 1 of 4", "Reflection 1"], WAIT);
    assert!(first.contains("Draft 1"), "the draft of iteration 1, not the report:\n{first}");
    assert!(!first.contains("Final report"), "{first}");
    // Search in the reflection pane: a miss says so.
    t.keys(&["Tab", "/"]);
    t.type_text("zzzz");
    t.keys(&["Enter"]);
    t.wait_for(&["no match for `zzzz`"], WAIT);
    t.keys(&["BTab"]);
    // Citations, a hostile source's text: plain text, the title never retitles the window.
    t.keys(&["Tab", "Tab", "j", "Enter"]);
    let source = t.wait_for(&["Source [2]", "Danger zone."], WAIT);
    assert!(!source.contains("pwned"), "an OSC title sequence reached the screen:\n{source}");
    assert!(!t.pane_title().contains("pwned"), "the window title was changed by source text");
    t.keys(&["Escape", "q"]);
    let end = t.wait_for(&["[exit 0]"], WAIT);
    assert!(!end.contains("REVIEW"), "the terminal is restored:\n{end}");
}

#[test]
fn open_without_a_session_lists_them_and_a_damaged_one_is_named() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join("sessions");
    Sample { stop: Stop::AskOpen, ..Sample::default() }.write_to(&sessions.join("20260101-000000-aaaa")).unwrap();
    std::fs::create_dir_all(sessions.join("20260102-000000-bbbb")).unwrap();
    std::fs::write(sessions.join("20260102-000000-bbbb/events.jsonl"), "{oops\n").unwrap();
    let t = Tmux::start("picker", home.path(), &["open"], 100, 30);
    let list = t.wait_for(&["Saved sessions (2)", "damaged", "unfinished"], WAIT);
    assert!(list.contains("How does the ? operator"), "{list}");
    t.keys(&["Enter"]);
    t.wait_for(&["cannot be opened"], WAIT);
    t.keys(&["j", "Enter"]);
    let review = t.wait_for(&["REVIEW 3 of 3", "waiting for your answer"], WAIT);
    assert!(!review.contains("sleuth asks"), "review never answers: no ASK window\n{review}");
    t.keys(&["q"]);
    t.wait_for(&["[exit 0]"], WAIT);
}

#[test]
fn a_too_small_terminal_says_the_minimum_and_resizing_redraws() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let id = "20260101-000000-abcd";
    Sample::default().write_to(&home.path().join("sessions").join(id)).unwrap();
    let t = Tmux::start("small", home.path(), &["open", id], 70, 20);
    t.wait_for(&["at least 80×24", "70×20"], WAIT);
    t.resize(100, 30);
    t.wait_for(&["REVIEW 3 of 3"], WAIT);
    t.keys(&["q"]);
    t.wait_for(&["[exit 0]"], WAIT);
}
