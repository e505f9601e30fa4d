//! `/` search: in a text pane it scrolls to the next line containing the
//! term; in a list it moves the cursor to the next matching row.

use super::{App, Overlay, Pane};
use crate::tui::text::{find_all, plain};
use crate::tui::ui;

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
        let rows = self.search_rows(target);
        let current = self.position(target);
        let hit = |i: usize| !find_all(&rows[i], &term).is_empty();
        let found = if dir < 0 {
            (0..current.min(rows.len())).rev().find(|&i| hit(i))
        } else {
            let start = if here { current } else { current + 1 };
            (start..rows.len()).find(|&i| hit(i)).or_else(|| (0..start.min(rows.len())).find(|&i| hit(i)))
        };
        match found {
            Some(i) => self.set_position(target, i),
            None => self.info(format!("no match for `{term}`")),
        }
    }

    /// What the search runs over: rows of a list, or wrapped lines of text.
    fn search_rows(&self, target: SearchTarget) -> Vec<String> {
        let width = ui::layout::detail_text_width(self);
        match target {
            SearchTarget::Source => match self.overlays.iter().rev().find_map(|o| match o {
                Overlay::Source(v) => Some(v),
                _ => None,
            }) {
                Some(view) => {
                    ui::source::lines(self, view, ui::layout::overlay_text_width(self)).iter().map(plain).collect()
                }
                None => Vec::new(),
            },
            SearchTarget::Pane(Pane::Reflection) => ui::reflection::lines(self, width).iter().map(plain).collect(),
            SearchTarget::Pane(Pane::Report) => ui::report::lines(self, width).iter().map(plain).collect(),
            SearchTarget::Pane(Pane::Citations) => self
                .state
                .sources
                .iter()
                .map(|s| format!("{} {} {} {}", s.meta.id, s.meta.title, s.meta.locator, s.meta.site))
                .collect(),
            SearchTarget::Pane(Pane::Iterations) => self
                .state
                .iterations
                .iter()
                .map(|it| {
                    let d = it.decision.as_ref().map(|d| format!("{} {} {}", d.action, d.reason.label(), d.detail));
                    format!("{} {}", it.iteration, d.unwrap_or_default())
                })
                .collect(),
            SearchTarget::Pane(Pane::Monitor) => Vec::new(),
        }
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
