//! Table tests, one row per situation: the state a session is in, what
//! `next_step` says, and what each command does there. No IO, no async.

use std::collections::BTreeMap;

use super::*;
use crate::engine::fallback;
use crate::engine::model::{
    Action, Clarification, Decision, DecisionReason, Draft, Evaluation, Outcome, QualityReport, Refinement, Reflection,
    Report, StopReason, Verdict, Verification,
};
use crate::engine::next::NextStep;
use crate::engine::protocol::{Answer, Limits, SessionHeader, Steer};
use crate::engine::state::{AskRecord, IterationRecord, SessionState};

fn header(question: &str) -> SessionHeader {
    SessionHeader {
        schema_version: 2,
        sleuth_version: "test".into(),
        session_id: "s".into(),
        question: question.into(),
        preset: "standard".into(),
        limits: Limits {
            max_iterations: 3,
            max_queries: 4,
            max_sources: 6,
            time_limit_secs: 60,
            cost_budget_usd: 0.0,
            token_budget: 0,
        },
        step_mode: false,
        reasoner: "builtin".into(),
        providers: vec![vec!["local".into()]],
        config: serde_json::Value::Null,
        forked_from: None,
        follow_up_of: None,
        imported: None,
    }
}

fn evaluation() -> Evaluation {
    Evaluation {
        confidence: 0.5,
        components: Default::default(),
        weights: Default::default(),
        coverage: 0.5,
        aspects_required: 2,
        aspects_addressed: 1,
        dimensions: Default::default(),
        quality: 0.5,
        verdict: Verdict::Warn,
        severity_total: 0.0,
        gaps: vec![],
        contradictions: 0,
        claims: 0,
        supported_claims: 0,
        cited_sources: 0,
        needs_clarification: false,
        gain: 0.0,
        draft_similarity: None,
        failed_phases: vec![],
        unanswered: false,
        time_sensitive: false,
        held_back: None,
        calibration: None,
    }
}

fn quality() -> QualityReport {
    QualityReport {
        total_fetched: 1,
        verified: 1,
        rejected: 0,
        rejection_breakdown: BTreeMap::new(),
        quality_score: 1.0,
        meets_threshold: true,
        suggested_refinement: None,
    }
}

fn decision(action: Action) -> Decision {
    Decision { action, reason: DecisionReason::BelowThresholds, detail: String::new() }
}

fn refinement() -> Refinement {
    serde_json::from_value(serde_json::json!({
        "strategy": "EXPAND", "rationale": "", "reflection": Reflection::default(), "queries": []
    }))
    .expect("a refinement")
}

/// The phases of one iteration, in order; a state is "done up to" one.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Upto {
    Started,
    Planned,
    Searched,
    Reviewed,
    Drafted,
    Critiqued,
    Evaluated,
    Decided,
    Refined,
}

/// A started session whose first iteration is done up to `upto`, having
/// decided `action` (when it got that far).
fn at(upto: Upto, action: Action) -> SessionState {
    let draft = Draft::default();
    let mut it = IterationRecord { iteration: 1, ..IterationRecord::default() };
    it.planned = upto >= Upto::Planned;
    it.search_completed = upto >= Upto::Searched;
    it.review = (upto >= Upto::Reviewed).then(|| (vec![], quality()));
    it.draft = (upto >= Upto::Drafted).then(|| draft.clone());
    it.critique = (upto >= Upto::Critiqued).then(|| fallback::critique("q", &draft));
    it.evaluation = (upto >= Upto::Evaluated).then(evaluation);
    it.decision = (upto >= Upto::Decided).then(|| decision(action));
    it.refinement = (upto >= Upto::Refined).then(refinement);
    SessionState { header: Some(header("q")), iterations: vec![it], ..SessionState::default() }
}

fn asking(answered: bool) -> SessionState {
    let mut s = at(Upto::Decided, Action::Ask);
    s.iterations[0].ask_id = Some("ask-1".into());
    s.asks.push(AskRecord {
        ask_id: "ask-1".into(),
        iteration: 1,
        clarification: Clarification { question: "which?".into(), options: vec!["a".into()] },
        answer: answered.then(|| Answer::Choice { index: 0, label: "a".into() }),
    });
    s
}

fn paused() -> SessionState {
    let mut s = at(Upto::Refined, Action::Continue);
    s.step_mode = true;
    s
}

