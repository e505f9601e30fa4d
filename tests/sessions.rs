//! The session store with the real engine (scripted reasoner and provider)
//! writing real files: crash and resume, ASK across processes, fork,
//! follow-up, damaged logs, reflexion memory across sessions, secrets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::support;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::Severity;
use sleuth::engine::protocol::{Command, Event, EventRecord};
use sleuth::engine::{Engine, SessionState};
use sleuth::session::list::{Status, list_one, list_sessions};
use sleuth::session::memory::FileMemoryStore;
use sleuth::session::summary::{Freshness, SessionSummary, load_summary};
use sleuth::session::{
    NewSessionLog, OpenError, Redactor, SessionDir, SessionLog, follow_up, fork, open_session, read_log,
};
use support::disk::{OnAsk, drive, parts, run_new};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};

const QUESTION: &str = "How do widgets connect to gadgets?";

fn turns() -> Vec<Turn> {
    let mut first = Turn::coverage(1, 3);
    first.issues = vec![("the answer omits the lab measurements", Severity::High)];
    first.cite = 2;
    let mut second = Turn::coverage(2, 3);
    second.cite = 4;
    vec![first, second, Turn::coverage(3, 3)]
}

fn ask_turns() -> Vec<Turn> {
    let mut t = turns();
    t[0].clarify = true;
    t
}

/// A new session of `QUESTION` with `iterations` at most, on the scripted
/// provider and a fresh memory.
async fn run_plain(root: &Path, id: &str, iterations: u32, turns: Vec<Turn>, on_ask: OnAsk) -> SessionState {
    let settings = support::settings(iterations);
    run_new(root, id, settings, ScriptedReasoner::new(turns), provider(), memory(), QUESTION, on_ask).await
}

fn provider() -> ScriptedProvider {
    ScriptedProvider::new("scripted", corpus(12))
}

fn provider_arc() -> Arc<dyn sleuth::search::SearchProvider> {
    Arc::new(provider())
}

fn memory() -> Arc<dyn MemoryStore> {
    Arc::new(InMemoryStore::new(MemorySettings::default()))
}

fn records(root: &Path, id: &str) -> Vec<EventRecord> {
    read_log(&SessionDir::new(root, id).log_path()).unwrap().records
}

fn current_schema() -> String {
    format!("\"schema_version\":{}", sleuth::engine::protocol::SCHEMA_VERSION)
}

fn assert_gapless(records: &[EventRecord]) {
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.seq, i as u64 + 1, "seq gap at {i}");
    }
}

