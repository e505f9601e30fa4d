//! Windows over the panes (help, ASK, steering, text boxes, a source's
//! text, the confidence breakdown, quit confirmation) and their keys.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;

use super::search::SearchTarget;
use super::{App, Overlay as O};
use crate::engine::model::SourceId;
use crate::engine::protocol::{Answer, Command, Steer};
use crate::tui::keymap::{Action, Mode};
use crate::tui::msg::Effect;
use crate::tui::text::clean;

#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Ask(AskModal),
    /// Steering at a step pause; `cursor` is on the next iteration's queries.
    Steer {
        cursor: usize,
    },
    Editor(Editor),
    Source(SourceView),
    Breakdown,
    ConfirmQuit,
}

impl Overlay {
    /// A text box opened from the steering panel (it closes with it).
    pub fn is_steer_editor(&self) -> bool {
        matches!(self, Overlay::Editor(e) if matches!(e.purpose, EditPurpose::EditQuery(_) | EditPurpose::AddQuery | EditPurpose::AddNote))
    }
}

#[derive(Debug, Clone)]
pub struct AskModal {
    pub ask_id: String,
    /// On an option, or one past the last: "Other…".
    pub cursor: usize,
    /// The free-text answer box, once "Other…" is chosen.
    pub other: Option<Editor>,
}

