//! The headless consumer of a running engine, shared by `run`, `resume`,
//! `fork` and follow-ups: progress on stderr (or every event as JSON lines
//! on stdout), answers to ASKs by policy, step pauses, Ctrl-C, and at the
//! end the report on stdout.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::Context;

use super::exit;
use super::progress;
use crate::config::AskPolicy;
use crate::engine::model::Clarification;
use crate::engine::protocol::{Answer, Command, Event};
use crate::engine::{NextStep, SessionStatus};
use crate::research::SessionHandle;
use crate::text::sanitize;

#[derive(Debug, Clone)]
pub struct HeadlessOptions {
    pub policy: AskPolicy,
    pub json: bool,
}

/// Drives `session` (new, or continuing a replayed state) until it ends
/// or waits for an answer nobody here can give; returns the exit code.
pub async fn run_headless(mut session: SessionHandle, opts: HeadlessOptions) -> anyhow::Result<u8> {
    let code = drive(&mut session, &opts).await?;
    let dir = session.dir.clone();
    let state = session.finish().await.context("the engine stopped")?;
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
    Ok(exit_code(SessionStatus::of(&state, false)))
}

/// The exit code of a session that stopped in `status`.
pub fn exit_code(status: SessionStatus) -> u8 {
    match status {
        SessionStatus::Finished => exit::OK,
        SessionStatus::Unanswered => exit::UNANSWERED,
        SessionStatus::NotSearched => exit::NOT_SEARCHED,
        SessionStatus::Degraded => exit::DEGRADED,
        SessionStatus::Cancelled => exit::CANCELLED,
        SessionStatus::Failed | SessionStatus::Damaged => exit::ERROR,
        SessionStatus::WaitingOnAsk => exit::NEEDS_ANSWER,
        // Detached at a step pause by the user: resumable, not an error.
        SessionStatus::Queued | SessionStatus::Running | SessionStatus::Forked | SessionStatus::Interrupted => exit::OK,
    }
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
async fn drive(handle: &mut SessionHandle, opts: &HeadlessOptions) -> anyhow::Result<u8> {
    let state = handle.state.clone();
    let id = Some(handle.id.clone());
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
            r = handle.next() => r,
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
        // The engine blanked secrets before sending the record: printed
        // as it came, like the log has it.
        if opts.json {
            let line = serde_json::to_string(&record)?;
            writeln!(std::io::stdout().lock(), "{line}")?;
        } else if let Some(line) = progress::line(&record, &handle.state) {
            eprintln!("{}", sanitize(&line));
        }
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
                // `finish` drops the command sender, which lets the engine
                // stop waiting and checkpoint: the session stays resumable.
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

/// Asks on stderr, reads lines from stdin until one is an answer (read as
/// every front end reads one: `Clarification::read_answer`); a number that
/// is no option's is refused with the options shown again. `None` at the
/// end of stdin, or for an empty line.
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
    drop(err);
    loop {
        eprint!("answer (number or text): ");
        let _ = std::io::stderr().flush();
        let Some(line) = read_line(sigint).await? else { return Ok(None) };
        if line.trim().is_empty() {
            return Ok(None);
        }
        match c.read_answer(&line) {
            Ok(answer) => return Ok(Some(answer)),
            Err(e) => eprintln!("{}", clean(&e.to_string())),
        }
    }
}
