//! Sessions are never lost: the real binary SIGKILLed at many points —
//! at startup, while the first run indexes the corpus, in the middle of an
//! iteration and while the report is written — leaves either no session
//! folder or a session `sessions` lists as interrupted, never damaged, and
//! `resume` takes every one to the end.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support;
use sleuth::session::SessionDir;
use sleuth::session::list::{Status, list_sessions};
use support::bin::{sleuth_cmd, sleuth_command, spawn};
use support::e2e::{copy_dir, kill_after, log_lines, long_session, session_ids};

const QUESTION: &str = "How do widgets connect to gadgets and what latency do they have?";

/// A corpus big enough that building its index takes a measurable time.
fn write_corpus(dir: &Path, files: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 1..=files {
        let parts: Vec<String> = (1..=6)
            .map(|j| {
                format!(
                    "## Part {j}\n\nWidget {i} part {j} connects to gadget {g} on a bus of {w} bits; its latency \
                     is {l} microseconds and it draws {p} milliwatts.",
                    g = i * 7 + j,
                    w = j * 8,
                    l = i + j,
                    p = i * j
                )
            })
            .collect();
        std::fs::write(dir.join(format!("doc{i}.md")), format!("# Widget model {i}\n\n{}\n", parts.join("\n\n")))
            .unwrap();
    }
}

fn run_args(corpus: &Path) -> Vec<String> {
    let mut args = vec!["run".to_string()];
    args.extend(long_session(corpus));
    args.push(QUESTION.to_string());
    args
}

/// Where the log says the session was when it was killed (a decision to
/// output starts the report).
fn phase(home: &Path, id: &str) -> &'static str {
    let lines = log_lines(home, id);
    let has = |t: &str| lines.iter().any(|l| l.contains(&format!("\"type\":\"{t}\"")));
    if has("session_ended") {
        "finished"
    } else if has("report_delta") || has("report_written") || has("\"action\":\"OUTPUT\"") {
        "writing the report"
    } else if lines.len() <= 2 {
        "starting"
    } else {
        "mid-iteration"
    }
}

/// No session under `home` is damaged; each one resumes to its end.
fn assert_listed_then_resumed(home: &Path, point: &str) -> usize {
    let listed = list_sessions(&home.join("sessions")).unwrap();
    for s in &listed {
        assert_ne!(s.status, Status::Damaged, "{point}: session {} is damaged: {:?}", s.id, s.problem);
    }
    let table =
        String::from_utf8(sleuth_cmd(home).arg("sessions").assert().success().get_output().stdout.clone()).unwrap();
    assert!(!table.contains("damaged"), "{point}:\n{table}");
    for s in &listed {
        // A run that ended (answered, or honestly unanswered on this small
        // generated corpus) has nothing to resume.
        if matches!(s.status, Status::Finished | Status::Unanswered) {
            continue;
        }
        // Killed while its question waited for an answer, a session is listed
        // as waiting on it; either way it resumes (headless: the first option).
        assert!(matches!(s.status, Status::Interrupted | Status::WaitingOnAsk), "{point}: session {}", s.id);
        let out = sleuth_cmd(home).args(["resume", &s.id, "--headless"]).output().unwrap();
        // 4: finished, the sources do not answer (a small generated corpus).
        assert!(matches!(out.status.code(), Some(0 | 4)), "{point}: resume {}: {out:?}", s.id);
        let lines = log_lines(home, &s.id);
        assert!(lines.last().unwrap().contains("\"session_ended\""), "{point}: {} did not finish", s.id);
        for (i, line) in lines.iter().enumerate() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(r["seq"], i as u64 + 1, "{point}: {} line {}", s.id, i + 1);
        }
    }
    listed.len()
}

