//! `sleuth export <id>`: the session as Markdown, JSON, BibTeX, CSL-JSON,
//! HTML, PDF or an evidence bundle, and with `--iterations DIR` one JSON
//! file per iteration. Every byte written passes the redactor: no secret
//! leaves in an export.

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::Context;

use super::session_args::{ExportArgs, FormatArg};
use super::{GlobalArgs, exit, setup};
use crate::engine::state::SessionState;
use crate::session::export::rich::{RichFormat, export_rich};
use crate::session::export::{ExportFormat, export, iteration_files};
use crate::session::summary::SessionSummary;
use crate::session::{Redactor, SessionDir, read_log, resolve_id};

pub fn execute(global: &GlobalArgs, args: ExportArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global, None)?;
    let root = setup.paths.sessions_dir();
    let id = resolve_id(&root, &args.id)?;
    let dir = SessionDir::new(&root, &id);
    let log = read_log(&dir.log_path())?;
    if let Some(tail) = &log.torn_tail {
        eprintln!("note: the log's last event was cut short by a crash ({} bytes) and is not exported", tail.len());
    }
    let state = SessionState::replay(&log.records);
    let summary = SessionSummary::from_state(&id, &state, log.bytes);
    let recorded = state.header.as_ref().map(|h| h.config.clone()).unwrap_or_default();
    let redactor = Redactor::from_configs(&[&recorded, &setup.config.snapshot()]);
    if let Some(folder) = &args.iterations {
        write_iterations(folder, &state, &summary, &redactor)?;
    }
    if let Some(rich) = args.format.and_then(rich_format) {
        let bytes = export_rich(&dir, &state, &summary, &redactor, rich, now_ms())?;
        return write_bytes(args.output.as_deref(), &bytes, rich);
    }
    // `--iterations DIR` alone writes only the folder.
    let format = match (args.format.and_then(FormatArg::text_format), &args.iterations, &args.output) {
        (Some(f), ..) => Some(f),
        (None, Some(_), None) => None,
        (None, ..) => Some(ExportFormat::Markdown),
    };
    let Some(format) = format else { return Ok(exit::OK) };
    let text = export(&state, &summary, format);
    let text = redactor.redact(&text);
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

fn write_iterations(
    folder: &Path,
    state: &SessionState,
    summary: &SessionSummary,
    redactor: &Redactor,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let files = iteration_files(state, summary);
    for f in &files {
        write_file(&folder.join(&f.name), &redactor.redact(&f.contents))?;
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
