//! The integration tests: one binary (`it`), each `tests/<topic>.rs` a
//! module of it, so the library is linked once and the tests of every topic
//! share the machine's threads instead of running binary after binary.
//! `tests/support/` holds what several modules share (the child-process
//! helpers in `support::bin`, scripted parts, fake servers, corpora);
//! `tests/fixtures/` the data. Run one topic with `cargo test --test it
//! <topic>::`. `suite` checks that every file here is declared below.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

mod support;

mod bridge;
mod builtin_answers;
mod calibration;
mod cli_config;
mod cli_local_texts;
mod cli_log_repair;
mod cli_redaction;
mod cli_sessions;
mod config_fuzz;
mod damaged_logs;
mod engine_control;
mod engine_decisions;
mod engine_reconsider;
mod engine_redaction;
mod field_27_engine;
mod field_27_entry;
mod honest;
mod import_graph;
mod link_following;
mod llm;
mod llm_cli;
mod llm_cost;
mod llm_faults;
mod local_corpus;
mod log_fuzz;
mod mcp;
mod opensearch;
mod opensearch_index;
mod scholarly;
mod serve;
mod service;
mod session_kills;
mod sessions;
mod sources_cli;
mod stale_index;
mod store_faults;
mod suite;
mod tui;
mod verify_checked;
mod verify_cli;
mod verify_share;
mod web;
mod web_cli;
