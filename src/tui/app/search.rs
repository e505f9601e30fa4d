//! `/` search: in a text pane it scrolls to the next line containing the
//! term; in a list it moves the cursor to the next matching row.

use super::{App, Overlay, Pane};
use crate::tui::doc::DocKind;
use crate::tui::text::find_all;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchTarget {
    Pane(Pane),
    Source,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub target: SearchTarget,
    pub term: String,
}

impl App {
    /// The search term highlighted in `target`, if any.
    pub fn search_term(&self, target: SearchTarget) -> Option<&str> {
        self.search.as_ref().filter(|s| s.target == target).map(|s| s.term.as_str())
    }

    pub(super) fn start_search(&mut self, target: SearchTarget, term: String) {
        if term.is_empty() {
            self.search = None;
            return;
        }
        self.search = Some(Search { target, term });
        self.seek(target, 0, true);
    }

    /// Next (`dir` > 0) or previous match of the current search.
    pub(super) fn search_step(&mut self, dir: isize) {
        let target = match self.overlays.last() {
            Some(Overlay::Source(_)) => SearchTarget::Source,
            _ => SearchTarget::Pane(self.focus),
        };
        if self.search_term(target).is_none() {
            self.info("no search here yet: press / to search");
            return;
        }
        self.seek(target, dir, false);
    }

    /// Moves to the first matching row after (or before) the current one;
    /// `here` lets the current row match.
    fn seek(&mut self, target: SearchTarget, dir: isize, here: bool) {
        let Some(term) = self.search_term(target).map(str::to_string) else { return };
        let current = self.position(target);
        let (hits, rows) = self.matching_rows(target, &term);
        let found = if dir < 0 {
            hits.iter().rev().find(|&&i| i < current).copied()
        } else {
            let start = if here { current } else { current + 1 };
            hits.iter().find(|&&i| i >= start).or_else(|| hits.iter().find(|&&i| i < start.min(rows))).copied()
        };
        match found {
            Some(i) => self.set_position(target, i),
            None => self.info(format!("no match for `{term}`")),
        }
    }

    /// The rows matching `term` (in order) and how many rows there are:
    /// rows of a list, or lines of a cached document.
    fn matching_rows(&mut self, target: SearchTarget, term: &str) -> (Vec<usize>, usize) {
        let hits = |rows: &mut dyn Iterator<Item = &str>| -> (Vec<usize>, usize) {
            let mut n = 0;
            let mut out = Vec::new();
            for (i, row) in rows.enumerate() {
                n = i + 1;
                if !find_all(row, term).is_empty() {
                    out.push(i);
                }
            }
            (out, n)
        };
        let kind = match target {
            SearchTarget::Source if self.source_view().is_some() => DocKind::Source,
            SearchTarget::Pane(Pane::Reflection) => DocKind::Reflection,
            SearchTarget::Pane(Pane::Report) => DocKind::Report,
            SearchTarget::Pane(Pane::Citations) => {
                let rows: Vec<String> = self
                    .state
                    .sources
                    .iter()
                    .map(|s| format!("{} {} {} {}", s.meta.id, s.meta.title, s.meta.locator, s.meta.site))
                    .collect();
                return hits(&mut rows.iter().map(String::as_str));
            }
            SearchTarget::Pane(Pane::Iterations) => {
                let rows: Vec<String> = self
                    .state
                    .iterations
                    .iter()
                    .map(|it| {
                        let d = it.decision.as_ref().map(|d| format!("{} {} {}", d.action, d.reason.label(), d.detail));
                        format!("{} {}", it.iteration, d.unwrap_or_default())
                    })
                    .collect();
                return hits(&mut rows.iter().map(String::as_str));
            }
            SearchTarget::Source | SearchTarget::Pane(Pane::Monitor) => return (Vec::new(), 0),
        };
        hits(&mut self.current_doc(kind).text().iter().map(String::as_str))
    }

    fn position(&self, target: SearchTarget) -> usize {
        match target {
            SearchTarget::Source => self
                .overlays
                .iter()
                .rev()
                .find_map(|o| match o {
                    Overlay::Source(v) => Some(v.scroll),
                    _ => None,
                })
                .unwrap_or(0),
            SearchTarget::Pane(Pane::Reflection) => self.cursors.reflection,
            SearchTarget::Pane(Pane::Report) => self.cursors.report,
            SearchTarget::Pane(Pane::Citations) => self.cursors.citations,
            SearchTarget::Pane(Pane::Iterations) => {
                self.selected.unwrap_or(self.state.iteration()).saturating_sub(1) as usize
            }
            SearchTarget::Pane(Pane::Monitor) => 0,
        }
    }

    fn set_position(&mut self, target: SearchTarget, i: usize) {
        match target {
            SearchTarget::Source => {
                if let Some(Overlay::Source(v)) =
                    self.overlays.iter_mut().rev().find(|o| matches!(o, Overlay::Source(_)))
                {
                    v.scroll = i;
                }
            }
            SearchTarget::Pane(Pane::Reflection) => self.cursors.reflection = i,
            SearchTarget::Pane(Pane::Report) => {
                self.cursors.report = i;
                self.cursors.report_pinned = false;
            }
            SearchTarget::Pane(Pane::Citations) => self.cursors.citations = i,
            SearchTarget::Pane(Pane::Iterations) => self.select_iteration(i as u32 + 1),
            SearchTarget::Pane(Pane::Monitor) => {}
        }
    }
}
