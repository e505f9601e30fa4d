//! `[tui]`: the theme and the key bindings. The section is declared in
//! `config::tui` (the config layer imports nothing from the TUI); these
//! are its old paths.

pub use crate::config::tui::*;
