//! In-memory sources and a corpus-less reasoner for the built-in's unit
//! tests: term weights then come from the sources themselves.

use std::sync::Arc;

use super::{BuiltinConfig, BuiltinReasoner};
use crate::engine::model::{Citation, Claim, SourceId, SourceKind, SourceMeta};
use crate::engine::reasoner::SourceDoc;

pub fn reasoner() -> BuiltinReasoner {
    with_config(BuiltinConfig::default())
}

pub fn with_config(cfg: BuiltinConfig) -> BuiltinReasoner {
    BuiltinReasoner::new(cfg, None, 1.0)
}

/// A web page numbered `id`.
pub fn doc(id: u32, title: &str, text: &str) -> SourceDoc {
    SourceDoc {
        meta: Arc::new(SourceMeta {
            id: SourceId(id),
            locator: format!("https://example.org/{id}"),
            canonical: format!("https://example.org/{id}"),
            title: title.into(),
            site: "example.org".into(),
            provider: "test".into(),
            kind: SourceKind::Web,
            tier: Some(2),
            source_type: None,
            heading: None,
            published: None,
            accessed_at_ms: 0,
            iteration: 1,
            query: "q".into(),
            score: 1.0,
            text_len: text.len(),
            text_hash: crate::text::text_hash(text),
        }),
        text: Arc::from(text),
        relevance: Some(1.0),
    }
}

/// A claim quoting `quote` verbatim from source `id`.
pub fn claim(id: u32, quote: &str) -> Claim {
    Claim { text: quote.into(), citations: vec![Citation { source: SourceId(id), quote: quote.into() }], aspect: None }
}
