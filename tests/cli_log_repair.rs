//! The real binary on logs damaged outside sleuth: a last line that lost
//! its line end is repaired before `resume` appends, and events out of
//! order are reported as damage with the line, like any other.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;

use crate::support;
use sleuth::session::SessionDir;
use support::bin::sleuth_cmd;
use support::e2e::{kill_after, log_lines, long_session, session_ids, write_corpus};

const QUESTION: &str = "How do widgets connect to gadgets and what latency do they have?";

fn run_args(corpus: &Path) -> Vec<String> {
    let mut args = vec!["run".to_string()];
    args.extend(long_session(corpus));
    args.push(QUESTION.to_string());
    args
}

#[test]
fn resume_restores_a_missing_line_end_before_appending() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    sleuth_cmd(&home).arg("index").arg(&corpus).assert().success();
    let run = run_args(&corpus);
    let (id, _) = (0..5).find_map(|_| kill_after(&home, &run, 6, true)).expect("could not kill the session in time");
    let log = SessionDir::new(&home.join("sessions"), &id).log_path();
    // A short write: the last event is complete JSON, its line end is gone.
    let mut bytes = std::fs::read(&log).unwrap();
    while bytes.last() != Some(&b'\n') {
        bytes.pop();
    }
    bytes.pop();
    let kept = bytes.iter().filter(|b| **b == b'\n').count() + 1;
    std::fs::write(&log, &bytes).unwrap();

    sleuth_cmd(&home).args(["resume", &id, "--headless"]).assert().success();
    let lines = log_lines(&home, &id);
    assert!(lines.len() > kept, "the session went on");
    for (i, line) in lines.iter().enumerate() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        assert_eq!(r["seq"], i as u64 + 1);
    }
    assert!(lines.last().unwrap().contains("\"session_ended\""));
    sleuth_cmd(&home).args(["export", &id]).assert().success();
}

#[test]
fn a_gap_a_duplicate_reversed_events_or_a_second_header_are_damage_with_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    sleuth_cmd(&home).args(run_args(&corpus)).assert().success();
    let id = session_ids(&home).pop().unwrap();
    let good = log_lines(&home, &id);
    assert!(good.len() > 10);
    let header_as_event_6 = {
        let mut h: serde_json::Value = serde_json::from_str(&good[0]).unwrap();
        h["seq"] = 6.into();
        format!("{h}\n")
    };
    let mut renumbered_after_6 = good.clone();
    renumbered_after_6.insert(5, header_as_event_6);
    for (i, line) in renumbered_after_6.iter_mut().enumerate().skip(6) {
        let mut r: serde_json::Value = serde_json::from_str(line).unwrap();
        r["seq"] = (i as u64 + 1).into();
        *line = format!("{r}\n");
    }
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        ("gap", [&good[..4], &good[5..]].concat(), "line 5: damaged event (sequence gap: seq 6 after 4"),
        ("duplicate", [&good[..5], &good[4..]].concat(), "line 6: damaged event (event 5 appears twice"),
        (
            "reversed",
            [&good[..4], &[good[5].clone(), good[4].clone()][..], &good[6..]].concat(),
            "line 5: damaged event (events out of order: seq 6 comes before 5",
        ),
        ("second header", renumbered_after_6, "line 6: damaged event (a second session header"),
    ];
    let sessions = home.join("sessions");
    for (name, lines, expected) in cases {
        let copy = format!("{id}-{}", name.replace(' ', "-"));
        let dir = SessionDir::new(&sessions, &copy);
        std::fs::create_dir_all(&dir.path).unwrap();
        std::fs::write(dir.log_path(), lines.concat()).unwrap();
        let out = sleuth_cmd(&home).args(["export", &copy]).assert().failure().get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{name}: {err}");
        let out = sleuth_cmd(&home).args(["resume", &copy, "--headless"]).assert().failure().get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{name}: {err}");
        let table = String::from_utf8(sleuth_cmd(&home).arg("sessions").assert().success().get_output().stdout.clone())
            .unwrap();
        let row = table.lines().find(|l| l.starts_with(&copy)).unwrap_or_else(|| panic!("{name}: {table}"));
        assert!(row.contains("damaged"), "{name}: {row}");
    }
    // The untouched session still reads.
    sleuth_cmd(&home).args(["export", &id]).assert().success();
}

#[test]
fn a_session_recorded_with_a_value_out_of_range_is_refused_by_name_and_resumes_with_a_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    sleuth_cmd(&home).args(run_args(&corpus)).assert().success();
    let id = session_ids(&home).pop().unwrap();
    // What a sleuth without ranges recorded: a value that aborts the
    // process, in a session cut short after its first events.
    let lines = log_lines(&home, &id);
    let mut header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    header["event"]["config"]["local"]["candidates_per_query"] = 4_294_967_296u64.into();
    let dir = SessionDir::new(&home.join("sessions"), &id);
    std::fs::write(dir.log_path(), format!("{header}\n{}", lines[1..4].concat())).unwrap();
    let _ = std::fs::remove_file(dir.summary_path());

    let out = sleuth_cmd(&home).args(["resume", &id, "--headless"]).assert().failure().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("local.candidates_per_query") && err.contains("must be between 1 and 10000"), "{err}");
    assert!(!err.contains("panicked") && !err.contains("capacity overflow"), "{err}");
    sleuth_cmd(&home).args(["resume", &id, "--headless", "--set", "local.candidates_per_query=80"]).assert().success();
    assert!(log_lines(&home, &id).last().unwrap().contains("\"session_ended\""));
}
