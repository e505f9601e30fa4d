//! The session screen's state machine: live monitor and offline review.
//! `update` is pure: it folds engine events into the state, turns keys into
//! actions by the keymap, and returns effects as data (commands for the
//! engine, a source text to load, quitting). Views read `&App`.

mod docs;
mod keys;
mod overlay;
mod review;
mod search;
#[cfg(test)]
mod tests;

use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};

pub use overlay::{AskModal, EditPurpose, Editor, Overlay, SourceView};
pub use review::Review;
pub use search::{Search, SearchTarget};

use super::doc::Docs;
use super::keymap::Keymap;
use super::msg::{Effect, Msg};
use super::theme::Theme;
use crate::engine::protocol::{Event, EventRecord};
use crate::engine::state::{IterationRecord, SessionState};
use crate::engine::{NextStep, SessionStatus, Stage};

/// The panes, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Monitor,
    Iterations,
    Reflection,
    Citations,
    Report,
}

impl Pane {
    pub const ALL: [Pane; 5] = [Pane::Monitor, Pane::Iterations, Pane::Reflection, Pane::Citations, Pane::Report];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Monitor => "Monitor",
            Pane::Iterations => "Iterations",
            Pane::Reflection => "Reflection",
            Pane::Citations => "Citations",
            Pane::Report => "Draft / Report",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    fn step(self, by: isize) -> Pane {
        let n = Pane::ALL.len() as isize;
        Pane::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }

    /// Whether the pane lives in the right-hand detail column.
    pub fn is_detail(self) -> bool {
        matches!(self, Pane::Reflection | Pane::Citations | Pane::Report)
    }
}

/// The rows of the monitor pane, selectable with up/down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonitorRow {
    Confidence,
    Coverage,
    Cost,
    Tokens,
    Iteration,
    Elapsed,
    Stage,
    Trend,
}

impl MonitorRow {
    pub const ALL: [MonitorRow; 8] = [
        MonitorRow::Confidence,
        MonitorRow::Coverage,
        MonitorRow::Cost,
        MonitorRow::Tokens,
        MonitorRow::Iteration,
        MonitorRow::Elapsed,
        MonitorRow::Stage,
        MonitorRow::Trend,
    ];
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Banner {
    /// An engine error; stays until dismissed (esc) or replaced.
    Error(String),
    /// A hint about the last key; cleared by the next key.
    Info(String),
}

/// Whether an engine is behind this screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// Live: commands go to a running engine task.
    Attached,
    /// Live, but the engine task has ended.
    Stopped { error: Option<String> },
    /// Review: a saved session, no engine, no network.
    Offline,
}

/// Scroll offsets (in wrapped lines) and row cursors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cursors {
    pub monitor: usize,
    pub citations: usize,
    pub reflection: usize,
    pub report: usize,
    /// Follow the end of the report while it streams (until scrolled up).
    pub report_pinned: bool,
}

pub struct App {
    pub theme: Theme,
    pub keymap: Keymap,
    /// Live: everything folded so far. Review: the state as of `review.at`.
    pub state: SessionState,
    pub review: Option<Review>,
    pub engine: Engine,
    pub focus: Pane,
    /// Which detail pane the right column shows.
    pub detail: Pane,
    /// The iteration the reflection pane shows; `None` follows the latest.
    pub selected: Option<u32>,
    pub cursors: Cursors,
    pub search: Option<Search>,
    /// Open windows, the last on top; it receives the keys.
    pub overlays: Vec<Overlay>,
    pub banner: Option<Banner>,
    /// An ASK the user put aside with esc (reopened with the answer key).
    pub hidden_ask: Option<String>,
    /// Terminal size, for paging and search positions.
    pub size: (u16, u16),
    /// Wall clock for the live elapsed-time display.
    pub now_ms: Option<u64>,
    pub quit: bool,
    /// The text panes wrapped for the current width (see `docs`).
    docs: Docs,
}

impl App {
    fn new(state: SessionState, engine: Engine, theme: Theme, keymap: Keymap) -> Self {
        App {
            theme,
            keymap,
            state,
            review: None,
            engine,
            focus: Pane::Iterations,
            detail: Pane::Reflection,
            selected: None,
            cursors: Cursors { report_pinned: true, ..Cursors::default() },
            search: None,
            overlays: Vec::new(),
            banner: None,
            hidden_ask: None,
            size: (100, 30),
            now_ms: None,
            quit: false,
            docs: Docs::default(),
        }
    }

    /// A live session continuing from `state` (empty for a new one, replayed
    /// to resume: an unanswered ASK shows its modal at once).
    pub fn live(state: SessionState, theme: Theme, keymap: Keymap) -> Self {
        let mut app = Self::new(state, Engine::Attached, theme, keymap);
        if app.state.is_finished() || !app.state.report_stream.is_empty() {
            app.detail = Pane::Report;
        }
        app.open_pending_ask();
        app
    }

    /// A saved session for review, shown as of its last iteration.
    pub fn review(records: Vec<EventRecord>, theme: Theme, keymap: Keymap) -> Self {
        let review = Review::new(records);
        let state = review.state_at(review.at);
        let mut app = Self::new(state, Engine::Offline, theme, keymap);
        app.selected = (review.at > 0).then_some(review.at);
        app.review = Some(review);
        app.detail = Pane::Report;
        app
    }

    pub fn with_size(mut self, width: u16, height: u16) -> Self {
        self.size = (width, height);
        self
    }

    pub fn is_live(&self) -> bool {
        self.review.is_none()
    }