/// Opens session `id`, continues it with the scripted parts, returns its end state.
async fn resume(
    root: &Path,
    id: &str,
    settings: sleuth::engine::settings::EngineSettings,
    reasoner: ScriptedReasoner,
    on_ask: OnAsk,
) -> SessionState {
    let opened = open_session(root, id).unwrap();
    let mut settings = settings;
    settings.session_id = id.to_string();
    let p = parts(&opened.dir, &settings, Arc::new(reasoner), provider_arc(), memory(), Box::new(opened.log));
    let (engine, handle) = Engine::new(settings, p, opened.state);
    let state = drive(engine, handle, None, on_ask).await;
    drop(opened.lock);
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_phase_loses_nothing_and_the_resumed_report_equals_an_uninterrupted_one() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let reference = run_plain(&root, "reference", 3, turns(), OnAsk::Choose(0)).await;
    assert!(reference.iteration() >= 2, "the reference should take several iterations");

    // The same session, killed while iteration 2 is drafting.
    let mut slow = ScriptedReasoner::new(turns());
    slow.draft_delay = Duration::from_millis(400);
    let mut settings = support::settings(3);
    settings.session_id = "crashed".into();
    let dir = SessionDir::create(&root, "crashed").unwrap();
    let log = SessionLog::create(&dir).unwrap();
    let p = parts(&dir, &settings, Arc::new(slow), provider_arc(), memory(), Box::new(log));
    let (engine, mut handle) = Engine::new(settings, p, SessionState::default());
    let task = tokio::spawn(engine.run());
    handle.commands.send(Command::Start { question: QUESTION.into() }).unwrap();
    while let Some(r) = handle.events.recv().await {
        if matches!(r.event, Event::Reviewed { iteration: 2, .. }) {
            break;
        }
    }
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    let before = records(&root, "crashed");
    assert!(matches!(before.last().unwrap().event, Event::Reviewed { iteration: 2, .. }));
    // And a crash in the middle of writing the next line.
    let torn = "{\"seq\":999,\"at_ms\":1,\"elapsed_ms\":1,\"event\":{\"type\":\"drafted\",\"itera";
    std::fs::OpenOptions::new().append(true).open(dir.log_path()).unwrap();
    std::fs::write(dir.log_path(), [std::fs::read(dir.log_path()).unwrap(), torn.as_bytes().to_vec()].concat())
        .unwrap();
    assert_eq!(list_one(&dir).status, Status::Interrupted);

    let opened = open_session(&root, "crashed").unwrap();
    assert!(opened.notices.iter().any(|n| n.contains("cut short")), "{:?}", opened.notices);
    assert_eq!(opened.records, before);
    drop(opened);
    let resumed =
        resume(&root, "crashed", support::settings(3), ScriptedReasoner::new(turns()), OnAsk::Choose(0)).await;

    let after = records(&root, "crashed");
    assert_eq!(&after[..before.len()], &before[..], "every event written before the crash is kept");
    assert_gapless(&after);
    assert!(std::fs::read_to_string(dir.path.join("torn-tails.txt")).unwrap().contains("\"itera"));
    assert_eq!(resumed.outcome, reference.outcome);
    let (a, b) = (resumed.report.clone().unwrap(), reference.report.clone().unwrap());
    assert_eq!(a.markdown, b.markdown);
    assert_eq!(a.based_on_iteration, b.based_on_iteration);
    assert_eq!(support::decisions(&resumed), support::decisions(&reference));
    // The replayed log folds to the state the engine ended with.
    assert_eq!(SessionState::replay(&after).report.map(|r| r.markdown), Some(a.markdown));
    let listed = list_one(&dir);
    assert_eq!(listed.status, Status::Finished);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_waiting_on_an_ask_asks_again_when_resumed() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let waiting = run_plain(&root, "asking", 3, ask_turns(), OnAsk::Detach).await;
    assert!(waiting.outcome.is_none());
    let ask = waiting.open_ask().expect("an open ask").clone();
    let listed = list_one(&SessionDir::new(&root, "asking"));
    assert_eq!(listed.status, Status::WaitingOnAsk);
    let summary = listed.summary.unwrap();
    assert_eq!(summary.status, Status::WaitingOnAsk);
    assert_eq!(summary.waiting_on.as_deref(), Some(ask.clarification.question.as_str()));

    let done =
        resume(&root, "asking", support::settings(3), ScriptedReasoner::new(ask_turns()), OnAsk::Choose(1)).await;
    assert!(done.is_finished());
    assert_eq!(done.asks.len(), 1, "the same ask is answered, not a new one raised");
    assert!(done.constraints.iter().any(|c| c.contains("the red widget")), "{:?}", done.constraints);
    assert_gapless(&records(&root, "asking"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_answers_an_ask_differently_and_shares_the_log_before_the_decision() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let original = run_plain(&root, "orig", 3, ask_turns(), OnAsk::Choose(1)).await;
    assert!(original.constraints.iter().any(|c| c.contains("the red widget")));
    let forked = fork::fork_session(&root, "orig", 1, "fork1", None).unwrap();
    let orig_records = records(&root, "orig");
    let fork_records = records(&root, "fork1");
    assert_eq!(forked.kept_events, fork_records.len());
    // Shared: everything of iteration 1 before its decision, event for event.
    let decided = orig_records.iter().position(|r| matches!(r.event, Event::Decided { iteration: 1, .. })).unwrap();
    assert_eq!(fork_records.len(), decided);
    for (a, b) in orig_records[1..decided].iter().zip(&fork_records[1..]) {
        assert_eq!(a.event, b.event);
    }
    let Event::SessionStarted(h) = &fork_records[0].event else { panic!("no header") };
    assert_eq!((h.session_id.as_str(), h.forked_from.as_ref().unwrap().session_id.as_str()), ("fork1", "orig"));
    // Texts of shared sources came along.
    for s in &SessionState::replay(&fork_records).sources {
        assert!(SessionDir::new(&root, "fork1").sources_dir().join(format!("{}.txt", s.meta.id.0)).exists());
    }

    let done = resume(&root, "fork1", support::settings(3), ScriptedReasoner::new(ask_turns()), OnAsk::Choose(0)).await;
    assert!(done.is_finished());
    assert!(done.constraints.iter().any(|c| c.contains("the blue widget")), "{:?}", done.constraints);
    assert!(!done.constraints.iter().any(|c| c.contains("the red widget")));
    // The original is untouched.
    assert_eq!(records(&root, "orig"), orig_records);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retuned_fork_goes_past_the_limit_that_stopped_the_original() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let short = run_plain(&root, "short", 1, turns(), OnAsk::Choose(0)).await;
    assert_eq!(support::decisions(&short), vec!["OUTPUT:max_iterations"]);
    let longer = support::limits(3);
    let retune = |h: &mut sleuth::engine::SessionHeader| h.limits = longer.clone();
    fork::fork_session(&root, "short", 1, "long", Some(&retune)).unwrap();
    let Event::SessionStarted(h) = &records(&root, "long")[0].event else { panic!() };
    assert_eq!(h.limits.max_iterations, 3);
    let done = resume(&root, "long", support::settings(3), ScriptedReasoner::new(turns()), OnAsk::Choose(0)).await;
    assert!(done.iteration() >= 2, "{:?}", support::decisions(&done));
    assert_eq!(support::decisions(&done)[0], "CONTINUE:below_thresholds");
    // From 0: only the question is kept.
    let fresh = fork::fork_session(&root, "short", 0, "fresh", None).unwrap();
    assert_eq!(fresh.kept_events, 1);
    assert!(matches!(
        fork::fork_session(&root, "short", 5, "bad", None),
        Err(fork::ForkError::NoSuchIteration { iterations: 1, .. })
    ));
    assert!(!root.join("bad").exists() && !root.join(".fork-bad").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_up_starts_from_the_earlier_sources_and_findings() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let prev = run_plain(&root, "prev", 2, turns(), OnAsk::Choose(0)).await;
    let prev_bytes = std::fs::read(SessionDir::new(&root, "prev").log_path()).unwrap();
    let n = prev.sources.len();
    assert!(n > 0);
    let (dir, imported) = follow_up::prepare_follow_up(&root, "prev", "next").unwrap();
    assert_eq!(imported.sources.len(), n);
    assert!(!imported.findings.is_empty() && imported.findings[0].ends_with(']'), "{:?}", imported.findings);
    // Staged out of sight until the header is recorded.
    assert!(!dir.path.exists());
    let staged = sleuth::session::staging_path(&root, "next").join("sources");
    for s in &prev.sources {
        let name = format!("{}.txt", s.meta.id.0);
        assert_eq!(
            std::fs::read(staged.join(&name)).unwrap(),
            std::fs::read(SessionDir::new(&root, "prev").sources_dir().join(&name)).unwrap()
        );
    }
    let mut settings = support::settings(2);
    settings.session_id = "next".into();
    settings.follow_up_of = Some("prev".into());
    settings.imported = Some(imported);
    let reasoner = Arc::new(ScriptedReasoner::new(turns()));
    let log = NewSessionLog::new(&root, &dir.id);
    let p = parts(&dir, &settings, reasoner.clone(), provider_arc(), memory(), Box::new(log));
    let (engine, handle) = Engine::new(settings, p, SessionState::default());
    let next = drive(engine, handle, Some("Which gadget is fastest?"), OnAsk::Choose(0)).await;

    assert!(next.is_finished());
    let first_plan = reasoner.plan_contexts.lock().unwrap()[0].clone();
    assert!(
        first_plan.sources.len() >= prev.usable_sources().count(),
        "the earlier kept sources are usable from the start"
    );
    assert!(first_plan.constraints[0].starts_with("This follows up"), "{:?}", first_plan.constraints);
    assert!(first_plan.constraints[0].contains(QUESTION));
    // Earlier sources keep their ids; new ones come after.
    for (a, b) in prev.sources.iter().zip(&next.sources) {
        assert_eq!((a.meta.id, &a.meta.locator), (b.meta.id, &b.meta.locator));
    }
    assert!(next.sources[n..].iter().all(|s| s.meta.id.0 as usize > n && s.meta.iteration >= 1));
    let summary = load_summary(&dir).unwrap().0;
    assert_eq!(summary.follow_up_of.as_deref(), Some("prev"));
    // The replayed follow-up equals the live one, and the earlier session is unchanged.
    assert_eq!(SessionState::replay(&records(&root, "next")).sources, next.sources);
    assert_eq!(std::fs::read(SessionDir::new(&root, "prev").log_path()).unwrap(), prev_bytes);
    // A session that has not finished cannot be followed up.
    run_plain(&root, "open", 3, ask_turns(), OnAsk::Detach).await;
    assert!(matches!(
        follow_up::prepare_follow_up(&root, "open", "x"),
        Err(follow_up::FollowUpError::NotFinished { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_logs_are_listed_as_damaged_and_never_hide_the_others() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    run_plain(&root, "20250101-000000-good", 2, turns(), OnAsk::Choose(0)).await;
    let good = SessionDir::new(&root, "20250101-000000-good");
    let lines: Vec<String> = std::fs::read_to_string(good.log_path()).unwrap().lines().map(String::from).collect();
    let damaged = |id: &str, text: String| {
        let d = SessionDir::create(&root, id).unwrap();
        std::fs::write(d.log_path(), text).unwrap();
        d
    };
    let empty = damaged("20250102-000000-empty", String::new());
    let mut garbage = lines.clone();
    garbage[3] = "{not json at all".into();
    let middle = damaged("20250103-000000-garbage", garbage.join("\n") + "\n");
    let newer = damaged("20250104-000000-newer", lines[0].replace(&current_schema(), "\"schema_version\":99") + "\n");
    let torn = damaged("20250105-000000-torn", lines[..5].join("\n") + "\n" + &lines[5][..10]);
    std::fs::create_dir_all(root.join("20250106-000000-nolog")).unwrap();

    let listed = list_sessions(&root).unwrap();
    let status = |id: &str| listed.iter().find(|s| s.id == id).unwrap().clone();
    assert_eq!(listed.len(), 6);
    assert_eq!(status("20250101-000000-good").status, Status::Finished);
    assert_eq!(status("20250105-000000-torn").status, Status::Interrupted, "a torn last line is not damage");
    for (id, words) in [
        ("20250102-000000-empty", "empty"),
        ("20250103-000000-garbage", "line 4"),
        ("20250104-000000-newer", "newer sleuth"),
        ("20250106-000000-nolog", "cannot read"),
    ] {
        let s = status(id);
        assert_eq!(s.status, Status::Damaged, "{id}");
        assert!(s.problem.as_deref().unwrap().contains(words), "{id}: {:?}", s.problem);
    }
    for (dir, want) in [(&empty, "empty"), (&middle, "line 4"), (&newer, "newer sleuth")] {
        match open_session(&root, &dir.id) {
            Err(OpenError::Log(e)) => assert!(e.to_string().contains(want), "{e}"),
            other => panic!("{}: expected a log error, got {:?}", dir.id, other.map(|o| o.records.len())),
        }
    }
    // The torn one opens, with the tail set aside.
    let opened = open_session(&root, &torn.id).unwrap();
    assert_eq!(opened.records.len(), 5);
    assert_eq!(std::fs::read_to_string(torn.log_path()).unwrap(), lines[..5].join("\n") + "\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_date_summary_is_rebuilt_from_the_log() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let state = run_plain(&root, "s", 2, turns(), OnAsk::Choose(0)).await;
    let dir = SessionDir::new(&root, "s");
    // The sink's summary is right; stamped a moment after the last write,
    // it is trusted only once the log's times have settled (a log edited
    // within the same tick of the file clock could keep them).
    let (fresh, _) = load_summary(&dir).unwrap();
    assert_eq!(fresh.iterations, state.iteration());
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert_eq!(list_one(&dir).status, Status::Finished);
    let (fresh, how) = load_summary(&dir).unwrap();
    assert_eq!(how, Freshness::Stored, "a settled summary is read, not rebuilt");
    // A summary written before the last events (a crash between checkpoints).
    let mut stale = fresh.clone();
    stale.iterations = 0;
    stale.status = Status::Interrupted;
    stale.log_bytes -= 10;
    if let Some(taken) = &mut stale.log_stamp {
        taken.stamp.bytes -= 10;
    }
    std::fs::write(dir.summary_path(), serde_json::to_string(&stale).unwrap()).unwrap();
    let (rebuilt, how) = load_summary(&dir).unwrap();
    assert_eq!(how, Freshness::Rebuilt);
    assert_eq!(SessionSummary { log_stamp: None, ..rebuilt }, SessionSummary { log_stamp: None, ..fresh.clone() });
    // Listing stores the rebuilt one; garbage is rebuilt too.
    assert_eq!(list_one(&dir).status, Status::Finished);
    assert_eq!(load_summary(&dir).unwrap().1, Freshness::Stored);
    std::fs::write(dir.summary_path(), "{{{").unwrap();
    let (rebuilt, how) = load_summary(&dir).unwrap();
    assert_eq!(
        (SessionSummary { log_stamp: None, ..rebuilt }, how),
        (SessionSummary { log_stamp: None, ..fresh }, Freshness::Rebuilt)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_opener_gets_the_lock_message_with_the_holders_pid() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    run_plain(&root, "s", 3, ask_turns(), OnAsk::Detach).await;
    let first = open_session(&root, "s").unwrap();
    assert_eq!(list_one(&first.dir).status, Status::Running);
    let err = open_session(&root, "s").err().expect("locked");
    assert!(err.to_string().contains(&format!("pid {}", std::process::id())), "{err}");
    drop(first);
    assert!(open_session(&root, "s").is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lessons_persist_and_a_later_session_plans_with_them() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let file = home.path().join("memory.jsonl");
    let store = || -> Arc<dyn MemoryStore> { Arc::new(FileMemoryStore::open(&file, MemorySettings::default())) };
    let first = run_new(
        &root,
        "first",
        support::settings(3),
        ScriptedReasoner::new(turns()),
        provider(),
        store(),
        QUESTION,
        OnAsk::Choose(0),
    )
    .await;
    assert!(
        first.memories_stored > 0,
        "iteration 2 fixed iteration 1's issue and scored higher: {:?}",
        support::decisions(&first)
    );
    let lessons = FileMemoryStore::open(&file, MemorySettings::default()).entries();
    assert_eq!(lessons.len(), first.memories_stored);
    assert_eq!(lessons[0].mistake, "the answer omits the lab measurements");

    // A new process, a similar question.
    let reasoner = ScriptedReasoner::new(turns());
    let mut settings = support::settings(1);
    settings.session_id = "second".into();
    let dir = SessionDir::create(&root, "second").unwrap();
    let log = SessionLog::create(&dir).unwrap();
    let reasoner = Arc::new(reasoner);
    let p = parts(&dir, &settings, reasoner.clone(), provider_arc(), store(), Box::new(log));
    let (engine, handle) = Engine::new(settings, p, SessionState::default());
    let second = drive(engine, handle, Some("How do the widgets connect to gadgets?"), OnAsk::Choose(0)).await;
    let offered = &reasoner.plan_contexts.lock().unwrap()[0].memories;
    assert_eq!(offered.first().map(|m| m.id.clone()), Some(lessons[0].id.clone()));
    assert_eq!(second.iterations[0].memories_used, offered.iter().map(|m| m.id.clone()).collect::<Vec<_>>());
    // The log names the lessons themselves (the reflection pane lists them).
    let replayed = SessionState::replay(&sleuth::session::read_log(&dir.log_path()).unwrap().records);
    assert_eq!(replayed.iterations[0].lessons_used, offered.iter().map(|m| m.mistake.clone()).collect::<Vec<_>>());
    assert!(!replayed.iterations[0].lessons_used.is_empty());
    assert_eq!(load_summary(&dir).unwrap().0.metrics.memories_used as usize, offered.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_reach_the_log_the_summary_or_the_state() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let secret = "sk-test-9f8e7d6c5b4a";
    let mut settings = support::settings(1);
    settings.session_id = "secret".into();
    // The engine blanks it as events leave it; the log itself redacts nothing.
    settings.redactor = Redactor::new([secret.to_string()]);
    let dir = SessionDir::create(&root, "secret").unwrap();
    let log = SessionLog::create(&dir).unwrap();
    let p = parts(&dir, &settings, Arc::new(ScriptedReasoner::new(turns())), provider_arc(), memory(), Box::new(log));
    let (engine, handle) = Engine::new(settings, p, SessionState::default());
    let state = drive(engine, handle, Some(&format!("why does my key {secret} fail?")), OnAsk::Choose(0)).await;
    assert_eq!(state.question(), "why does my key [redacted] fail?", "the engine's own state is clean too");
    let mut checked = 0;
    for path in walkdir::WalkDir::new(&dir.path).into_iter().map(|e| e.unwrap().into_path()).filter(|p| p.is_file()) {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert!(!text.contains(secret), "{} holds the secret", path.display());
        checked += 1;
    }
    assert!(checked >= 3, "the log, the summary and source texts: {checked} files");
    assert!(std::fs::read_to_string(dir.log_path()).unwrap().contains("[redacted]"));
    // The redacted log still reads.
    assert!(SessionState::replay(&records(&root, "secret")).is_finished());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_restarted_after_a_crash_voids_the_dead_fragments() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let reference = run_plain(&root, "reference", 2, turns(), OnAsk::Choose(0)).await;
    assert!(!reference.report_stream.is_empty());
    // The same session, killed after WRITE streamed its first fragment.
    let text = std::fs::read_to_string(SessionDir::new(&root, "reference").log_path()).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let cut = lines.iter().position(|l| l.contains("\"type\":\"report_delta\"")).unwrap() + 1;
    support::e2e::copy_dir(&root.join("reference"), &root.join("crashed"));
    std::fs::remove_file(SessionDir::new(&root, "crashed").summary_path()).unwrap();
    std::fs::write(SessionDir::new(&root, "crashed").log_path(), lines[..cut].concat()).unwrap();
    let dead = SessionState::replay(&records(&root, "crashed")).report_stream;
    assert!(!dead.is_empty(), "a fragment of the dead write");

    let resumed =
        resume(&root, "crashed", support::settings(2), ScriptedReasoner::new(turns()), OnAsk::Choose(0)).await;
    let after = records(&root, "crashed");
    let restart = after.iter().position(|r| matches!(r.event, Event::ReportRestarted { .. })).expect("marked");
    assert_eq!(restart, cut, "the restart is marked before the new write streams");
    assert_eq!(
        after[restart].event,
        Event::ReportRestarted { discarded_bytes: dead.len() as u64 },
        "it says how much was voided"
    );
    // Every consumer folds the log: the stream holds the new write alone.
    assert_eq!(resumed.report_stream, reference.report_stream);
    assert_eq!(SessionState::replay(&after).report_stream, reference.report_stream);
    assert!(resumed.is_finished());
}

#[test]
fn every_shipped_schema_version_still_reads() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (file, version) in [("schema-v1.jsonl", 1), ("schema-v2.jsonl", 2), ("schema-v3.jsonl", 3)] {
        let log = read_log(&fixtures.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(log.torn_tail.is_none());
        let state = SessionState::replay(&log.records);
        let header = state.header.as_ref().unwrap();
        assert_eq!(header.schema_version, version, "{file}");
        assert!(state.is_finished() && state.report.is_some(), "{file}");
        assert!(state.iteration() >= 1 && !state.sources.is_empty(), "{file}");
        assert!(state.iterations.iter().all(|it| it.decision.is_some()), "{file}");
        if version >= 3 {
            let restarted = log.records.iter().any(|r| matches!(r.event, Event::ReportRestarted { .. }));
            assert!(restarted, "the v3 fixture's WRITE restarts after a crash");
        }
        if version == 2 {
            let imported = header.imported.as_ref().expect("v2 fixture is a follow-up");
            assert_eq!(
                state.sources[..imported.sources.len()].iter().map(|s| s.meta.id).collect::<Vec<_>>(),
                imported.sources.iter().map(|s| s.meta.id).collect::<Vec<_>>()
            );
        }
    }
    assert_eq!(sleuth::engine::protocol::SCHEMA_VERSION, 3, "a new version needs a new fixture here");
}

/// Logs the schema-2 build wrote (recorded with that release binary: an
/// LLM run whose model failed and whose first provider's circuit opened;
/// a strict-mode run that filtered out every source), and what that build
/// exported from them. Read by this build they give the same report, the
/// same export, and their causes as types.
#[test]
fn schema_2_logs_replay_to_the_same_report_and_export_with_their_reasons_typed() {
    use sleuth::engine::SessionStatus;
    use sleuth::engine::model::{Degradation, Role};
    use sleuth::session::export::{ExportFormat, export};
    use sleuth::session::summary::SessionSummary;
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (name, status) in
        [("schema-v2-degraded", SessionStatus::Degraded), ("schema-v2-strict", SessionStatus::Unanswered)]
    {
        let log = read_log(&fixtures.join(format!("{name}.jsonl"))).unwrap();
        let state = SessionState::replay(&log.records);
        assert_eq!(state.header.as_ref().unwrap().schema_version, 2);
        assert_eq!(SessionStatus::of(&state, false), status, "{name}");
        let id = state.header.as_ref().unwrap().session_id.clone();
        let summary = SessionSummary::from_state(&id, &state, log.bytes);
        // The Markdown export, byte for byte, but for the status line
        // (the schema-2 build called a degraded session `finished`) and the
        // sources list's lines (issue 27.19 lists each source once by id and
        // calls a file's date `modified`).
        // Counts now agree with their nouns ("0 issues", "1 attempt").
        let then =
            (0..10).fold(std::fs::read_to_string(fixtures.join(format!("{name}.export.md"))).unwrap(), |t, n| {
                let (issue, attempt) = if n == 1 { ("issue", "attempt") } else { ("issues", "attempts") };
                t.replace(&format!(" {n} issue(s)"), &format!(" {n} {issue}"))
                    .replace(&format!(" {n} attempt(s)"), &format!(" {n} {attempt}"))
            });
        let now = export(&state, &summary, ExportFormat::Markdown);
        let status_line = |t: &str| {
            let mut in_sources = false;
            t.lines()
                .filter(|l| {
                    if l.starts_with("## ") {
                        in_sources = *l == "## Sources";
                    }
                    !l.starts_with("- status:")
                        && !(in_sources && (l.starts_with("- [") || l.starts_with(|c: char| c.is_ascii_digit())))
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(status_line(now.trim_end()), status_line(then.trim_end()), "{name}");
        // The JSON export: every value that build wrote is written again
        // (new fields may be added), but for the summary's status.
        let then: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixtures.join(format!("{name}.export.json"))).unwrap())
                .unwrap();
        let now: serde_json::Value = serde_json::from_str(&export(&state, &summary, ExportFormat::Json)).unwrap();
        let mut differences = Vec::new();
        contained(&then, &now, "", &mut differences);
        differences.retain(|d| !d.starts_with(".summary.status") && !d.starts_with(".summary.summary_version"));
        assert_eq!(differences, Vec::<String>::new(), "{name}");
        match name {
            "schema-v2-degraded" => {
                assert!(state.degraded.contains(&Degradation::ProviderFailing { provider: "searxng".into() }));
                let model =
                    Degradation::ModelFailed { phases: vec![Role::Plan, Role::Draft, Role::Critique, Role::Write] };
                assert!(state.degraded.contains(&model), "{:?}", state.degraded);
                assert!(state.reasoning_degraded());
            }
            _ => assert!(state.iterations.iter().all(|it| it.no_valid_sources_strict), "{name}"),
        }
    }
}

/// Where `now` lacks or changes a value of `then` (objects may gain keys).
fn contained(then: &serde_json::Value, now: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    match (then, now) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) => contained(v, w, &format!("{at}.{k}"), out),
                    None => out.push(format!("{at}.{k} missing")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                contained(v, w, &format!("{at}[{i}]"), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{at}: {a} became {b}")),
    }
}

/// Regenerates `tests/fixtures/schema-v3.jsonl` (run with --ignored): a
/// session killed while WRITE streamed, then resumed (its `report_restarted`
/// is schema 3's). The v1 and v2 fixtures were written by the builds of
/// their versions and are never rewritten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn write_schema_fixture() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("sessions");
    let id = "20260101-000000-0003";
    run_plain(&root, id, 2, turns(), OnAsk::Choose(0)).await;
    let dir = SessionDir::new(&root, id);
    let text = std::fs::read_to_string(dir.log_path()).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let cut = lines.iter().position(|l| l.contains("\"type\":\"report_delta\"")).unwrap() + 1;
    std::fs::write(dir.log_path(), lines[..cut].concat()).unwrap();
    resume(&root, id, support::settings(2), ScriptedReasoner::new(turns()), OnAsk::Choose(0)).await;
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema-v3.jsonl");
    std::fs::copy(dir.log_path(), out).unwrap();
}
