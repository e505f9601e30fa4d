//! Writing the event log: JSON lines, appended and flushed per event,
//! synced to disk at checkpoints. Reading is in `read.rs`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::engine::ports::{EventSink, StoreError};
use crate::engine::protocol::EventRecord;
use crate::files::{FileError, open_regular_with};

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
        let mut file =
            open_regular_with(path, OpenOptions::new().create(true).read(true).append(true)).map_err(|e| match e {
                FileError::Io { source, .. } => source,
                other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
            })?;
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

    /// The log's stamp now, as a summary built from the events written so
    /// far records it (`None` when the file cannot be asked).
    pub fn stamp(&self) -> Option<crate::session::LogStamp> {
        self.file.metadata().ok().map(|m| crate::session::LogStamp::of(&m))
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
