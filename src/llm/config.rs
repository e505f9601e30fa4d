use serde::{Deserialize, Serialize};

/// `[llm]`: the OpenAI-compatible endpoint. The API key is never stored
/// here, only the name of the environment variable that holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    pub base_url: String,
    /// Environment variable holding the API key (none for local servers).
    pub api_key_env: Option<String>,
    pub model: String,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self { base_url: "http://localhost:11434/v1".into(), api_key_env: None, model: "llama3.1".into() }
    }
}
