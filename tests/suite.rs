//! The suite's own rules. It is one test binary, `it` (root
//! `tests/main.rs`): one link of the library instead of one per file.
//! Cargo's automatic test targets are off (`autotests = false`), so a new
//! `tests/<name>.rs` that no `mod` declares would compile into nothing and
//! its tests would never run; the layout tests fail instead, naming the
//! file. And no child process outlives its time limit.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::bin::{self, DEFAULT_LIMIT};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The names of the `mod name;` declarations in `text` (inline modules,
/// `mod name { … }`, have no file of their own).
fn declared(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .map(|l| l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l))
        .filter_map(|l| l.strip_prefix("mod "))
        .filter_map(|l| l.trim_end().strip_suffix(';'))
        .map(|name| name.trim().to_string())
        .collect()
}

/// Every file reachable from `file` through `mod` declarations, resolved
/// as rustc does: next to a `main.rs` or `mod.rs`, in a folder named after
/// any other file.
fn reach(file: &Path, seen: &mut BTreeSet<PathBuf>) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let attributes: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("#[path")).collect();
    assert!(attributes.is_empty(), "{}: declare modules by their place, not `{}`", file.display(), attributes[0]);
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let dir = match name {
        "main.rs" | "mod.rs" => file.parent().expect("a folder").to_path_buf(),
        _ => file.with_extension(""),
    };
    for module in declared(&text) {
        let candidates = [dir.join(format!("{module}.rs")), dir.join(&module).join("mod.rs")];
        let found = candidates
            .iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{}: `mod {module};` has no file ({candidates:?})", file.display()));
        if seen.insert(found.clone()) {
            reach(found, seen);
        }
    }
}

#[test]
fn every_rust_file_under_tests_is_a_module_of_the_one_binary() {
    let tests = root().join("tests");
    let main = tests.join("main.rs");
    let mut reached = BTreeSet::from([main.clone()]);
    reach(&main, &mut reached);
    // Fixture data may be Rust source read as text (a corpus); it is no module.
    let fixtures = tests.join("fixtures");
    let orphans: Vec<String> = walkdir::WalkDir::new(&tests)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs") && !p.starts_with(&fixtures))
        .filter(|p| !reached.contains(p))
        .map(|p| p.strip_prefix(root()).unwrap_or(&p).display().to_string())
        .collect();
    assert!(
        orphans.is_empty(),
        "not a module of the test binary, so never compiled or run: {orphans:?}. Declare each in \
         tests/main.rs (`mod name;`) or in the module of its folder; shared helpers go in tests/support/"
    );
    // The check itself finds this file.
    assert!(reached.contains(&tests.join("suite.rs")), "{reached:?}");
}

#[test]
fn the_manifest_declares_one_test_target_and_turns_automatic_ones_off() {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
    let package = manifest.get("package").and_then(toml::Value::as_table).expect("[package]");
    assert_eq!(
        package.get("autotests").and_then(toml::Value::as_bool),
        Some(false),
        "[package] autotests = false: each tests/*.rs would become a binary of its own"
    );
    let targets = manifest.get("test").and_then(toml::Value::as_array).cloned().unwrap_or_default();
    let paths: Vec<&str> = targets.iter().filter_map(|t| t.get("path").and_then(toml::Value::as_str)).collect();
    assert_eq!(paths, ["tests/main.rs"], "one [[test]] target; new tests are modules of it");
}

#[test]
fn a_child_past_its_limit_is_killed_and_fails_its_test() {
    let started = Instant::now();
    let failed = std::panic::catch_unwind(|| bin::output_of(Command::new("sleep").arg("600"), Duration::from_secs(1)));
    let message = failed.expect_err("a hung child fails the test");
    let message = message.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("ran longer than 1s and was killed"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
}

#[test]
fn a_supervised_child_is_killed_when_its_test_fails() {
    let mut cmd = Command::new("sleep");
    cmd.arg("600");
    let child = bin::spawn(&mut cmd);
    let pid = child.id();
    let failed = std::panic::catch_unwind(move || {
        let _child = child;
        panic!("an assertion fails while the child runs");
    });
    assert!(failed.is_err());
    // Killed and reaped: the pid names no process (or, reused, not ours).
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(!stat.contains("(sleep)"), "{stat}");
}

/// `sleuth mcp` stands in for no server here: `sleep` never answers the
/// handshake, as a hung server would not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_child_that_never_answers_fails_its_step_and_is_killed() {
    use rmcp::ServiceExt;
    let mut cmd = tokio::process::Command::new("sleep");
    cmd.arg("600").kill_on_drop(true);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).expect("sleep starts");
    let pid = transport.id().expect("a pid");
    let started = Instant::now();
    let step = tokio::spawn(async move {
        crate::support::mcp::within(Duration::from_secs(1), "the handshake", ().serve(transport)).await.map(|_| ())
    });
    let ended = tokio::time::timeout(Duration::from_secs(30), step).await.expect("the limit ended the step");
    let failed = ended.expect_err("the step fails past its limit");
    assert!(failed.is_panic());
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    // The child goes with the dropped client.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, or a zombie (state Z) waiting for the runtime to reap it.
        if !stat.contains("(sleep)") || stat.contains(") Z ") {
            break;
        }
        assert!(Instant::now() < deadline, "the child still runs: {stat}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A developer's own keys, log level and config overrides never reach the
/// binary: the environment is checked in a child of this test binary that
/// has them set.
#[test]
fn no_child_inherits_a_developers_keys_or_overrides() {
    let planted = [("OPENAI_API_KEY", "sk-dev-key"), ("SLEUTH_LOG", "trace"), ("SLEUTH__LLM__MODEL", "dev-model")];
    if std::env::var_os("SLEUTH__LLM__MODEL").is_none() {
        return bin::rerun_with_env(module_path!(), "no_child_inherits_a_developers_keys_or_overrides", &planted);
    }
    let home = tempfile::tempdir().unwrap();
    let mut env = Command::new("env");
    bin::hermetic(&mut env, home.path());
    let out = bin::output_of(&mut env, DEFAULT_LIMIT).expect("env runs");
    let seen = String::from_utf8_lossy(&out.stdout).into_owned();
    for (name, _) in planted {
        assert!(!seen.lines().any(|l| l.starts_with(&format!("{name}="))), "{name} reached the child");
    }
    assert!(seen.lines().any(|l| l == format!("SLEUTH_HOME={}", home.path().display())), "{seen}");
}
