//! `sleuth memory list|show <id>|clear`: the reflexion memory in the data
//! dir (what critiques taught; offered to PLAN and DRAFT of similar questions).

use std::io::{BufRead, IsTerminal, Write};

use super::session_args::{MemoryAction, MemoryArgs};
use super::sessions::truncate;
use super::{GlobalArgs, exit, setup};
use crate::session::export::iso_datetime;
use crate::session::memory::{FileMemoryStore, Lookup};
use crate::text::{sanitize, sanitize_inline};

pub fn execute(global: &GlobalArgs, args: MemoryArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    let redactor = crate::session::Redactor::from_config(&setup.config.snapshot());
    let store = FileMemoryStore::open(&setup.paths.memory_file(), setup.config.memory.clone());
    // Lessons stored before redaction existed are blanked as they are printed.
    let inline = |t: &str| redactor.redact(&sanitize_inline(t)).into_owned();
    let block = |t: &str| redactor.redact(&sanitize(t)).into_owned();
    let mut out = std::io::stdout().lock();
    match args.action {
        MemoryAction::List { json } => {
            let mut entries = store.entries();
            entries.reverse();
            if json {
                let text = serde_json::to_string_pretty(&entries)?;
                writeln!(out, "{}", redactor.redact(&text))?;
            } else if entries.is_empty() {
                eprintln!("no lessons yet in {}", store.path().display());
            } else {
                writeln!(out, "{:<32} {:<17} {:<40} MISTAKE", "ID", "CREATED", "QUESTION")?;
                for e in &entries {
                    writeln!(
                        out,
                        "{:<32} {:<17} {:<40} {}",
                        truncate(&e.id, 32),
                        iso_datetime(e.created_at_ms).trim_end_matches(" UTC"),
                        truncate(&inline(&e.question), 40),
                        truncate(&inline(&e.mistake), 60)
                    )?;
                }
            }
        }
        MemoryAction::Show { id } => {
            let e = match store.find(&id) {
                Ok(e) => e,
                Err(Lookup::NotFound) => {
                    anyhow::bail!("no lesson `{id}` in {}; `sleuth memory list` shows them", store.path().display())
                }
                Err(Lookup::Ambiguous { count, first }) => anyhow::bail!(
                    "`{id}` starts {count} lesson ids ({}{}); give more of the id",
                    first.join(", "),
                    if count > first.len() { ", …" } else { "" }
                ),
            };
            writeln!(out, "id:         {}", e.id)?;
            writeln!(out, "created:    {}", iso_datetime(e.created_at_ms))?;
            writeln!(out, "question:   {}", inline(&e.question))?;
            writeln!(out, "mistake:    {}", block(&e.mistake))?;
            writeln!(out, "correction: {}", block(&e.correction))?;
            writeln!(out, "tags:       {}", inline(&e.tags.join(", ")))?;
        }
        MemoryAction::Clear { yes } => {
            let n = store.entries().len();
            if n == 0 {
                // Nothing to lose: no confirmation, and not an error.
                eprintln!("no lessons to clear in {}", store.path().display());
                return Ok(exit::OK);
            }
            if !yes && !confirm(n)? {
                eprintln!("nothing cleared");
                return Ok(exit::OK);
            }
            let cleared = store.clear()?;
            eprintln!("cleared {cleared} lesson(s) from {}", store.path().display());
        }
    }
    Ok(exit::OK)
}

/// Asks at a terminal; refuses without one (a script must say `--yes`).
fn confirm(n: usize) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        anyhow::bail!("clearing {n} lesson(s) cannot be undone; add --yes to confirm");
    }
    eprint!("forget all {n} lesson(s)? [y/N] ");
    std::io::stderr().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}
