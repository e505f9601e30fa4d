//! `sleuth open` with no session: pick one from the saved sessions, as the
//! session store lists them; a damaged log is listed as damaged, never fatal.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::keymap::{Action, Keymap, Mode};
use super::layout::{inner, too_small};
use super::msg::{Effect, Msg};
use super::text::{inline, truncate};
use super::theme::Theme;
use super::ui::widgets::pane_block;
use crate::session::list::Status;

/// One row of the picker: a session as `session::list` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub path: PathBuf,
    pub question: String,
    pub status: Status,
    /// Why a damaged session cannot be opened.
    pub problem: Option<String>,
}

/// Every session folder under `sessions_dir`, newest first, from the
/// session store's listing (summaries, so it stays fast with many).
pub fn list_sessions(sessions_dir: &Path) -> Vec<SessionSummary> {
    crate::session::list::list_sessions(sessions_dir)
        .unwrap_or_default()
        .into_iter()
        .map(|l| SessionSummary {
            path: sessions_dir.join(&l.id),
            question: l.summary.as_ref().map(|s| s.question.clone()).unwrap_or_default(),
            status: l.status,
            problem: l.problem,
            id: l.id,
        })
        .collect()
}

pub struct Picker {
    pub theme: Theme,
    pub keymap: Keymap,
    pub dir: PathBuf,
    pub sessions: Vec<SessionSummary>,
    /// The cursor, an index into `shown()`.
    pub cursor: usize,
    pub hint: Option<String>,
    /// `/`: only sessions whose id or question contains this (any case).
    pub filter: String,
    /// Keys go to the filter (after `/`, until enter or esc).
    pub typing: bool,
}

impl Picker {
    pub fn new(theme: Theme, keymap: Keymap, dir: PathBuf, sessions: Vec<SessionSummary>) -> Self {
        Self { theme, keymap, dir, sessions, cursor: 0, hint: None, filter: String::new(), typing: false }
    }

    /// The sessions the filter lets through, in listing order.
    pub fn shown(&self) -> Vec<&SessionSummary> {
        let needle = self.filter.to_lowercase();
        self.sessions
            .iter()
            .filter(|s| {
                needle.is_empty()
                    || s.id.to_lowercase().contains(&needle)
                    || s.question.to_lowercase().contains(&needle)
            })
            .collect()
    }

    /// A key while the filter is being typed.
    fn filter_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Char(c) => self.filter.push(c),
            KeyCode::Backspace => {
                self.filter.pop();
            }
            KeyCode::Enter => self.typing = false,
            KeyCode::Esc => {
                self.typing = false;
                self.filter.clear();
            }
            _ => {}
        }
        self.cursor = 0;
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let Msg::Key(key) = msg else { return Vec::new() };
        if key.kind != KeyEventKind::Press {
            return Vec::new();
        }
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return vec![Effect::Quit];
        }
        self.hint = None;
        if self.typing {
            self.filter_key(key.code);
            return Vec::new();
        }
        let last = self.shown().len().saturating_sub(1);
        match self.keymap.action(&[Mode::Main, Mode::Global], &key) {
            Some(Action::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(Action::Down) => self.cursor = (self.cursor + 1).min(last),
            Some(Action::PageUp) => self.cursor = self.cursor.saturating_sub(10),
            Some(Action::PageDown) => self.cursor = (self.cursor + 10).min(last),
            Some(Action::Top) => self.cursor = 0,
            Some(Action::Bottom) => self.cursor = last,
            Some(Action::Search) => {
                self.typing = true;
                self.cursor = 0;
            }
            Some(Action::Back) if !self.filter.is_empty() => {
                self.filter.clear();
                self.cursor = 0;
            }
            Some(Action::Open) => match self.shown().get(self.cursor).copied() {
                Some(SessionSummary { status: Status::Damaged, problem, .. }) => {
                    let why = problem.as_deref().unwrap_or("its log cannot be read");
                    self.hint = Some(format!("this session cannot be opened: {why}"));
                }
                Some(s) => return vec![Effect::Open(s.path.clone())],
                None => {}
            },
            Some(Action::Quit | Action::Back) => return vec![Effect::Quit],
            _ => {}
        }
        Vec::new()
    }
}

