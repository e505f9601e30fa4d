//! The event loop itself (`runner::run`) on a test backend: keys come from
//! a channel, engine events from the real engine with the scripted
//! reasoner and provider.

use std::io;
use std::time::Duration;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use futures::channel::mpsc as keys;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sleuth::engine::protocol::{Answer, Event, EventRecord};
use sleuth::engine::{EngineError, SessionState};
use sleuth::tui::runner::{self, EngineLink, MAX_FPS};
use sleuth::tui::sample::{Sample, Stop};
use sleuth::tui::{App, Effect, Keymap, Theme};

use crate::support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};
use crate::support::{Harness, settings};

fn press(tx: &keys::UnboundedSender<io::Result<TermEvent>>, code: KeyCode) {
    tx.unbounded_send(Ok(TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)))).unwrap();
}

/// Waits until the engine has logged an event matching `pred`.
async fn logged(sink: &sleuth::engine::ports::MemorySink, pred: impl Fn(&Event) -> bool) {
    tokio::time::timeout(Duration::from_secs(20), async {
        while !sink.records().iter().any(|r| pred(&r.event)) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the engine got there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_twice_answer_the_ask_and_finish_through_the_loop() {
    let mut clarify = Turn::coverage(2, 4);
    clarify.clarify = true;
    let turns = vec![Turn::coverage(1, 4), clarify, Turn::coverage(4, 4)];
    let mut s = settings(3);
    s.step_mode = true;
    let harness = Harness::new(s, ScriptedReasoner::new(turns), ScriptedProvider::new("web", corpus(8)));
    let (mut task, commands, mut events, sink, _) = harness.start("Which widget connects to which gadget?");
    let (key_tx, mut key_rx) = keys::unbounded();
    let driver = {
        let sink = sink.clone();
        tokio::spawn(async move {
            logged(&sink, |e| matches!(e, Event::Paused { iteration: 1 })).await;
            press(&key_tx, KeyCode::Char('s'));
            logged(&sink, |e| matches!(e, Event::AskRaised { .. })).await;
            // Give the UI a moment to fold the ask and open its window.
            tokio::time::sleep(Duration::from_millis(100)).await;
            press(&key_tx, KeyCode::Enter);
            logged(&sink, |e| matches!(e, Event::Paused { iteration: 2 })).await;
            press(&key_tx, KeyCode::Char('s'));
            logged(&sink, |e| matches!(e, Event::SessionEnded { .. })).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
            press(&key_tx, KeyCode::Char('q'));
            key_tx
        })
    };
    let mut app = App::live(SessionState::default(), Theme::default(), Keymap::default());
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let link = EngineLink { commands: &commands, events: &mut events, task: &mut task };
    let run = runner::run(&mut terminal, &mut key_rx, &mut app, Some(link), None);
    let out = tokio::time::timeout(Duration::from_secs(30), run).await.expect("no hang").unwrap();
    let _keys = driver.await.unwrap();
    assert_eq!(out.exit, Effect::Quit);
    assert!(matches!(out.engine, Some(Ok(_))), "the engine finished: {:?}", out.engine.map(|r| r.err()));
    let records = sink.records();
    let kinds: Vec<&str> = records.iter().map(|r| r.event.kind()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "resumed").count(), 2, "{kinds:?}");
    let asked = records.iter().find_map(|r| match &r.event {
        Event::AskRaised { ask_id, clarification, .. } => Some((ask_id.clone(), clarification.options[0].clone())),
        _ => None,
    });
    let (ask_id, first) = asked.expect("an ask was raised");
    let answered = records.iter().any(|r| {
        matches!(&r.event, Event::AskAnswered { ask_id: id, answer: Answer::Choice { index: 0, label } }
            if *id == ask_id && *label == first)
    });
    assert!(answered, "the answer names the ask: {kinds:?}");
    // The UI folded exactly what the log holds.
    assert_eq!(app.state, SessionState::replay(&records));
    let screen = terminal.backend().to_string();
    assert!(screen.contains("finished") && screen.contains("Report"), "{screen}");
    assert!(out.draws >= 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_work_while_the_engine_is_silent() {
    let (commands, _cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let (_ev_tx, mut events) = tokio::sync::mpsc::unbounded_channel::<EventRecord>();
    // An engine that never says anything and never ends.
    let mut task: tokio::task::JoinHandle<Result<SessionState, EngineError>> = tokio::spawn(futures::future::pending());
    let state = Sample { stop: Stop::Paused, ..Sample::default() }.state();
    let mut app = App::live(state, Theme::default(), Keymap::default());
    let (key_tx, mut key_rx) = keys::unbounded();
    press(&key_tx, KeyCode::Tab);
    press(&key_tx, KeyCode::Char('?'));
    press(&key_tx, KeyCode::Esc);
    press(&key_tx, KeyCode::Char('q'));
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let link = EngineLink { commands: &commands, events: &mut events, task: &mut task };
    let run = runner::run(&mut terminal, &mut key_rx, &mut app, Some(link), None);
    let out = tokio::time::timeout(Duration::from_secs(5), run).await.expect("the UI did not wait").unwrap();
    assert_eq!(out.exit, Effect::Quit);
    task.abort();
}

/// 2,000 report tokens, one per millisecond of (virtual) time: the loop
/// folds them all but draws at most 30 frames a second.
#[tokio::test(start_paused = true)]
async fn streaming_2000_tokens_draws_at_most_30_frames_a_second() {
    let base = Sample { stop: Stop::Writing, report_chunks: 1, ..Sample::default() };
    let state = base.state();
    let first_seq = state.last_seq + 1;
    let (commands, _cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let (ev_tx, mut events) = tokio::sync::mpsc::unbounded_channel::<EventRecord>();
    let (key_tx, mut key_rx) = keys::unbounded();
    let mut task: tokio::task::JoinHandle<Result<SessionState, EngineError>> = tokio::spawn(async move {
        for i in 0..2000u64 {
            let event = Event::ReportDelta { text: format!("tok{i} ") };
            let _ = ev_tx.send(EventRecord { seq: first_seq + i, at_ms: 0, elapsed_ms: 0, event });
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        // Still writing: quitting asks first.
        press(&key_tx, KeyCode::Char('q'));
        press(&key_tx, KeyCode::Char('y'));
        std::future::pending::<()>().await;
        Ok(SessionState::default())
    });
    let mut app = App::live(state, Theme::default(), Keymap::default());
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let started = tokio::time::Instant::now();
    let link = EngineLink { commands: &commands, events: &mut events, task: &mut task };
    let run = runner::run(&mut terminal, &mut key_rx, &mut app, Some(link), None);
    let out = tokio::time::timeout(Duration::from_secs(60), run).await.expect("quits").unwrap();
    let secs = started.elapsed().as_secs_f64();
    task.abort();
    assert!(app.state.report_stream.contains("tok1999 "), "every token was folded");
    let limit = (secs * f64::from(MAX_FPS)).ceil() as u64 + 1;
    assert!(out.draws <= limit, "{} draws in {secs:.2} s (limit {limit})", out.draws);
    assert!(out.draws as f64 >= secs * 20.0, "the stream is shown as it comes: {} draws in {secs:.2} s", out.draws);
}