#[test]
fn killed_at_twenty_points_from_startup_to_the_report_no_session_is_damaged_and_each_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus, 150);
    let run = run_args(&corpus);

    // How long the first index takes here, and a log of a whole session.
    let indexed = tmp.path().join("indexed");
    let started = Instant::now();
    sleuth_cmd(&indexed).arg("index").arg(&corpus).assert().success();
    let index_time = started.elapsed();
    let out = sleuth_cmd(&indexed).args(&run).output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 4)), "{out:?}");
    let reference = session_ids(&indexed).pop().unwrap();
    let events = log_lines(&indexed, &reference).len();
    assert!(events > 20, "a session long enough to kill in the middle: {events} events");

    let mut points = 0;
    let mut phases: Vec<&str> = Vec::new();
    // Startup and indexing: a fresh home, killed after a delay, while the
    // sessions folder is watched for a session listed as damaged.
    for step in 0..7u32 {
        let home = tmp.path().join(format!("fresh-{step}"));
        let delay = Duration::from_millis(5) + index_time.mul_f64(f64::from(step) / 5.0);
        let point = format!("fresh home, killed after {delay:?}");
        let mut child =
            spawn(sleuth_command(&home).args(&run).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()));
        let until = Instant::now() + delay;
        while Instant::now() < until {
            for s in list_sessions(&home.join("sessions")).unwrap() {
                assert_ne!(s.status, Status::Damaged, "{point}: a live session listed as damaged: {:?}", s.problem);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let ids = session_ids(&home);
        phases.push(match ids.first() {
            None => "no session yet",
            Some(id) => phase(&home, id),
        });
        assert_listed_then_resumed(&home, &point);
        if ids.is_empty() {
            // Killed before its header: nothing to resume, and the index
            // the kill cut short does not stop the next run.
            // A finished run: answered (0) or honestly unanswered (4).
            let out = sleuth_cmd(&home).args(&run).output().unwrap();
            assert!(matches!(out.status.code(), Some(0 | 4)), "{point}: {out:?}");
            assert_eq!(assert_listed_then_resumed(&home, &point), 1, "{point}");
        }
        points += 1;
    }

    // Mid-session and report writing: killed once the log has N lines.
    let home = tmp.path().join("home");
    copy_dir(&indexed.join("index"), &home.join("index"));
    // The same index gives the same events: the reference says where the
    // decision to write the report is. The report takes milliseconds, so
    // each kill point there gets a few tries.
    let output_line = log_lines(&indexed, &reference)
        .iter()
        .position(|l| l.contains("\"action\":\"OUTPUT\""))
        .expect("the reference decided to output")
        + 1;
    let mut lines: Vec<(usize, usize)> = [1, 2, 3, 5, 8, 12, 17, 23, 30, events * 2 / 3].map(|n| (n, 1)).to_vec();
    lines.extend((output_line - 1..=output_line + 2).map(|n| (n, 3)));
    for (n, tries) in lines {
        let point = format!("killed at log line {n}");
        let Some((id, _)) = (0..tries).find_map(|_| kill_after(&home, &run, n, true)) else {
            // The session ended before the poll saw line n: still checked below.
            points += 1;
            continue;
        };
        phases.push(phase(&home, &id));
        assert_listed_then_resumed(&home, &point);
        points += 1;
        // Each session is resumed already; the next kill starts afresh.
        std::fs::remove_dir_all(SessionDir::new(&home.join("sessions"), &id).path).unwrap();
    }
    // A SIGKILL leaves a prefix of the append-only log. The report takes
    // milliseconds, so on a loaded machine no live kill above may land in
    // it: the reference session cut just after its decision to output (and
    // with the next line torn in half) is exactly what such a kill leaves.
    for (cut, torn) in [(output_line, false), (output_line, true), (output_line + 1, false)] {
        let point = format!("log cut after line {cut} (torn next line: {torn})");
        let cut_home = tmp.path().join(format!("cut-{cut}-{torn}"));
        copy_dir(&indexed.join("index"), &cut_home.join("index"));
        let from = SessionDir::new(&indexed.join("sessions"), &reference);
        let to = SessionDir::new(&cut_home.join("sessions"), &reference);
        std::fs::create_dir_all(&to.path).unwrap();
        if from.sources_dir().exists() {
            copy_dir(&from.sources_dir(), &to.sources_dir());
        }
        let lines = log_lines(&indexed, &reference);
        let mut text: String = lines[..cut].concat();
        if torn {
            let next = &lines[cut];
            text.push_str(&next[..next.len() / 2]);
        }
        std::fs::write(to.log_path(), text).unwrap();
        phases.push(phase(&cut_home, &reference));
        assert_listed_then_resumed(&cut_home, &point);
        points += 1;
    }
    eprintln!("kill points: {phases:?}");
    assert!(points >= 20, "{points} kill points");
    for wanted in ["mid-iteration", "writing the report"] {
        assert!(phases.contains(&wanted), "no kill point landed {wanted}: {phases:?}");
    }
    assert!(
        phases.iter().any(|p| *p == "no session yet" || *p == "starting"),
        "no kill point landed at startup: {phases:?}"
    );
}
