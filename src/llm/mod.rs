//! The LLM reasoner: any OpenAI-compatible endpoint (OpenAI, Ollama,
//! llama.cpp's server, vLLM, OpenRouter) runs every role of the loop.
//!
//! `endpoint` talks HTTP (async-openai over our `transport`), `prompts` holds
//! the templates, `render` and `compaction` build each role's prompt inside
//! the context window, `structured` turns replies into typed values with
//! bounded repairs, `echo` refuses replies that repeat the instructions, `usage` counts tokens and cost, `reasoner` ties them to
//! the engine's `Reasoner` trait, and `probe` checks endpoints at start and
//! for `sleuth doctor`.

pub mod compaction;
mod config;
pub mod echo;
pub mod endpoint;
pub mod error;
mod ollama;
pub mod probe;
pub mod prompts;
mod reasoner;
mod refine;
pub mod render;
mod role_prompts;
pub mod schema;
pub mod stream;
pub mod structured;
mod transport;
pub mod usage;
pub mod wire;
mod write;

pub use config::{
    DEFAULT_ENDPOINT, EndpointConfig, LlmConfig, OMITTABLE, Price, PromptBudgets, ResolvedEndpoint, RoleModel,
    RoleModels, StructuredMode, validate,
};

pub use reasoner::LlmReasoner;
