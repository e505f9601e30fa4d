//! What the engine needs from the outside world besides reasoning: search
//! (`search.rs`, implemented by the search adapter's router), somewhere
//! durable to append events, somewhere to keep source texts. The session
//! store implements the last two on disk; the in-memory ones here serve
//! tests, benchmarks and embedding.

mod search;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use search::{ChainAttempt, FetchedDoc, ProviderError, RoutedSearch, SearchHit, SearchQuery, Searcher, Trip};

use super::model::SourceId;
use super::protocol::EventRecord;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError(e.to_string())
    }
}

/// The session log. `record` must make the event durable enough to survive
/// a crash of this process before returning (written and flushed);
/// `checkpoint` additionally syncs to disk (iteration boundaries, ASK, end).
pub trait EventSink: Send {
    fn record(&mut self, record: &EventRecord) -> Result<(), StoreError>;
    fn checkpoint(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Source texts, kept beside the log so review and citation checks work offline.
pub trait TextStore: Send + Sync {
    fn put(&self, id: SourceId, text: &str) -> Result<(), StoreError>;
    fn get(&self, id: SourceId) -> Option<Arc<str>>;
}

/// Keeps every record in memory; clones share the same list.
#[derive(Debug, Clone, Default)]
pub struct MemorySink {
    records: Arc<Mutex<Vec<EventRecord>>>,
}

impl MemorySink {
    pub fn records(&self) -> Vec<EventRecord> {
        self.records.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl EventSink for MemorySink {
    fn record(&mut self, record: &EventRecord) -> Result<(), StoreError> {
        self.records.lock().map_err(|_| StoreError("sink lock poisoned".into()))?.push(record.clone());
        Ok(())
    }
}

#[derive(Debug, Default)]
pub struct MemoryTexts {
    texts: Mutex<HashMap<SourceId, Arc<str>>>,
}

impl TextStore for MemoryTexts {
    fn put(&self, id: SourceId, text: &str) -> Result<(), StoreError> {
        self.texts.lock().map_err(|_| StoreError("text store lock poisoned".into()))?.insert(id, Arc::from(text));
        Ok(())
    }

    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        self.texts.lock().ok()?.get(&id).cloned()
    }
}
