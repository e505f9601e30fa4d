//! sleuth: a terminal research agent. The `engine` runs the research loop
//! headless; `search` and the reasoners are its parts; `session` keeps every
//! event on disk; the TUI and the headless printer consume the same events.

pub mod builder;
pub mod builtin;
pub mod cli;
pub mod config;
pub mod engine;
pub mod files;
pub mod llm;
pub mod mcp;
pub mod paths;
pub mod research;
pub mod resilience;
pub mod search;
pub mod serve;
pub mod session;
pub mod text;
pub mod tls;
pub mod tui;
pub mod verify;
