//! The event log: JSON lines, appended and flushed per event, synced to
//! disk at checkpoints. Reading tolerates a torn last line (a crash in the
//! middle of a write) and says so.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::engine::ports::{EventSink, StoreError};
use crate::engine::protocol::{Event, EventRecord, SCHEMA_VERSION};

pub struct LogWriter {
    file: File,
    path: PathBuf,
    line: Vec<u8>,
    /// Length of the file: what was there when opened plus what was appended.
    bytes: u64,
}

impl LogWriter {
    /// Opens (creating if needed) a log for appending. A log whose last
    /// line lost its line end (a short write, a power cut) gets it back
    /// first, so the next event starts a line of its own.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let mut file = OpenOptions::new().create(true).read(true).append(true).open(path)?;
        let mut bytes = file.metadata()?.len();
        if bytes > 0 && !ends_with_newline(&mut file, bytes)? {
            file.write_all(b"\n")?;
            file.sync_data()?;
            bytes += 1;
        }
        Ok(Self { file, path: path.to_path_buf(), line: Vec::with_capacity(1024), bytes })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The log's length in bytes.
    pub fn len(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// A second handle to the log file (for syncing from another thread).
    pub fn file_handle(&self) -> std::io::Result<File> {
        self.file.try_clone()
    }
}

fn ends_with_newline(file: &mut File, len: u64) -> std::io::Result<bool> {
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

impl EventSink for LogWriter {
    fn record(&mut self, record: &EventRecord) -> Result<(), StoreError> {
        self.line.clear();
        // Secrets were blanked by the engine before the record got here.
        serde_json::to_writer(&mut self.line, record).map_err(|e| StoreError(e.to_string()))?;
        self.line.push(b'\n');
        // One write of the whole line: a crash leaves at most this line torn.
        self.file.write_all(&self.line)?;
        self.file.flush()?;
        self.bytes += self.line.len() as u64;
        Ok(())
    }

    fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.file.sync_data()?;
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot read {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path} is empty: the session never started")]
    Empty { path: PathBuf },
    #[error("{path}, line {line}: damaged event ({message})")]
    Corrupt { path: PathBuf, line: usize, message: String },
    #[error("{path}: the log does not begin with a session header")]
    NoHeader { path: PathBuf },
    #[error(
        "{path} was written by a newer sleuth (log schema {found}, this build reads up to {supported}); upgrade sleuth to open it"
    )]
    NewerSchema { path: PathBuf, found: u32, supported: u32 },
}

/// A log as read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedLog {
    pub records: Vec<EventRecord>,
    /// The unparseable tail left by a crash mid-write, if any (dropped).
    pub torn_tail: Option<String>,
    /// Bytes read, torn tail included.
    pub bytes: u64,
    /// Bytes of the complete lines: where the next event must be appended
    /// once a torn tail is cut off.
    pub intact_bytes: u64,
}

pub fn read_log(path: &Path) -> Result<LoadedLog, LogError> {
    let bytes = std::fs::read(path).map_err(|e| LogError::Io { path: path.to_path_buf(), message: e.to_string() })?;
    if bytes.is_empty() {
        return Err(LogError::Empty { path: path.to_path_buf() });
    }
    let complete = bytes.ends_with(b"\n");
    let intact_bytes =
        if complete { bytes.len() } else { bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) };
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut records: Vec<EventRecord> = Vec::with_capacity(lines.len());
    let mut torn_tail = None;
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_slice::<EventRecord>(line) {
            Ok(r) => {
                let next_seq =
                    || lines.get(i + 1).and_then(|l| serde_json::from_slice::<SeqOnly>(l).ok()).map(|x| x.seq);
                if let Some(message) = out_of_order(records.last(), &r, next_seq) {
                    check_schema(path, records.first())?;
                    return Err(LogError::Corrupt { path: path.to_path_buf(), line: i + 1, message });
                }
                records.push(r)
            }
            Err(e) => {
                let last = i + 1 == lines.len();
                if last && !complete {
                    torn_tail = Some(String::from_utf8_lossy(line).into_owned());
                } else {
                    // A newer schema may add events this build cannot parse:
                    // say that rather than "damaged".
                    check_schema(path, records.first())?;
                    return Err(LogError::Corrupt { path: path.to_path_buf(), line: i + 1, message: e.to_string() });
                }
            }
        }
    }
    check_schema(path, records.first())?;
    if records.is_empty() {
        return Err(LogError::NoHeader { path: path.to_path_buf() });
    }
    Ok(LoadedLog { records, torn_tail, bytes: bytes.len() as u64, intact_bytes: intact_bytes as u64 })
}

#[derive(serde::Deserialize)]
struct SeqOnly {
    seq: u64,
}

/// Why `next` cannot follow `prev` in a log written by one appender:
/// sequence numbers go up by one, and only the first event is a header.
/// `after` reads the sequence number of the line after `next`, to tell
/// swapped events from missing ones.
fn out_of_order(prev: Option<&EventRecord>, next: &EventRecord, after: impl Fn() -> Option<u64>) -> Option<String> {
    let prev = prev?;
    if matches!(next.event, Event::SessionStarted(_)) {
        return Some(format!("a second session header (seq {})", next.seq));
    }
    let expected = prev.seq + 1;
    match next.seq {
        s if s == expected => None,
        s if s == prev.seq => Some(format!("event {s} appears twice")),
        s if s < prev.seq => Some(format!("events out of order: seq {s} after {}", prev.seq)),
        s if after() == Some(expected) => Some(format!("events out of order: seq {s} comes before {expected}")),
        s => Some(format!("sequence gap: seq {s} after {} (events {expected}..{} missing)", prev.seq, s - 1)),
    }
}

fn check_schema(path: &Path, first: Option<&EventRecord>) -> Result<(), LogError> {
    match first.map(|r| &r.event) {
        Some(Event::SessionStarted(h)) if h.schema_version > SCHEMA_VERSION => {
            Err(LogError::NewerSchema { path: path.to_path_buf(), found: h.schema_version, supported: SCHEMA_VERSION })
        }
        Some(Event::SessionStarted(_)) => Ok(()),
        Some(_) => Err(LogError::NoHeader { path: path.to_path_buf() }),
        None => Ok(()),
    }
}