impl Widget for &Picker {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.theme;
        buf.set_style(area, t.text);
        if too_small(area) {
            buf.set_string(area.x, area.y, "sleuth needs at least 80×24", t.text);
            return;
        }
        let shown = self.shown();
        let count = if self.filter.is_empty() {
            self.sessions.len().to_string()
        } else {
            format!("{} of {}", shown.len(), self.sessions.len())
        };
        let title = format!(" Saved sessions ({count}) · {} ", self.dir.display());
        let body_area = Rect::new(area.x, area.y, area.width, area.height - 1);
        pane_block(t, Line::from(truncate(&title, area.width as usize - 4)), true).render(body_area, buf);
        let body = inner(body_area);
        if self.sessions.is_empty() {
            buf.set_string(
                body.x,
                body.y,
                "No saved sessions yet: start one with `sleuth \"your question\"`.",
                t.muted,
            );
        } else if shown.is_empty() {
            let text = format!("No session matches `{}` (esc clears the filter).", inline(&self.filter));
            buf.set_string(body.x, body.y, truncate(&text, body.width as usize), t.muted);
        }
        let h = body.height as usize;
        let start = self.cursor.saturating_sub(h.saturating_sub(1));
        for (i, s) in shown.iter().enumerate().skip(start).take(h) {
            let y = body.y + (i - start) as u16;
            let style = match s.status {
                Status::Finished => t.kept,
                Status::Damaged | Status::Failed => t.rejected,
                _ => t.decision_ask,
            };
            let text = match (&s.status, &s.problem) {
                (Status::Damaged, Some(why)) => inline(why),
                _ => inline(&s.question),
            };
            let room = (body.width as usize).saturating_sub(24 + 16);
            let line = Line::from(vec![
                Span::styled(format!("{:<24}", truncate(&s.id, 23)), t.muted),
                Span::styled(format!("{:<16}", s.status.label()), style),
                Span::styled(truncate(&text, room), t.text),
            ]);
            buf.set_line(body.x, y, &line, body.width);
            if i == self.cursor {
                buf.set_style(Rect::new(body.x, y, body.width, 1), t.selection);
            }
        }
        let status = Rect::new(area.x, area.bottom() - 1, area.width, 1);
        buf.set_style(status, t.status_bar);
        let (hint, style) = match (&self.hint, self.typing) {
            (Some(h), _) => (h.clone(), t.banner_info),
            (None, true) => (format!(" filter: {}▏ enter keep · esc clear", inline(&self.filter)), t.status_key),
            (None, false) if !self.filter.is_empty() => (
                format!(
                    " filter `{}` · ↑↓ choose · enter review · / change · esc clear · q quit",
                    inline(&self.filter)
                ),
                t.status_bar,
            ),
            (None, false) => (" ↑↓ choose · enter review · / filter · q quit".into(), t.status_bar),
        };
        buf.set_string(status.x, status.y, truncate(&hint, status.width as usize), style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::sample::{Sample, Stop};

    fn write(dir: &Path, id: &str, body: &str) {
        std::fs::create_dir_all(dir.join(id)).unwrap();
        std::fs::write(dir.join(id).join("events.jsonl"), body).unwrap();
    }

    fn jsonl(sample: Sample) -> String {
        sample.records().iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect()
    }

    #[test]
    fn lists_newest_first_and_tolerates_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        write(d, "20260101-000000-aaaa", &jsonl(Sample::default()));
        let mut torn = jsonl(Sample { stop: Stop::AskOpen, ..Sample::default() });
        torn.push_str("{\"seq\": 99, \"at_ms\"");
        write(d, "20260102-000000-bbbb", &torn);
        write(d, "20260103-000000-cccc", "not json\n");
        write(d, "20260104-000000-dddd", "");
        std::fs::create_dir_all(d.join("20260105-000000-eeee")).unwrap();
        let list = list_sessions(d);
        let got: Vec<(&str, &str)> = list.iter().map(|s| (s.id.as_str(), s.status.label())).collect();
        assert_eq!(
            got,
            vec![
                ("20260105-000000-eeee", "damaged"),
                ("20260104-000000-dddd", "damaged"),
                ("20260103-000000-cccc", "damaged"),
                ("20260102-000000-bbbb", "waiting on ASK"),
                ("20260101-000000-aaaa", "finished"),
            ]
        );
        assert!(list[3].question.contains("? operator"));
        assert!(list_sessions(&d.join("missing")).is_empty());
    }

    #[test]
    fn enter_opens_the_chosen_session_but_not_a_damaged_one() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "20260101-000000-aaaa", &jsonl(Sample::default()));
        write(tmp.path(), "20260103-000000-cccc", "garbage\n");
        let sessions = list_sessions(tmp.path());
        let mut p = Picker::new(Theme::default(), Keymap::default(), tmp.path().to_path_buf(), sessions);
        let key = |c| Msg::Key(crossterm::event::KeyEvent::new(c, KeyModifiers::NONE));
        assert_eq!(p.update(key(KeyCode::Enter)), vec![]);
        assert!(p.hint.as_deref().is_some_and(|h| h.contains("cannot be opened")));
        p.update(key(KeyCode::Char('j')));
        assert_eq!(p.update(key(KeyCode::Enter)), vec![Effect::Open(tmp.path().join("20260101-000000-aaaa"))]);
        assert_eq!(p.update(key(KeyCode::Char('q'))), vec![Effect::Quit]);
    }
}
