//! Redaction happens once, where events leave the engine (`Engine::emit`):
//! a key in the question and in every fetched page reaches none of the
//! engine's outlets — the event sink, the UI's channel, the source texts,
//! reflexion memory, the final state — when the settings carry it, and
//! reaches every one of them when they do not (so the first run proves the
//! engine, not the test's inputs, keeps it out).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::sync::Arc;

use crate::support;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::model::{Severity, SourceId};
use sleuth::engine::ports::{MemorySink, MemoryTexts, TextStore};
use sleuth::engine::protocol::{Command, EventRecord};
use sleuth::engine::redact::Redactor;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::search::{SearchProvider, SearchRouter};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus, doc};

const SECRET: &str = "sk-test-1c2b3a4d5e6f";

/// Everything that left the engine, as text, one entry per outlet.
struct Outlets {
    sink: String,
    channel: String,
    texts: String,
    memory: String,
    state: String,
}

impl Outlets {
    fn each(&self) -> [(&'static str, &str); 5] {
        [
            ("the event sink", &self.sink),
            ("the UI channel", &self.channel),
            ("the source texts", &self.texts),
            ("reflexion memory", &self.memory),
            ("the final state", &self.state),
        ]
    }
}

fn json_lines(records: &[EventRecord]) -> String {
    records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect()
}

/// A session asking about the key, over pages that all quote it. The first
/// critique's issue is fixed in the second iteration, so a lesson is stored.
async fn run(redactor: Redactor) -> Outlets {
    let mut settings = support::settings(3);
    settings.redactor = redactor;
    // The scripted rounds gain less confidence than a real lesson needs;
    // this test is about where the lesson's text goes, not whether it is earned.
    settings.memory.min_gain = 0.0;
    let mut first = Turn::coverage(1, 3);
    first.issues = vec![("the answer omits the lab measurements", Severity::High)];
    let turns = vec![first, Turn::coverage(2, 3), Turn::coverage(3, 3)];
    let docs = corpus(6)
        .into_iter()
        .map(|d| doc(&d.locator, &format!("{} The bench token {SECRET} opens the lab.", d.text)))
        .collect();
    let provider: Arc<dyn SearchProvider> = Arc::new(ScriptedProvider::new("scripted", docs));
    let sink = MemorySink::default();
    let texts = Arc::new(MemoryTexts::default());
    let memory = Arc::new(InMemoryStore::new(MemorySettings::default()));
    let parts = EngineParts {
        reasoner: Arc::new(ScriptedReasoner::new(turns)),
        search: Arc::new(SearchRouter::new(vec![vec![provider]], &sleuth::search::RouterSettings::default())),
        texts: texts.clone(),
        memory: memory.clone() as Arc<dyn MemoryStore>,
        log: Box::new(sink.clone()),
    };
    let (engine, mut handle) = Engine::new(settings, parts, SessionState::default());
    let question = format!("how does widget 3 connect, given key {SECRET}?");
    handle.commands.send(Command::Start { question }).unwrap();
    let task = tokio::spawn(engine.run());
    let mut channel = Vec::new();
    while let Some(record) = handle.events.recv().await {
        let done = matches!(record.event, sleuth::engine::Event::SessionEnded { .. });
        channel.push(record);
        if done {
            break;
        }
    }
    let state = task.await.unwrap().unwrap();
    assert!(state.is_finished());
    let stored: Vec<String> =
        (1..=state.sources.len() as u32).filter_map(|i| texts.get(SourceId(i))).map(|t| t.to_string()).collect();
    assert!(!stored.is_empty(), "sources were stored");
    let lessons = memory.entries();
    assert!(!lessons.is_empty(), "the fixed issue became a lesson");
    Outlets {
        sink: json_lines(&sink.records()),
        channel: json_lines(&channel),
        texts: stored.join("\n"),
        memory: serde_json::to_string(&lessons).unwrap(),
        state: serde_json::to_string(&state.question()).unwrap() + &serde_json::to_string(&state.report).unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_the_question_and_the_pages_leaves_the_engine_blanked_everywhere() {
    let clean = run(Redactor::new([SECRET.to_string()])).await;
    for (outlet, text) in clean.each() {
        assert!(!text.contains(SECRET), "{outlet} holds the key: {text}");
        assert!(text.contains("[redacted]"), "{outlet} shows where the key was: {text}");
    }
    // The log reads back into the same session: blanking changed text, not structure.
    let records: Vec<EventRecord> =
        clean.sink.lines().map(|l| serde_json::from_str(l).expect("a whole event")).collect();
    assert!(SessionState::replay(&records).is_finished());
    assert_eq!(clean.sink, clean.channel, "the UI sees exactly what the log holds");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_key_in_the_settings_every_outlet_would_hold_it() {
    let leaky = run(Redactor::default()).await;
    for (outlet, text) in leaky.each() {
        assert!(text.contains(SECRET), "{outlet} never saw the key, so the other test proves nothing there");
    }
}
