//! The loop under control and under faults: ASK and answer, step mode and
//! steering, Cancel and ForceOutput mid-run, resume from a replayed log,
//! circuit breaker and degraded mode, provider fallback, reformulation,
//! fabricated quotes, and a reasoner that keeps failing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;
use std::time::Duration;

use crate::support;
use sleuth::engine::model::{Action, Outcome, Role, StopReason};
use sleuth::engine::protocol::{Answer, Command, Event, EventRecord, Steer};
use sleuth::engine::{NextStep, SessionState};
use sleuth::search::SearchProvider;
use support::scripted::{Fault, ScriptedProvider, ScriptedReasoner, Turn, corpus};
use support::{Harness, decisions, settings};
use tokio::sync::mpsc::UnboundedReceiver;

fn provider() -> ScriptedProvider {
    ScriptedProvider::new("scripted", corpus(12))
}

/// Reads events until one matches, returning it.
async fn until(events: &mut UnboundedReceiver<EventRecord>, pred: impl Fn(&Event) -> bool) -> EventRecord {
    loop {
        let r = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("timed out waiting for an event")
            .expect("engine hung up");
        if pred(&r.event) {
            return r;
        }
    }
}

#[tokio::test]
async fn ask_waits_for_the_answer_with_its_id_and_the_answer_becomes_a_constraint() {
    let mut first = Turn::coverage(1, 2);
    first.clarify = true;
    let h = Harness::new(settings(5), ScriptedReasoner::new(vec![first, Turn::coverage(2, 2)]), provider());
    let reasoner = h.reasoner.clone();
    let (task, commands, mut events, sink, _) = h.start("how do widgets work");
    let asked = until(&mut events, |e| matches!(e, Event::AskRaised { .. })).await;
    let Event::AskRaised { ask_id, clarification, .. } = asked.event else { unreachable!() };
    assert_eq!(clarification.options, vec!["the blue widget", "the red widget"]);
    // An answer with the wrong id is ignored; the engine keeps waiting.
    commands.send(Command::Answer { ask_id: "ask-nope".into(), answer: Answer::Text { text: "x".into() } }).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let answer = Answer::Choice { index: 1, label: "the red widget".into() };
    commands.send(Command::Answer { ask_id: ask_id.clone(), answer }).unwrap();
    let state = task.await.unwrap().unwrap();
    assert_eq!(decisions(&state), vec!["ASK:needs_clarification", "OUTPUT:thresholds"]);
    assert_eq!(state.asks.len(), 1);
    assert!(state.constraints[0].contains("the red widget"), "{:?}", state.constraints);
    let answered: Vec<_> =
        sink.records().into_iter().filter(|r| matches!(r.event, Event::AskAnswered { .. })).collect();
    assert_eq!(answered.len(), 1, "the wrong id must not be recorded");
    // The refinement after the answer plans under the constraint.
    let plans = reasoner.plan_contexts.lock().unwrap();
    assert!(plans.last().unwrap().constraints.iter().any(|c| c.contains("the red widget")));
    assert_eq!(SessionState::replay(&sink.records()), state);
}

