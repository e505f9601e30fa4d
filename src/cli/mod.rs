//! The command line (clap): the TUI by default, and the subcommands.
//! `anyhow` lives here at the edge; the library below uses typed errors.

mod args;
mod diff;
mod doctor;
mod doctor_sources;
mod drive;
mod export;
mod fork;
mod index;
mod logging;
mod memory;
mod progress;
mod recheck;
mod resume;
mod run;
mod serve;
mod session_args;
mod sessions;
mod setup;
mod stats;
mod tui;
mod typo;
mod verify;
mod verify_args;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

pub use args::{ChoiceArgs, Cli, Commands, DoctorArgs, GlobalArgs, OpenArgs, ResearchArgs, TuiArgs};

/// Exit codes a script can rely on.
pub mod exit {
    pub const OK: u8 = 0;
    /// Any error: bad config, unreadable file, failed session.
    pub const ERROR: u8 = 1;
    /// Usage error (clap's own).
    pub const USAGE: u8 = 2;
    /// `--ask fail` met a question that needs the user.
    pub const NEEDS_ANSWER: u8 = 3;
    /// Finished, but the sources found do not answer the question (the
    /// report says so first and gives the closest material).
    pub const UNANSWERED: u8 = 4;
    /// Finished without searching anything: every search failed (a dead
    /// provider, no network).
    pub const NOT_SEARCHED: u8 = 5;
    /// Finished and answered, but reasoning was degraded: phases the model
    /// was to do fell back to built-in, model-free results (the report's
    /// caveat names them). Unanswered (4) and not searched (5) come first.
    pub const DEGRADED: u8 = 6;
    /// `verify`, `recheck`: a claim is not backed by its sources (or no
    /// longer is): unsupported, a fabricated quote, a page gone.
    pub const NOT_SUPPORTED: u8 = 7;
    /// `verify`, `recheck`: nothing failed, but some claims could not be
    /// checked (a source unreachable now, or nothing cited).
    pub const NOT_CHECKED: u8 = 8;
    /// Cancelled by the user (Ctrl-C); a partial report was recorded.
    pub const CANCELLED: u8 = 130;
}

pub fn main() -> ExitCode {
    restore_default_sigpipe();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(m) = typo::mistyped_subcommand(&Cli::command(), &args) {
        eprintln!(
            "error: unknown command `{typed}`; did you mean `{meant}`?\n  \
             to research the word itself, ask it as a question: sleuth \"{typed}?\" (or sleuth run {typed})",
            typed = crate::text::sanitize_inline(&m.typed),
            meant = m.meant
        );
        return ExitCode::from(exit::USAGE);
    }
    let cli = Cli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sleuth: cannot start the async runtime: {e}");
            return ExitCode::from(exit::ERROR);
        }
    };
    let result = runtime.block_on(dispatch(cli));
    // Work left on the blocking pool (a server stopped while it indexed)
    // is abandoned rather than waited for: a signal stops sleuth at once.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("sleuth: {e:#}");
            ExitCode::from(exit::ERROR)
        }
    }
}

/// `sleuth sessions | head -1` should end quietly, as other Unix tools do.
/// Rust ignores SIGPIPE, which turns a closed stdout or stderr into an
/// error on every write (and a panic in `eprintln!`). Sockets are not
/// affected: Rust's network writes pass `MSG_NOSIGNAL`. A session cut short
/// this way is left interrupted, and `sleuth resume` finishes it.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

async fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    if let Some(flag) = cli.misplaced_flag() {
        anyhow::bail!("{flag} must come after the subcommand, e.g. `sleuth run --preset deep \"question\"`");
    }
    match cli.command {
        Some(Commands::Run(args)) => run::execute(&cli.global, args).await,
        Some(Commands::Doctor(args)) => doctor::execute(&cli.global, args).await,
        Some(Commands::Sessions(args)) => sessions::execute(&cli.global, args),
        Some(Commands::Resume(args)) => resume::execute(&cli.global, args).await,
        Some(Commands::Fork(args)) => fork::execute(&cli.global, args).await,
        Some(Commands::Export(args)) => export::execute(&cli.global, args),
        Some(Commands::Stats(args)) => stats::execute(&cli.global, args),
        Some(Commands::Memory(args)) => memory::execute(&cli.global, args),
        Some(Commands::Index(args)) => index::execute(&cli.global, args).await,
        Some(Commands::Open(args)) => tui::open(&cli.global, args).await,
        Some(Commands::Serve(args)) => serve::serve(&cli.global, args).await,
        Some(Commands::Mcp) => serve::mcp(&cli.global).await,
        Some(Commands::Verify(args)) => verify::execute(&cli.global, args).await,
        Some(Commands::Recheck(args)) => recheck::execute(&cli.global, args).await,
        Some(Commands::Diff(args)) => diff::execute(&cli.global, args),
        None => tui::start(&cli.global, cli.question, &cli.research, &cli.tui).await,
    }
}
