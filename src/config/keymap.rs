//! Keys to actions, per mode, from `[tui.keys.*]`. A key is written as
//! `q`, `G`, `?`, `enter`, `ctrl-d`, `alt-enter`, `backtab`, `f1` …
//! Kept with the `[tui]` section so that validating a configuration needs
//! nothing from the TUI; the TUI uses it as `tui::keymap`.

use crossterm::event::KeyEvent;

pub use super::keyspec::KeySpec;
use super::tui::KeyConfig;

/// Everything a key can do. Which actions a key may trigger depends on the
/// mode (see [`Mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    Help,
    Back,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    IterationPrev,
    IterationNext,
    Open,
    Search,
    SearchNext,
    SearchPrev,
    Breakdown,
    Step,
    Auto,
    ForceOutput,
    Cancel,
    Steer,
    Ban,
    Pin,
    Answer,
    EditQuery,
    DeleteQuery,
    AddQuery,
    AddNote,
    Submit,
    Newline,
    CyclePreset,
    CycleSourceMode,
    ToggleStepMode,
    Export,
}

impl Action {
    /// What the action does, for the help screen and the status bar.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit (or close the open window)",
            Action::Help => "show all keys",
            Action::Back => "close / go back",
            Action::FocusNext => "next pane",
            Action::FocusPrev => "previous pane",
            Action::Up => "up",
            Action::Down => "down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::IterationPrev => "previous iteration",
            Action::IterationNext => "next iteration",
            Action::Open => "open / choose",
            Action::Search => "search in the pane",
            Action::SearchNext => "next match",
            Action::SearchPrev => "previous match",
            Action::Breakdown => "confidence breakdown",
            Action::Step => "step one iteration (enters step mode)",
            Action::Auto => "continue automatically (leaves step mode)",
            Action::ForceOutput => "write the report now",
            Action::Cancel => "cancel (a partial report is kept)",
            Action::Steer => "steer the next iteration (at a step pause)",
            Action::Ban => "ban the selected source",
            Action::Pin => "pin the selected source",
            Action::Answer => "answer the open question",
            Action::EditQuery => "edit the query",
            Action::DeleteQuery => "delete the query",
            Action::AddQuery => "add a query",
            Action::AddNote => "add a note (a constraint)",
            Action::Submit => "submit",
            Action::Newline => "new line",
            Action::CyclePreset => "change the preset",
            Action::CycleSourceMode => "change the source mode",
            Action::ToggleStepMode => "toggle step mode",
            Action::Export => "export the report as HTML and PDF (into the current folder)",
        }
    }

    /// A one-word label for the status bar.
    pub fn short(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Back => "back",
            Action::FocusNext => "pane",
            Action::Up | Action::Down => "move",
            Action::IterationPrev | Action::IterationNext => "iteration",
            Action::Open => "open",
            Action::Search => "search",
            Action::Breakdown => "confidence",
            Action::Step => "step",
            Action::Auto => "auto",
            Action::ForceOutput => "output now",
            Action::Cancel => "cancel",
            Action::Steer => "steer",
            Action::Ban => "ban",
            Action::Pin => "pin",
            Action::Answer => "answer",
            Action::EditQuery => "edit",
            Action::DeleteQuery => "delete",
            Action::AddQuery => "add query",
            Action::AddNote => "note",
            Action::Submit => "submit",
            Action::Newline => "newline",
            Action::CyclePreset => "preset",
            Action::CycleSourceMode => "mode",
            Action::ToggleStepMode => "step mode",
            Action::Export => "export",
            _ => self.describe(),
        }
    }
}

/// The binding tables, in `[tui.keys.<mode>]` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Global,
    Main,
    Control,
    Ask,
    Steer,
    Editor,
    Prompt,
}

impl Mode {
    pub const ALL: [Mode; 7] =
        [Mode::Global, Mode::Main, Mode::Control, Mode::Ask, Mode::Steer, Mode::Editor, Mode::Prompt];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Global => "global",
            Mode::Main => "main",
            Mode::Control => "control",
            Mode::Ask => "ask",
            Mode::Steer => "steer",
            Mode::Editor => "editor",
            Mode::Prompt => "prompt",
        }
    }

    /// The tables consulted together, first match wins. A key may not mean
    /// two things within one of these chains.
    pub const CHAINS: [&'static [Mode]; 5] = [
        &[Mode::Control, Mode::Main, Mode::Global],
        &[Mode::Ask, Mode::Global],
        &[Mode::Steer, Mode::Global],
        &[Mode::Prompt, Mode::Editor],
        &[Mode::Editor],
    ];
}

/// A bad binding in `[tui.keys.*]`, named by its config key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct KeyError {
    /// e.g. `tui.keys.main.quit`
    pub key: String,
    pub message: String,
}

/// The bindings in force, per mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    tables: Vec<(Mode, Vec<Binding>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub name: &'static str,
    pub action: Action,
    pub keys: Vec<KeySpec>,
}

impl Default for Keymap {
    fn default() -> Self {
        // The defaults are checked by a test; failing that, no bindings are lost
        // silently: the error list would name them.
        Self::from_config(&KeyConfig::default()).unwrap_or(Self { tables: Vec::new() })
    }
}

