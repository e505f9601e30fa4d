//! Logs no engine wrote, and files that are not logs, on the real binary:
//! each is refused or listed for what it is, quickly, in bounded memory,
//! and never hides the others.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support;
use sleuth::session::SessionDir;
use support::bin::{output, sleuth_command, sleuth_within, texts};
use support::e2e::{session_ids, write_corpus};

/// Every child gets this long; a hang fails the test instead of stalling it.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A finished session of three iterations, by the real binary; its id.
fn real_session(home: &Path, corpus: &Path) -> String {
    sleuth_within(home, TIMEOUT)
        .args(["run", "--set", &format!("local.corpus={}", corpus.display())])
        .args(["--set", "decide.confidence_threshold=1.0", "--set", "decide.coverage_threshold=1.0"])
        .args(["--set", "decide.diminishing_returns_window=50", "--set", "decide.severity_plateau_window=50"])
        .args(["--max-iterations", "3", "--time-limit", "0", "How does widget 3 connect to its gadget?"])
        .assert()
        .success();
    session_ids(home).pop().unwrap()
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(String::from).collect()
}

/// A session folder `id` whose log is `lines`.
fn session_with(home: &Path, id: &str, lines: &[String]) -> SessionDir {
    let dir = SessionDir::create(&home.join("sessions"), id).unwrap();
    std::fs::write(dir.log_path(), lines.join("\n") + "\n").unwrap();
    dir
}

fn field(line: &str, key: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v[key].as_u64().unwrap()
}

fn with_field(line: &str, key: &str, value: u64) -> String {
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    v[key] = value.into();
    v.to_string()
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    corpus: PathBuf,
}

fn home() -> Home {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let corpus = tmp.path().join("corpus");
    write_corpus(&corpus);
    Home { home, corpus, _tmp: tmp }
}

