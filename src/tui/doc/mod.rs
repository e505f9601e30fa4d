//! Documents: the text panes (reflection, report, a source's text, help)
//! as lines wrapped to one width, built from `&App` and nothing else. `App`
//! keeps the wrapped documents in a cache keyed by what they are built from
//! (width, the last event folded, the iteration shown, the source open), so
//! update code scrolls and searches them and frames draw them without
//! wrapping anything again. Search highlighting is not part of a document:
//! views mark the visible lines only.

pub mod help;
pub mod reflection;
pub mod report;
pub mod source;

use std::cell::OnceCell;

use ratatui::text::Line;

use crate::engine::model::SourceId;
use crate::tui::text::plain;

/// The documents the cache holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    Reflection,
    Report,
    /// The text of the source open in the top-most source window.
    Source,
}

/// Everything a document is built from, besides the theme (fixed for the
/// life of a screen).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocKey {
    pub width: usize,
    /// The last event folded into the state.
    pub seq: u64,
    /// The review position (0 live).
    pub at: u32,
    /// The iteration the detail panes describe.
    pub shown: Option<u32>,
    /// For a source: its id, whether its text has arrived, whether it is missing.
    pub source: Option<(SourceId, bool, bool)>,
}

/// Wrapped lines and, once search asks for it, their plain text.
#[derive(Debug, Clone)]
pub struct Doc {
    pub key: DocKey,
    pub lines: Vec<Line<'static>>,
    /// Made on the first search, not on every rebuild (a streaming report
    /// is rebuilt for each frame).
    text: OnceCell<Vec<String>>,
}

impl Doc {
    pub fn new(key: DocKey, lines: Vec<Line<'static>>) -> Self {
        Doc { key, lines, text: OnceCell::new() }
    }

    /// The plain text of each line (what search runs over).
    pub fn text(&self) -> &[String] {
        self.text.get_or_init(|| self.lines.iter().map(plain).collect())
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// The cache: at most one document of each kind, the latest built.
#[derive(Debug, Clone, Default)]
pub struct Docs {
    pub reflection: Option<Doc>,
    pub report: Option<Doc>,
    pub source: Option<Doc>,
}

impl Docs {
    pub fn slot(&self, kind: DocKind) -> Option<&Doc> {
        match kind {
            DocKind::Reflection => self.reflection.as_ref(),
            DocKind::Report => self.report.as_ref(),
            DocKind::Source => self.source.as_ref(),
        }
    }

    pub fn slot_mut(&mut self, kind: DocKind) -> &mut Option<Doc> {
        match kind {
            DocKind::Reflection => &mut self.reflection,
            DocKind::Report => &mut self.report,
            DocKind::Source => &mut self.source,
        }
    }

    /// The cached document of `kind` if it was built from `key`.
    pub fn get(&self, kind: DocKind, key: &DocKey) -> Option<&Doc> {
        self.slot(kind).filter(|d| &d.key == key)
    }
}
