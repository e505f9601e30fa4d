//! Scripted sessions stored on disk exactly as the binary stores them:
//! the session folder, `SessionLog` (log + summary), `DirTexts`.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use sleuth::engine::memory::MemoryStore;
use sleuth::engine::ports::EventSink;
use sleuth::engine::protocol::{Answer, Command, Event};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::search::{SearchProvider, SearchRouter};
use sleuth::session::{DirTexts, SessionDir, SessionLog};

use super::scripted::{ScriptedProvider, ScriptedReasoner};

/// The parts of a scripted engine writing to `dir`.
pub fn parts(
    dir: &SessionDir,
    _settings: &EngineSettings,
    reasoner: Arc<ScriptedReasoner>,
    provider: Arc<dyn SearchProvider>,
    memory: Arc<dyn MemoryStore>,
    log: Box<dyn EventSink>,
) -> EngineParts {
    EngineParts {
        reasoner,
        search: Arc::new(SearchRouter::new(
            vec![vec![provider]],
            &sleuth::search::RouterSettings {
                backoff_min_ms: 1,
                backoff_max_ms: 5,
                ..sleuth::search::RouterSettings::default()
            },
        )),
        texts: Arc::new(DirTexts::new(dir.sources_dir())),
        memory,
        log,
    }
}

/// How the driver answers an ASK: with the option at this index, or not
/// at all (the session detaches, waiting).
#[derive(Clone, Copy, Debug)]
pub enum OnAsk {
    Choose(usize),
    Detach,
}

/// Runs `engine` to its end; sends `Start` when `question` is given.
pub async fn drive(
    engine: Engine,
    handle: sleuth::engine::EngineHandle,
    question: Option<&str>,
    on_ask: OnAsk,
) -> SessionState {
    let mut initial = engine.state().clone();
    let task = tokio::spawn(engine.run());
    let sleuth::engine::EngineHandle { commands, mut events } = handle;
    if let Some(q) = question {
        commands.send(Command::Start { question: q.to_string() }).unwrap();
    }
    let mut commands = Some(commands);
    if let Some(ask) = initial.open_ask().cloned() {
        reply(on_ask, &ask.ask_id, &ask.clarification.options, &mut commands);
    }
    while let Some(record) = events.recv().await {
        initial.apply(&record);
        if let Event::AskRaised { ask_id, clarification, .. } = &record.event {
            reply(on_ask, ask_id, &clarification.options, &mut commands);
        }
    }
    task.await.expect("engine task").expect("engine run")
}

fn reply(on_ask: OnAsk, ask_id: &str, options: &[String], commands: &mut Option<UnboundedSender<Command>>) {
    match on_ask {
        OnAsk::Choose(i) => {
            let answer = Answer::Choice { index: i, label: options[i].clone() };
            let cmd = Command::Answer { ask_id: ask_id.to_string(), answer };
            commands.as_ref().expect("commands still open").send(cmd).unwrap();
        }
        // Without a sender the waiting engine detaches.
        OnAsk::Detach => *commands = None,
    }
}

/// A scripted session run from start to end in a new folder under `root`.
#[allow(clippy::too_many_arguments)]
pub async fn run_new(
    root: &Path,
    id: &str,
    mut settings: EngineSettings,
    reasoner: ScriptedReasoner,
    provider: ScriptedProvider,
    memory: Arc<dyn MemoryStore>,
    question: &str,
    on_ask: OnAsk,
) -> SessionState {
    settings.session_id = id.to_string();
    let dir = SessionDir::create(root, id).unwrap();
    let log = SessionLog::create(&dir).unwrap();
    let parts = parts(&dir, &settings, Arc::new(reasoner), Arc::new(provider), memory, Box::new(log));
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    drive(engine, handle, Some(question), on_ask).await
}
