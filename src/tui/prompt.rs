//! The question prompt shown when `sleuth` starts without a question: a
//! multi-line text box (paste works) with the preset, the source mode and
//! step mode to choose.

use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};
use ratatui_textarea::TextArea;

use super::keymap::{Action, Keymap, Mode};
use super::layout::{MIN_HEIGHT, MIN_WIDTH, centered, too_small};
use super::msg::{Effect, Msg, PromptAnswer};
use super::text::clean;
use super::theme::Theme;
use super::ui::widgets::modal;
use crate::config::Preset;
use crate::engine::tiers::SourceMode;
use crate::text::counted;

pub struct Prompt {
    pub theme: Theme,
    pub keymap: Keymap,
    pub area: TextArea<'static>,
    pub preset: Preset,
    pub source_mode: SourceMode,
    pub step_mode: bool,
    pub hint: Option<String>,
}

impl Prompt {
    pub fn new(theme: Theme, keymap: Keymap, preset: Preset, source_mode: SourceMode, step_mode: bool) -> Self {
        let mut area = TextArea::default();
        area.set_placeholder_text("e.g. How does the ? operator convert errors?");
        area.set_placeholder_style(theme.muted);
        area.set_cursor_line_style(ratatui::style::Style::default());
        area.set_style(theme.modal);
        Self { theme, keymap, area, preset, source_mode, step_mode, hint: None }
    }

    pub fn question(&self) -> String {
        self.area.lines().join("\n").trim().to_string()
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Key(key) if key.kind == KeyEventKind::Press => {
                if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
                    return vec![Effect::Quit];
                }
                self.hint = None;
                match self.keymap.action(&[Mode::Prompt, Mode::Editor], &key) {
                    Some(Action::Submit) => {
                        let question = self.question();
                        if question.is_empty() {
                            self.hint = Some("type a question first".into());
                        } else {
                            return vec![Effect::Start(PromptAnswer {
                                question,
                                preset: self.preset,
                                source_mode: self.source_mode,
                                step_mode: self.step_mode,
                            })];
                        }
                    }
                    Some(Action::Newline) => self.area.insert_newline(),
                    Some(Action::Back) => return vec![Effect::Quit],
                    Some(Action::CyclePreset) => {
                        self.preset = match self.preset {
                            Preset::Simple => Preset::Standard,
                            Preset::Standard => Preset::Deep,
                            Preset::Deep => Preset::Simple,
                        }
                    }
                    Some(Action::CycleSourceMode) => {
                        self.source_mode = match self.source_mode {
                            SourceMode::Strict => SourceMode::Discovery,
                            SourceMode::Discovery => SourceMode::Monitor,
                            SourceMode::Monitor => SourceMode::Strict,
                        }
                    }
                    Some(Action::ToggleStepMode) => self.step_mode = !self.step_mode,
                    _ => {
                        if key.code != KeyCode::Enter {
                            self.area.input(key);
                        }
                    }
                }
            }
            Msg::Paste(text) => {
                self.area.insert_str(clean(&text));
            }
            _ => {}
        }
        Vec::new()
    }
}

impl Widget for &Prompt {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.theme;
        buf.set_style(area, t.text);
        if too_small(area) {
            let msg = format!(
                "sleuth needs at least {MIN_WIDTH}×{MIN_HEIGHT} (this terminal is {}×{})",
                area.width, area.height
            );
            buf.set_string(area.x, area.y + area.height / 2, msg, t.text);
            return;
        }
        buf.set_style(Rect::new(area.x, area.y, area.width, 1), t.title);
        buf.set_string(area.x, area.y, " sleuth · a terminal research agent", t.title);
        let frame = centered(area, area.width.saturating_sub(8).min(90), 17);
        let inner = modal(frame, buf, t, "What do you want to know?");
        let box_area = Rect::new(inner.x + 1, inner.y + 1, inner.width.saturating_sub(2), 8);
        let block = Block::default().borders(Borders::ALL).border_style(t.border_focused);
        let text_area = block.inner(box_area);
        block.render(box_area, buf);
        (&self.area).render(text_area, buf);
        let limits = self.preset.limits();
        let key = |a| self.keymap.keys_for(Mode::Prompt, a);
        let choice = |label: &str, value: String, k: String| {
            Line::from(vec![
                Span::styled(format!("{label:<12}"), t.muted),
                Span::styled(format!("{value:<12}"), t.heading),
                Span::styled(format!(" {k} to change"), t.muted),
            ])
        };
        let lines = [
            choice("preset", self.preset.as_str().into(), key(Action::CyclePreset)),
            Line::from(Span::styled(
                format!(
                    "            {} · {} · {} · {} s",
                    counted(limits.max_iterations as usize, "iteration", "iterations"),
                    counted(limits.max_queries as usize, "query", "queries"),
                    counted(limits.max_sources as usize, "source", "sources"),
                    limits.time_limit_secs
                ),
                t.muted,
            )),
            choice("source mode", self.source_mode.as_str().into(), key(Action::CycleSourceMode)),
            choice("step mode", if self.step_mode { "on".into() } else { "off".into() }, key(Action::ToggleStepMode)),
        ];
        for (i, l) in lines.iter().enumerate() {
            buf.set_line(inner.x + 1, box_area.bottom() + 1 + i as u16, l, inner.width.saturating_sub(2));
        }
        let hint = self.hint.clone().unwrap_or_else(|| {
            format!(
                "{} start · {} new line · paste works · {} quit",
                self.keymap.keys_for(Mode::Editor, Action::Submit),
                self.keymap.keys_for(Mode::Editor, Action::Newline),
                self.keymap.keys_for(Mode::Editor, Action::Back)
            )
        });
        let style = if self.hint.is_some() { t.banner_info } else { t.status_key };
        buf.set_string(inner.x + 1, inner.bottom().saturating_sub(1), hint, style);
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyEvent;

    use super::*;

    fn prompt() -> Prompt {
        Prompt::new(Theme::default(), Keymap::default(), Preset::Standard, SourceMode::Discovery, false)
    }

    fn press(p: &mut Prompt, code: KeyCode, mods: KeyModifiers) -> Vec<Effect> {
        p.update(Msg::Key(KeyEvent::new(code, mods)))
    }

    #[test]
    fn typed_and_pasted_question_starts_with_the_chosen_settings() {
        let mut p = prompt();
        assert_eq!(press(&mut p, KeyCode::Enter, KeyModifiers::NONE), vec![], "empty question: nothing starts");
        assert!(p.hint.is_some());
        for c in "What is q".chars() {
            press(&mut p, KeyCode::Char(c), KeyModifiers::NONE);
        }
        press(&mut p, KeyCode::Enter, KeyModifiers::ALT);
        p.update(Msg::Paste("line two\x1b]0;pwned\x07".into()));
        press(&mut p, KeyCode::Char('p'), KeyModifiers::CONTROL);
        press(&mut p, KeyCode::Char('o'), KeyModifiers::CONTROL);
        press(&mut p, KeyCode::Char('t'), KeyModifiers::CONTROL);
        let effects = press(&mut p, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            effects,
            vec![Effect::Start(PromptAnswer {
                question: "What is q\nline two".into(),
                preset: Preset::Deep,
                source_mode: SourceMode::Monitor,
                step_mode: true,
            })]
        );
    }

    #[test]
    fn esc_quits() {
        assert_eq!(press(&mut prompt(), KeyCode::Esc, KeyModifiers::NONE), vec![Effect::Quit]);
    }
}
