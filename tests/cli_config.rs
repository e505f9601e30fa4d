//! The real binary with bad configuration: a clear error naming the file,
//! the line and the key, a non-zero exit, and no panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use crate::support;
use support::bin::{DEFAULT_LIMIT, sleuth_cmd, sleuth_command, spawn, wait_or_kill};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn unknown_key_in_config_file_names_file_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "[research]\npreset = \"simple\"\n\n[decide]\nconfidense = 0.9\n")
        .unwrap();
    let out = sleuth_cmd(home.path()).args(["run", "anything"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("config.toml, line 5, key `decide.confidense`"), "{err}");
    assert!(err.contains("unknown key `confidense`") && err.contains("confidence_threshold"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn out_of_range_value_in_explicit_config_names_the_line() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("custom.toml");
    std::fs::write(&cfg, "[search]\nconcurrency = 0\n").unwrap();
    let out = sleuth_cmd(home.path()).arg("--config").arg(&cfg).args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("custom.toml, line 2, key `search.concurrency`: must be between 1 and 64 (got 0)"), "{err}");
}

#[test]
fn malformed_toml_names_the_line() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "[decide]\nconfidence_threshold = = 1\n").unwrap();
    let out = sleuth_cmd(home.path()).args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
}

#[test]
fn missing_explicit_config_and_bad_env_and_bad_flag_are_named() {
    let home = tempfile::tempdir().unwrap();
    let out = sleuth_cmd(home.path()).args(["--config", "/nonexistent/x.toml", "run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/nonexistent/x.toml"));

    let out =
        sleuth_cmd(home.path()).env("SLEUTH__DECIDE__COVERAGE_THRESHOLD", "2").args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("SLEUTH__DECIDE__COVERAGE_THRESHOLD"), "{}", stderr(&out));

    let out = sleuth_cmd(home.path()).args(["--set", "limits.max_iterations=0", "run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--set limits.max_iterations=0"), "{}", stderr(&out));
}

#[test]
fn empty_question_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let out = sleuth_cmd(home.path()).args(["run", "   "]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the question is empty"));
}

/// `sleuth … | head -1`: output into a pipe whose reader is gone ends the
/// process by SIGPIPE, quietly, as other Unix tools do (not a panic, not an
/// error message that nobody can read).
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_process_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let home = tempfile::tempdir().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child =
        spawn(sleuth_command(home.path()).arg("sessions").stdout(writer.try_clone().unwrap()).stderr(writer));
    let status = wait_or_kill(&mut child, DEFAULT_LIMIT, "`sleuth sessions` into a closed pipe");
    const SIGPIPE: i32 = 13; // the same on Linux, macOS and the BSDs
    assert_eq!(status.signal(), Some(SIGPIPE), "{status:?}");
}

#[test]
fn huge_numbers_are_a_config_error_naming_the_key_never_a_crash() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("huge.toml");
    std::fs::write(&cfg, "[local]\ncandidates_per_query = 9223372036854775807\n").unwrap();
    let out = sleuth_cmd(home.path()).arg("--config").arg(&cfg).args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("huge.toml, line 2, key `local.candidates_per_query`: must be between 1 and 10000"), "{err}");
    let out =
        sleuth_cmd(home.path()).args(["--set", "search.results_per_query=4294967296", "run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("search.results_per_query=4294967296: must be between 1 and 100"), "{err}");
    for err in [&err, &stderr(&out)] {
        assert!(!err.contains("panicked") && !err.contains("capacity overflow"), "{err}");
    }
    assert!(!home.path().join("sessions").exists(), "no session was started");
}

#[cfg(unix)]
#[test]
fn a_config_file_without_end_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = sleuth_cmd(home.path()).args(["--config", "/dev/zero", "sessions"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/dev/zero: it is a character device, not a file"), "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn sessions_and_stats_check_the_config_they_were_given() {
    let home = tempfile::tempdir().unwrap();
    let broken = home.path().join("broken.toml");
    std::fs::write(&broken, "[decide]\nconfidence_threshold = = 1\n").unwrap();
    for command in ["sessions", "stats"] {
        let out = sleuth_cmd(home.path()).arg("--config").arg(&broken).arg(command).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert!(stderr(&out).contains("broken.toml, line 2"), "{command}: {}", stderr(&out));
        let out = sleuth_cmd(home.path()).args(["--config", "/nonexistent/x.toml", command]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert!(stderr(&out).contains("/nonexistent/x.toml"), "{command}: {}", stderr(&out));
        let out = sleuth_cmd(home.path()).args(["--set", "decide.nope=1", command]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert!(stderr(&out).contains("--set decide.nope=1"), "{command}: {}", stderr(&out));
        // A good configuration lists as before.
        sleuth_cmd(home.path()).args(["--set", "decide.confidence_threshold=0.9", command]).assert().success();
    }
}

#[test]
fn a_mistyped_subcommand_is_a_usage_error_and_a_question_is_not() {
    let home = tempfile::tempdir().unwrap();
    for (args, meant) in
        [(&["sesions"][..], "sessions"), (&["exprt", "last"], "export"), (&["memroy", "list"], "memory")]
    {
        let out = sleuth_cmd(home.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(&format!("did you mean `{meant}`?")), "{args:?}: {err}");
        assert!(err.contains(&format!("sleuth \"{}?\"", args[0])), "how to ask the word itself: {err}");
    }
    assert!(!home.path().join("sessions").exists(), "nothing was researched");
    // A one-word question goes to the TUI (which needs a terminal here).
    let out = sleuth_cmd(home.path()).arg("lifetimes").output().unwrap();
    let err = stderr(&out);
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains("terminal"), "{err}");
}

#[test]
fn help_texts_are_not_empty() {
    let home = tempfile::tempdir().unwrap();
    let run = String::from_utf8(sleuth_cmd(home.path()).args(["run", "--help"]).output().unwrap().stdout).unwrap();
    let line = run.lines().skip_while(|l| !l.contains("--max-iterations")).nth(1).unwrap_or_default();
    assert!(line.contains("Iterations at most"), "{run}");
    let stats = String::from_utf8(sleuth_cmd(home.path()).args(["stats", "--help"]).output().unwrap().stdout).unwrap();
    assert!(stats.lines().any(|l| l.contains("--json") && l.contains("JSON")), "{stats}");
}

#[test]
fn doctor_with_the_builtin_reasoner_does_not_probe_an_llm_nobody_configured() {
    let home = tempfile::tempdir().unwrap();
    let out = sleuth_cmd(home.path()).args(["doctor", "--skip-search"]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{table}");
    assert!(table.lines().any(|l| l.starts_with("llm") && l.contains("n/a") && l.contains("not used")), "{table}");
    assert!(!table.contains("refused") && !table.contains("llm endpoint"), "{table}");
    // Once an endpoint is configured it is checked (and fails here, but is not required).
    let out = sleuth_cmd(home.path())
        .args(["--set", "llm.base_url=http://127.0.0.1:1/v1", "doctor", "--skip-search"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{table}");
    assert!(table.contains("llm endpoint"), "{table}");
}
