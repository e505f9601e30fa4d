//! The real `sleuth` binary on session folders written by the real engine
//! (scripted parts), with SLEUTH_HOME in a temp dir: sessions, resume's
//! lock message, fork, export (and its redaction), stats, memory.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;

use crate::support;
use assert_cmd::Command;
use sleuth::engine::memory::{InMemoryStore, MemoryEntry, MemorySettings, MemoryStore};
use sleuth::engine::model::Severity;
use sleuth::session::lock::SessionLock;
use sleuth::session::memory::FileMemoryStore;
use sleuth::session::{SessionDir, read_log};
use support::disk::{OnAsk, run_new};
use support::e2e::{copy_dir, files_under, kill_after, log_lines, long_session, session_ids, write_corpus};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};

const SECRET: &str = "sk-test-0123456789abcdef";

fn turns(clarify: bool) -> Vec<Turn> {
    let mut first = Turn::coverage(1, 3);
    first.issues = vec![("the answer omits the lab measurements", Severity::High)];
    first.clarify = clarify;
    vec![first, Turn::coverage(2, 3), Turn::coverage(3, 3)]
}

/// The shared command, with the key whose value must never be printed.
fn sleuth(home: &Path) -> Command {
    let mut cmd = support::bin::sleuth_cmd(home);
    cmd.env("SLEUTH_TEST_KEY", SECRET);
    cmd
}

fn memory() -> Arc<dyn MemoryStore> {
    Arc::new(InMemoryStore::new(MemorySettings::default()))
}