#[tokio::test]
async fn step_mode_pauses_and_steering_changes_the_next_iteration() {
    let mut s = settings(3);
    s.step_mode = true;
    let turns = vec![Turn::coverage(1, 4), Turn::coverage(2, 4), Turn::coverage(3, 4)];
    let h = Harness::new(s, ScriptedReasoner::new(turns), provider());
    let reasoner = h.reasoner.clone();
    let (task, commands, mut events, _sink, _) = h.start("widgets");
    until(&mut events, |e| matches!(e, Event::Paused { iteration: 1 })).await;
    commands.send(Command::Steer { edit: Steer::EditQuery { index: 0, text: "gadget wiring".into() } }).unwrap();
    commands.send(Command::Steer { edit: Steer::DeleteQuery { index: 1 } }).unwrap();
    commands.send(Command::Steer { edit: Steer::AddNote { text: "only blue widgets".into() } }).unwrap();
    commands.send(Command::Steer { edit: Steer::BanSource { id: sleuth::engine::model::SourceId(1) } }).unwrap();
    commands.send(Command::Step).unwrap();
    let started = until(&mut events, |e| matches!(e, Event::IterationStarted { iteration: 2, .. })).await;
    let Event::IterationStarted { queries, .. } = started.event else { unreachable!() };
    assert_eq!(queries[0].text, "gadget wiring");
    assert_eq!(queries[0].intent, "edited by the user");
    assert!(queries.len() >= 2 && !queries.iter().any(|q| q.text.contains("round 2 part 2")), "{queries:?}");
    until(&mut events, |e| matches!(e, Event::Paused { iteration: 2 })).await;
    commands.send(Command::Continue).unwrap();
    let state = task.await.unwrap().unwrap();
    assert_eq!(state.iteration(), 3);
    assert!(!state.step_mode, "Continue leaves step mode");
    assert!(state.constraints.iter().any(|c| c.contains("only blue widgets")));
    assert!(state.banned.contains(&sleuth::engine::model::SourceId(1)));
    // The banned source is not drafted from after the ban.
    let draft3 = state.iterations[2].draft.as_ref().unwrap();
    assert!(!draft3.cited_sources().contains(&sleuth::engine::model::SourceId(1)));
    let plans = reasoner.plan_contexts.lock().unwrap();
    assert!(plans.last().unwrap().constraints.iter().any(|c| c.contains("only blue widgets")));
}

#[tokio::test(start_paused = true)]
async fn cancel_mid_run_still_records_a_partial_report() {
    let mut r = ScriptedReasoner::new(vec![Turn::coverage(1, 4)]);
    r.draft_delay = Duration::from_secs(30);
    let h = Harness::new(settings(5), r, provider());
    let (task, commands, mut events, sink, _) = h.start("widgets");
    until(&mut events, |e| matches!(e, Event::Reviewed { .. })).await;
    commands.send(Command::Cancel).unwrap();
    let state = task.await.unwrap().unwrap();
    assert_eq!(state.outcome, Some(Outcome::Cancelled));
    let report = state.report.as_ref().expect("a partial report");
    assert_eq!(report.stop, StopReason::Cancelled);
    assert!(report.caveats.iter().any(|c| c.contains("cancelled")));
    assert!(state.iterations[0].draft.is_none(), "the draft was interrupted");
    assert!(sink.records().iter().any(|r| matches!(r.event, Event::CancelRequested)));
    assert!(state.elapsed_ms < 30_000, "cancel does not wait for the slow draft");
}

#[tokio::test]
async fn force_output_writes_the_best_draft_now() {
    let mut s = settings(5);
    s.step_mode = true;
    let h = Harness::new(s, ScriptedReasoner::new(vec![Turn::coverage(1, 4)]), provider());
    let (task, commands, mut events, _, _) = h.start("widgets");
    until(&mut events, |e| matches!(e, Event::Paused { iteration: 1 })).await;
    commands.send(Command::ForceOutput).unwrap();
    let state = task.await.unwrap().unwrap();
    assert_eq!(state.outcome, Some(Outcome::Finished));
    let report = state.report.as_ref().unwrap();
    assert_eq!(report.stop, StopReason::ForcedByUser);
    assert_eq!(report.based_on_iteration, Some(1));
    assert_eq!(state.iteration(), 1, "no further iteration ran");
}