impl AskModal {
    pub fn new(ask_id: String) -> Self {
        Self { ask_id, cursor: 0, other: None }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditPurpose {
    EditQuery(usize),
    AddQuery,
    AddNote,
    AskOther,
    Search(SearchTarget),
}

impl EditPurpose {
    pub fn title(&self) -> String {
        match self {
            EditPurpose::EditQuery(i) => format!("Edit query {}", i + 1),
            EditPurpose::AddQuery => "Add a query to the next iteration".into(),
            EditPurpose::AddNote => "Add a note (it becomes a constraint)".into(),
            EditPurpose::AskOther => "Your answer".into(),
            EditPurpose::Search(_) => "Search".into(),
        }
    }

    fn multi_line(&self) -> bool {
        matches!(self, EditPurpose::AddNote | EditPurpose::AskOther)
    }
}

/// A text box (ratatui-textarea) with what its text is for.
#[derive(Debug, Clone)]
pub struct Editor {
    pub purpose: EditPurpose,
    pub area: TextArea<'static>,
}

impl Editor {
    pub fn new(purpose: EditPurpose, initial: &str) -> Self {
        let mut area = TextArea::new(initial.lines().map(str::to_string).collect());
        area.move_cursor(ratatui_textarea::CursorMove::Bottom);
        area.move_cursor(ratatui_textarea::CursorMove::End);
        Self { purpose, area }
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n").trim().to_string()
    }

    /// Pasted text is untrusted: escapes are stripped; one-line boxes get one line.
    pub fn paste(&mut self, text: &str) {
        let text = clean(text);
        let text = if self.purpose.multi_line() { text } else { text.replace('\n', " ") };
        self.area.insert_str(text);
    }

    /// Editor keys; `Some(true)` submitted, `Some(false)` cancelled.
    fn key(&mut self, app_keys: &crate::tui::keymap::Keymap, key: KeyEvent) -> Option<bool> {
        match app_keys.action(&[Mode::Editor], &key) {
            Some(Action::Submit) => Some(true),
            Some(Action::Back) => Some(false),
            Some(Action::Newline) => {
                if self.purpose.multi_line() {
                    self.area.insert_newline();
                }
                None
            }
            _ => {
                // Enter is the submit key; never let the box insert a line itself.
                if key.code != KeyCode::Enter {
                    self.area.input(key);
                }
                None
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceView {
    pub id: SourceId,
    /// `None` while loading.
    pub text: Option<String>,
    pub missing: bool,
    pub scroll: usize,
}

impl App {
    pub(super) fn overlay_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(top) = self.overlays.last_mut() else { return Vec::new() };
        match top {
            O::Editor(editor) => {
                let keymap = &self.keymap;
                match editor.key(keymap, key) {
                    Some(true) => {
                        let (purpose, text) = (editor.purpose.clone(), editor.text());
                        self.overlays.pop();
                        self.submit(purpose, text)
                    }
                    Some(false) => {
                        self.overlays.pop();
                        Vec::new()
                    }
                    None => Vec::new(),
                }
            }
            O::Ask(modal) if modal.other.is_some() => {
                let keymap = &self.keymap;
                let Some(editor) = modal.other.as_mut() else { return Vec::new() };
                match editor.key(keymap, key) {
                    Some(true) => {
                        let text = editor.text();
                        if text.is_empty() {
                            return Vec::new();
                        }
                        let ask_id = modal.ask_id.clone();
                        self.overlays.pop();
                        vec![Effect::Engine(Command::Answer { ask_id, answer: Answer::Text { text } })]
                    }
                    Some(false) => {
                        modal.other = None;
                        Vec::new()
                    }
                    None => Vec::new(),
                }
            }
            O::Ask(_) => self.ask_key(key),
            O::Steer { .. } => self.steer_key(key),
            O::Help { .. } | O::Source(_) => self.viewer_key(key),
            O::Breakdown => {
                if let Some(Action::Quit | Action::Back | Action::Breakdown | Action::Open | Action::Help) =
                    self.keymap.action(&[Mode::Main, Mode::Global], &key)
                {
                    self.overlays.pop();
                }
                Vec::new()
            }
            O::ConfirmQuit => {
                self.overlays.pop();
                if matches!(key.code, KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter) {
                    self.quit = true;
                    return vec![Effect::Quit];
                }
                Vec::new()
            }
        }
    }

    fn ask_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(ask) = self.state.open_ask() else {
            self.overlays.pop();
            return Vec::new();
        };
        let options = ask.clarification.options.clone();
        let Some(O::Ask(modal)) = self.overlays.last_mut() else { return Vec::new() };
        let choose = |modal: &mut AskModal, index: usize| -> Option<Effect> {
            match options.get(index) {
                Some(label) => Some(Effect::Engine(Command::Answer {
                    ask_id: modal.ask_id.clone(),
                    answer: Answer::Choice { index, label: label.clone() },
                })),
                None => {
                    modal.other = Some(Editor::new(EditPurpose::AskOther, ""));
                    None
                }
            }
        };
        if let KeyCode::Char(c @ '1'..='9') = key.code {
            let index = c as usize - '1' as usize;
            if index <= options.len() {
                modal.cursor = index;
                return self.finish_ask(choose, index);
            }
        }
        match self.keymap.action(&[Mode::Ask, Mode::Global], &key) {
            Some(Action::Up) => modal.cursor = modal.cursor.saturating_sub(1),
            Some(Action::Down) => modal.cursor = (modal.cursor + 1).min(options.len()),
            Some(Action::Open) => {
                let index = modal.cursor;
                return self.finish_ask(choose, index);
            }
            Some(Action::Back) => {
                self.hidden_ask = Some(modal.ask_id.clone());
                self.overlays.pop();
                self.info("the question waits: press r to answer it");
            }
            Some(Action::Quit) => {
                self.quit = true;
                return vec![Effect::Quit];
            }
            Some(Action::Help) => self.overlays.push(O::Help { scroll: 0 }),
            _ => {}
        }
        Vec::new()
    }

    fn finish_ask(&mut self, choose: impl FnOnce(&mut AskModal, usize) -> Option<Effect>, index: usize) -> Vec<Effect> {
        let Some(O::Ask(modal)) = self.overlays.last_mut() else { return Vec::new() };
        match choose(modal, index) {
            Some(effect) => {
                self.overlays.pop();
                vec![effect]
            }
            None => Vec::new(),
        }
    }

    fn steer_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let queries = self.state.pending_queries.len();
        let Some(O::Steer { cursor }) = self.overlays.last_mut() else { return Vec::new() };
        *cursor = (*cursor).min(queries.saturating_sub(1));
        let at = *cursor;
        let steer = |edit| vec![Effect::Engine(Command::Steer { edit })];
        match self.keymap.action(&[Mode::Steer, Mode::Global], &key) {
            Some(Action::Up) => *cursor = at.saturating_sub(1),
            Some(Action::Down) => *cursor = (at + 1).min(queries.saturating_sub(1)),
            Some(Action::EditQuery) => {
                if let Some(q) = self.state.pending_queries.get(at) {
                    let text = clean(&q.text);
                    self.overlays.push(O::Editor(Editor::new(EditPurpose::EditQuery(at), &text)));
                }
            }
            Some(Action::DeleteQuery) if at < queries => return steer(Steer::DeleteQuery { index: at }),
            Some(Action::AddQuery) => self.overlays.push(O::Editor(Editor::new(EditPurpose::AddQuery, ""))),
            Some(Action::AddNote) => self.overlays.push(O::Editor(Editor::new(EditPurpose::AddNote, ""))),
            Some(Action::Step) => {
                self.overlays.pop();
                return vec![Effect::Engine(Command::Step)];
            }
            Some(Action::Back | Action::Quit) => {
                self.overlays.pop();
            }
            Some(Action::Help) => self.overlays.push(O::Help { scroll: 0 }),
            _ => {}
        }
        Vec::new()
    }

    /// Help and source text: scrolling, searching, closing.
    fn viewer_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let page = self.page_height();
        let is_source = matches!(self.overlays.last(), Some(O::Source(_)));
        let max = self.overlay_max_scroll();
        let action = self.keymap.action(&[Mode::Main, Mode::Global], &key);
        let Some(scroll) = (match self.overlays.last_mut() {
            Some(O::Help { scroll }) => Some(scroll),
            Some(O::Source(v)) => Some(&mut v.scroll),
            _ => None,
        }) else {
            return Vec::new();
        };
        match action {
            Some(Action::Up) => *scroll = scroll.saturating_sub(1),
            Some(Action::Down) => *scroll = (*scroll + 1).min(max),
            Some(Action::PageUp) => *scroll = scroll.saturating_sub(page),
            Some(Action::PageDown) => *scroll = (*scroll + page).min(max),
            Some(Action::Top) => *scroll = 0,
            Some(Action::Bottom) => *scroll = max,
            Some(Action::Search) if is_source => {
                self.overlays.push(O::Editor(Editor::new(EditPurpose::Search(SearchTarget::Source), "")));
            }
            Some(Action::SearchNext) if is_source => self.search_step(1),
            Some(Action::SearchPrev) if is_source => self.search_step(-1),
            Some(Action::Quit | Action::Back) => {
                self.overlays.pop();
            }
            Some(Action::Help) if is_source => self.overlays.push(O::Help { scroll: 0 }),
            Some(Action::Help) => {
                self.overlays.pop();
            }
            _ => {}
        }
        Vec::new()
    }

    fn submit(&mut self, purpose: EditPurpose, text: String) -> Vec<Effect> {
        let steer = |edit| vec![Effect::Engine(Command::Steer { edit })];
        match purpose {
            EditPurpose::Search(target) => {
                self.start_search(target, text);
                Vec::new()
            }
            _ if text.is_empty() => Vec::new(),
            EditPurpose::EditQuery(index) => steer(Steer::EditQuery { index, text }),
            EditPurpose::AddQuery => steer(Steer::AddQuery { text }),
            EditPurpose::AddNote => steer(Steer::AddNote { text }),
            EditPurpose::AskOther => Vec::new(),
        }
    }
}
