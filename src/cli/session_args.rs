//! Flags of the session commands: sessions, resume, fork, export, stats, memory.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::args::{ResearchArgs, TuiArgs};
use crate::config::AskPolicy;
use crate::session::export::ExportFormat;

#[derive(Debug, Clone, Args)]
pub struct SessionsArgs {
    /// Only sessions whose id or question contains this text (any case).
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// The sessions as a JSON array (one object each, with its summary)
    /// instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ResumeArgs {
    /// Session id, a unique prefix of one, or `last`.
    pub id: String,
    /// Continue without the TUI: progress on stderr, the report on stdout.
    #[arg(long)]
    pub headless: bool,
    /// Ask a follow-up of a finished session: a new session that starts
    /// from its sources and findings.
    #[arg(long, value_name = "QUESTION")]
    pub follow_up: Option<String>,
    #[command(flatten)]
    pub research: ResearchArgs,
    /// Print the event stream as JSON lines on stdout instead of the report.
    #[arg(long)]
    pub json: bool,
    /// How to answer a clarifying question without a TUI.
    #[arg(long, value_enum)]
    pub ask: Option<AskPolicy>,
    #[command(flatten)]
    pub tui: TuiArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ForkArgs {
    /// Session to fork: an id, a unique prefix of one, or `last`.
    pub id: String,
    /// Share the log up to this iteration's evaluation; the fork decides
    /// that iteration again (0: only the question).
    #[arg(long, value_name = "ITERATION")]
    pub from: u32,
    /// Create the fork and stop; continue it later with `sleuth resume`.
    #[arg(long)]
    pub create_only: bool,
    /// Continue without the TUI: progress on stderr, the report on stdout.
    #[arg(long)]
    pub headless: bool,
    /// Flags here retune the fork (another preset, other limits).
    #[command(flatten)]
    pub research: ResearchArgs,
    /// Print the event stream as JSON lines on stdout instead of the report.
    #[arg(long)]
    pub json: bool,
    /// How to answer a clarifying question without a TUI.
    #[arg(long, value_enum)]
    pub ask: Option<AskPolicy>,
    #[command(flatten)]
    pub tui: TuiArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Md,
    Json,
    Bibtex,
    CslJson,
    /// One self-contained HTML file: claims marked, quotes on hover, sources hashed.
    Html,
    /// The same content as a paginated PDF with clickable citations.
    Pdf,
    /// An evidence bundle: report, sources' texts with SHA-256, verification, log.
    Bundle,
}

impl FormatArg {
    /// The text formats `session::export::export` writes (the others
    /// need the session's source texts too).
    pub fn text_format(self) -> Option<ExportFormat> {
        match self {
            FormatArg::Md => Some(ExportFormat::Markdown),
            FormatArg::Json => Some(ExportFormat::Json),
            FormatArg::Bibtex => Some(ExportFormat::Bibtex),
            FormatArg::CslJson => Some(ExportFormat::CslJson),
            FormatArg::Html | FormatArg::Pdf | FormatArg::Bundle => None,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// Session id, a unique prefix of one, or `last`.
    pub id: String,
    /// md (report, sources, iterations appendix), json, bibtex, csl-json,
    /// html, pdf or bundle (see `sleuth verify`). Default: md, unless
    /// --iterations is given without --output.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Write to this file instead of stdout.
    #[arg(long, short, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Also write one JSON file per iteration and session.json into DIR.
    #[arg(long, value_name = "DIR")]
    pub iterations: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct StatsArgs {
    /// Only sessions whose id or question contains this text (any case).
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// The metrics as one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct MemoryArgs {
    #[command(subcommand)]
    pub action: MemoryAction,
}

#[derive(Debug, Clone, Subcommand)]
pub enum MemoryAction {
    /// Every lesson, newest first.
    List {
        /// Every lesson as JSON instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// One lesson in full.
    Show {
        /// A lesson id, or a unique start of one.
        id: String,
    },
    /// Forget every lesson.
    Clear {
        /// Do not ask for confirmation.
        #[arg(long)]
        yes: bool,
    },
}
