//! `[llm]`: the OpenAI-compatible endpoint(s), the model per role, how
//! structured output is asked for, limits and prices. API keys are never
//! stored here, only the names of the environment variables that hold them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engine::model::Role;

/// How a role's JSON reply is asked for. Endpoints that reject a mode are
/// moved down this list at run time (json_schema → json_object → prompt).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMode {
    /// `response_format: {type: json_schema}`: the server constrains decoding.
    #[default]
    JsonSchema,
    /// Ollama's native `/api/chat` with `format: <schema>`: Ollama constrains
    /// decoding with the schema (for Ollama versions whose OpenAI-compatible
    /// endpoint ignores json_schema). Never reached by lowering on its own:
    /// picked by `sleuth doctor`'s probe, or set in the config.
    OllamaFormat,
    /// `response_format: {type: json_object}` plus the schema in the prompt.
    JsonObject,
    /// No `response_format`; the schema is in the prompt.
    Prompt,
}

impl StructuredMode {
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredMode::JsonSchema => "json_schema",
            StructuredMode::OllamaFormat => "ollama_format",
            StructuredMode::JsonObject => "json_object",
            StructuredMode::Prompt => "prompt",
        }
    }

    /// The server constrains decoding to the schema, so the prompt need not
    /// carry it.
    pub fn constrains_decoding(self) -> bool {
        matches!(self, StructuredMode::JsonSchema | StructuredMode::OllamaFormat)
    }

    /// The next, more tolerant mode. json_schema goes to json_object, not to
    /// ollama_format: a server that refused json_schema is not assumed to
    /// be Ollama.
    pub fn weaker(self) -> Option<StructuredMode> {
        match self {
            StructuredMode::JsonSchema | StructuredMode::OllamaFormat => Some(StructuredMode::JsonObject),
            StructuredMode::JsonObject => Some(StructuredMode::Prompt),
            StructuredMode::Prompt => None,
        }
    }
}

/// Request parameters a model may reject; each can be left out by config.
pub const OMITTABLE: &[&str] = &["temperature", "max_tokens", "stream_options", "response_format"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// The default endpoint, e.g. `http://localhost:11434/v1` (Ollama).
    pub base_url: String,
    /// Environment variable holding the API key (none for local servers).
    pub api_key_env: Option<String>,
    /// The model every role uses unless `[llm.roles]` says otherwise.
    pub model: String,
    /// Model (and optionally endpoint) per role.
    pub roles: RoleModels,
    /// More endpoints, by name, for roles that run elsewhere.
    pub endpoints: BTreeMap<String, EndpointConfig>,
    pub structured_output: StructuredMode,
    /// Times a malformed reply is sent back with its parse error.
    pub max_repairs: u32,
    /// Request parameters to leave out (see `OMITTABLE`).
    pub omit_params: Vec<String>,
    /// The request field carrying the output limit: `max_tokens` or
    /// `max_completion_tokens` (newer OpenAI models).
    pub max_tokens_param: String,
    pub temperature: f64,
    /// Output tokens asked for per reply (also reserved in every prompt).
    pub max_output_tokens: u32,
    /// The model's context window in tokens: every prompt is fitted into it.
    pub context_window: u32,
    /// A prompt uses at most this many tokens even when the window is
    /// larger (a 128k window filled on every call is slow and costly); 0: the window only.
    pub max_prompt_tokens: u32,
    /// Per model call (a stream: the longest silence between chunks).
    pub timeout_secs: u64,
    pub connect_timeout_secs: u64,
    /// Model calls in flight at once, per endpoint.
    pub concurrency: usize,
    /// Attempts per call on 429, 5xx, timeouts and connection errors.
    pub attempts: u32,
    pub backoff_min_ms: u64,
    pub backoff_max_ms: u64,
    /// A server's `Retry-After` is honoured up to this.
    pub retry_after_max_secs: u64,
    /// Stream WRITE token by token.
    pub stream_write: bool,
    /// USD per million tokens, by model name.
    pub pricing: BTreeMap<String, Price>,
    /// REVIEW asks the model (true), or is decided without one from the
    /// retrieval evidence and the built-in checks (false: no review call).
    pub review_with_model: bool,
    /// WRITE asks the model for the report (true: a rewritten report, one
    /// call more on the critical path), or the report is the best draft as
    /// the model wrote it, whose claims are already checked (false, the
    /// default: no call, the draft's wording).
    pub write_with_model: bool,
    /// REFINE asks the model for the next queries (true), or takes them from
    /// the gaps the draft's check named (false, the default: no call; the
    /// built-in refinement fills the rest of the preset's queries).
    pub refine_with_model: bool,
    /// DRAFT judges its own answer in the same reply (verdict, aspects,
    /// gaps, relevance): CRITIQUE then costs no call. Off: a separate,
    /// compact critique call (the claims and their quotes, not the sources).
    pub self_check: bool,
    /// Put the system prompt at the head of the first user message, for
    /// chat templates that drop system messages (llama-cpp-python's
    /// `--chat_format gemma`).
    pub fold_system_prompt: bool,
    /// Longest list a reply may hold (`maxItems` of claims, issues,
    /// aspects; plans are held to the preset's query count).
    pub max_list_items: u32,
    /// Prompt tokens per call, by role: the passages that matter, not the
    /// window.
    pub prompt_tokens: PromptBudgets,
}

