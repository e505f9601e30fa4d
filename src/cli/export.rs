//! `sleuth export <id>`: the session as Markdown, JSON, BibTeX, CSL-JSON,
//! HTML, PDF or an evidence bundle, and with `--iterations DIR` one JSON
//! file per iteration. Every byte written passes the redactor: no secret
//! leaves in an export.

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::Context;

use super::session_args::{ExportArgs, FormatArg};
use super::{GlobalArgs, exit, setup};
use crate::research::{ReplayError, Replayed};
use crate::session::export::ExportFormat;
use crate::session::export::rich::RichFormat;

pub fn execute(global: &GlobalArgs, args: ExportArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    let sessions = setup::sessions(&setup);
    let session = match sessions.replay(&args.id) {
        Ok(s) => s,
        // `last` (or any id) in an empty store: say that, not "no session `last`".
        Err(ReplayError::NotFound { .. }) if sessions.list().is_ok_and(|l| l.is_empty()) => {
            anyhow::bail!(
                "no sessions yet in {}; research something first: sleuth run \"your question\"",
                sessions.store().root().display()
            )
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(bytes) = session.torn_tail {
        eprintln!("note: the log's last event was cut short by a crash ({bytes} bytes) and is not exported");
    }
    if let Some(folder) = &args.iterations {
        write_iterations(folder, &session)?;
    }
    if let Some(rich) = args.format.and_then(rich_format) {
        let bytes = session.export_rich(rich, now_ms())?;
        return write_bytes(args.output.as_deref(), &bytes, rich);
    }
    // `--iterations DIR` alone writes only the folder.
    let format = match (args.format.and_then(FormatArg::text_format), &args.iterations, &args.output) {
        (Some(f), ..) => Some(f),
        (None, Some(_), None) => None,
        (None, ..) => Some(ExportFormat::Markdown),
    };
    let Some(format) = format else { return Ok(exit::OK) };
    let text = session.export(format);
    match &args.output {
        Some(path) => {
            write_file(path, &text)?;
            eprintln!("wrote {}", path.display());
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
        }
    }
    Ok(exit::OK)
}

fn write_iterations(folder: &Path, session: &Replayed) -> anyhow::Result<()> {
    std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let files = session.iteration_files();
    for f in &files {
        write_file(&folder.join(&f.name), &f.contents)?;
    }
    eprintln!("wrote {} iteration file(s) and session.json to {}", files.len() - 1, folder.display());
    Ok(())
}

fn rich_format(f: FormatArg) -> Option<RichFormat> {
    match f {
        FormatArg::Html => Some(RichFormat::Html),
        FormatArg::Pdf => Some(RichFormat::Pdf),
        FormatArg::Bundle => Some(RichFormat::Bundle),
        _ => None,
    }
}

/// A rich export to its file, or to stdout (never a PDF to a terminal).
fn write_bytes(output: Option<&Path>, bytes: &[u8], format: RichFormat) -> anyhow::Result<u8> {
    match output {
        Some(path) => {
            std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());
            if format == RichFormat::Bundle {
                // Shared out of band, it proves the file is the one exported.
                eprintln!("its SHA-256: {}", crate::text::sha256_hex(bytes));
            }
        }
        None if format == RichFormat::Pdf && std::io::stdout().is_terminal() => {
            anyhow::bail!("a PDF is not printed to a terminal; give -o FILE.pdf (or redirect stdout)")
        }
        None => std::io::stdout().lock().write_all(bytes)?,
    }
    Ok(exit::OK)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
