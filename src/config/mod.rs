//! Layered configuration: built-in defaults < config file
//! (`$SLEUTH_HOME/config.toml` or `--config`) < environment
//! (`SLEUTH__SECTION__KEY`) < flags. Every key is documented with its
//! default in `config.toml.example`.

mod explain;
pub mod keymap;
pub mod keyspec;
mod load;
mod presets;
mod ranges;
mod search;
mod serve;
pub use serve::ServeConfig;
pub mod tui;
mod validate;
pub use validate::{Invalid, validate};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use load::{ConfigError, ConfigSource, Overrides, load};
pub use presets::{LimitOverrides, Preset};
pub use search::SearchConfig;
pub use tui::TuiConfig;

use crate::builtin::BuiltinConfig;
use crate::engine::memory::MemorySettings;
use crate::engine::settings::{DecideSettings, EvaluateSettings, RefineSettings, ReviewSettings};
use crate::engine::tiers::{SourceMode, TierEntry};
use crate::llm::LlmConfig;
use crate::search::local::LocalConfig;
use crate::search::opensearch::OpenSearchConfig;
use crate::search::scholarly::{
    ArxivConfig, EuropePmcConfig, OpenAlexConfig, ScholarlyConfig, SemanticScholarConfig, WikipediaConfig,
};
use crate::search::web::WebConfig;
use crate::session::SessionsConfig;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub research: ResearchConfig,
    pub limits: LimitOverrides,
    pub decide: DecideSettings,
    pub evaluate: EvaluateSettings,
    pub refine: RefineSettings,
    pub review: ReviewSettings,
    pub search: SearchConfig,
    pub memory: MemorySettings,
    pub source_tiers: BTreeMap<String, TierEntry>,
    pub local: LocalConfig,
    pub builtin: BuiltinConfig,
    pub llm: LlmConfig,
    pub web: WebConfig,
    pub opensearch: OpenSearchConfig,
    pub wikipedia: WikipediaConfig,
    pub arxiv: ArxivConfig,
    pub openalex: OpenAlexConfig,
    pub semanticscholar: SemanticScholarConfig,
    pub europepmc: EuropePmcConfig,
    pub tui: TuiConfig,
    pub serve: ServeConfig,
    pub sessions: SessionsConfig,
    pub log: LogConfig,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ReasonerKind {
    /// No model: retrieval statistics run every phase (deterministic, offline).
    #[default]
    Builtin,
    /// The OpenAI-compatible endpoint in `[llm]`.
    Llm,
}

/// How a headless run answers an ASK.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum AskPolicy {
    /// Read the answer from stdin when it is a terminal, else take the first option.
    #[default]
    Auto,
    /// Take the first option.
    First,
    /// Stop with an error: the question is ambiguous.
    Fail,
    /// Read the answer from stdin.
    Stdin,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResearchConfig {
    pub preset: Preset,
    /// Pause after every iteration for `step` / `continue`.
    pub step_mode: bool,
    /// Source mode: strict, discovery or monitor.
    pub source_mode: SourceMode,
    pub reasoner: ReasonerKind,
    /// Headless answer policy for ASK.
    pub ask: AskPolicy,
    /// Longest question taken, in characters, by every front end (the CLI,
    /// the TUI, HTTP and MCP): a 40,000-word "question" is refused, not
    /// researched for minutes.
    pub max_question_chars: usize,
}

impl Default for ResearchConfig {
    fn default() -> Self {
        Self {
            preset: Preset::default(),
            step_mode: false,
            source_mode: SourceMode::default(),
            reasoner: ReasonerKind::default(),
            ask: AskPolicy::default(),
            max_question_chars: 10_000,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// `error`, `warn`, `info`, `debug` or `trace` (or a tracing filter).
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self { level: "info".into() }
    }
}

impl Config {
    /// The keyless providers' sections, as the search registry takes them.
    pub fn scholarly(&self) -> ScholarlyConfig {
        ScholarlyConfig {
            wikipedia: self.wikipedia.clone(),
            arxiv: self.arxiv.clone(),
            openalex: self.openalex.clone(),
            semanticscholar: self.semanticscholar.clone(),
            europepmc: self.europepmc.clone(),
        }
    }

    /// `[search] sources` (or `--sources`), when set, decides the chains.
    pub fn with_sources_resolved(mut self) -> Self {
        if let Some(set) = self.search.sources {
            self.search.chains = set.chains(&self.web);
        }
        self
    }

    /// The configuration as recorded in a session header. The config holds
    /// the *names* of environment variables with keys, never keys.
    pub fn snapshot(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}
mod example_test;
