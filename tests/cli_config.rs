//! The real binary with bad configuration: a clear error naming the file,
//! the line and the key, a non-zero exit, and no panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use assert_cmd::Command;

fn sleuth(home: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("sleuth").expect("binary");
    c.env("SLEUTH_HOME", home).env_remove("SLEUTH_LOG");
    c
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn unknown_key_in_config_file_names_file_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "[research]\npreset = \"simple\"\n\n[decide]\nconfidense = 0.9\n")
        .unwrap();
    let out = sleuth(home.path()).args(["run", "anything"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("config.toml, line 5, key `confidense`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn out_of_range_value_in_explicit_config_names_the_line() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("custom.toml");
    std::fs::write(&cfg, "[search]\nconcurrency = 0\n").unwrap();
    let out = sleuth(home.path()).arg("--config").arg(&cfg).args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("custom.toml, line 2, key `search.concurrency`: must be at least 1"), "{err}");
}

#[test]
fn malformed_toml_names_the_line() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "[decide]\nconfidence_threshold = = 1\n").unwrap();
    let out = sleuth(home.path()).args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
}

#[test]
fn missing_explicit_config_and_bad_env_and_bad_flag_are_named() {
    let home = tempfile::tempdir().unwrap();
    let out = sleuth(home.path()).args(["--config", "/nonexistent/x.toml", "run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/nonexistent/x.toml"));

    let out = sleuth(home.path()).env("SLEUTH__DECIDE__COVERAGE_THRESHOLD", "2").args(["run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("SLEUTH__DECIDE__COVERAGE_THRESHOLD"), "{}", stderr(&out));

    let out = sleuth(home.path()).args(["--set", "limits.max_iterations=0", "run", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--set limits.max_iterations=0"), "{}", stderr(&out));
}

#[test]
fn empty_question_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let out = sleuth(home.path()).args(["run", "   "]).output().unwrap();
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
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("sleuth"))
        .env("SLEUTH_HOME", home.path())
        .arg("sessions")
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .status()
        .unwrap();
    const SIGPIPE: i32 = 13; // the same on Linux, macOS and the BSDs
    assert_eq!(status.signal(), Some(SIGPIPE), "{status:?}");
}
