//! The TUI: snapshots of every pane and mode on a test backend, flows driven
//! by the scripted engine, and the real binary in tmux.

// The shared support module is not ours to restyle.
#[allow(clippy::type_complexity)]
#[path = "../support/mod.rs"]
mod support;

mod cli;
mod e2e;
mod live;
mod snapshots;
mod tmux;