fn with(mut s: SessionState, f: impl FnOnce(&mut SessionState)) -> SessionState {
    f(&mut s);
    s
}

fn report() -> Report {
    Report {
        markdown: "answer".into(),
        claims: vec![],
        based_on_iteration: Some(1),
        caveats: vec![],
        stop: StopReason::Decision(DecisionReason::Thresholds),
        answer: Default::default(),
    }
}

#[test]
fn next_step_follows_the_folded_state() {
    let output = Action::Output;
    let table: Vec<(&str, SessionState, NextStep)> = vec![
        ("nothing yet", SessionState::default(), NextStep::AwaitStart),
        ("started", SessionState { header: Some(header("q")), ..SessionState::default() }, NextStep::StartIteration(1)),
        ("iteration begun", at(Upto::Started, output), NextStep::Plan(1)),
        ("planned", at(Upto::Planned, output), NextStep::Search(1)),
        ("searched", at(Upto::Searched, output), NextStep::Review(1)),
        ("reviewed", at(Upto::Reviewed, output), NextStep::Draft(1)),
        ("drafted", at(Upto::Drafted, output), NextStep::Critique(1)),
        ("critiqued", at(Upto::Critiqued, output), NextStep::Evaluate(1)),
        ("evaluated", at(Upto::Evaluated, output), NextStep::Decide(1)),
        (
            "nothing usable to draft from: evaluate the empty result",
            with(at(Upto::Reviewed, output), |s| s.iterations[0].no_valid_sources = Some("all rejected".into())),
            NextStep::Evaluate(1),
        ),
        (
            "decided to output",
            at(Upto::Decided, output),
            NextStep::Write(StopReason::Decision(DecisionReason::BelowThresholds)),
        ),
        ("decided to ask", at(Upto::Decided, Action::Ask), NextStep::RaiseAsk(1)),
        ("asked", asking(false), NextStep::AwaitAnswer("ask-1".into())),
        ("answered", asking(true), NextStep::Refine(1)),
        ("decided to continue", at(Upto::Decided, Action::Continue), NextStep::Refine(1)),
        ("refined", at(Upto::Refined, Action::Continue), NextStep::StartIteration(2)),
        ("refined in step mode", paused(), NextStep::AwaitStep(1)),
        ("resumed after the pause", with(paused(), |s| s.iterations[0].resumed = true), NextStep::StartIteration(2)),
        (
            "output forced",
            with(at(Upto::Planned, output), |s| s.force_output = true),
            NextStep::Write(StopReason::ForcedByUser),
        ),
        (
            "cancel wins over a forced output",
            with(at(Upto::Planned, output), |s| (s.force_output, s.cancel_requested) = (true, true)),
            NextStep::Write(StopReason::Cancelled),
        ),
        ("report written", with(at(Upto::Decided, output), |s| s.report = Some(report())), NextStep::Verify),
        (
            "report verified",
            with(at(Upto::Decided, output), |s| {
                (s.report, s.verification) = (Some(report()), Some(Verification::default()))
            }),
            NextStep::Finish,
        ),
        ("ended", with(at(Upto::Planned, output), |s| s.outcome = Some(Outcome::Finished)), NextStep::Done),
    ];
    for (name, state, expected) in table {
        assert_eq!(state.next_step(), expected, "{name}");
    }
}

fn answer(id: &str) -> Command {
    Command::Answer { ask_id: id.into(), answer: Answer::Text { text: "a".into() } }
}

fn run(state: &SessionState, cmd: &Command) -> Result<Vec<Event>, Rejected> {
    on_command(state, cmd, header)
}