#[tokio::test]
async fn a_detached_session_resumes_from_its_replayed_log() {
    let mut s = settings(3);
    s.step_mode = true;
    let turns = vec![Turn::coverage(1, 4), Turn::coverage(2, 4), Turn::coverage(3, 4)];
    let h = Harness::new(s.clone(), ScriptedReasoner::new(turns.clone()), provider());
    let (task, commands, mut events, sink, _) = h.start("widgets");
    until(&mut events, |e| matches!(e, Event::Paused { iteration: 1 })).await;
    drop(commands);
    let detached = task.await.unwrap().unwrap();
    assert_eq!(detached.next_step(), NextStep::AwaitStep(1));

    // A new engine continues from the replayed log.
    let replayed = SessionState::replay(&sink.records());
    assert_eq!(replayed, detached);
    s.step_mode = false;
    let provider: Arc<dyn SearchProvider> = Arc::new(provider());
    let log = sink.clone();
    let parts = sleuth::engine::EngineParts {
        reasoner: Arc::new(ScriptedReasoner::new(turns)),
        search: Arc::new(sleuth::search::SearchRouter::new(
            vec![vec![provider]],
            &sleuth::search::RouterSettings {
                backoff_min_ms: 1,
                backoff_max_ms: 5,
                ..sleuth::search::RouterSettings::default()
            },
        )),
        texts: Arc::new(sleuth::engine::ports::MemoryTexts::default()),
        memory: Arc::new(sleuth::engine::memory::InMemoryStore::default()),
        log: Box::new(log),
    };
    let (engine, handle) = sleuth::engine::Engine::new(s, parts, replayed);
    handle.commands.send(Command::Continue).unwrap();
    let state = engine.run().await.unwrap();
    assert_eq!(state.outcome, Some(Outcome::Finished));
    assert_eq!(state.iteration(), 3);
    let records = sink.records();
    let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=records.len() as u64).collect::<Vec<_>>(), "one gapless log across the resume");
    assert_eq!(SessionState::replay(&records), state);
}

