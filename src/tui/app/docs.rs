//! The document cache (see `tui::doc`): each text pane's wrapped lines for
//! the width it is drawn at, rebuilt only when an event, a resize or a new
//! selection changes what it shows. Update code reads it for scroll limits
//! and search; the runner brings it up to date before each frame and the
//! views draw from it.

use std::borrow::Cow;

use super::{App, Overlay, Pane, SourceView};
use crate::tui::doc::{self, Doc, DocKey, DocKind};
use crate::tui::layout;

impl App {
    /// The top-most source window.
    pub fn source_view(&self) -> Option<&SourceView> {
        self.overlays.iter().rev().find_map(|o| match o {
            Overlay::Source(v) => Some(v),
            _ => None,
        })
    }

    fn doc_key(&self, kind: DocKind, width: usize, view: Option<&SourceView>) -> DocKey {
        let source = if kind == DocKind::Source { view.map(|v| (v.id, v.text.is_some(), v.missing)) } else { None };
        DocKey {
            width,
            seq: self.state.last_seq,
            at: self.review.as_ref().map_or(0, |r| r.at),
            shown: if kind == DocKind::Source { None } else { self.shown_iteration().map(|it| it.iteration) },
            source,
        }
    }

    fn build_doc(&self, kind: DocKind, key: DocKey, view: Option<&SourceView>) -> Doc {
        let lines = match (kind, view) {
            (DocKind::Reflection, _) => doc::reflection::lines(self, key.width),
            (DocKind::Report, _) => doc::report::lines(self, key.width),
            (DocKind::Source, Some(v)) => doc::source::lines(self, v, key.width),
            (DocKind::Source, None) => Vec::new(),
        };
        Doc::new(key, lines)
    }

    fn doc_with(&self, kind: DocKind, width: usize, view: Option<&SourceView>) -> Cow<'_, Doc> {
        let key = self.doc_key(kind, width, view);
        match self.docs.get(kind, &key) {
            Some(d) => Cow::Borrowed(d),
            None => Cow::Owned(self.build_doc(kind, key, view)),
        }
    }

    /// A pane's document at `width`: the cached one when it is current (as
    /// in every frame the runner draws), else built for this call.
    pub fn doc(&self, kind: DocKind, width: usize) -> Cow<'_, Doc> {
        let view = if kind == DocKind::Source { self.source_view() } else { None };
        self.doc_with(kind, width, view)
    }

    /// The document of one source window at `width`.
    pub fn source_doc(&self, view: &SourceView, width: usize) -> Cow<'_, Doc> {
        self.doc_with(DocKind::Source, width, Some(view))
    }

    /// The width a document is drawn at, from the terminal size.
    fn doc_width(&self, kind: DocKind) -> usize {
        match kind {
            DocKind::Source => layout::overlay_text_width(self),
            DocKind::Reflection | DocKind::Report => layout::detail_text_width(self),
        }
    }

    /// The current document of `kind`, built into the cache if it is not
    /// there yet.
    pub(super) fn current_doc(&mut self, kind: DocKind) -> &Doc {
        let width = self.doc_width(kind);
        let view = if kind == DocKind::Source { self.source_view() } else { None };
        let key = self.doc_key(kind, width, view);
        let fresh = match self.docs.get(kind, &key) {
            Some(_) => None,
            None => Some(self.build_doc(kind, key.clone(), view)),
        };
        let slot = self.docs.slot_mut(kind);
        if let Some(d) = fresh {
            *slot = Some(d);
        }
        slot.get_or_insert_with(|| Doc::new(key, Vec::new()))
    }

    /// Brings the cache up to date for what the next frame shows: the
    /// detail pane's document and an open source's. Cheap when nothing
    /// changed (a key comparison each).
    pub fn refresh_docs(&mut self) {
        match self.detail {
            Pane::Report => {
                self.current_doc(DocKind::Report);
            }
            Pane::Citations => {}
            _ => {
                self.current_doc(DocKind::Reflection);
            }
        }
        if self.source_view().is_some() {
            self.current_doc(DocKind::Source);
        }
    }
}
