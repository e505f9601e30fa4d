//! The terminal UI.

mod config;

pub use config::TuiConfig;
