//! `[sessions]`: caps on what reading a session may cost. A log is read
//! whole (every command replays it), so a log grown without bound by a
//! damaged run, or a file that is not a log at all, must be refused with a
//! message rather than exhaust memory.
//!
//! The caps are process-wide: every entry point reads logs (`sessions`,
//! `export`, `resume`, the TUI, the server), and the command line sets
//! them once from the configuration, as it sets the log level.

use std::sync::RwLock;

use serde::{Deserialize, Serialize};

/// `[sessions]` in the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionsConfig {
    /// A session log larger than this (MiB) is refused, not read.
    pub max_log_mb: u64,
    /// One event (a line of the log) larger than this (MiB) is refused;
    /// a torn last line this long is set aside without being held in memory.
    pub max_line_mb: u64,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        Self { max_log_mb: 1024, max_line_mb: 16 }
    }
}

/// The caps in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    pub max_log_bytes: u64,
    pub max_line_bytes: u64,
}

impl ReadLimits {
    pub const DEFAULT: ReadLimits = ReadLimits { max_log_bytes: 1024 << 20, max_line_bytes: 16 << 20 };
}

impl Default for ReadLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl From<&SessionsConfig> for ReadLimits {
    fn from(c: &SessionsConfig) -> Self {
        Self {
            max_log_bytes: c.max_log_mb.saturating_mul(1 << 20),
            max_line_bytes: c.max_line_mb.saturating_mul(1 << 20),
        }
    }
}

static LIMITS: RwLock<ReadLimits> = RwLock::new(ReadLimits::DEFAULT);

/// Sets the caps every later read uses (the command line, once, from the
/// configuration).
pub fn set_read_limits(limits: ReadLimits) {
    *LIMITS.write().unwrap_or_else(|p| p.into_inner()) = limits;
}

/// The caps in force.
pub fn read_limits() -> ReadLimits {
    *LIMITS.read().unwrap_or_else(|p| p.into_inner())
}