/// Prompt tokens (system and user message together) per call of a role;
/// 0 leaves only `context_window` and `max_prompt_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PromptBudgets {
    pub plan: u32,
    pub review: u32,
    pub draft: u32,
    pub critique: u32,
    pub write: u32,
    pub clarify: u32,
}

impl Default for PromptBudgets {
    fn default() -> Self {
        Self { plan: 1500, review: 2500, draft: 3000, critique: 1500, write: 3000, clarify: 800 }
    }
}

impl PromptBudgets {
    pub fn get(&self, role: Role) -> u32 {
        match role {
            Role::Plan => self.plan,
            Role::Review => self.review,
            Role::Draft => self.draft,
            Role::Critique => self.critique,
            Role::Write => self.write,
            Role::Clarify => self.clarify,
        }
    }
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            base_url: "http://localhost:11434/v1".into(),
            api_key_env: None,
            model: "llama3.1".into(),
            roles: RoleModels::default(),
            endpoints: BTreeMap::new(),
            structured_output: StructuredMode::JsonSchema,
            max_repairs: 2,
            omit_params: Vec::new(),
            max_tokens_param: "max_tokens".into(),
            temperature: 0.2,
            max_output_tokens: 2048,
            context_window: 8192,
            max_prompt_tokens: 16000,
            timeout_secs: 180,
            connect_timeout_secs: 5,
            concurrency: 4,
            attempts: 3,
            backoff_min_ms: 500,
            backoff_max_ms: 8000,
            retry_after_max_secs: 60,
            stream_write: true,
            pricing: BTreeMap::new(),
            review_with_model: false,
            write_with_model: false,
            refine_with_model: false,
            self_check: true,
            fold_system_prompt: false,
            max_list_items: 8,
            prompt_tokens: PromptBudgets::default(),
        }
    }
}

/// A further endpoint; unset fields take the `[llm]` value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EndpointConfig {
    pub base_url: String,
    pub api_key_env: Option<String>,
    pub structured_output: Option<StructuredMode>,
    pub omit_params: Option<Vec<String>>,
    pub max_tokens_param: Option<String>,
    pub context_window: Option<u32>,
    pub timeout_secs: Option<u64>,
    pub concurrency: Option<usize>,
}

/// `review = "llama3.2:3b"` or `review = { endpoint = "local", model = "llama3.2:3b" }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RoleModel {
    Model(String),
    On { endpoint: String, model: String },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoleModels {
    pub plan: Option<RoleModel>,
    pub review: Option<RoleModel>,
    pub draft: Option<RoleModel>,
    pub critique: Option<RoleModel>,
    pub write: Option<RoleModel>,
    pub clarify: Option<RoleModel>,
}

impl RoleModels {
    pub fn get(&self, role: Role) -> Option<&RoleModel> {
        match role {
            Role::Plan => self.plan.as_ref(),
            Role::Review => self.review.as_ref(),
            Role::Draft => self.draft.as_ref(),
            Role::Critique => self.critique.as_ref(),
            Role::Write => self.write.as_ref(),
            Role::Clarify => self.clarify.as_ref(),
        }
    }
}

/// USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// The name of the default endpoint in messages and `sleuth doctor`.
pub const DEFAULT_ENDPOINT: &str = "default";

/// An endpoint with every setting resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedEndpoint {
    pub name: String,
    pub base_url: String,
    pub api_key_env: Option<String>,
    pub structured_output: StructuredMode,
    pub omit_params: Vec<String>,
    pub max_tokens_param: String,
    pub context_window: u32,
    pub timeout_secs: u64,
    pub concurrency: usize,
}

