//! Scripted parts for tests: a reasoner and a search provider whose every
//! answer is set by the test. They live in tests only and are never the
//! product's default.

#![allow(dead_code, clippy::type_complexity)]

pub mod bin;
pub mod disk;
pub mod e2e;
pub mod llm;
pub mod local_engine;
pub mod mcp;
pub mod mercury;
pub mod opensearch;
pub mod scripted;
pub mod serve;
pub mod web_mock;

use std::sync::Arc;

use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command, EventRecord, Limits};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::search::{SearchProvider, SearchRouter};

pub fn limits(max_iterations: u32) -> Limits {
    Limits {
        max_iterations,
        max_queries: 4,
        max_sources: 6,
        time_limit_secs: 600,
        cost_budget_usd: 0.0,
        token_budget: 0,
    }
}

/// The scripted critiques were written for seed 004's weighted average and
/// its 0.85 threshold: these tests check the loop's rules with those numbers.
/// The calibrated mapping is tested on its own (`engine::evaluate` unit
/// tests, `tests/calibration.rs`).
pub fn settings(max_iterations: u32) -> EngineSettings {
    let mut s = EngineSettings::with_limits("test-session", limits(max_iterations));
    s.evaluate.calibration.enabled = false;
    s.decide.confidence_threshold = 0.85;
    s
}

/// A finished (or detached) session: its final state and every record.
pub struct Outcome {
    pub state: SessionState,
    pub records: Vec<EventRecord>,
    pub memory: Arc<InMemoryStore>,
}

pub struct Harness {
    pub settings: EngineSettings,
    pub reasoner: Arc<scripted::ScriptedReasoner>,
    pub chains: Vec<Vec<Arc<dyn SearchProvider>>>,
    pub memory: Arc<InMemoryStore>,
}

impl Harness {
    pub fn new(
        settings: EngineSettings,
        reasoner: scripted::ScriptedReasoner,
        provider: scripted::ScriptedProvider,
    ) -> Self {
        let provider: Arc<dyn SearchProvider> = Arc::new(provider);
        Self {
            settings,
            reasoner: Arc::new(reasoner),
            chains: vec![vec![provider]],
            memory: Arc::new(InMemoryStore::new(MemorySettings::default())),
        }
    }

    /// Starts the engine; returns it running plus the handle's ends.
    #[allow(clippy::type_complexity)]
    pub fn start(
        self,
        question: &str,
    ) -> (
        tokio::task::JoinHandle<Result<SessionState, sleuth::engine::EngineError>>,
        tokio::sync::mpsc::UnboundedSender<Command>,
        tokio::sync::mpsc::UnboundedReceiver<EventRecord>,
        MemorySink,
        Arc<InMemoryStore>,
    ) {
        let sink = MemorySink::default();
        let memory = self.memory.clone();
        let parts = EngineParts {
            reasoner: self.reasoner.clone(),
            search: Arc::new(SearchRouter::new(
                self.chains,
                &sleuth::search::RouterSettings {
                    backoff_min_ms: 1,
                    backoff_max_ms: 5,
                    ..sleuth::search::RouterSettings::default()
                },
            )),
            texts: Arc::new(MemoryTexts::default()),
            memory: memory.clone() as Arc<dyn MemoryStore>,
            log: Box::new(sink.clone()),
        };
        let (engine, handle) = Engine::new(self.settings, parts, SessionState::default());
        handle.commands.send(Command::Start { question: question.to_string() }).ok();
        let task = tokio::spawn(engine.run());
        (task, handle.commands, handle.events, sink, memory)
    }

    /// Runs to the end with no interaction.
    pub async fn run(self, question: &str) -> Outcome {
        let (task, commands, mut events, sink, memory) = self.start(question);
        // Keep the sender alive until the engine is done.
        let drain = tokio::spawn(async move { while events.recv().await.is_some() {} });
        let state = task.await.expect("engine task").expect("engine run");
        drop(commands);
        drain.abort();
        Outcome { state, records: sink.records(), memory }
    }
}

/// Every decision's (action, reason) in order, as strings.
pub fn decisions(state: &SessionState) -> Vec<String> {
    state
        .iterations
        .iter()
        .filter_map(|it| it.decision.as_ref())
        .map(|d| format!("{}:{}", d.action, serde_json::to_value(d.reason).unwrap().as_str().unwrap()))
        .collect()
}
