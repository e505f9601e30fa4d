use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use super::session_args::{ExportArgs, ForkArgs, MemoryArgs, ResumeArgs, SessionsArgs, StatsArgs};
pub use super::verify_args::{DiffArgs, RecheckArgs, VerifyArgs};
use crate::config::{AskPolicy, Preset, ReasonerKind, ServeConfig};
use crate::engine::tiers::SourceMode;
use crate::research::{RequestError, ResearchRequest};
use crate::search::SourceSet;

/// A terminal research agent: plans searches, reads sources, drafts,
/// critiques and scores, then decides to continue, output or ask.
#[derive(Debug, Parser)]
#[command(name = "sleuth", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Commands>,
    /// Research this question in the terminal UI (without it, sleuth asks).
    #[arg(value_name = "QUESTION")]
    pub question: Option<String>,
    #[command(flatten)]
    pub research: ResearchArgs,
    #[command(flatten)]
    pub tui: TuiArgs,
}

/// Flags of the terminal UI.
#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct TuiArgs {
    /// Theme: dark, light, high-contrast, or themes/<name>.toml in the config dir.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
}

impl Cli {
    /// Flags of the default command given together with a subcommand (they
    /// would be ignored): the name of the first, for the error message.
    /// `--config` and `--set` are global and work anywhere.
    pub fn misplaced_flag(&self) -> Option<&'static str> {
        self.command.as_ref()?;
        if self.research != ResearchArgs::default() {
            return Some("research flags such as --preset");
        }
        if self.tui != TuiArgs::default() {
            return Some("--theme");
        }
        None
    }
}

