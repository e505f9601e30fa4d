//! The real `sleuth` binary on session folders written by the real engine
//! (scripted parts), with SLEUTH_HOME in a temp dir: sessions, resume's
//! lock message, fork, export (and its redaction), stats, memory.

mod support;

use std::path::Path;
use std::sync::Arc;

use assert_cmd::Command;
use sleuth::engine::memory::{InMemoryStore, MemoryEntry, MemorySettings, MemoryStore};
use sleuth::engine::model::Severity;
use sleuth::session::lock::SessionLock;
use sleuth::session::memory::FileMemoryStore;
use sleuth::session::{SessionDir, read_log};
use support::disk::{OnAsk, run_new};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};

const SECRET: &str = "sk-test-0123456789abcdef";

fn turns(clarify: bool) -> Vec<Turn> {
    let mut first = Turn::coverage(1, 3);
    first.issues = vec![("the answer omits the lab measurements", Severity::High)];
    first.clarify = clarify;
    vec![first, Turn::coverage(2, 3), Turn::coverage(3, 3)]
}

fn sleuth(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("sleuth").unwrap();
    cmd.env("SLEUTH_HOME", home).env_remove("SLEUTH_LOG").env("SLEUTH_TEST_KEY", SECRET);
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches several sessions"));
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
    assert!(table.lines().any(|l| l.starts_with(&new_id) && l.contains("interrupted")), "{table}");
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
    assert_eq!(session["final_status"]["status"], "finished");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn show_outputs() {
    let home = std::path::PathBuf::from("/tmp/sleuth-show");
    let _ = std::fs::remove_dir_all(&home);
    populate(&home).await;
}