/// Three sessions: finished (its question leaks the key, as a careless
/// user might), waiting on an ASK, and one with a damaged log.
async fn populate(home: &Path) {
    let root = home.join("sessions");
    let p = || ScriptedProvider::new("scripted", corpus(10));
    let q = format!("How do widgets connect to gadgets with key {SECRET}?");
    run_new(
        &root,
        "20250101-090000-aaaa",
        support::settings(3),
        ScriptedReasoner::new(turns(false)),
        p(),
        memory(),
        &q,
        OnAsk::Choose(0),
    )
    .await;
    run_new(
        &root,
        "20250102-090000-bbbb",
        support::settings(3),
        ScriptedReasoner::new(turns(true)),
        p(),
        memory(),
        "Which widget is blue?",
        OnAsk::Detach,
    )
    .await;
    let damaged = SessionDir::create(&root, "20250103-090000-cccc").unwrap();
    std::fs::write(damaged.log_path(), "{\"seq\":1,\"garbage\n{}\n").unwrap();
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_lists_newest_first_with_status_and_filters() {
    let home = tempfile::tempdir().unwrap();
    populate(home.path()).await;
    let table = stdout(sleuth(home.path()).arg("sessions"));
    let rows: Vec<&str> = table.lines().collect();
    assert!(rows[0].starts_with("ID") && rows[0].contains("STATUS") && rows[0].contains("COST"), "{table}");
    assert_eq!(rows.len(), 4, "{table}");
    assert!(rows[1].starts_with("20250103-090000-cccc") && rows[1].contains("damaged"), "{table}");
    assert!(rows[2].starts_with("20250102-090000-bbbb") && rows[2].contains("waiting on ASK"), "{table}");
    assert!(
        rows[3].starts_with("20250101-090000-aaaa") && rows[3].contains("finished") && rows[3].contains("$0.0000"),
        "{table}"
    );
    let filtered = stdout(sleuth(home.path()).args(["sessions", "--filter", "BLUE"]));
    assert_eq!(filtered.lines().count(), 2, "{filtered}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(sleuth(home.path()).args(["sessions", "--json"]))).unwrap();
    let statuses: Vec<&str> = json.as_array().unwrap().iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, vec!["damaged", "waiting_on_ask", "finished"]);
    assert_eq!(json[2]["summary"]["iterations"], json[2]["summary"]["iterations"].as_u64().unwrap().max(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_names_the_pid_holding_the_session_and_refuses_damaged_ones() {
    let home = tempfile::tempdir().unwrap();
    populate(home.path()).await;
    let dir = SessionDir::new(&home.path().join("sessions"), "20250102-090000-bbbb");
    let held = SessionLock::acquire(&dir.lock_path(), &dir.id).unwrap();
    let out = sleuth(home.path()).args(["resume", "20250102", "--headless"]).assert().failure().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
    assert!(err.contains("another sleuth process"), "{err}");
    let table = stdout(sleuth(home.path()).arg("sessions"));
    assert!(table.lines().any(|l| l.starts_with("20250102-090000-bbbb") && l.contains("running")), "{table}");
    drop(held);

    let out = sleuth(home.path()).args(["resume", "20250103-090000-cccc"]).assert().failure().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 1") && err.contains("events.jsonl"), "{err}");
    let out = sleuth(home.path()).args(["resume", "2025"]).assert().failure().get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches 3 sessions"));
    let out = sleuth(home.path()).args(["resume", "nope"]).assert().failure().get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("sleuth sessions"));
    // A finished session has nothing to continue, and says what to do instead.
    let out = sleuth(home.path()).args(["resume", "20250101-090000-aaaa"]).assert().success().get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--follow-up"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_creates_a_session_sharing_the_log_up_to_an_iteration() {
    let home = tempfile::tempdir().unwrap();
    populate(home.path()).await;
    let out = sleuth(home.path())
        .args(["fork", "20250102-090000-bbbb", "--from", "1", "--create-only"])
        .assert()
        .success()
        .get_output()
        .clone();
    let new_id = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("at iteration 1") && err.contains("events shared"), "{err}");
    let log = read_log(&SessionDir::new(&home.path().join("sessions"), &new_id).log_path()).unwrap();
    let state = sleuth::engine::SessionState::replay(&log.records);
    assert_eq!(state.header.as_ref().unwrap().forked_from.as_ref().unwrap().session_id, "20250102-090000-bbbb");
    assert!(state.asks.is_empty() && state.iteration() == 1 && state.iterations[0].decision.is_none());
    let table = stdout(sleuth(home.path()).arg("sessions"));
    // Not yet continued: `forked`, not `interrupted`.
    assert!(table.lines().any(|l| l.starts_with(&new_id) && l.contains("forked")), "{table}");
    let out = sleuth(home.path())
        .args(["fork", "20250102-090000-bbbb", "--from", "9", "--create-only"])
        .assert()
        .failure()
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from must be between 0 and 1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_in_every_format_carry_citations_sources_and_no_secret() {
    let home = tempfile::tempdir().unwrap();
    populate(home.path()).await;
    let id = "20250101-090000-aaaa";
    let keyed = ["--set", "llm.api_key_env=SLEUTH_TEST_KEY"];
    let md = stdout(sleuth(home.path()).args(["export", id]).args(keyed));
    assert!(md.starts_with("# How do widgets connect"), "{md}");
    assert!(md.contains("[1]") && md.contains("## Sources") && md.contains("<https://docs.example.org/page"), "{md}");
    assert!(md.contains("accessed 20") && md.contains("cited"), "{md}");
    assert!(md.contains("## Appendix: iterations") && md.contains("### Iteration 1"), "{md}");
    assert!(
        md.contains("**Reflection**") && md.contains("**Decision:**") && md.contains("**Scores:** confidence"),
        "{md}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&stdout(sleuth(home.path()).args(["export", id, "--format", "json"]).args(keyed)))
            .unwrap();
    assert_eq!(json["summary"]["id"], id);
    assert!(json["session"]["report"]["markdown"].is_string());

    let bib = stdout(sleuth(home.path()).args(["export", id, "--format", "bibtex"]).args(keyed));
    let entries = bib.matches("@online{sleuth:20250101-090000-aaaa:").count();
    assert!(entries >= 1, "{bib}");
    assert_eq!(bib.matches("urldate = {").count(), entries);
    assert_eq!(bib.matches('{').count(), bib.matches('}').count(), "braces balance");

    let csl: serde_json::Value =
        serde_json::from_str(&stdout(sleuth(home.path()).args(["export", id, "--format", "csl-json"]).args(keyed)))
            .unwrap();
    let items = csl.as_array().unwrap();
    assert_eq!(items.len(), entries);
    assert!(
        items
            .iter()
            .all(|i| i["type"] == "webpage" && i["URL"].is_string() && i["accessed"]["date-parts"][0].is_array())
    );

    let iterations = home.path().join("its");
    let out_md = home.path().join("report.md");
    sleuth(home.path())
        .args(["export", id, "--iterations"])
        .arg(&iterations)
        .args(["-o"])
        .arg(&out_md)
        .args(keyed)
        .assert()
        .success();
    let state = sleuth::engine::SessionState::replay(
        &read_log(&SessionDir::new(&home.path().join("sessions"), id).log_path()).unwrap().records,
    );
    let mut names: Vec<String> = std::fs::read_dir(&iterations)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len() as u32, state.iteration() + 1, "{names:?}");
    assert_eq!(names[0], "iteration-001.json");
    assert!(names.contains(&"session.json".to_string()));
    let session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(iterations.join("session.json")).unwrap()).unwrap();
    assert_eq!(session["total_iterations"], state.iteration());
    assert_eq!(session["final_status"], "finished");
    let first: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(iterations.join("iteration-001.json")).unwrap()).unwrap();
    assert!(
        first["reflection"]["plan"].is_string()
            && first["decision"]["action"].is_string()
            && first["evaluation"]["confidence"].is_number()
    );

    // The log holds the key (written without a redactor, as a leak would be);
    // no export does.
    let log = std::fs::read_to_string(SessionDir::new(&home.path().join("sessions"), id).log_path()).unwrap();
    assert!(log.contains(SECRET));
    for (name, text) in [("md", md), ("bib", bib), ("csl", csl.to_string()), ("json", json.to_string())] {
        assert!(!text.contains(SECRET), "{name} export leaks the key");
        if name != "csl" && name != "bib" {
            assert!(text.contains("[redacted]"), "{name}");
        }
    }
    for entry in std::fs::read_dir(&iterations).unwrap() {
        assert!(!std::fs::read_to_string(entry.unwrap().path()).unwrap().contains(SECRET));
    }
    assert!(!std::fs::read_to_string(&out_md).unwrap().contains(SECRET));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_reports_the_loop_metrics() {
    let home = tempfile::tempdir().unwrap();
    populate(home.path()).await;
    let json: serde_json::Value = serde_json::from_str(&stdout(sleuth(home.path()).args(["stats", "--json"]))).unwrap();
    assert_eq!(json["sessions"], 3);
    assert_eq!(json["damaged"], 1);
    assert_eq!(json["reported"], 1);
    let stops = &json["stops"];
    let total: u64 = ["thresholds", "plateau", "limits", "user"].iter().map(|k| stops[k].as_u64().unwrap()).sum();
    assert_eq!(total, 1);
    assert!(json["queries"].as_u64().unwrap() > 0);
    assert_eq!(json["search_failures"], 0);
    assert!(json["loop_duration"]["median_secs"].is_number());
    let table = stdout(sleuth(home.path()).arg("stats"));
    for label in [
        "avg iterations",
        "convergence rate",
        "cost per 0.1 confidence",
        "decision reversals",
        "loop duration",
        "search failures",
    ] {
        assert!(table.contains(label), "{label}: {table}");
    }
}

#[test]
fn memory_list_show_and_clear() {
    let home = tempfile::tempdir().unwrap();
    let store = FileMemoryStore::open(&home.path().join("memory.jsonl"), MemorySettings::default());
    for (i, q) in ["rust lifetimes", "tokio select"].iter().enumerate() {
        store
            .store(MemoryEntry {
                id: format!("s-{i}"),
                question: q.to_string(),
                mistake: format!("mistake about {q}"),
                correction: "fixed by a DEEPEN refinement".into(),
                tags: vec!["rust".into()],
                created_at_ms: 1_700_000_000_000 + i as u64,
                aspect: None,
            })
            .unwrap();
    }
    let list = stdout(sleuth(home.path()).args(["memory", "list"]));
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 3, "{list}");
    assert!(lines[1].starts_with("s-1") && lines[2].starts_with("s-0"), "newest first: {list}");
    let show = stdout(sleuth(home.path()).args(["memory", "show", "s-0"]));
    assert!(show.contains("mistake about rust lifetimes") && show.contains("DEEPEN"), "{show}");
    sleuth(home.path()).args(["memory", "show", "nope"]).assert().failure();
    let refused = sleuth(home.path()).args(["memory", "clear"]).assert().failure().get_output().clone();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--yes"));
    assert_eq!(store.entries().len(), 2);
    sleuth(home.path()).args(["memory", "clear", "--yes"]).assert().success();
    assert!(store.entries().is_empty());
}

// ---- End to end with the built-in reasoner and a local corpus ----------

const E2E_QUESTION: &str = "How do widgets connect to gadgets and what latency do they have?";

#[test]
fn sigkill_mid_session_then_resume_finishes_with_the_report_of_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let flags = long_session(&corpus);
    let mut run: Vec<String> = vec!["run".into()];
    run.extend(flags.clone());
    run.push(E2E_QUESTION.into());

    // One index for both runs: search results that tie on score come in
    // the order of the index's segments, which differs between builds.
    let home = tmp.path().join("home");
    sleuth(&home).args(["index"]).arg(&corpus).assert().success();
    let reference_home = tmp.path().join("reference");
    copy_dir(&home.join("index"), &reference_home.join("index"));
    let reference = stdout(sleuth(&reference_home).args(&run));
    let reference_id = session_ids(&reference_home).pop().unwrap();
    let reference_events = log_lines(&reference_home, &reference_id).len();
    assert!(reference_events > 30, "a session long enough to kill in the middle: {reference_events} events");

    // Killed early in the first iteration; retried if the machine was too
    // slow to kill it before it ended.
    let (id, before) =
        (0..5).find_map(|_| kill_after(&home, &run, 4, true)).expect("could not kill the session before it ended");
    assert!(before.len() < reference_events);
    // Resumed, and killed again a few events later (unless a slow poll let
    // it finish first: then the one crash is what this run tests).
    let resume: Vec<String> = vec!["resume".into(), id.clone(), "--headless".into()];
    let before_second = match kill_after(&home, &resume, before.len() + 8, false) {
        Some((same, lines)) => {
            assert_eq!(same, id);
            assert_eq!(&lines[..before.len()], &before[..], "the first resume kept every event");
            lines
        }
        None => before.clone(),
    };
    let out = sleuth(&home).args(&resume).assert().success().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let report = if err.contains("has ended") {
        let log = read_log(&SessionDir::new(&home.join("sessions"), &id).log_path()).unwrap();
        format!("{}\n", sleuth::engine::SessionState::replay(&log.records).report.unwrap().markdown)
    } else {
        assert!(err.contains("resuming session"), "{err}");
        String::from_utf8(out.stdout).unwrap()
    };
    let after = log_lines(&home, &id);
    assert_eq!(&after[..before_second.len()], &before_second[..], "every event written before the kills is there");
    for (i, line) in after.iter().enumerate() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["seq"], i as u64 + 1);
    }
    assert!(after.last().unwrap().contains("\"session_ended\""));
    assert_eq!(report, reference, "the report equals the uninterrupted run's");
    let table = stdout(sleuth(&home).arg("sessions"));
    assert!(table.contains("finished"), "{table}");
}

