//! The LLM reasoner: any OpenAI-compatible endpoint.

mod config;

pub use config::LlmConfig;