#[tokio::test]
async fn circuit_breaker_sets_degraded_mode_and_the_report_says_so() {
    let mut p = provider();
    p.fault = Some(Fault::Always);
    let out = Harness::new(settings(2), ScriptedReasoner::new(vec![Turn::coverage(1, 4)]), p).run("widgets").await;
    let kinds: Vec<&str> = out.records.iter().map(|r| r.event.kind()).collect();
    assert!(kinds.contains(&"circuit_opened"), "{kinds:?}");
    // Every query of the iteration fails at once: the half-the-queries rule
    // opens the circuit before three failures in a row, and the event says so.
    let opened: Vec<&str> = out
        .records
        .iter()
        .filter_map(|r| match &r.event {
            sleuth::engine::Event::CircuitOpened { reason, .. } => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    assert!(opened[0].contains("of this iteration's") && !opened[0].contains("consecutive"), "{opened:?}");
    assert!(kinds.contains(&"degraded_mode"));
    assert!(kinds.contains(&"no_valid_sources"), "nothing to draft from: refine instead");
    assert!(out.state.iterations[0].draft.is_none());
    assert!(!out.state.degraded.is_empty());
    let report = out.state.report.as_ref().unwrap();
    assert!(report.caveats.iter().any(|c| c.contains("Search capabilities were limited")), "{:?}", report.caveats);
    assert_eq!(out.state.outcome, Some(Outcome::Finished));
}

#[tokio::test]
async fn failing_provider_falls_back_to_the_next_in_its_chain() {
    let mut bad = ScriptedProvider::new("tavily", corpus(12));
    bad.fault = Some(Fault::Always);
    let good = ScriptedProvider::new("brave", corpus(12));
    let mut h = Harness::new(settings(1), ScriptedReasoner::new(vec![Turn::coverage(2, 2)]), good);
    let good = h.chains.remove(0).remove(0);
    h.chains = vec![vec![Arc::new(bad) as Arc<dyn SearchProvider>, good]];
    let out = h.run("widgets").await;
    assert!(
        out.records
            .iter()
            .any(|r| matches!(&r.event, Event::ProviderFallback { from, to, .. } if from == "tavily" && to == "brave"))
    );
    assert!(out.state.sources.iter().all(|s| s.meta.provider == "brave"));
    assert!(!out.state.sources.is_empty());
    let q = &out.state.iterations[0].queries[0];
    assert!(
        matches!(&q.result, Some(sleuth::engine::state::QueryResult::Searched { provider, .. }) if provider == "brave")
    );
}

#[tokio::test]
async fn empty_results_are_reformulated() {
    let mut p = provider();
    p.empty_for = Some("part 1".into());
    let out = Harness::new(settings(1), ScriptedReasoner::new(vec![Turn::coverage(2, 2)]), p).run("widgets").await;
    let reformulated = out.records.iter().find_map(|r| match &r.event {
        Event::QuerySearched { query, reformulated_from: Some(from), hits, .. } => {
            Some((query.clone(), from.clone(), *hits))
        }
        _ => None,
    });
    let (query, from, hits) = reformulated.expect("a reformulated query");
    assert_eq!(from, "widget facts round 1 part 1");
    assert!(!query.contains("part 1") && hits > 0, "{query}");
}

#[tokio::test]
async fn a_fabricated_quote_is_flagged_in_the_report() {
    let mut t = Turn::coverage(2, 2);
    t.fabricate = true;
    let out = Harness::new(settings(1), ScriptedReasoner::new(vec![t]), provider()).run("widgets").await;
    let v = out.state.verification.as_ref().unwrap();
    assert_eq!(v.unsupported.len(), 1, "{v:?}");
    assert!(v.unsupported[0].why.contains("quote not found"));
    let md = &out.state.report.as_ref().unwrap().markdown;
    assert!(md.contains("**[unsupported]**") && md.contains("## Verification"), "{md}");
    let e = out.state.iterations[0].evaluation.as_ref().unwrap();
    assert!(e.components.citation_density < 1.0);
}

#[tokio::test]
async fn a_failing_reasoner_degrades_the_phase_and_the_session_finishes() {
    let mut r = ScriptedReasoner::new(vec![Turn::coverage(1, 2)]);
    r.fail.insert(Role::Plan, "expected value at line 1 column 1".into());
    r.fail.insert(Role::Write, "expected value at line 1 column 1".into());
    let out = Harness::new(settings(2), r, provider()).run("how do widgets connect").await;
    assert_eq!(out.state.outcome, Some(Outcome::Finished));
    let phases: Vec<&str> = out.state.errors.iter().map(|e| e.phase.as_str()).collect();
    assert!(phases.contains(&"plan") && phases.contains(&"write"), "{phases:?}");
    let planned = &out.state.iterations[0].queries;
    assert_eq!(planned[0].query.text, "how do widgets connect", "fallback plan searches the question");
    assert!(out.state.report.as_ref().unwrap().markdown.contains("[1]"));
}

#[tokio::test]
async fn every_decision_has_a_reason_and_output_only_ends() {
    let out = Harness::new(settings(3), ScriptedReasoner::new(vec![Turn::coverage(1, 4)]), provider()).run("q").await;
    for it in &out.state.iterations {
        let d = it.decision.as_ref().unwrap();
        assert!(!d.detail.is_empty());
        if it.iteration < out.state.iteration() {
            assert_eq!(d.action, Action::Continue);
            assert!(it.refinement.is_some(), "every CONTINUE is refined");
        }
    }
}

#[tokio::test]
async fn a_page_that_could_not_be_used_is_not_fetched_again_in_a_later_iteration() {
    let mut docs = corpus(3);
    docs.push(support::scripted::doc("https://example.test/paper.pdf", ""));
    let h = Harness::new(
        settings(2),
        ScriptedReasoner::new(vec![Turn::coverage(1, 4), Turn::coverage(1, 4)]),
        ScriptedProvider::new("scripted", docs),
    );
    let out = h.run("what are widgets").await;
    assert_eq!(out.state.iterations.len(), 2, "{:?}", decisions(&out.state));
    let skips: Vec<u32> = out
        .state
        .iterations
        .iter()
        .flat_map(|it| it.skipped.iter().filter(|s| s.locator.ends_with("paper.pdf")).map(move |_| it.iteration))
        .collect();
    assert_eq!(skips, vec![1], "skipped once, in iteration 1, then left alone");
}