#[test]
fn two_processes_resuming_one_session_the_second_gets_the_holders_pid() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    // A session waiting on an ASK, written by the engine with scripted parts.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(run_new(
        &home.join("sessions"),
        "20250102-090000-bbbb",
        support::settings(3),
        ScriptedReasoner::new(turns(true)),
        ScriptedProvider::new("scripted", corpus_docs()),
        memory(),
        "Which widget is blue?",
        OnAsk::Detach,
    ));
    sleuth(&home).args(["index"]).arg(&corpus).assert().success();
    let set_corpus = format!("local.corpus={}", corpus.display());
    let mut first = support::bin::spawn(
        support::bin::sleuth_command(&home)
            .args(["resume", "20250102-090000-bbbb", "--headless", "--ask", "stdin", "--set", &set_corpus])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
    );
    let lock = SessionDir::new(&home.join("sessions"), "20250102-090000-bbbb").lock_path();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while sleuth::session::lock::live_holder(&lock) != Some(first.id()) {
        assert!(std::time::Instant::now() < deadline, "the first process never took the lock");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out =
        sleuth(&home).args(["resume", "20250102-090000-bbbb", "--headless"]).assert().failure().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("pid {}", first.id())), "{err}");
    // The first one asks the open question again; answer it and let it finish.
    use std::io::Write as _;
    first.stdin.take().unwrap().write_all(b"2\n").unwrap();
    let done = support::bin::output_within(first.into_inner(), support::bin::DEFAULT_LIMIT, "the first resume");
    let first_err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{first_err}");
    assert!(first_err.contains("Which widget do you mean?") && first_err.contains("the red widget"), "{first_err}");
    let table = stdout(sleuth(&home).arg("sessions"));
    assert!(table.lines().any(|l| l.starts_with("20250102-090000-bbbb") && l.contains("finished")), "{table}");
}

