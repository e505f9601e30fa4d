use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use super::session_args::{ExportArgs, ForkArgs, MemoryArgs, ResumeArgs, SessionsArgs, StatsArgs};
use crate::config::{AskPolicy, Overrides, Preset, ReasonerKind};
use crate::engine::tiers::SourceMode;
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
    /// The global flags with `--theme` folded in as `tui.theme`.
    pub fn apply(&self, global: &GlobalArgs) -> GlobalArgs {
        let mut g = global.clone();
        if let Some(t) = &self.theme {
            g.set.push(format!("tui.theme={t}"));
        }
        g
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
    /// The global flags with these folded in as `--set serve.…`.
    pub fn apply(&self, global: &GlobalArgs) -> GlobalArgs {
        let mut g = global.clone();
        if let Some(b) = &self.bind {
            g.set.push(format!("serve.bind={b}"));
        }
        if let Some(n) = self.max_concurrent {
            g.set.push(format!("serve.max_concurrent={n}"));
        }
        if let Some(n) = self.max_queued {
            g.set.push(format!("serve.max_queued={n}"));
        }
        g
    }
}

#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// The test query sent to each search provider (default: a title from
    /// the local corpus for it, "boiling point of water" for the others).
    #[arg(long)]
    pub query: Option<String>,
    /// Check only the LLM endpoints.
    #[arg(long)]
    pub skip_search: bool,
    /// The research flags a run would take (`--reasoner llm`, …): doctor
    /// checks what that run would use.
    #[command(flatten)]
    pub research: ResearchArgs,
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

/// Flags that shape a research session; each overrides its config key.
#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct ResearchArgs {
    /// simple (2 iterations), standard (5) or deep (10).
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
    /// Iterations at most (1..100; default: the preset's).
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Queries per iteration.
    #[arg(long, value_name = "N")]
    pub max_queries: Option<u32>,
    /// New sources per iteration.
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
    /// Pause after every iteration.
    #[arg(long)]
    pub step: bool,
}

impl ResearchArgs {
    pub fn apply(&self, o: &mut Overrides) {
        if let Some(p) = self.preset {
            typed(o, "research.preset", p, "--preset");
        }
        let mut limit = |key: &str, v: Option<i64>, flag: &str| {
            if let Some(v) = v {
                o.set(&format!("limits.{key}"), v, flag);
            }
        };
        limit("max_iterations", self.max_iterations.map(i64::from), "--max-iterations");
        limit("max_queries", self.max_queries.map(i64::from), "--max-queries");
        limit("max_sources", self.max_sources.map(i64::from), "--max-sources");
        limit("time_limit_secs", self.time_limit.map(|v| v as i64), "--time-limit");
        limit("token_budget", self.token_budget.map(|v| v as i64), "--token-budget");
        if let Some(c) = self.cost_budget {
            o.set("limits.cost_budget_usd", c, "--cost-budget");
        }
        if let Some(r) = self.reasoner {
            typed(o, "research.reasoner", r, "--reasoner");
        }
        if let Some(m) = self.mode {
            typed(o, "research.source_mode", m, "--mode");
        }
        if let Some(s) = self.sources {
            typed(o, "search.sources", s, "--sources");
        }
        if self.step {
            o.set("research.step_mode", true, "--step");
        }
    }
}

/// A typed flag's value as the config reads it: written by the type's own
/// serde names, never by a second hand-kept list of strings.
fn typed(o: &mut Overrides, key: &str, value: impl serde::Serialize, flag: &str) {
    match toml::Value::try_from(value) {
        Ok(v) => o.set(key, v, flag),
        Err(e) => tracing::warn!(%key, error = %e, "flag value not representable; ignored"),
    }
}

fn parse_source_mode(s: &str) -> Result<SourceMode, String> {
    match s {
        "strict" => Ok(SourceMode::Strict),
        "discovery" => Ok(SourceMode::Discovery),
        "monitor" => Ok(SourceMode::Monitor),
        other => Err(format!("unknown mode `{other}` (strict, discovery or monitor)")),
    }
}
