//! Reading an event log: line by line, each line parsed and checked against
//! the ones before it (sequence numbers, then the engine's continuity
//! rules), within the caps of `[sessions]`. A torn last line (a crash in
//! the middle of a write) is tolerated and reported; it is never held in
//! memory past the line cap, so a huge torn tail costs what the cap allows.

use std::fs::Metadata;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::limits::{ReadLimits, read_limits};
use crate::engine::continuity::Continuity;
use crate::engine::protocol::{Event, EventRecord, SCHEMA_VERSION};
use crate::files::{FileError, bytes_text, open_regular};

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot read {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error(
        "{path} is {what}, not a regular file: the session folder is damaged; move it out of the sessions folder \
         (or remove it)"
    )]
    NotAFile { path: PathBuf, what: &'static str },
    #[error(
        "{path} is {}, over the limit of {} for a session log; if the log is genuine, raise `sessions.max_log_mb` \
         (e.g. --set sessions.max_log_mb={})",
        bytes_text(*size), bytes_text(*limit), suggested_mb(*size)
    )]
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    #[error(
        "{path}, line {line}: one event of {} is over the limit of {} for a line; the log is damaged, or, if it \
         is genuine, raise `sessions.max_line_mb` (e.g. --set sessions.max_line_mb={})",
        bytes_text(*size), bytes_text(*limit), suggested_mb(*size)
    )]
    LineTooLong { path: PathBuf, line: usize, size: u64, limit: u64 },
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

/// A limit in MiB that holds `size` bytes, for the hint in a message.
fn suggested_mb(size: u64) -> u64 {
    (size >> 20) + 1
}

impl LogError {
    fn from_file(e: FileError) -> Self {
        match e {
            FileError::NotRegular { path, what } => LogError::NotAFile { path, what },
            FileError::TooLarge { path, size, limit } => LogError::TooLarge { path, size, limit },
            FileError::Io { path, source } => LogError::Io { path, message: source.to_string() },
        }
    }
}

/// The last line of a log, cut short by a crash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Its length in bytes.
    pub bytes: u64,
    /// Its beginning (the whole of it when under the line cap), for messages.
    pub preview: String,
}

impl TornTail {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
}

/// What the file system says about a log when it was read: a summary
/// built from the log is current while the log still has this length,
/// modification time, change time and inode. Every write changes the
/// times (the change time cannot be set back by any tool), so a log
/// edited in place, even to the same length, no longer matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogStamp {
    pub bytes: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
}

impl LogStamp {
    pub fn of(meta: &Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
            Self {
                bytes: meta.len(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
                inode: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64);
            Self { bytes: meta.len(), mtime_ns, ctime_ns: 0, inode: 0 }
        }
    }

    /// The stamp of the log at `path` now (following a link, as reading does).
    pub fn current(path: &Path) -> Option<Self> {
        std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| Self::of(&m))
    }
}

/// A log as read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedLog {
    pub records: Vec<EventRecord>,
    /// The unparseable tail left by a crash mid-write, if any (dropped).
    pub torn_tail: Option<TornTail>,
    /// Bytes read, torn tail included.
    pub bytes: u64,
    /// Bytes of the complete lines: where the next event must be appended
    /// once a torn tail is cut off.
    pub intact_bytes: u64,
    /// The file as it was when read to its end; `None` when it changed
    /// while being read (another process appending).
    pub stamp: Option<LogStamp>,
}

/// Reads the log at `path` within the caps in force (`[sessions]`).
pub fn read_log(path: &Path) -> Result<LoadedLog, LogError> {
    read_log_with(path, read_limits())
}

