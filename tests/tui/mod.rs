//! The TUI: snapshots of every pane and mode on a test backend, flows driven
//! by the scripted engine, and the real binary in tmux.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod cli;
mod e2e;
mod field;
mod field_27;
mod live;
mod snapshots;
mod tmux;
