//! One key as written in the config (`q`, `G`, `ctrl-d`, `alt-enter`,
//! `backtab`, `f5` …) and how it matches crossterm's key events.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key with its modifiers, as written in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeySpec {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl KeySpec {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        // `-` alone is a key, so only split on a dash followed by more.
        loop {
            let lower = rest.to_ascii_lowercase();
            let (prefix, m) = if lower.starts_with("ctrl-") {
                ("ctrl-", KeyModifiers::CONTROL)
            } else if lower.starts_with("alt-") {
                ("alt-", KeyModifiers::ALT)
            } else if lower.starts_with("shift-") {
                ("shift-", KeyModifiers::SHIFT)
            } else {
                break;
            };
            mods |= m;
            rest = &rest[prefix.len()..];
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" if mods.contains(KeyModifiers::SHIFT) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "insert" => KeyCode::Insert,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "space" => KeyCode::Char(' '),
            f if f.len() > 1 && f.starts_with('f') && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) => {
                KeyCode::F(f[1..].parse().unwrap_or(1))
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if !c.is_control() => {
                        // Ctrl combinations arrive lower-case.
                        let c = if mods.contains(KeyModifiers::CONTROL) { c.to_ascii_lowercase() } else { c };
                        mods.remove(KeyModifiers::SHIFT);
                        KeyCode::Char(c)
                    }
                    _ => {
                        return Err(format!(
                            "unknown key `{text}`: use one character, or enter, esc, tab, backtab, backspace, delete, \
                             up, down, left, right, pageup, pagedown, home, end, space, f1-f12, with optional \
                             ctrl-, alt-, shift- prefixes"
                        ));
                    }
                }
            }
        };
        Ok(Self { code, mods })
    }

    /// Whether a key event is this key. Shift is part of the character for
    /// letters and symbols (`G`, `?`), so it is ignored there.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        normalize(ev) == *self
    }
}

fn normalize(ev: &KeyEvent) -> KeySpec {
    let mut mods = ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
    let code = match ev.code {
        KeyCode::Char(c) => {
            mods.remove(KeyModifiers::SHIFT);
            KeyCode::Char(if mods.contains(KeyModifiers::CONTROL) { c.to_ascii_lowercase() } else { c })
        }
        KeyCode::BackTab => {
            mods.remove(KeyModifiers::SHIFT);
            KeyCode::BackTab
        }
        other => other,
    };
    KeySpec { code, mods }
}

impl fmt::Display for KeySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Insert => f.write_str("insert"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::F(n) => write!(f, "f{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn parses_keys_and_matches_events() {
        let g = KeySpec::parse("G").unwrap();
        assert!(g.matches(&key(KeyCode::Char('G'), KeyModifiers::SHIFT)));
        assert!(!g.matches(&key(KeyCode::Char('g'), KeyModifiers::NONE)));
        let cd = KeySpec::parse("ctrl-d").unwrap();
        assert!(cd.matches(&key(KeyCode::Char('d'), KeyModifiers::CONTROL)));
        assert!(!cd.matches(&key(KeyCode::Char('d'), KeyModifiers::NONE)));
        let bt = KeySpec::parse("shift-tab").unwrap();
        assert!(bt.matches(&key(KeyCode::BackTab, KeyModifiers::SHIFT)));
        assert_eq!(KeySpec::parse("alt-enter").unwrap().mods, KeyModifiers::ALT);
        assert_eq!(KeySpec::parse("f5").unwrap().code, KeyCode::F(5));
        assert_eq!(KeySpec::parse("-").unwrap().code, KeyCode::Char('-'));
        assert!(KeySpec::parse("hyper-x").is_err());
        assert!(KeySpec::parse("").is_err());
    }
}