/// Reads the log at `path` within `limits`.
pub fn read_log_with(path: &Path, limits: ReadLimits) -> Result<LoadedLog, LogError> {
    let (file, meta) = open_regular(path).map_err(LogError::from_file)?;
    let too_large = |size| LogError::TooLarge { path: path.to_path_buf(), size, limit: limits.max_log_bytes };
    if meta.len() > limits.max_log_bytes {
        return Err(too_large(meta.len()));
    }
    let io = |e: std::io::Error| LogError::Io { path: path.to_path_buf(), message: e.to_string() };
    let mut reader = BufReader::with_capacity(64 * 1024, (&file).take(limits.max_log_bytes.saturating_add(1)));
    let mut reading = Reading { path, records: Vec::new(), continuity: Continuity::new() };
    let mut line = Vec::new();
    let (mut bytes, mut intact_bytes, mut number) = (0u64, 0u64, 0usize);
    let mut torn_tail = None;
    loop {
        let read = read_line_capped(&mut reader, &mut line, limits.max_line_bytes).map_err(io)?;
        if read.len == 0 {
            break;
        }
        number += 1;
        bytes += read.len;
        if bytes > limits.max_log_bytes {
            return Err(too_large(bytes));
        }
        if read.overflow {
            if read.complete {
                return Err(LogError::LineTooLong {
                    path: path.to_path_buf(),
                    line: number,
                    size: read.len,
                    limit: limits.max_line_bytes,
                });
            }
            torn_tail = Some(TornTail { bytes: read.len, preview: preview(&line) });
            break;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if text.iter().all(u8::is_ascii_whitespace) {
            intact_bytes += if read.complete { read.len } else { 0 };
            continue;
        }
        match serde_json::from_slice::<EventRecord>(text) {
            Ok(record) => reading.admit(record, number, &mut reader, limits)?,
            Err(e) if !read.complete => {
                // Only the last line can lack its end: a write cut short.
                let _ = e;
                torn_tail = Some(TornTail { bytes: read.len, preview: preview(text) });
                break;
            }
            Err(e) => {
                // A newer schema may add events this build cannot parse:
                // say that rather than "damaged".
                reading.check_schema()?;
                return Err(LogError::Corrupt { path: path.to_path_buf(), line: number, message: e.to_string() });
            }
        }
        if read.complete {
            intact_bytes = bytes;
        }
    }
    if bytes == 0 {
        return Err(LogError::Empty { path: path.to_path_buf() });
    }
    reading.check_schema()?;
    if reading.records.is_empty() {
        return Err(LogError::NoHeader { path: path.to_path_buf() });
    }
    // Stamped after reading to the end: a log appended meanwhile has grown
    // past what was read, and gets no stamp.
    let stamp = file.metadata().ok().map(|m| LogStamp::of(&m)).filter(|s| s.bytes == bytes);
    Ok(LoadedLog { records: reading.records, torn_tail, bytes, intact_bytes, stamp })
}

/// The records read so far and the checks they passed.
struct Reading<'a> {
    path: &'a Path,
    records: Vec<EventRecord>,
    continuity: Continuity,
}

impl Reading<'_> {
    fn admit(
        &mut self,
        record: EventRecord,
        line: usize,
        rest: &mut impl BufRead,
        limits: ReadLimits,
    ) -> Result<(), LogError> {
        let corrupt = |message| LogError::Corrupt { path: self.path.to_path_buf(), line, message };
        if let Some(message) = out_of_order(self.records.last(), &record, || next_seq(rest, limits)) {
            self.check_schema()?;
            return Err(corrupt(message));
        }
        if self.records.is_empty() && !matches!(record.event, Event::SessionStarted(_)) {
            return Err(LogError::NoHeader { path: self.path.to_path_buf() });
        }
        if let Err(message) = self.continuity.admit(&record) {
            self.check_schema()?;
            return Err(corrupt(message));
        }
        self.records.push(record);
        Ok(())
    }

    fn check_schema(&self) -> Result<(), LogError> {
        check_schema(self.path, self.records.first())
    }
}

/// The sequence number on the next line of `rest` (consumed: it is only
/// read to word an error).
fn next_seq(rest: &mut impl BufRead, limits: ReadLimits) -> Option<u64> {
    #[derive(Deserialize)]
    struct SeqOnly {
        seq: u64,
    }
    let mut line = Vec::new();
    let read = read_line_capped(rest, &mut line, limits.max_line_bytes).ok()?;
    if read.overflow {
        return None;
    }
    serde_json::from_slice::<SeqOnly>(&line).ok().map(|x| x.seq)
}

/// What one call of `read_line_capped` found.
struct LineRead {
    /// Bytes of the line, its end included (0 at the end of the file).
    len: u64,
    /// The line ended with `\n` (else the file ended first).
    complete: bool,
    /// Longer than the cap: only its first `cap` bytes are in the buffer.
    overflow: bool,
}

/// Reads one line into `buf` (cleared first), keeping at most `cap` bytes
/// of it: the rest is skipped, never buffered.
fn read_line_capped(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: u64) -> std::io::Result<LineRead> {
    buf.clear();
    let mut out = LineRead { len: 0, complete: false, overflow: false };
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(out);
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len() as u64) as usize;
        if take > room {
            out.overflow = true;
        }
        buf.extend_from_slice(&chunk[..take.min(room)]);
        reader.consume(take);
        out.len += take as u64;
        if done {
            out.complete = true;
            return Ok(out);
        }
    }
}

/// The first 200 bytes of a torn line, as text.
fn preview(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned()
}

/// Why `next` cannot follow `prev` in a log written by one appender:
/// sequence numbers go up by one, and only the first event is a header.
/// `after` reads the sequence number of the line after `next`, to tell
/// swapped events from missing ones.
fn out_of_order(prev: Option<&EventRecord>, next: &EventRecord, after: impl FnOnce() -> Option<u64>) -> Option<String> {
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
