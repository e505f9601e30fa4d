//! Logs go to a file in the state dir, never to the terminal (which the TUI
//! may own). Secrets are never logged: the config holds only env var names,
//! the engine blanks keys before it logs, and the file writer blanks them
//! again in whatever reaches it. Other libraries log at `warn` at most
//! whatever the level asked, and the MCP library not at all below
//! `error`: at `debug` it writes every request and reply verbatim.

use std::io::Write;
use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;

use crate::session::Redactor;

/// Keeps the log writer alive; logs are flushed when it drops.
pub struct LogGuard {
    _guard: Option<WorkerGuard>,
    pub file: Option<PathBuf>,
}

/// Targets that would write payloads (requests, replies) at `debug`.
const PAYLOAD_TARGETS: &[&str] = &["rmcp"];

/// Starts file logging at `level` (`SLEUTH_LOG` overrides). Failing to
/// open the log is not fatal: sleuth runs without one.
pub fn init(dir: &Path, level: &str, redactor: Redactor) -> LogGuard {
    let asked = std::env::var("SLEUTH_LOG").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| level.to_string());
    let Ok(appender) = RollingFileAppender::builder()
        .rotation(Rotation::NEVER)
        .filename_prefix("sleuth")
        .filename_suffix("log")
        .build(dir)
    else {
        return LogGuard { _guard: None, file: None };
    };
    let (writer, guard) = tracing_appender::non_blocking(Redacting { inner: appender, redactor });
    let filter = EnvFilter::try_new(filter(&asked)).unwrap_or_else(|_| EnvFilter::new(filter("info")));
    let subscriber = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer).with_ansi(false).finish();
    // A second init (tests calling twice) keeps the first subscriber.
    let _ = tracing::subscriber::set_global_default(subscriber);
    LogGuard { _guard: Some(guard), file: Some(dir.join("sleuth.log")) }
}

/// The filter for what the user asked: a level applies to sleuth's own
/// logs, other libraries stay at `warn` at most; a filter of directives is
/// taken as written. Either way the payload-logging targets are held at `error`.
fn filter(asked: &str) -> String {
    let asked = asked.trim();
    let levels = ["off", "error", "warn", "info", "debug", "trace"];
    let mut directives: Vec<String> = match levels.iter().position(|l| l.eq_ignore_ascii_case(asked)) {
        Some(i) => {
            let others = levels[i.min(2)];
            vec![others.to_string(), format!("sleuth={}", levels[i])]
        }
        None => asked
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && !PAYLOAD_TARGETS.iter().any(|t| d.starts_with(t)))
            .map(str::to_string)
            .collect(),
    };
    directives.extend(PAYLOAD_TARGETS.iter().map(|t| format!("{t}=error")));
    directives.join(",")
}

/// The log file, with every key blanked on the way in.
struct Redacting<W> {
    inner: W,
    redactor: Redactor,
}

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.redactor.is_empty() {
            return self.inner.write(buf);
        }
        // One call per event: a whole line, so no key is split between calls.
        let text = String::from_utf8_lossy(buf);
        self.inner.write_all(self.redactor.redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_reaches_sleuths_logs_and_never_the_payload_targets() {
        assert_eq!(filter("debug"), "warn,sleuth=debug,rmcp=error");
        assert_eq!(filter("TRACE"), "warn,sleuth=trace,rmcp=error");
        assert_eq!(filter("error"), "error,sleuth=error,rmcp=error");
        assert_eq!(filter("sleuth=trace,rmcp=trace,hyper=info"), "sleuth=trace,hyper=info,rmcp=error");
    }

    #[test]
    fn the_file_writer_blanks_keys() {
        let mut out = Redacting { inner: Vec::new(), redactor: Redactor::new(["tvly-CANARY/Ab+Cd=Ef9 x".to_string()]) };
        let line = b"GET /search?k=tvly-CANARY%2FAb%2BCd%3DEf9+x failed\n";
        assert_eq!(out.write(line).expect("write"), line.len());
        assert_eq!(String::from_utf8(out.inner).expect("utf8"), "GET /search?k=[redacted] failed\n");
    }
}