fn corpus_docs() -> Vec<support::scripted::Doc> {
    corpus(10)
}

#[test]
fn with_an_api_key_set_no_file_the_session_wrote_and_no_export_holds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    let keyed = ["--set", "llm.api_key_env=SLEUTH_TEST_KEY"];
    let question = format!("Does key {SECRET} connect widgets to gadgets?");
    // Answered (0) or not (4: the corpus may not answer it): the key is what is checked.
    let run = sleuth(&home).arg("run").args(long_session(&corpus)).args(keyed).arg(&question).output().unwrap();
    assert!(matches!(run.status.code(), Some(0 | 4)), "{}", String::from_utf8_lossy(&run.stderr));
    let printed = String::from_utf8(run.stdout).unwrap();
    assert!(!printed.contains(SECRET), "the printed report is redacted too");
    assert!(!String::from_utf8_lossy(&run.stderr).contains(SECRET), "progress on stderr");
    // Every event on stdout, the header with the question first: blanked
    // by the engine before the printer (or the log) got it.
    let corpus_flag = format!("local.corpus={}", corpus.display());
    let json = sleuth(&tmp.path().join("json-home"))
        .args(["run", "--json", "--set", &corpus_flag])
        .args(keyed)
        .arg(&question)
        .output()
        .unwrap();
    assert!(matches!(json.status.code(), Some(0 | 4)), "{}", String::from_utf8_lossy(&json.stderr));
    let (out, err) = (String::from_utf8_lossy(&json.stdout), String::from_utf8_lossy(&json.stderr));
    assert!(!out.contains(SECRET) && !err.contains(SECRET), "{out}\n{err}");
    let header: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(header["event"]["question"], "Does key [redacted] connect widgets to gadgets?", "{header}");
    let id = session_ids(&home).pop().unwrap();
    let exports = tmp.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    for (format, file) in [("md", "r.md"), ("json", "r.json"), ("bibtex", "r.bib"), ("csl-json", "r.csl.json")] {
        sleuth(&home)
            .args(["export", &id, "--format", format, "-o"])
            .arg(exports.join(file))
            .args(keyed)
            .assert()
            .success();
    }
    sleuth(&home).args(["export", &id, "--iterations"]).arg(exports.join("its")).args(keyed).assert().success();
    let follow =
        sleuth(&home).args(["resume", &id, "--follow-up", "And the power draw?"]).args(keyed).output().unwrap();
    assert!(matches!(follow.status.code(), Some(0 | 4)), "{}", String::from_utf8_lossy(&follow.stderr));
    assert!(!String::from_utf8_lossy(&follow.stdout).contains(SECRET));
    let mut checked = 0;
    for root in [home.as_path(), exports.as_path()] {
        for path in files_under(root) {
            let bytes = std::fs::read(&path).unwrap();
            assert!(!String::from_utf8_lossy(&bytes).contains(SECRET), "{} holds the key", path.display());
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked} files checked");
    let log = std::fs::read_to_string(SessionDir::new(&home.join("sessions"), &id).log_path()).unwrap();
    assert!(log.contains("[redacted]"));
}

