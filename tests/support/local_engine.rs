//! The parts of an in-memory session on a local corpus (search, texts,
//! memory and log in memory), shared by the test crates that run the
//! built-in reasoner on a corpus written in the test.

use std::sync::Arc;

use sleuth::builtin::{BuiltinConfig, BuiltinReasoner, Rarity};
use sleuth::engine::EngineParts;
use sleuth::engine::memory::{InMemoryStore, MemorySettings, MemoryStore};
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::search::local::{LocalCorpus, LocalProvider};
use sleuth::search::{RouterSettings, SearchProvider, SearchRouter};

/// The built-in reasoner with the corpus's term statistics.
pub fn builtin_reasoner(corpus: &Arc<LocalCorpus>) -> BuiltinReasoner {
    let rarity: Arc<dyn Rarity> = corpus.clone();
    BuiltinReasoner::new(BuiltinConfig::default(), Some(rarity), 1.0)
}

/// A session's parts: `reasoner` over the corpus, everything else in memory.
pub fn local_parts(corpus: Arc<LocalCorpus>, reasoner: BuiltinReasoner) -> EngineParts {
    let provider: Arc<dyn SearchProvider> = Arc::new(LocalProvider::new(corpus, 1));
    EngineParts {
        reasoner: Arc::new(reasoner),
        search: Arc::new(SearchRouter::new(
            vec![vec![provider]],
            &RouterSettings { backoff_min_ms: 1, backoff_max_ms: 5, ..Default::default() },
        )),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(InMemoryStore::new(MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(MemorySink::default()),
    }
}