impl Keymap {
    /// Builds the keymap, or every problem found (unknown keys, a key with
    /// two meanings in one mode chain).
    pub fn from_config(config: &KeyConfig) -> Result<Self, Vec<KeyError>> {
        let mut errors = Vec::new();
        let mut tables = Vec::new();
        for mode in Mode::ALL {
            let raw = match mode {
                Mode::Global => config.global.bindings(),
                Mode::Main => config.main.bindings(),
                Mode::Control => config.control.bindings(),
                Mode::Ask => config.ask.bindings(),
                Mode::Steer => config.steer.bindings(),
                Mode::Editor => config.editor.bindings(),
                Mode::Prompt => config.prompt.bindings(),
            };
            let mut bindings = Vec::new();
            for (name, action, keys) in raw {
                let mut parsed = Vec::new();
                for k in keys {
                    match KeySpec::parse(k) {
                        Ok(spec) => parsed.push(spec),
                        Err(message) => {
                            errors.push(KeyError { key: format!("tui.keys.{}.{name}", mode.name()), message })
                        }
                    }
                }
                bindings.push(Binding { name, action, keys: parsed });
            }
            tables.push((mode, bindings));
        }
        let map = Self { tables };
        errors.extend(map.conflicts());
        if errors.is_empty() { Ok(map) } else { Err(errors) }
    }

    fn conflicts(&self) -> Vec<KeyError> {
        let mut out = Vec::new();
        for chain in Mode::CHAINS {
            let mut seen: Vec<(KeySpec, Mode, &'static str, Action)> = Vec::new();
            for &mode in chain {
                for b in self.table(mode) {
                    for k in &b.keys {
                        match seen.iter().find(|(s, ..)| s == k) {
                            // The same action in two tables of a chain is harmless.
                            Some((_, m, name, action)) if *action != b.action => {
                                let message = format!(
                                    "key `{k}` is also bound to tui.keys.{}.{name}; a key can mean only one thing here",
                                    m.name()
                                );
                                let key = format!("tui.keys.{}.{}", mode.name(), b.name);
                                if !out.iter().any(|e: &KeyError| e.key == key && e.message == message) {
                                    out.push(KeyError { key, message });
                                }
                            }
                            Some(_) => {}
                            None => seen.push((*k, mode, b.name, b.action)),
                        }
                    }
                }
            }
        }
        out
    }

    pub fn table(&self, mode: Mode) -> &[Binding] {
        self.tables.iter().find(|(m, _)| *m == mode).map_or(&[], |(_, b)| b.as_slice())
    }

    /// The action `ev` triggers, looking in `modes` in order.
    pub fn action(&self, modes: &[Mode], ev: &KeyEvent) -> Option<Action> {
        modes
            .iter()
            .find_map(|&m| self.table(m).iter().find(|b| b.keys.iter().any(|k| k.matches(ev))).map(|b| b.action))
    }

    /// The keys of `action` in `mode`, written for people (`k/↑`).
    pub fn keys_for(&self, mode: Mode, action: Action) -> String {
        self.table(mode)
            .iter()
            .find(|b| b.action == action)
            .map(|b| b.keys.iter().map(ToString::to_string).collect::<Vec<_>>().join("/"))
            .unwrap_or_default()
    }
}

/// Checks `[tui.keys]` for the config validator.
pub fn validate(config: &KeyConfig) -> Vec<KeyError> {
    Keymap::from_config(config).err().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyModifiers};

    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn default_bindings_are_valid() {
        assert_eq!(Keymap::from_config(&KeyConfig::default()).err(), None);
    }

    #[test]
    fn mode_specific_tables_win_and_globals_apply() {
        let map = Keymap::default();
        let s = key(KeyCode::Char('s'), KeyModifiers::NONE);
        assert_eq!(map.action(&[Mode::Control, Mode::Main, Mode::Global], &s), Some(Action::Step));
        assert_eq!(map.action(&[Mode::Main, Mode::Global], &s), None);
        let n = key(KeyCode::Char('n'), KeyModifiers::NONE);
        assert_eq!(map.action(&[Mode::Steer, Mode::Global], &n), Some(Action::AddNote));
        assert_eq!(map.action(&[Mode::Main, Mode::Global], &n), Some(Action::SearchNext));
    }

    #[test]
    fn bad_and_conflicting_bindings_are_named() {
        let mut c = KeyConfig::default();
        c.main.up = vec!["ctrl-?x".into()];
        c.control.step = vec!["j".into()];
        let errors = Keymap::from_config(&c).unwrap_err();
        let keys: Vec<&str> = errors.iter().map(|e| e.key.as_str()).collect();
        assert!(keys.contains(&"tui.keys.main.up"), "{errors:?}");
        assert!(keys.contains(&"tui.keys.main.down"), "{errors:?}");
        assert!(errors.iter().any(|e| e.message.contains("tui.keys.control.step")), "{errors:?}");
    }

    #[test]
    fn user_rebinding_replaces_the_default() {
        let mut c = KeyConfig::default();
        c.control.step = vec!["space".into()];
        let map = Keymap::from_config(&c).unwrap();
        let chain = [Mode::Control, Mode::Main, Mode::Global];
        assert_eq!(map.action(&chain, &key(KeyCode::Char(' '), KeyModifiers::NONE)), Some(Action::Step));
        assert_eq!(map.action(&chain, &key(KeyCode::Char('s'), KeyModifiers::NONE)), None);
        assert_eq!(map.keys_for(Mode::Main, Action::Up), "k/↑");
    }
}
