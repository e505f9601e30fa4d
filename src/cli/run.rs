//! `sleuth run`: a session without a TUI. Progress goes to stderr, the
//! report to stdout (or every event as JSON lines with `--json`).

use std::io::{BufRead, IsTerminal, Write};

use anyhow::Context;

use super::args::RunArgs;
use super::{exit, progress, setup};
use crate::config::AskPolicy;
use crate::engine::model::Outcome;
use crate::engine::protocol::{Answer, Command, Event};
use crate::engine::state::SessionState;
use crate::engine::{Engine, EngineHandle};
use crate::session::{SessionDir, new_session_id};
use crate::text::sanitize;

pub async fn execute(global: &super::GlobalArgs, args: RunArgs) -> anyhow::Result<u8> {
    let question = args.question.trim().to_string();
    if question.is_empty() {
        anyhow::bail!(
            "the question is empty; ask something, e.g. sleuth run \"How does the ? operator convert errors?\""
        );
    }
    let setup = setup::load(global, Some(&args.research))?;
    let policy = args.ask.unwrap_or(setup.config.research.ask);
    tracing::info!(config = ?setup.config_path, log = ?setup.log.file, "headless run");
    let id = new_session_id();
    let dir = SessionDir::create(&setup.paths.sessions_dir(), &id)
        .with_context(|| format!("cannot create the session folder under {}", setup.paths.sessions_dir().display()))?;
    let parts = setup::parts(&setup, &dir)?;
    let settings = setup::engine_settings(&setup.config, &id);
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    let task = tokio::spawn(engine.run());
    handle.commands.send(Command::Start { question }).ok();
    let code = drive(handle, policy, args.json).await?;
    let state = task.await.context("the engine task failed")??;
    if code != exit::OK {
        return Ok(code);
    }
    if !args.json {
        if let Some(report) = &state.report {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", sanitize(&report.markdown))?;
        }
        eprintln!("session saved: {}", dir.path.display());
    }
    Ok(match state.outcome {
        Some(Outcome::Finished) => exit::OK,
        Some(Outcome::Cancelled) => exit::CANCELLED,
        _ => exit::ERROR,
    })
}

/// Prints events as they come and answers what the engine asks.
async fn drive(mut handle: EngineHandle, policy: AskPolicy, json: bool) -> anyhow::Result<u8> {
    let mut state = SessionState::default();
    let mut interrupted = false;
    loop {
        let record = tokio::select! {
            r = handle.events.recv() => r,
            _ = tokio::signal::ctrl_c() => {
                if interrupted {
                    // Every event so far is already in the log: nothing is lost.
                    eprintln!("abandoned; the session log is intact and can be resumed");
                    std::process::exit(i32::from(exit::CANCELLED));
                }
                interrupted = true;
                eprintln!("cancelling: writing a partial report (Ctrl-C again to abandon)");
                handle.commands.send(Command::Cancel).ok();
                continue;
            }
        };
        let Some(record) = record else { return Ok(exit::OK) };
        state.apply(&record);
        if json {
            let mut out = std::io::stdout().lock();
            serde_json::to_writer(&mut out, &record)?;
            writeln!(out)?;
        } else if let Some(line) = progress::line(&record, &state) {
            eprintln!("{}", sanitize(&line));
        }
        if let Event::AskRaised { ask_id, clarification, .. } = &record.event {
            let answer = match answer(policy, clarification) {
                Some(a) => a,
                None => {
                    eprintln!(
                        "the question needs clarification: {}\n  options: {}\n  the session waits; answer it with `sleuth resume {}`",
                        sanitize(&clarification.question),
                        clarification.options.join(" | "),
                        state.header.as_ref().map_or("<id>", |h| h.session_id.as_str())
                    );
                    drop(handle);
                    return Ok(exit::NEEDS_ANSWER);
                }
            };
            eprintln!("answer: {}", sanitize(answer.as_text()));
            handle.commands.send(Command::Answer { ask_id: ask_id.clone(), answer }).ok();
        }
    }
}

fn answer(policy: AskPolicy, c: &crate::engine::model::Clarification) -> Option<Answer> {
    let first = || c.options.first().map(|label| Answer::Choice { index: 0, label: label.clone() });
    match policy {
        AskPolicy::Fail => None,
        AskPolicy::First => first(),
        AskPolicy::Stdin => read_answer(c),
        AskPolicy::Auto if std::io::stdin().is_terminal() => read_answer(c),
        AskPolicy::Auto => first(),
    }
}

/// Asks on stderr, reads one line from stdin: an option number or free text.
fn read_answer(c: &crate::engine::model::Clarification) -> Option<Answer> {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "\n{}", sanitize(&c.question));
    for (i, o) in c.options.iter().enumerate() {
        let _ = writeln!(err, "  {}. {}", i + 1, sanitize(o));
    }
    let _ = write!(err, "answer (number or text): ");
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    match line.parse::<usize>() {
        Ok(n) if (1..=c.options.len()).contains(&n) => {
            Some(Answer::Choice { index: n - 1, label: c.options[n - 1].clone() })
        }
        _ => Some(Answer::Text { text: line.to_string() }),
    }
}
