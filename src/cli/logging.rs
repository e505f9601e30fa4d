//! Logs go to a file in the state dir, never to the terminal (which the TUI
//! may own). Secrets are never logged: the config holds only env var names.

use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;

/// Keeps the log writer alive; logs are flushed when it drops.
pub struct LogGuard {
    _guard: Option<WorkerGuard>,
    pub file: Option<PathBuf>,
}

/// Starts file logging at `level` (`SLEUTH_LOG` overrides). Failing to
/// open the log is not fatal: sleuth runs without one.
pub fn init(dir: &Path, level: &str) -> LogGuard {
    let filter = std::env::var("SLEUTH_LOG").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| level.to_string());
    let Ok(appender) = RollingFileAppender::builder()
        .rotation(Rotation::NEVER)
        .filename_prefix("sleuth")
        .filename_suffix("log")
        .build(dir)
    else {
        return LogGuard { _guard: None, file: None };
    };
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&filter).unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(writer)
        .with_ansi(false)
        .finish();
    // A second init (tests calling twice) keeps the first subscriber.
    let _ = tracing::subscriber::set_global_default(subscriber);
    LogGuard { _guard: Some(guard), file: Some(dir.join("sleuth.log")) }
}
