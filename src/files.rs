//! Opening files that a user, another process or a damaged disk may have
//! replaced with something that is not a file: a named pipe (opening it
//! waits for a writer, forever), a link to `/dev/zero` (reading it never
//! ends), a socket or a folder. Every file sleuth reads from its own
//! folders or from a path it was given goes through here: it is opened
//! without blocking, checked to be a regular file on the open handle (so a
//! swap between a check and the open cannot slip through), and read with a
//! size cap.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is {what}, not a regular file", path.display())]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("{} is {}, larger than the limit of {}", path.display(), bytes_text(*size), bytes_text(*limit))]
    TooLarge { path: PathBuf, size: u64, limit: u64 },
}

impl FileError {
    pub fn path(&self) -> &Path {
        match self {
            FileError::Io { path, .. } | FileError::NotRegular { path, .. } | FileError::TooLarge { path, .. } => path,
        }
    }

    /// Whether the file is simply not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// `1.5 MiB`, `300 B`: sizes in messages.
pub fn bytes_text(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut x = n as f64 / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if x < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    if x.fract() == 0.0 { format!("{x:.0} {unit}") } else { format!("{x:.1} {unit}") }
}

/// What a file that is not a regular file is, in words.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    "not a file"
}

fn checked(path: &Path, file: File) -> Result<(File, Metadata), FileError> {
    let meta = file.metadata().map_err(|source| FileError::Io { path: path.to_path_buf(), source })?;
    if !meta.file_type().is_file() {
        return Err(FileError::NotRegular { path: path.to_path_buf(), what: kind_of(&meta) });
    }
    Ok((file, meta))
}

/// Opens `path` for reading, without blocking, if it is a regular file
/// (links are followed, to a regular file only).
pub fn open_regular(path: &Path) -> Result<(File, Metadata), FileError> {
    let mut options = OpenOptions::new();
    options.read(true);
    nonblocking(&mut options);
    let file = options.open(path).map_err(|source| FileError::Io { path: path.to_path_buf(), source })?;
    checked(path, file)
}

/// Opens `path` with `options` (append, create, …), refusing anything but
/// a regular file without waiting on it. A pipe opened for writing with
/// nobody reading fails at once instead of blocking.
pub fn open_regular_with(path: &Path, options: &mut OpenOptions) -> Result<File, FileError> {
    // Said in words before the open turns it into "No such device or address".
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.file_type().is_file()
    {
        return Err(FileError::NotRegular { path: path.to_path_buf(), what: kind_of(&meta) });
    }
    nonblocking(options);
    let file = options.open(path).map_err(|source| FileError::Io { path: path.to_path_buf(), source })?;
    checked(path, file).map(|(f, _)| f)
}

#[cfg(unix)]
fn nonblocking(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    // On a regular file O_NONBLOCK changes nothing; on a FIFO it makes
    // the open return at once, so the type check above can refuse it.
    options.custom_flags(libc::O_NONBLOCK);
}

#[cfg(not(unix))]
fn nonblocking(_options: &mut OpenOptions) {}

/// The whole of regular file `path`, refused when larger than `limit` bytes
/// (checked before reading, and again while reading in case it grows).
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > limit {
        return Err(FileError::TooLarge { path: path.to_path_buf(), size: meta.len(), limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::Io { path: path.to_path_buf(), source })?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge { path: path.to_path_buf(), size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// Like `read_capped`, as UTF-8 text.
pub fn read_text_capped(path: &Path, limit: u64) -> Result<String, FileError> {
    let bytes = read_capped(path, limit)?;
    String::from_utf8(bytes).map_err(|e| FileError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text ({e})")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes_text(300), "300 B");
        assert_eq!(bytes_text(1024), "1 KiB");
        assert_eq!(bytes_text(1536), "1.5 KiB");
        assert_eq!(bytes_text(300 << 20), "300 MiB");
    }

    #[test]
    fn a_regular_file_is_read_and_a_large_one_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"hello").expect("write");
        assert_eq!(read_capped(&path, 5).expect("read"), b"hello");
        let err = read_capped(&path, 4).expect_err("too large");
        assert!(matches!(err, FileError::TooLarge { size: 5, limit: 4, .. }), "{err}");
        assert!(read_capped(&dir.path().join("missing"), 5).expect_err("missing").is_not_found());
        let err = read_capped(dir.path(), 5).expect_err("a folder");
        assert!(err.to_string().contains("is a folder, not a regular file"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_and_a_device_are_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path and a plain mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_capped(&fifo, 1 << 20).expect_err("a fifo");
        assert!(err.to_string().contains("named pipe (FIFO)"), "{err}");
        let err = open_regular_with(&fifo, OpenOptions::new().append(true)).expect_err("a fifo for writing");
        assert!(matches!(err, FileError::NotRegular { .. }), "{err}");
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
        let err = read_capped(&zero, 1 << 20).expect_err("a device");
        assert!(err.to_string().contains("character device"), "{err}");
    }
}
