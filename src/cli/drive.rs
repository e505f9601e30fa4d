//! The headless consumer of a running engine, shared by `run`, `resume`,
//! `fork` and follow-ups: progress on stderr (or every event as JSON lines
//! on stdout), answers to ASKs by policy, step pauses, Ctrl-C, and at the
//! end the report on stdout.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::Context;

use super::exit;
use super::progress;
use crate::config::AskPolicy;
use crate::engine::model::{AnswerStatus, Clarification, Outcome};
use crate::engine::protocol::{Answer, Command, Event};
use crate::engine::state::SessionState;
use crate::engine::{Engine, EngineHandle, NextStep};
use crate::session::SessionDir;
use crate::text::sanitize;

#[derive(Debug, Clone)]
pub struct HeadlessOptions {
    pub policy: AskPolicy,
    pub json: bool,
}

/// Runs `engine` (new, or continuing a replayed state) until the session
/// ends or waits for an answer nobody here can give; returns the exit code.
pub async fn run_headless(
    engine: Engine,
    handle: EngineHandle,
    start: Option<String>,
    opts: HeadlessOptions,
    dir: &SessionDir,
) -> anyhow::Result<u8> {
    let initial = engine.state().clone();
    let task = tokio::spawn(engine.run());
    if let Some(question) = start {
        handle.commands.send(Command::Start { question }).ok();
    }
    let code = drive(handle, initial, &opts).await?;
    let state = task.await.context("the engine task failed")??;
    if code != exit::OK {
        return Ok(code);
    }
    if !opts.json {
        if let Some(report) = &state.report {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", sanitize(&report.markdown))?;
        }
        eprintln!("session saved: {}", dir.path.display());
    }
    Ok(match state.outcome {
        Some(Outcome::Finished) => match state.report.as_ref().map(|r| r.answer) {
            Some(AnswerStatus::Unanswered) => exit::UNANSWERED,
            Some(AnswerStatus::NotSearched) => exit::NOT_SEARCHED,
            _ if state.reasoning_degraded() => exit::DEGRADED,
            _ => exit::OK,
        },
        Some(Outcome::Cancelled) => exit::CANCELLED,
        // Detached at a step pause by the user: resumable, not an error.
        None if code == exit::OK => exit::OK,
        _ => exit::ERROR,
    })
}

/// What the driver does after an event.
enum Reply {
    Nothing,
    Send(Command),
    /// Leave the session waiting (resumable) and stop with this code.
    Detach(u8),
}

