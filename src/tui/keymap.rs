//! Keys to actions, per mode: declared with the `[tui]` section in
//! `config::keymap` (validating a configuration needs nothing from the
//! TUI); these are its paths in the TUI.

pub use crate::config::keymap::*;