impl LlmConfig {
    /// The default endpoint first, then the named ones.
    pub fn resolved_endpoints(&self) -> Vec<ResolvedEndpoint> {
        let mut out = vec![ResolvedEndpoint {
            name: DEFAULT_ENDPOINT.into(),
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            structured_output: self.structured_output,
            omit_params: self.omit_params.clone(),
            max_tokens_param: self.max_tokens_param.clone(),
            context_window: self.context_window,
            timeout_secs: self.timeout_secs,
            concurrency: self.concurrency,
        }];
        for (name, e) in &self.endpoints {
            out.push(ResolvedEndpoint {
                name: name.clone(),
                base_url: e.base_url.clone(),
                api_key_env: e.api_key_env.clone(),
                structured_output: e.structured_output.unwrap_or(self.structured_output),
                omit_params: e.omit_params.clone().unwrap_or_else(|| self.omit_params.clone()),
                max_tokens_param: e.max_tokens_param.clone().unwrap_or_else(|| self.max_tokens_param.clone()),
                context_window: e.context_window.unwrap_or(self.context_window),
                timeout_secs: e.timeout_secs.unwrap_or(self.timeout_secs),
                concurrency: e.concurrency.unwrap_or(self.concurrency),
            });
        }
        out
    }

    /// (endpoint name, model) for a role.
    pub fn role_target(&self, role: Role) -> (String, String) {
        match self.roles.get(role) {
            None => (DEFAULT_ENDPOINT.into(), self.model.clone()),
            Some(RoleModel::Model(m)) => (DEFAULT_ENDPOINT.into(), m.clone()),
            Some(RoleModel::On { endpoint, model }) => (endpoint.clone(), model.clone()),
        }
    }

    pub fn price(&self, model: &str) -> Option<Price> {
        self.pricing.get(model).copied()
    }
}