#[test]
fn on_command_records_what_each_command_does_where_the_session_stands() {
    let started = SessionState { header: Some(header("q")), ..SessionState::default() };
    let running = at(Upto::Planned, Action::Output);
    let stepping = with(at(Upto::Planned, Action::Output), |s| s.step_mode = true);
    let writing = at(Upto::Decided, Action::Output);
    let steer = Steer::AddNote { text: "focus".into() };
    let table: Vec<(&str, SessionState, Command, Vec<Event>)> = vec![
        (
            "start a new session",
            SessionState::default(),
            Command::Start { question: "why?".into() },
            vec![Event::SessionStarted(header("why?"))],
        ),
        ("step at a pause", paused(), Command::Step, vec![Event::Resumed { iteration: 1 }]),
        (
            "step while running turns step mode on",
            running.clone(),
            Command::Step,
            vec![Event::ModeChanged { step_mode: true }],
        ),
        ("step in step mode, not paused", stepping.clone(), Command::Step, vec![]),
        (
            "continue at a pause",
            paused(),
            Command::Continue,
            vec![Event::ModeChanged { step_mode: false }, Event::Resumed { iteration: 1 }],
        ),
        ("continue while running", running.clone(), Command::Continue, vec![]),
        (
            "step mode on",
            running.clone(),
            Command::SetStepMode { on: true },
            vec![Event::ModeChanged { step_mode: true }],
        ),
        ("step mode on twice", stepping.clone(), Command::SetStepMode { on: true }, vec![]),
        (
            "step mode off at a pause resumes",
            paused(),
            Command::SetStepMode { on: false },
            vec![Event::ModeChanged { step_mode: false }, Event::Resumed { iteration: 1 }],
        ),
        (
            "answer the open question",
            asking(false),
            answer("ask-1"),
            vec![Event::AskAnswered { ask_id: "ask-1".into(), answer: Answer::Text { text: "a".into() } }],
        ),
        ("steer", paused(), Command::Steer { edit: steer.clone() }, vec![Event::Steered { edit: steer }]),
        ("force output", running.clone(), Command::ForceOutput, vec![Event::OutputForced]),
        ("force output twice", with(running.clone(), |s| s.force_output = true), Command::ForceOutput, vec![]),
        ("force output while writing", writing.clone(), Command::ForceOutput, vec![]),
        ("force output before start", SessionState::default(), Command::ForceOutput, vec![]),
        ("cancel", running.clone(), Command::Cancel, vec![Event::CancelRequested]),
        ("cancel while writing", writing, Command::Cancel, vec![Event::CancelRequested]),
        ("cancel twice", with(running.clone(), |s| s.cancel_requested = true), Command::Cancel, vec![]),
        ("cancel before start", SessionState::default(), Command::Cancel, vec![]),
        ("cancel after the report", with(started, |s| s.report = Some(report())), Command::Cancel, vec![]),
    ];
    for (name, state, cmd, expected) in table {
        assert_eq!(run(&state, &cmd), Ok(expected), "{name}");
    }
}

#[test]
fn on_command_refuses_what_the_session_cannot_take_and_says_why() {
    let table: Vec<(&str, SessionState, Command, &str, &str)> = vec![
        (
            "start twice",
            at(Upto::Planned, Action::Output),
            Command::Start { question: "again".into() },
            "start",
            "already started",
        ),
        ("answer with no question open", at(Upto::Planned, Action::Output), answer("ask-1"), "answer", "ask-1"),
        ("answer another question", asking(false), answer("ask-9"), "answer", "ask-9"),
        ("answer a question already answered", asking(true), answer("ask-1"), "answer", "ask-1"),
    ];
    for (name, state, cmd, command, says) in table {
        let rejected = run(&state, &cmd).expect_err(name);
        assert_eq!(rejected.command, command, "{name}");
        assert!(rejected.reason.contains(says), "{name}: {}", rejected.reason);
        assert_eq!(
            rejected.event(),
            Event::CommandRejected { command: command.into(), reason: rejected.reason.clone() },
            "{name}"
        );
    }
}

#[test]
fn a_refusal_is_recorded_and_old_logs_without_one_still_load() {
    let event = Rejected { command: "answer", reason: "no open question".into() }.event();
    let line = serde_json::to_string(&event).expect("json");
    assert!(line.contains("\"type\":\"command_rejected\""), "{line}");
    assert_eq!(serde_json::from_str::<Event>(&line).expect("reads back"), event);
    assert_eq!(event.kind(), "command_rejected");
    // The fold keeps a refusal for the front ends and changes nothing else.
    let mut state = at(Upto::Planned, Action::Output);
    let before = state.next_step();
    state.apply(&crate::engine::protocol::EventRecord { seq: 1, at_ms: 0, elapsed_ms: 0, event });
    assert_eq!(state.next_step(), before);
    assert_eq!(state.rejected.last().map(String::as_str), Some("answer: no open question"));
}