#[test]
fn the_looping_log_of_issue_25_is_damaged_at_its_line_and_resume_stops() {
    let h = home();
    let id = real_session(&h.home, &h.corpus);
    let lines = lines_of(&SessionDir::new(&h.home.join("sessions"), &id).log_path());
    // Header, iteration_started 1, planned 1, query_searched 1, then a
    // second iteration_started 1 (at the same active time, in sequence).
    assert!(lines[1].contains("\"iteration_started\"") && lines[2].contains("\"planned\""), "{}", lines[1]);
    assert!(lines[3].contains("\"query_searched\""), "{}", lines[3]);
    let again = with_field(&with_field(&lines[1], "seq", 5), "elapsed_ms", field(&lines[3], "elapsed_ms"));
    let looping = [lines[0].clone(), lines[1].clone(), lines[2].clone(), lines[3].clone(), again];
    let dir = session_with(&h.home, "20990101-000000-loop", &looping);
    let size = std::fs::metadata(dir.log_path()).unwrap().len();

    let (code, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    assert_eq!(code, Some(0));
    let row = table.lines().find(|l| l.starts_with("20990101-000000-loop")).unwrap();
    assert!(row.contains("damaged"), "{table}");
    let (code, _, err) =
        output(sleuth_within(&h.home, TIMEOUT).args(["resume", "20990101-000000-loop", "--time-limit", "1"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("line 5") && err.contains("iteration 1 starts after iteration 1"), "{err}");
    assert_eq!(std::fs::metadata(dir.log_path()).unwrap().len(), size, "nothing appended");
    let (code, _, err) = output(sleuth_within(&h.home, TIMEOUT).args(["export", "20990101-000000-loop"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("line 5"), "{err}");
}

#[test]
fn an_edited_log_of_the_same_size_is_not_trusted_to_its_summary() {
    let h = home();
    let id = real_session(&h.home, &h.corpus);
    let dir = SessionDir::new(&h.home.join("sessions"), &id);
    // Listed once and settled: its summary is stored and stamped.
    std::thread::sleep(Duration::from_millis(150));
    let (_, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    assert!(table.contains("finished"), "{table}");
    let good = std::fs::read(dir.log_path()).unwrap();

    // Two lines swapped: the same bytes, the same length.
    let mut lines = lines_of(&dir.log_path());
    lines.swap(3, 4);
    std::fs::write(dir.log_path(), lines.join("\n") + "\n").unwrap();
    assert_eq!(std::fs::metadata(dir.log_path()).unwrap().len(), good.len() as u64);
    let (_, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    assert!(table.contains("damaged") && table.contains("line 4"), "{table}");
    let (code, _, err) = output(sleuth_within(&h.home, TIMEOUT).args(["export", &id]));
    assert_eq!(code, Some(1), "{err}");

    // A flipped bit in a number: `"seq":5` becomes `"seq":4`.
    let mut flipped = good.clone();
    let at = find(&flipped, b"\"seq\":5,");
    flipped[at + 6] ^= 0x01;
    std::fs::write(dir.log_path(), &flipped).unwrap();
    let (_, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    assert!(table.contains("damaged"), "{table}");
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).position(|w| w == needle).unwrap()
}

#[cfg(unix)]
#[test]
fn a_reused_pid_in_a_free_lock_is_not_running() {
    let h = home();
    let id = real_session(&h.home, &h.corpus);
    let dir = SessionDir::new(&h.home.join("sessions"), &id);
    // What a killed session leaves, its pid since taken by a live process.
    std::fs::write(dir.lock_path(), format!("{}\n", std::process::id())).unwrap();
    let (_, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    let row = table.lines().find(|l| l.starts_with(&id)).unwrap();
    assert!(row.contains("finished") && !row.contains("running"), "{table}");
}

// Each command's peak is read from /proc.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_a_device_and_a_huge_torn_tail_neither_block_nor_bloat() {
    let h = home();
    let id = real_session(&h.home, &h.corpus);
    let good = lines_of(&SessionDir::new(&h.home.join("sessions"), &id).log_path());
    let root = h.home.join("sessions");

    let fifo = SessionDir::create(&root, "20990101-000000-fifo").unwrap();
    mkfifo(&fifo.log_path());
    let zero = SessionDir::create(&root, "20990102-000000-zero").unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero.log_path()).unwrap();
    // Its lock a FIFO too: asking whether it runs must not block either.
    mkfifo(&zero.lock_path());

    let (code, table, err) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    assert_eq!(code, Some(0), "{err}");
    let row =
        |id: &str| table.lines().find(|l| l.starts_with(id)).unwrap_or_else(|| panic!("{id}: {table}")).to_string();
    assert!(row("20990101-000000-fifo").contains("damaged"), "{table}");
    assert!(row("20990101-000000-fifo").contains("named pipe"), "{table}");
    assert!(row("20990102-000000-zero").contains("damaged"), "{table}");
    assert!(row(&id).contains("finished"), "one bad folder hides no other: {table}");
    for args in [
        &["export", "20990101-000000-fifo"][..],
        &["open", "20990101-000000-fifo"],
        &["resume", "20990101-000000-fifo", "--time-limit", "1"],
        &["fork", "20990101-000000-fifo", "--from", "0", "--create-only"],
        &["export", "20990102-000000-zero"],
        &["resume", "20990102-000000-zero", "--time-limit", "1"],
    ] {
        let (code, _, err) = output(sleuth_within(&h.home, TIMEOUT).args(args));
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    let config_fifo = h.home.join("config-fifo.toml");
    mkfifo(&config_fifo);
    let (code, _, err) = output(sleuth_within(&h.home, TIMEOUT).args(["sessions", "--config"]).arg(&config_fifo));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("named pipe"), "{err}");
    std::fs::remove_dir_all(fifo.path).unwrap();
    std::fs::remove_dir_all(zero.path).unwrap();

    // Four events, then 200 MiB of a line a crash cut short.
    const TAIL: usize = 200 << 20;
    let torn = SessionDir::create(&root, "20990103-000000-torn").unwrap();
    {
        use std::io::Write;
        let mut f = std::fs::File::create(torn.log_path()).unwrap();
        f.write_all((good[..4].join("\n") + "\n").as_bytes()).unwrap();
        f.write_all(b"{\"seq\":5,\"at_ms\":1,\"elapsed_ms\":1,\"event\":{\"type\":\"report_delta\",\"text\":\"")
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..TAIL >> 20 {
            f.write_all(&chunk).unwrap();
        }
    }
    // Each command's own peak resident size: listing, exporting and
    // resuming cost far less than the tail.
    let mut peak = 0;
    let mut measured = |args: &[&str]| {
        let mut cmd = sleuth_command(&h.home);
        cmd.args(args);
        let (out, rss) = support::bin::output_and_peak_rss(&mut cmd, TIMEOUT);
        peak = peak.max(rss);
        texts(out)
    };
    let (_, table, _) = measured(&["sessions"]);
    assert!(table.lines().any(|l| l.starts_with("20990103-000000-torn") && l.contains("interrupted")), "{table}");
    let (code, _, err) = measured(&["export", "20990103-000000-torn"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("cut short by a crash"), "{err}");
    let (code, _, err) = measured(&["resume", "20990103-000000-torn", "--time-limit", "1"]);
    assert!(code.is_some(), "{err}");
    assert!(err.contains("set aside"), "{err}");
    let kept = std::fs::metadata(torn.path.join("torn-tails.txt")).unwrap().len();
    assert!(kept > TAIL as u64, "the torn bytes are kept, not lost: {kept}");
    assert!(peak < (TAIL as u64) / 2, "peak resident size {} MiB", peak >> 20);
}

#[test]
fn a_log_or_a_line_over_the_caps_is_refused_naming_the_setting() {
    let h = home();
    let id = real_session(&h.home, &h.corpus);
    let (code, _, err) =
        output(sleuth_within(&h.home, TIMEOUT).args(["export", &id, "--set", "sessions.max_line_mb=1"]));
    assert_eq!(code, Some(0), "{err}");
    let dir = SessionDir::new(&h.home.join("sessions"), &id);
    let mut lines = lines_of(&dir.log_path());
    let last = lines.len() - 1;
    lines[last] = lines[last].replacen("\"type\":", &format!("\"pad\":\"{}\",\"type\":", "y".repeat(2 << 20)), 1);
    std::fs::write(dir.log_path(), lines.join("\n") + "\n").unwrap();
    let (code, _, err) =
        output(sleuth_within(&h.home, TIMEOUT).args(["export", &id, "--set", "sessions.max_line_mb=1"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(&format!("line {}", last + 1)) && err.contains("sessions.max_line_mb"), "{err}");
    let (code, _, err) =
        output(sleuth_within(&h.home, TIMEOUT).args(["export", &id, "--set", "sessions.max_log_mb=1"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("sessions.max_log_mb=3"), "{err}");
    let (code, _, err) = output(sleuth_within(&h.home, TIMEOUT).args(["export", &id]));
    assert_eq!(code, Some(0), "the default caps hold a genuine log: {err}");
}

#[test]
fn last_is_the_newest_session_to_the_millisecond_and_a_fork_is_new() {
    let h = home();
    let first = real_session(&h.home, &h.corpus);
    let root = h.home.join("sessions");
    let lines = lines_of(&SessionDir::new(&root, &first).log_path());
    // Two sessions started in the same second, the newer with the smaller suffix.
    let at = field(&lines[0], "at_ms");
    let older = lines.iter().map(|l| l.replace(&first, "20990101-000000-ffff")).collect::<Vec<_>>();
    let mut newer = lines.iter().map(|l| l.replace(&first, "20990101-000000-0000")).collect::<Vec<_>>();
    newer[0] = with_field(&newer[0], "at_ms", at + 900);
    let mut older = older;
    older[0] = with_field(&older[0], "at_ms", at + 500);
    session_with(&h.home, "20990101-000000-ffff", &older);
    session_with(&h.home, "20990101-000000-0000", &newer);
    let (_, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert!(rows[0].starts_with("20990101-000000-0000"), "{table}");
    let (_, md, _) = output(sleuth_within(&h.home, TIMEOUT).args(["export", "last", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&md).unwrap();
    assert_eq!(json["summary"]["id"], "20990101-000000-0000", "`last` is the first row");

    // A fork of the oldest is the newest session: listed first, and `last`.
    let now_ms = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    while now_ms() <= at + 1_000 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let (code, out, err) =
        output(sleuth_within(&h.home, TIMEOUT).args(["fork", &first, "--from", "1", "--create-only"]));
    assert_eq!(code, Some(0), "{err}");
    let fork = out.trim().to_string();
    let (_, table, _) = output(sleuth_within(&h.home, TIMEOUT).arg("sessions"));
    assert!(table.lines().nth(1).unwrap().starts_with(&fork), "{table}");
    let (_, md, _) = output(sleuth_within(&h.home, TIMEOUT).args(["export", "last", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&md).unwrap();
    assert_eq!(json["summary"]["id"], fork.as_str());
}

mod engine_bounds {
    //! The loop's own bounds, on a state no reader would let through: the
    //! same looping log folded without its checks.
    use std::sync::Arc;

    use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
    use sleuth::engine::model::{DecisionReason, Outcome, StopReason};
    use sleuth::engine::ports::{MemorySink, MemoryTexts};
    use sleuth::engine::protocol::{Event, EventRecord};
    use sleuth::engine::{Engine, EngineParts, SessionState};
    use sleuth::search::{SearchProvider, SearchRouter};

    use super::support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};
    use super::support::{Harness, settings};

    async fn real_records() -> Vec<EventRecord> {
        let h = Harness::new(
            settings(3),
            ScriptedReasoner::new(vec![Turn::coverage(1, 3)]),
            ScriptedProvider::new("scripted", corpus(10)),
        );
        h.run("How do widgets connect to gadgets?").await.records
    }

    async fn continue_from(state: SessionState, time_limit_secs: u64) -> (SessionState, Vec<EventRecord>) {
        let mut s = settings(3);
        s.limits.time_limit_secs = time_limit_secs;
        let sink = MemorySink::default();
        let provider: Arc<dyn SearchProvider> = Arc::new(ScriptedProvider::new("scripted", corpus(10)));
        let parts = EngineParts {
            reasoner: Arc::new(ScriptedReasoner::new(vec![Turn::coverage(1, 3)])),
            search: Arc::new(SearchRouter::new(vec![vec![provider]], &sleuth::search::RouterSettings::default())),
            texts: Arc::new(MemoryTexts::default()),
            memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
            log: Box::new(sink.clone()),
        };
        let (engine, handle) = Engine::new(s, parts, state);
        drop(handle);
        let run = tokio::time::timeout(std::time::Duration::from_secs(20), engine.run());
        let state = run.await.expect("the loop ends").expect("engine run");
        (state, sink.records())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_step_that_repeats_fails_the_session_whatever_the_log_says() {
        let records = real_records().await;
        let kinds: Vec<&str> = records[..4].iter().map(|r| r.event.kind()).collect();
        assert_eq!(kinds, ["session_started", "iteration_started", "planned", "query_searched"]);
        let mut looping = records[..4].to_vec();
        looping.push(EventRecord { seq: 5, elapsed_ms: records[3].elapsed_ms, ..records[1].clone() });
        let (state, emitted) = continue_from(SessionState::replay(&looping), 0).await;
        assert!(matches!(state.outcome, Some(Outcome::Failed { .. })), "{:?}", state.outcome);
        let plans = emitted.iter().filter(|r| matches!(r.event, Event::Planned { .. })).count();
        assert!(plans <= 3, "{plans} plans");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_the_time_limit_no_new_research_starts() {
        let records = real_records().await;
        // Interrupted after planning iteration 1, with 2 s of the 1 s limit used.
        let mut interrupted = records[..3].to_vec();
        interrupted[2].elapsed_ms = 2_000;
        let (state, emitted) = continue_from(SessionState::replay(&interrupted), 1).await;
        assert!(!emitted.iter().any(|r| matches!(r.event, Event::QuerySearched { .. })), "no search");
        let report = state.report.expect("a report");
        assert_eq!(report.stop, StopReason::Decision(DecisionReason::TimeBudget));
        assert_eq!(state.outcome, Some(Outcome::Finished));
    }
}
