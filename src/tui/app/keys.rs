//! Keys on the main screen: moving around the panes, and (live) the
//! controls that become engine commands.

use crossterm::event::KeyEvent;

use super::overlay::{EditPurpose, Editor};
use super::search::SearchTarget;
use super::{App, Banner, Engine, MonitorRow, Overlay, Pane, SourceView};
use crate::engine::Stage;
use crate::engine::protocol::{Command, Steer};
use crate::tui::doc::{self, DocKind};
use crate::tui::keymap::{Action, Mode};
use crate::tui::layout;
use crate::tui::msg::Effect;

impl App {
    pub(super) fn main_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let chain: &[Mode] =
            if self.is_live() { &[Mode::Control, Mode::Main, Mode::Global] } else { &[Mode::Main, Mode::Global] };
        let Some(action) = self.keymap.action(chain, &key) else { return Vec::new() };
        match action {
            Action::Quit => {
                if self.engine_busy() {
                    self.overlays.push(Overlay::ConfirmQuit);
                } else {
                    self.quit = true;
                    return vec![Effect::Quit];
                }
            }
            Action::Help => self.overlays.push(Overlay::Help { scroll: 0 }),
            Action::Back if self.search.take().is_none() && matches!(self.banner, Some(Banner::Error(_))) => {
                self.banner = None;
            }
            Action::FocusNext | Action::FocusPrev => {
                self.focus = self.focus.step(if action == Action::FocusNext { 1 } else { -1 });
                if self.focus.is_detail() {
                    self.detail = self.focus;
                }
            }
            Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Top | Action::Bottom => {
                self.move_in_pane(action)
            }
            Action::IterationPrev => self.step_iteration(-1),
            Action::IterationNext => self.step_iteration(1),
            Action::Open => return self.open_selected(),
            Action::Search => {
                if self.focus == Pane::Monitor {
                    self.info("nothing to search in the monitor; Tab to another pane");
                } else {
                    let purpose = EditPurpose::Search(SearchTarget::Pane(self.focus));
                    self.overlays.push(Overlay::Editor(Editor::new(purpose, "")));
                }
            }
            Action::SearchNext => self.search_step(1),
            Action::SearchPrev => self.search_step(-1),
            Action::Breakdown => self.open_breakdown(),
            Action::Export => {
                if self.state.report.is_some() {
                    self.info("exporting the report as HTML and PDF …");
                    return vec![Effect::Export];
                }
                self.info("no report to export yet: it is written when the research ends");
            }
            Action::Step => return self.command(Command::Step),
            Action::Auto => return self.command(Command::Continue),
            Action::ForceOutput => return self.command(Command::ForceOutput),
            Action::Cancel => return self.command(Command::Cancel),
            Action::Steer => {
                if self.stage() == Stage::Paused && self.engine == Engine::Attached {
                    self.overlays.push(Overlay::Steer { cursor: 0 });
                } else {
                    self.info("steering works at a step pause: press s to pause after this iteration");
                }
            }
            Action::Ban | Action::Pin => return self.steer_source(action == Action::Ban),
            Action::Answer => {
                if self.state.open_ask().is_some() {
                    self.hidden_ask = None;
                    self.open_pending_ask();
                } else {
                    self.info("no question is waiting for an answer");
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// A control command, if an engine is there to take it.
    fn command(&mut self, cmd: Command) -> Vec<Effect> {
        match (&self.engine, self.state.is_finished()) {
            (Engine::Attached, false) => {
                if cmd == Command::Step && self.stage() != Stage::Paused {
                    self.info("step mode on: the engine pauses after this iteration");
                }
                vec![Effect::Engine(cmd)]
            }
            _ => {
                self.info("the session has ended; there is nothing to control");
                Vec::new()
            }
        }
    }

    fn steer_source(&mut self, ban: bool) -> Vec<Effect> {
        if self.focus != Pane::Citations {
            self.info("select a source in the Citations pane first (Tab)");
            return Vec::new();
        }
        let Some(id) = self.state.sources.get(self.cursors.citations).map(|s| s.meta.id) else {
            return Vec::new();
        };
        let edit = if ban { Steer::BanSource { id } } else { Steer::PinSource { id } };
        self.command(Command::Steer { edit })
    }

    fn open_breakdown(&mut self) {
        if self.shown_iteration().and_then(|it| it.evaluation.as_ref()).is_some() {
            self.overlays.push(Overlay::Breakdown);
        } else {
            self.info("no evaluation yet: confidence is computed after the first draft");
        }
    }

    fn open_selected(&mut self) -> Vec<Effect> {
        match self.focus {
            Pane::Monitor => {
                if matches!(
                    MonitorRow::ALL.get(self.cursors.monitor),
                    Some(MonitorRow::Confidence | MonitorRow::Coverage)
                ) {
                    self.open_breakdown();
                }
            }
            Pane::Iterations => {
                self.focus = Pane::Reflection;
                self.detail = Pane::Reflection;
            }
            Pane::Citations => {
                if let Some(id) = self.state.sources.get(self.cursors.citations).map(|s| s.meta.id) {
                    self.overlays.push(Overlay::Source(SourceView { id, text: None, missing: false, scroll: 0 }));
                    return vec![Effect::LoadSource(id)];
                }
            }
            Pane::Reflection | Pane::Report => {}
        }
        Vec::new()
    }

    fn move_in_pane(&mut self, action: Action) {
        let page = self.page_height();
        let delta: isize = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -(page as isize),
            Action::PageDown => page as isize,
            Action::Top => isize::MIN / 2,
            _ => isize::MAX / 2,
        };
        let moved = |v: usize, max: usize| (v as isize).saturating_add(delta).clamp(0, max as isize) as usize;
        match self.focus {
            Pane::Monitor => self.cursors.monitor = moved(self.cursors.monitor, MonitorRow::ALL.len() - 1),
            Pane::Iterations => {
                if action == Action::Bottom && self.is_live() {
                    // Back to following the latest iteration.
                    self.selected = None;
                    self.cursors.reflection = 0;
                } else {
                    let n = self.iteration_count();
                    let current = self.selected.unwrap_or(self.state.iteration()) as usize;
                    self.select_iteration(moved(current, n as usize).max(1) as u32);
                }
            }
            Pane::Reflection => {
                let max = self.max_scroll(DocKind::Reflection);
                self.cursors.reflection = moved(self.cursors.reflection.min(max), max);
            }
            Pane::Citations => {
                let max = self.state.sources.len().saturating_sub(1);
                self.cursors.citations = moved(self.cursors.citations.min(max), max);
            }
            Pane::Report => {
                let max = self.max_scroll(DocKind::Report);
                let following = self.cursors.report_pinned && doc::report::streaming(self);
                let from = if following { max } else { self.cursors.report.min(max) };
                self.cursors.report = moved(from, max);
                self.cursors.report_pinned = self.cursors.report >= max;
            }
        }
    }

    /// Iterations in the session (in review: all of them, not only those
    /// up to the one shown).
    pub fn iteration_count(&self) -> u32 {
        self.review.as_ref().map_or(self.state.iteration(), |r| r.iterations())
    }

    fn step_iteration(&mut self, delta: i64) {
        let n = self.iteration_count();
        if n == 0 {
            return;
        }
        let current = i64::from(self.selected.unwrap_or(self.state.iteration()));
        self.select_iteration((current + delta).clamp(1, i64::from(n)) as u32);
    }

    /// Shows iteration `k`; in review, the whole screen moves to it.
    pub(super) fn select_iteration(&mut self, k: u32) {
        let k = k.clamp(1, self.iteration_count().max(1));
        if self.selected != Some(k) {
            self.cursors.reflection = 0;
        }
        self.selected = Some(k);
        if let Some(review) = &mut self.review
            && review.at != k
        {
            review.at = k;
            self.state = review.state_at(k);
            self.cursors.citations = self.cursors.citations.min(self.state.sources.len().saturating_sub(1));
            self.cursors.report_pinned = false;
            self.cursors.report = 0;
        }
    }

    /// Lines moved by page up/down.
    pub(super) fn page_height(&self) -> usize {
        layout::detail_text_height(self).saturating_sub(1).max(1)
    }

    /// How far a text pane can scroll.
    fn max_scroll(&mut self, kind: DocKind) -> usize {
        let height = layout::detail_text_height(self);
        self.current_doc(kind).len().saturating_sub(height)
    }

    /// How far the top window can scroll.
    pub(super) fn overlay_max_scroll(&mut self) -> usize {
        let height = layout::overlay_text_height(self);
        let lines = match self.overlays.last() {
            Some(Overlay::Source(_)) => self.current_doc(DocKind::Source).len(),
            Some(Overlay::Help { .. }) => doc::help::lines(self).len(),
            _ => 0,
        };
        lines.saturating_sub(height)
    }
}