#[test]
fn a_follow_up_and_a_retuned_fork_run_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    let set_corpus = format!("local.corpus={}", corpus.display());
    sleuth(&home).args(["run", "--preset", "simple", "--set", &set_corpus, E2E_QUESTION]).assert().success();
    let first = session_ids(&home).pop().unwrap();
    let first_state = sleuth::engine::SessionState::replay(
        &read_log(&SessionDir::new(&home.join("sessions"), &first).log_path()).unwrap().records,
    );

    // A follow-up: a new session that starts with the first one's sources.
    let out = sleuth(&home)
        .args(["resume", &first, "--follow-up", "What power do the widgets draw?"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("follow-up of session {first}")));
    let second = session_ids(&home).into_iter().find(|i| *i != first).unwrap();
    let log = read_log(&SessionDir::new(&home.join("sessions"), &second).log_path()).unwrap();
    let state = sleuth::engine::SessionState::replay(&log.records);
    let header = state.header.as_ref().unwrap();
    assert_eq!(header.follow_up_of.as_deref(), Some(first.as_str()));
    assert_eq!(header.preset, "simple", "the follow-up continues under the recorded configuration");
    assert!(state.sources.len() >= first_state.sources.len());
    for (a, b) in first_state.sources.iter().zip(&state.sources) {
        assert_eq!(a.meta.locator, b.meta.locator);
    }
    assert!(state.is_finished() && state.report.is_some());

    // A fork of the first from iteration 1 with a bigger preset runs on.
    let out = sleuth(&home)
        .args(["fork", &first, "--from", "1", "--preset", "deep", "--headless"])
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("retuned"), "{err}");
    let fork = session_ids(&home).into_iter().find(|i| *i != first && *i != second).unwrap();
    let state = sleuth::engine::SessionState::replay(
        &read_log(&SessionDir::new(&home.join("sessions"), &fork).log_path()).unwrap().records,
    );
    let header = state.header.as_ref().unwrap();
    assert_eq!((header.preset.as_str(), header.limits.max_iterations), ("deep", 10));
    assert_eq!(header.forked_from.as_ref().unwrap().session_id, first);
    assert!(state.is_finished());
    assert!(!String::from_utf8_lossy(&out.stdout).is_empty(), "the fork's report is printed");
}

#[test]
fn step_mode_without_a_terminal_pauses_and_steps_on() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    let home = tmp.path().join("home");
    let out = sleuth(&home).arg("run").args(long_session(&corpus)).args(["--step", E2E_QUESTION]).assert().success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("paused after iteration 1"), "{err}");
    let id = session_ids(&home).pop().unwrap();
    let state = sleuth::engine::SessionState::replay(
        &read_log(&SessionDir::new(&home.join("sessions"), &id).log_path()).unwrap().records,
    );
    assert!(state.is_finished());
    assert!(
        state
            .iterations
            .iter()
            .filter(|it| it.decision.as_ref().is_some_and(|d| d.action == sleuth::engine::model::Action::Continue))
            .all(|it| it.paused && it.resumed)
    );
}
