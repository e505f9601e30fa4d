//! The TUI's command line without a terminal: clear errors, nothing left behind.

use sleuth::tui::sample::Sample;

use crate::support::bin::sleuth_cmd;

#[test]
fn without_a_terminal_the_tui_says_so_and_leaves_no_session() {
    let home = tempfile::tempdir().unwrap();
    let out = sleuth_cmd(home.path()).arg("What is the orphan rule?").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs a terminal") && err.contains("sleuth run"), "{err}");
    let sessions = home.path().join("sessions");
    let left = std::fs::read_dir(&sessions).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "no empty session folder is left behind");
}

#[test]
fn open_names_a_missing_session_and_a_bad_theme_before_taking_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    Sample::default().write_to(&home.path().join("sessions/20260101-000000-abcd")).unwrap();
    let out = sleuth_cmd(home.path()).args(["open", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no session `nope`") && err.contains("sleuth open"), "{err}");
    let out = sleuth_cmd(home.path()).args(["open", "2026", "--theme", "neon"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown theme `neon`") && err.contains("high-contrast"), "{err}");
    std::fs::write(home.path().join("config.toml"), "[tui.keys.control]\nstep = [\"j\"]\n").unwrap();
    let out = sleuth_cmd(home.path()).args(["open", "2026"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml") && err.contains("tui.keys"), "{err}");
}

#[test]
fn a_damaged_log_is_a_plain_error_naming_the_line() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("sessions/20260101-000000-abcd");
    Sample::default().write_to(&dir).unwrap();
    let log = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let mut lines: Vec<&str> = log.lines().collect();
    lines[3] = "{not json";
    std::fs::write(dir.join("events.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = sleuth_cmd(home.path()).args(["open", "20260101-000000-abcd"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 4") && err.contains("events.jsonl"), "{err}");
}

/// `sleuth open last` takes the newest session, as `resume`, `export` and
/// `fork` do: with a damaged newest log the error names that log; with a
/// good one it gets as far as asking for a terminal.
#[test]
fn open_last_takes_the_newest_session() {
    let home = tempfile::tempdir().unwrap();
    let older = home.path().join("sessions/20260101-000000-abcd");
    let newest = home.path().join("sessions/20260102-000000-ef01");
    Sample::default().write_to(&older).unwrap();
    Sample::default().write_to(&newest).unwrap();
    let log = std::fs::read_to_string(newest.join("events.jsonl")).unwrap();
    let mut lines: Vec<&str> = log.lines().collect();
    lines[2] = "{not json";
    std::fs::write(newest.join("events.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = sleuth_cmd(home.path()).args(["open", "last"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3") && err.contains("20260102-000000-ef01"), "{err}");
    std::fs::remove_dir_all(&newest).unwrap();
    let out = sleuth_cmd(home.path()).args(["open", "last"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs a terminal") && !err.contains("no session"), "{err}");
}
