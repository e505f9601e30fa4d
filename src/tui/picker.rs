//! `sleuth open` with no session: pick one from the saved sessions. Each
//! is listed from its header (the first line of its log) and its last
//! event; a damaged log is listed as damaged, never fatal.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::keymap::{Action, Keymap, Mode};
use super::msg::{Effect, Msg};
use super::text::{inline, truncate};
use super::theme::Theme;
use super::ui::layout::{inner, too_small};
use super::ui::widgets::pane_block;
use crate::engine::model::Outcome;
use crate::engine::protocol::{Event, EventRecord};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    Finished,
    Cancelled,
    Failed,
    /// No end recorded: stopped, paused or waiting for an answer.
    Unfinished,
    Damaged(String),
}

impl Listed {
    pub fn label(&self) -> &str {
        match self {
            Listed::Finished => "finished",
            Listed::Cancelled => "cancelled",
            Listed::Failed => "failed",
            Listed::Unfinished => "unfinished",
            Listed::Damaged(_) => "damaged",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub path: PathBuf,
    pub question: String,
    pub status: Listed,
}

/// Every session folder under `sessions_dir`, newest first.
pub fn list_sessions(sessions_dir: &Path) -> Vec<SessionSummary> {
    let Ok(entries) = std::fs::read_dir(sessions_dir) else { return Vec::new() };
    let mut out: Vec<SessionSummary> =
        entries.flatten().filter(|e| e.path().is_dir()).map(|e| summarize(&e.path())).collect();
    out.sort_by(|a, b| b.id.cmp(&a.id));
    out
}

fn summarize(dir: &Path) -> SessionSummary {
    let id = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let log = dir.join("events.jsonl");
    let damaged = |why: String| SessionSummary {
        id: id.clone(),
        path: dir.to_path_buf(),
        question: String::new(),
        status: Listed::Damaged(why),
    };
    let file = match std::fs::File::open(&log) {
        Ok(f) => f,
        Err(e) => return damaged(format!("no readable log ({e})")),
    };
    let mut first = String::new();
    if BufReader::new(&file).read_line(&mut first).is_err() || first.trim().is_empty() {
        return damaged("the log is empty".into());
    }
    let question = match serde_json::from_str::<EventRecord>(&first) {
        Ok(EventRecord { event: Event::SessionStarted(h), .. }) => h.question,
        Ok(_) => return damaged("the log does not begin with a session header".into()),
        Err(e) => return damaged(format!("line 1: {e}")),
    };
    let status = match last_event(&log) {
        Some(Event::SessionEnded { outcome: Outcome::Finished }) => Listed::Finished,
        Some(Event::SessionEnded { outcome: Outcome::Cancelled }) => Listed::Cancelled,
        Some(Event::SessionEnded { outcome: Outcome::Failed { .. } }) => Listed::Failed,
        _ => Listed::Unfinished,
    };
    SessionSummary { id, path: dir.to_path_buf(), question, status }
}

/// The last complete, parseable event (a torn last line is skipped).
fn last_event(log: &Path) -> Option<Event> {
    let mut f = std::fs::File::open(log).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(64 * 1024))).ok()?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).ok()?;
    tail.split(|b| *b == b'\n').rev().find_map(|l| serde_json::from_slice::<EventRecord>(l).ok()).map(|r| r.event)
}

pub struct Picker {
    pub theme: Theme,
    pub keymap: Keymap,
    pub dir: PathBuf,
    pub sessions: Vec<SessionSummary>,
    pub cursor: usize,
    pub hint: Option<String>,
}

impl Picker {
    pub fn new(theme: Theme, keymap: Keymap, dir: PathBuf, sessions: Vec<SessionSummary>) -> Self {
        Self { theme, keymap, dir, sessions, cursor: 0, hint: None }
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
        let last = self.sessions.len().saturating_sub(1);
        match self.keymap.action(&[Mode::Main, Mode::Global], &key) {
            Some(Action::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(Action::Down) => self.cursor = (self.cursor + 1).min(last),
            Some(Action::PageUp) => self.cursor = self.cursor.saturating_sub(10),
            Some(Action::PageDown) => self.cursor = (self.cursor + 10).min(last),
            Some(Action::Top) => self.cursor = 0,
            Some(Action::Bottom) => self.cursor = last,
            Some(Action::Open) => match self.sessions.get(self.cursor) {
                Some(SessionSummary { status: Listed::Damaged(why), .. }) => {
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
        let title = format!(" Saved sessions ({}) · {} ", self.sessions.len(), self.dir.display());
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
        }
        let h = body.height as usize;
        let start = self.cursor.saturating_sub(h.saturating_sub(1));
        for (i, s) in self.sessions.iter().enumerate().skip(start).take(h) {
            let y = body.y + (i - start) as u16;
            let style = match s.status {
                Listed::Finished => t.kept,
                Listed::Damaged(_) | Listed::Failed => t.rejected,
                _ => t.decision_ask,
            };
            let text = match &s.status {
                Listed::Damaged(why) => why.clone(),
                _ => inline(&s.question),
            };
            let room = (body.width as usize).saturating_sub(24 + 12);
            let line = Line::from(vec![
                Span::styled(format!("{:<24}", truncate(&s.id, 23)), t.muted),
                Span::styled(format!("{:<12}", s.status.label()), style),
                Span::styled(truncate(&text, room), t.text),
            ]);
            buf.set_line(body.x, y, &line, body.width);
            if i == self.cursor {
                buf.set_style(Rect::new(body.x, y, body.width, 1), t.selection);
            }
        }
        let status = Rect::new(area.x, area.bottom() - 1, area.width, 1);
        buf.set_style(status, t.status_bar);
        let hint = self.hint.clone().unwrap_or_else(|| " ↑↓ choose · enter review · q quit".into());
        buf.set_string(status.x, status.y, hint, if self.hint.is_some() { t.banner_info } else { t.status_bar });
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
                ("20260102-000000-bbbb", "unfinished"),
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