impl TuiArgs {
    /// `--theme` over the configuration's `[tui] theme`.
    pub fn apply(&self, config: &mut crate::config::Config) {
        if let Some(t) = &self.theme {
            config.tui.theme = t.clone();
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct OpenArgs {
    /// A session id (or a unique start of one) or a session folder; without
    /// it, choose from the saved sessions.
    pub session: Option<String>,
    #[command(flatten)]
    pub tui: TuiArgs,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Config file (default: $SLEUTH_HOME/config.toml or the platform config dir).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Set any config key, e.g. --set decide.confidence_threshold=0.9 (repeatable).
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Research a question headless: progress on stderr, the report on stdout.
    Run(RunArgs),
    /// Check the LLM endpoints and search providers; non-zero exit if a required one fails.
    Doctor(DoctorArgs),
    /// Review a saved session in the terminal UI, offline.
    Open(OpenArgs),
    /// List sessions, newest first: id, start, question, status, iterations, confidence, cost.
    Sessions(SessionsArgs),
    /// Continue a session where it stopped, or ask a finished one a follow-up.
    Resume(ResumeArgs),
    /// Start a new session that shares another's log up to an iteration.
    Fork(ForkArgs),
    /// Export a session as Markdown, JSON, BibTeX or CSL-JSON.
    Export(ExportArgs),
    /// The research loop's metrics across sessions.
    Stats(StatsArgs),
    /// Reflexion memory: lessons critiques taught in past sessions.
    Memory(MemoryArgs),
    /// Build or update the local corpus index (default: the configured corpus).
    Index(IndexArgs),
    /// Research as a service: an HTTP server (POST /run, jobs, SSE, /metrics).
    Serve(ServeArgs),
    /// An MCP server on stdin/stdout for coding agents and chat tools.
    Mcp,
    /// Check a report's citations against its sources: any Markdown report
    /// citing numbered sources or links, or an evidence bundle (offline).
    Verify(VerifyArgs),
    /// Fetch a session's cited sources again now: does each claim still stand?
    Recheck(RecheckArgs),
    /// What changed between two sessions, claim by claim.
    Diff(DiffArgs),
}

impl Commands {
    pub fn name(&self) -> &'static str {
        match self {
            Commands::Run(_) => "run",
            Commands::Doctor(_) => "doctor",
            Commands::Open(_) => "open",
            Commands::Sessions(_) => "sessions",
            Commands::Resume(_) => "resume",
            Commands::Fork(_) => "fork",
            Commands::Export(_) => "export",
            Commands::Stats(_) => "stats",
            Commands::Memory(_) => "memory",
            Commands::Index(_) => "index",
            Commands::Serve(_) => "serve",
            Commands::Mcp => "mcp",
            Commands::Verify(_) => "verify",
            Commands::Recheck(_) => "recheck",
            Commands::Diff(_) => "diff",
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The question to research.
    pub question: String,
    #[command(flatten)]
    pub research: ResearchArgs,
    /// Print the event stream as JSON lines on stdout instead of the report.
    #[arg(long)]
    pub json: bool,
    /// How to answer a clarifying question without a TUI.
    #[arg(long, value_enum)]
    pub ask: Option<AskPolicy>,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on (serve.bind; default 127.0.0.1:7878). Off
    /// loopback a bearer token is required (serve.token_env).
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Sessions researched at once (serve.max_concurrent; 0 = two per core).
    #[arg(long, value_name = "N")]
    pub max_concurrent: Option<usize>,
    /// Sessions waiting for a slot before requests get 429 (serve.max_queued).
    #[arg(long, value_name = "N")]
    pub max_queued: Option<usize>,
}

impl ServeArgs {
    /// These flags over the configuration's `[serve]`, checked with the
    /// configuration's own ranges.
    pub fn apply(&self, config: &mut crate::config::Config) -> anyhow::Result<()> {
        let serve: &mut ServeConfig = &mut config.serve;
        if let Some(b) = &self.bind {
            serve.bind = b.clone();
        }
        if let Some(n) = self.max_concurrent {
            serve.max_concurrent = n;
        }
        if let Some(n) = self.max_queued {
            serve.max_queued = n;
        }
        if let Some(invalid) = crate::config::validate(config).into_iter().find(|i| i.key.starts_with("serve.")) {
            let flag = invalid.key.trim_start_matches("serve.").replace('_', "-");
            anyhow::bail!("--{flag}: {}", invalid.message);
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// The test query sent to each search provider (default: for the local
    /// corpus, a title or the opening words of one of its pages; "boiling
    /// point of water" for the others).
    #[arg(long)]
    pub query: Option<String>,
    /// Check only the LLM endpoints.
    #[arg(long)]
    pub skip_search: bool,
    /// The research flags a run would take (`--reasoner llm`, …): doctor
    /// checks what that run would use.
    #[command(flatten)]
    pub research: ChoiceArgs,
}

#[derive(Debug, Clone, Args)]
pub struct IndexArgs {
    /// Folder of .md, .txt and .html files (default: `[local] corpus`, or the
    /// Rust documentation rustup installs).
    pub path: Option<PathBuf>,
    /// Rebuild from scratch instead of updating changed files only.
    #[arg(long)]
    pub rebuild: bool,
    /// Where the index goes: the local tantivy index, or the search cluster
    /// configured under `[opensearch]` (bulk-loaded, incremental).
    #[arg(long, value_enum, default_value = "local")]
    pub to: IndexTarget,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum IndexTarget {
    Local,
    Opensearch,
}

/// Flags that choose a session's preset, limits, reasoner and source mode;
/// each overrides its config key (`doctor` takes these too).
#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct ChoiceArgs {
    /// simple (2 iterations), standard (5) or deep (10).
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
    /// Iterations at most (1..100; default: the preset's).
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Queries per iteration (1..50).
    #[arg(long, value_name = "N")]
    pub max_queries: Option<u32>,
    /// New sources per iteration (1..500).
    #[arg(long, value_name = "N")]
    pub max_sources: Option<u32>,
    /// Time limit in seconds (0: none).
    #[arg(long, value_name = "SECS")]
    pub time_limit: Option<u64>,
    /// Cost budget in US dollars (0: none).
    #[arg(long, value_name = "USD")]
    pub cost_budget: Option<f64>,
    /// Token budget (0: none).
    #[arg(long, value_name = "N")]
    pub token_budget: Option<u64>,
    /// builtin (no model, offline) or llm (the [llm] endpoint).
    #[arg(long, value_enum)]
    pub reasoner: Option<ReasonerKind>,
    /// Source mode: strict, discovery or monitor.
    #[arg(long, value_parser = parse_source_mode)]
    pub mode: Option<SourceMode>,
    /// Where to look: local (the corpus, offline), web (configured web
    /// providers + Wikipedia), academic (arXiv, OpenAlex, Semantic Scholar,
    /// Europe PMC) or all (search.sources; default: search.chains).
    #[arg(long, value_enum, value_name = "WHERE")]
    pub sources: Option<SourceSet>,
}

/// Flags that shape a research session: the choices, and step mode.
#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct ResearchArgs {
    #[command(flatten)]
    pub choices: ChoiceArgs,
    /// Pause after every iteration.
    #[arg(long)]
    pub step: bool,
}

impl ChoiceArgs {
    /// The request these flags make (validated by `ResearchRequest::apply`).
    pub fn request(&self) -> ResearchRequest {
        ResearchRequest {
            preset: self.preset,
            max_iterations: self.max_iterations,
            max_queries: self.max_queries,
            max_sources: self.max_sources,
            time_limit_secs: self.time_limit,
            cost_budget_usd: self.cost_budget,
            token_budget: self.token_budget,
            reasoner: self.reasoner,
            source_mode: self.mode,
            sources: self.sources,
            ..Default::default()
        }
    }
}

impl ResearchArgs {
    /// The request these flags make; an `--ask` policy joins it.
    pub fn request(&self, ask: Option<AskPolicy>) -> ResearchRequest {
        ResearchRequest { step: self.step.then_some(true), ask, ..self.choices.request() }
    }
}

/// A request the configuration refuses, named by its flag:
/// `--max-iterations: must be between 1 and 100 (got 1000)`.
pub fn flag_error(e: RequestError) -> anyhow::Error {
    anyhow::anyhow!("{}: {}", e.field.flag(), e.message)
}

fn parse_source_mode(s: &str) -> Result<SourceMode, String> {
    match s {
        "strict" => Ok(SourceMode::Strict),
        "discovery" => Ok(SourceMode::Discovery),
        "monitor" => Ok(SourceMode::Monitor),
        other => Err(format!("unknown mode `{other}` (strict, discovery or monitor)")),
    }
}