    /// The iteration the detail panes describe.
    pub fn shown_iteration(&self) -> Option<&IterationRecord> {
        match self.selected {
            Some(n) => self.state.iteration_record(n),
            None => self.state.current(),
        }
    }

    /// Whether the engine is working (not waiting for the user, not done).
    pub fn engine_busy(&self) -> bool {
        self.engine == Engine::Attached
            && !matches!(
                self.state.next_step(),
                NextStep::Done | NextStep::AwaitStart | NextStep::AwaitStep(_) | NextStep::AwaitAnswer(_)
            )
    }

    pub fn stage(&self) -> Stage {
        self.state.stage()
    }

    /// The stage in words; in review, an earlier iteration is a moment
    /// in the past, not a phase in progress.
    pub fn stage_label(&self) -> String {
        match &self.review {
            Some(r) if r.at < r.iterations() => {
                let decision = self.state.current().and_then(|it| it.decision.as_ref());
                match decision {
                    // Short enough for the monitor's stage row.
                    Some(d) => format!("iteration {} → {}", r.at, d.action),
                    None => format!("during iteration {}", r.at),
                }
            }
            _ => self.stage().label().to_string(),
        }
    }

    /// How a live session runs, or how it ended: the header's words. A
    /// session that ended in step mode keeps `step_mode` in its state, but
    /// nothing steps any more.
    pub fn live_mode(&self) -> String {
        match &self.engine {
            Engine::Stopped { error: Some(_) } => "LIVE · engine stopped".into(),
            _ if self.state.is_finished() => format!("ENDED · {}", SessionStatus::of(&self.state, false).label()),
            _ if self.state.step_mode => "LIVE · step mode".into(),
            _ => "LIVE · auto".into(),
        }
    }

    /// Active research time to show: the log's, plus the time since the
    /// last event while the engine works.
    pub fn elapsed_ms(&self) -> u64 {
        match self.now_ms {
            Some(now) if self.engine_busy() && self.state.updated_at_ms > 0 => {
                self.state.elapsed_ms + now.saturating_sub(self.state.updated_at_ms)
            }
            _ => self.state.elapsed_ms,
        }
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Key(key) if key.kind == KeyEventKind::Press => {
                if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
                    // Ctrl-C always leaves, whatever has the keys; the log is saved.
                    self.quit = true;
                    return vec![Effect::Quit];
                }
                if matches!(self.banner, Some(Banner::Info(_))) {
                    self.banner = None;
                }
                if self.overlays.is_empty() { self.main_key(key) } else { self.overlay_key(key) }
            }
            Msg::Key(_) => Vec::new(),
            Msg::Paste(text) => {
                if let Some(editor) = self.top_editor() {
                    editor.paste(&text);
                }
                Vec::new()
            }
            Msg::Resize(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Msg::Engine(record) => {
                self.on_event(&record);
                Vec::new()
            }
            Msg::EngineStopped { error } => {
                if let Some(e) = &error {
                    self.banner = Some(Banner::Error(format!("the engine stopped: {e}")));
                }
                self.engine = Engine::Stopped { error };
                Vec::new()
            }
            Msg::Exported { result } => {
                match result {
                    Ok(files) => self.info(format!("wrote {}", files.join(" and "))),
                    Err(e) => self.banner = Some(Banner::Error(format!("export failed: {e}"))),
                }
                Vec::new()
            }
            Msg::SourceLoaded { id, text } => {
                for o in &mut self.overlays {
                    if let Overlay::Source(view) = o
                        && view.id == id
                    {
                        view.text = Some(text.clone().unwrap_or_default());
                        view.missing = text.is_none();
                    }
                }
                Vec::new()
            }
            Msg::Tick { now_ms } => {
                self.now_ms = Some(now_ms);
                Vec::new()
            }
        }
    }

    fn on_event(&mut self, record: &EventRecord) {
        self.state.apply(record);
        match &record.event {
            Event::Error { phase, message } => {
                self.banner = Some(Banner::Error(format!("error in {phase}: {message}")));
            }
            Event::AskAnswered { ask_id, .. } => {
                self.overlays.retain(|o| !matches!(o, Overlay::Ask(m) if &m.ask_id == ask_id));
            }
            Event::Resumed { .. } => {
                // The pause is over: steering no longer applies.
                self.overlays.retain(|o| !matches!(o, Overlay::Steer { .. }) && !o.is_steer_editor());
            }
            Event::ReportDelta { .. } | Event::ReportWritten { .. }
                if self.detail != Pane::Report && !self.focus.is_detail() =>
            {
                self.detail = Pane::Report;
            }
            _ => {}
        }
        self.open_pending_ask();
    }

    /// Shows the ASK modal for an unanswered question (unless put aside).
    fn open_pending_ask(&mut self) {
        if !self.is_live() {
            return;
        }
        let Some(ask) = self.state.open_ask() else { return };
        if self.hidden_ask.as_deref() == Some(ask.ask_id.as_str()) {
            return;
        }
        if self.overlays.iter().any(|o| matches!(o, Overlay::Ask(m) if m.ask_id == ask.ask_id)) {
            return;
        }
        let modal = AskModal::new(ask.ask_id.clone());
        self.overlays.push(Overlay::Ask(modal));
    }

    fn top_editor(&mut self) -> Option<&mut Editor> {
        match self.overlays.last_mut()? {
            Overlay::Editor(e) => Some(e),
            Overlay::Ask(m) => m.other.as_mut(),
            _ => None,
        }
    }

    fn info(&mut self, text: impl Into<String>) {
        self.banner = Some(Banner::Info(text.into()));
    }
}
