//! `sleuth export <id>`: the session as Markdown, JSON, BibTeX or
//! CSL-JSON, and with `--iterations DIR` one JSON file per iteration.
//! Every byte written passes the redactor: no secret leaves in an export.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use super::session_args::ExportArgs;
use super::{GlobalArgs, exit, setup};
use crate::engine::state::SessionState;
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
    // `--iterations DIR` alone writes only the folder.
    let format = match (args.format, &args.iterations, &args.output) {
        (Some(f), ..) => Some(ExportFormat::from(f)),
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

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