/// Checks the `[llm]` section; (dotted key, message) for each problem.
pub fn validate(c: &LlmConfig) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let mut url = |key: String, u: &str| {
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            v.push((key, format!("must be an http:// or https:// URL, e.g. http://localhost:11434/v1 (got `{u}`)")));
        }
    };
    url("llm.base_url".into(), &c.base_url);
    for (name, e) in &c.endpoints {
        url(format!("llm.endpoints.{name}.base_url"), &e.base_url);
    }
    let mut check_params = |key: String, params: &[String], max_param: &str| {
        for p in params {
            if !OMITTABLE.contains(&p.as_str()) {
                v.push((
                    key.clone(),
                    format!("unknown parameter `{p}`; these can be left out: {}", OMITTABLE.join(", ")),
                ));
            }
        }
        if max_param != "max_tokens" && max_param != "max_completion_tokens" {
            v.push((
                key.clone(),
                format!("max_tokens_param must be max_tokens or max_completion_tokens (got `{max_param}`)"),
            ));
        }
    };
    check_params("llm.omit_params".into(), &c.omit_params, &c.max_tokens_param);
    for (name, e) in &c.endpoints {
        let params = e.omit_params.clone().unwrap_or_default();
        check_params(format!("llm.endpoints.{name}"), &params, e.max_tokens_param.as_deref().unwrap_or("max_tokens"));
    }
    if c.model.trim().is_empty() {
        v.push(("llm.model".into(), "must name a model, e.g. \"llama3.1\" or \"gpt-4o-mini\"".into()));
    }
    for role in Role::ALL {
        if let Some(RoleModel::On { endpoint, .. }) = c.roles.get(role)
            && endpoint != DEFAULT_ENDPOINT
            && !c.endpoints.contains_key(endpoint)
        {
            v.push((
                format!("llm.roles.{role}"),
                format!("names endpoint `{endpoint}`, which no [llm.endpoints.{endpoint}] section defines"),
            ));
        }
    }
    for e in c.resolved_endpoints() {
        let key = |k: &str| {
            if e.name == DEFAULT_ENDPOINT { format!("llm.{k}") } else { format!("llm.endpoints.{}.{k}", e.name) }
        };
        if e.context_window < 1024 {
            v.push((key("context_window"), format!("must be at least 1024 tokens (got {})", e.context_window)));
        } else if u64::from(c.max_output_tokens) * 2 > u64::from(e.context_window) {
            v.push((
                key("context_window"),
                format!(
                    "must be at least twice llm.max_output_tokens ({}) to leave room for sources (got {})",
                    c.max_output_tokens, e.context_window
                ),
            ));
        }
        if e.concurrency == 0 {
            v.push((key("concurrency"), "must be at least 1".into()));
        }
        if e.timeout_secs == 0 {
            v.push((key("timeout_secs"), "must be at least 1".into()));
        }
    }
    if c.max_output_tokens < 256 {
        v.push(("llm.max_output_tokens".into(), format!("must be at least 256 (got {})", c.max_output_tokens)));
    }
    if c.attempts == 0 {
        v.push(("llm.attempts".into(), "must be at least 1".into()));
    }
    if c.max_list_items == 0 {
        v.push(("llm.max_list_items".into(), "must be at least 1".into()));
    }
    if c.max_repairs > 10 {
        v.push(("llm.max_repairs".into(), format!("must be at most 10 (got {})", c.max_repairs)));
    }
    if !(0.0..=2.0).contains(&c.temperature) {
        v.push(("llm.temperature".into(), format!("must be between 0 and 2 (got {})", c.temperature)));
    }
    for (model, p) in &c.pricing {
        if !(p.input >= 0.0 && p.output >= 0.0) {
            v.push((format!("llm.pricing.{model}"), "prices must not be negative".into()));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(validate(&LlmConfig::default()), vec![]);
    }

    #[test]
    fn roles_pick_models_and_endpoints() {
        let c: LlmConfig = toml::from_str(
            r#"
            model = "big"
            [roles]
            review = "small"
            critique = { endpoint = "local", model = "tiny" }
            [endpoints.local]
            base_url = "http://127.0.0.1:8080/v1"
            context_window = 4096
            "#,
        )
        .unwrap();
        assert_eq!(c.role_target(Role::Plan), ("default".into(), "big".into()));
        assert_eq!(c.role_target(Role::Review), ("default".into(), "small".into()));
        assert_eq!(c.role_target(Role::Critique), ("local".into(), "tiny".into()));
        let eps = c.resolved_endpoints();
        assert_eq!(eps[1].context_window, 4096);
        assert_eq!(eps[1].concurrency, c.concurrency);
        assert_eq!(validate(&c), vec![]);
    }

    /// The `[llm]` lines of `config.toml.example`, uncommented, are the defaults
    /// plus the sample roles and prices (the endpoint kinds stay `##` comments).
    #[test]
    fn the_example_documents_every_key_with_its_default() {
        let text = include_str!("../../config.toml.example");
        let active: String = text
            .lines()
            .map(|l| match l.trim_start().strip_prefix("# ") {
                Some(rest) if rest.contains(" = ") && !rest.starts_with('#') => {
                    rest.split("  #").next().unwrap_or(rest).trim_end().to_string()
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let cfg: crate::config::Config = toml::from_str(&active).unwrap();
        let mut got = cfg.llm.clone();
        assert_eq!(got.roles.plan, Some(RoleModel::Model("gpt-4o".into())));
        assert_eq!(got.roles.review, Some(RoleModel::Model("gpt-4o-mini".into())));
        assert_eq!(got.price("gpt-4o-mini"), Some(Price { input: 0.15, output: 0.60 }));
        got.roles = RoleModels::default();
        got.pricing.clear();
        got.api_key_env = None;
        assert_eq!(got, LlmConfig::default());
        for key in [
            "base_url",
            "api_key_env",
            "model",
            "structured_output",
            "max_repairs",
            "omit_params",
            "max_tokens_param",
            "temperature",
            "max_output_tokens",
            "context_window",
            "timeout_secs",
            "connect_timeout_secs",
            "concurrency",
            "attempts",
            "backoff_min_ms",
            "backoff_max_ms",
            "retry_after_max_secs",
            "stream_write",
            "review_with_model",
            "write_with_model",
            "refine_with_model",
            "self_check",
            "fold_system_prompt",
            "max_list_items",
            "prompt_tokens",
        ] {
            assert!(text.contains(&format!("# {key} = ")), "config.toml.example does not document llm.{key}");
        }
    }

    #[test]
    fn bad_values_name_their_keys() {
        let mut c = LlmConfig {
            base_url: "localhost:11434".into(),
            omit_params: vec!["temprature".into()],
            context_window: 2048,
            ..LlmConfig::default()
        };
        c.roles.write = Some(RoleModel::On { endpoint: "nowhere".into(), model: "m".into() });
        let keys: Vec<String> = validate(&c).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec!["llm.base_url", "llm.omit_params", "llm.roles.write", "llm.context_window"]);
    }
}