/// Prints events as they come and answers what the engine asks. A
/// replayed session waiting on an ASK or a step pause is asked again.
async fn drive(mut handle: EngineHandle, mut state: SessionState, opts: &HeadlessOptions) -> anyhow::Result<u8> {
    let id = state.header.as_ref().map(|h| h.session_id.clone());
    let mut sigint = Sigint::listen()?;
    if let Some(ask) = state.open_ask() {
        let (ask_id, clarification) = (ask.ask_id.clone(), ask.clarification.clone());
        eprintln!("this session is waiting for an answer");
        match on_ask(&ask_id, &clarification, opts, id.as_deref(), &mut sigint).await {
            Reply::Send(cmd) => drop(handle.commands.send(cmd)),
            Reply::Detach(code) => return Ok(code),
            Reply::Nothing => {}
        }
    } else if let NextStep::AwaitStep(n) = state.next_step() {
        match on_pause(n, id.as_deref(), &mut sigint).await {
            Reply::Send(cmd) => drop(handle.commands.send(cmd)),
            Reply::Detach(code) => return Ok(code),
            Reply::Nothing => {}
        }
    }
    let mut interrupted = false;
    loop {
        let record = tokio::select! {
            r = handle.events.recv() => r,
            _ = sigint.recv() => {
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
        // The engine blanked secrets before sending the record: printed
        // as it came, like the log has it.
        if opts.json {
            let line = serde_json::to_string(&record)?;
            writeln!(std::io::stdout().lock(), "{line}")?;
        } else if let Some(line) = progress::line(&record, &state) {
            eprintln!("{}", sanitize(&line));
        }
        let id = state.header.as_ref().map(|h| h.session_id.clone());
        let reply = match &record.event {
            Event::AskRaised { ask_id, clarification, .. } => {
                on_ask(ask_id, clarification, opts, id.as_deref(), &mut sigint).await
            }
            Event::Paused { iteration } => on_pause(*iteration, id.as_deref(), &mut sigint).await,
            _ => Reply::Nothing,
        };
        match reply {
            Reply::Nothing => {}
            Reply::Send(cmd) => drop(handle.commands.send(cmd)),
            Reply::Detach(code) => {
                // Dropping the handle lets the engine stop waiting and
                // checkpoint: the session stays resumable.
                drop(handle);
                return Ok(code);
            }
        }
    }
}

/// The question and options come from an event, secrets already blanked.
async fn on_ask(
    ask_id: &str,
    c: &Clarification,
    opts: &HeadlessOptions,
    id: Option<&str>,
    sigint: &mut Sigint,
) -> Reply {
    let clean = sanitize;
    match answer(opts.policy, c, &clean, sigint).await {
        Err(Interrupted) => cancel(),
        Ok(Some(answer)) => {
            eprintln!("answer: {}", clean(answer.as_text()));
            Reply::Send(Command::Answer { ask_id: ask_id.to_string(), answer })
        }
        Ok(None) => {
            eprintln!(
                "the question needs clarification: {}\n  options: {}\n  the session waits; answer it with `sleuth resume {}`",
                clean(&c.question),
                clean(&c.options.join(" | ")),
                id.unwrap_or("<id>")
            );
            Reply::Detach(exit::NEEDS_ANSWER)
        }
    }
}

/// Step mode without a TUI: at a terminal, ask; otherwise run on.
async fn on_pause(iteration: u32, id: Option<&str>, sigint: &mut Sigint) -> Reply {
    if !std::io::stdin().is_terminal() {
        eprintln!("paused after iteration {iteration} (step mode): continuing, nobody can step without a terminal");
        return Reply::Send(Command::Step);
    }
    eprint!("paused after iteration {iteration}: Enter runs the next one, c continues to the end, q stops here: ");
    let _ = std::io::stderr().flush();
    let line = match read_line(sigint).await {
        Err(Interrupted) => return cancel(),
        Ok(line) => line.unwrap_or_default(),
    };
    match line.trim() {
        "c" | "continue" => Reply::Send(Command::Continue),
        "q" | "quit" => {
            eprintln!("the session stays paused; continue it with `sleuth resume {}`", id.unwrap_or("<id>"));
            Reply::Detach(exit::OK)
        }
        _ => Reply::Send(Command::Step),
    }
}

async fn answer(
    policy: AskPolicy,
    c: &Clarification,
    clean: &dyn Fn(&str) -> String,
    sigint: &mut Sigint,
) -> Result<Option<Answer>, Interrupted> {
    let first = || c.options.first().map(|label| Answer::Choice { index: 0, label: label.clone() });
    match policy {
        AskPolicy::Fail => Ok(None),
        AskPolicy::First => Ok(first()),
        AskPolicy::Stdin => read_answer(c, clean, sigint).await,
        AskPolicy::Auto if std::io::stdin().is_terminal() => read_answer(c, clean, sigint).await,
        AskPolicy::Auto => Ok(first()),
    }
}

/// Ctrl-C, listened for from the start of the drive: a listener made
/// later (as `tokio::signal::ctrl_c()` is, at each call) misses a Ctrl-C
/// that came just before it, say right after a prompt was printed.
struct Sigint {
    #[cfg(unix)]
    inner: tokio::signal::unix::Signal,
}

impl Sigint {
    fn listen() -> anyhow::Result<Self> {
        #[cfg(unix)]
        let inner = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
            .context("cannot listen for Ctrl-C")?;
        Ok(Self {
            #[cfg(unix)]
            inner,
        })
    }

    async fn recv(&mut self) {
        #[cfg(unix)]
        self.inner.recv().await;
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Ctrl-C came while a prompt waited for a line.
struct Interrupted;

/// Ctrl-C at a prompt: cancel, as it does while the loop runs.
fn cancel() -> Reply {
    eprintln!("\ncancelling: writing a partial report");
    Reply::Send(Command::Cancel)
}

/// One line of stdin (`None` at its end), or `Interrupted` when Ctrl-C
/// comes first. Tokio has taken SIGINT over, so a read on this task would
/// leave Ctrl-C unanswered until Enter; the read runs on a plain thread,
/// which (unlike a blocking task) does not hold the process open at exit.
async fn read_line(sigint: &mut Sigint) -> Result<Option<String>, Interrupted> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = std::io::stdin().lock().read_line(&mut line);
        let _ = tx.send(match read {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line),
        });
    });
    tokio::select! {
        line = rx => Ok(line.ok().flatten()),
        _ = sigint.recv() => Err(Interrupted),
    }
}

/// Asks on stderr, reads one line from stdin: an option number or free text.
async fn read_answer(
    c: &Clarification,
    clean: &dyn Fn(&str) -> String,
    sigint: &mut Sigint,
) -> Result<Option<Answer>, Interrupted> {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "\n{}", clean(&c.question));
    for (i, o) in c.options.iter().enumerate() {
        let _ = writeln!(err, "  {}. {}", i + 1, clean(o));
    }
    let _ = write!(err, "answer (number or text): ");
    let _ = err.flush();
    drop(err);
    let Some(line) = read_line(sigint).await? else { return Ok(None) };
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    Ok(Some(match line.parse::<usize>() {
        Ok(n) if (1..=c.options.len()).contains(&n) => Answer::Choice { index: n - 1, label: c.options[n - 1].clone() },
        _ => Answer::Text { text: line.to_string() },
    }))
}
