//! One headless session of the embedded defaults on an opened corpus, as the
//! quality and calibration benchmarks run it: the configuration's settings,
//! the built-in reasoner with the corpus's term statistics, no lessons carried
//! from one question to the next, and every ASK answered with its first
//! option (as `--ask first` does).

use std::sync::Arc;

use sleuth::builtin::{BuiltinReasoner, Rarity};
use sleuth::config::Config;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Answer, Command, Event};
use sleuth::engine::reasoner::Reasoner;
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::search::local::{LocalCorpus, LocalProvider};
use sleuth::search::opensearch::{OpenSearchConfig, OpenSearchProvider};
use sleuth::search::{SearchProvider, SearchRouter};

/// The local corpus's provider, or with `SLEUTH_BENCH_OPENSEARCH_URL` set
/// the `opensearch` provider on that cluster (index
/// `SLEUTH_BENCH_OPENSEARCH_INDEX`, default `sleuth`), loaded from the same
/// corpus by `sleuth index --to opensearch`; the term statistics stay the
/// local corpus's.
fn provider(corpus: &Arc<LocalCorpus>, config: &Config) -> Arc<dyn SearchProvider> {
    match std::env::var("SLEUTH_BENCH_OPENSEARCH_URL") {
        Ok(url) if !url.is_empty() => {
            let index = std::env::var("SLEUTH_BENCH_OPENSEARCH_INDEX").unwrap_or_else(|_| "sleuth".into());
            let cfg = OpenSearchConfig { url: vec![url], index, ..config.opensearch.clone() };
            Arc::new(OpenSearchProvider::new(&cfg).expect("the opensearch provider"))
        }
        _ => Arc::new(LocalProvider::new(corpus.clone(), 1)),
    }
}

/// The built-in reasoner of the embedded defaults on `corpus`.
pub fn builtin(corpus: &Arc<LocalCorpus>, config: &Config) -> BuiltinReasoner {
    let rarity: Arc<dyn Rarity> = corpus.clone();
    BuiltinReasoner::new(config.builtin.clone(), Some(rarity), 1.0)
        .with_links(corpus.clone())
        .with_glossary(corpus.clone())
}

/// Runs session `id` on `question` to its end and returns its state.
#[allow(dead_code)] // each benchmark uses one of the two
pub async fn run_session(id: String, question: &str, corpus: &Arc<LocalCorpus>, config: &Config) -> SessionState {
    run_session_with(id, question, corpus, config, Arc::new(builtin(corpus, config))).await
}

/// [`run_session`] with another reasoner (the built-in one wrapped, to
/// watch what it is given).
pub async fn run_session_with(
    id: String,
    question: &str,
    corpus: &Arc<LocalCorpus>,
    config: &Config,
    reasoner: Arc<dyn Reasoner>,
) -> SessionState {
    let provider = provider(corpus, config);
    let preset = config.research.preset;
    let mut settings = EngineSettings::with_limits(id, config.limits.resolve(preset));
    settings.preset = preset.as_str().into();
    settings.decide = config.decide.clone();
    settings.evaluate = config.evaluate.clone();
    settings.refine = config.refine.clone();
    settings.review = config.review.clone();
    settings.search = config.search.engine();
    settings.memory.enabled = false;
    let parts = EngineParts {
        reasoner,
        search: Arc::new(SearchRouter::new(vec![vec![provider]], &config.search.router())),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(MemorySink::default()),
    };
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question: question.to_string() }).ok();
    let commands = handle.commands.clone();
    let mut events = handle.events;
    let answers = tokio::spawn(async move {
        while let Some(r) = events.recv().await {
            if let Event::AskRaised { ask_id, clarification, .. } = &r.event {
                let label = clarification.options.first().cloned().unwrap_or_default();
                commands
                    .send(Command::Answer { ask_id: ask_id.clone(), answer: Answer::Choice { index: 0, label } })
                    .ok();
            }
        }
    });
    let state = engine.run().await.expect("engine run");
    answers.abort();
    state
}
