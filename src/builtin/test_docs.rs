//! In-memory sources and a corpus-less reasoner for the built-in's unit
//! tests: term weights then come from the sources themselves.

use super::{BuiltinConfig, BuiltinReasoner};
use crate::engine::model::{Citation, Claim, SourceId};
use crate::engine::reasoner::SourceDoc;

pub fn reasoner() -> BuiltinReasoner {
    with_config(BuiltinConfig::default())
}

pub fn with_config(cfg: BuiltinConfig) -> BuiltinReasoner {
    BuiltinReasoner::new(cfg, None, 1.0)
}

/// A web page numbered `id`.
pub fn doc(id: u32, title: &str, text: &str) -> SourceDoc {
    SourceDoc::page(id, &format!("https://example.org/{id}"), title, text)
}

/// A claim quoting `quote` verbatim from source `id`.
pub fn claim(id: u32, quote: &str) -> Claim {
    Claim { text: quote.into(), citations: vec![Citation { source: SourceId(id), quote: quote.into() }], aspect: None }
}
