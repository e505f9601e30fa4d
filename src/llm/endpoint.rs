//! One OpenAI-compatible endpoint: an async-openai client over our
//! transport, a bound on calls in flight, a timeout on every call, retries
//! with backoff and jitter that honour `Retry-After`, and the structured-output
//! mode it accepts (lowered at run time when it rejects one).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use async_openai::Client;
use futures::StreamExt;
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::config::{LlmConfig, ResolvedEndpoint, StructuredMode};
use super::error::{LlmError, SetupError, from_openai, redact};
use super::transport::{EndpointAuth, Transport};
use crate::resilience::{RetryPolicy, retry};

/// One chat message.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: "system", content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: "user", content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: "assistant", content: content.into() }
    }
}

/// How the reply's JSON shape is enforced for one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Format {
    Text,
    JsonObject,
    JsonSchema {
        name: String,
        schema: Value,
    },
    /// Ollama's native `/api/chat` with `format: <schema>` (see `ollama`).
    OllamaSchema {
        schema: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub format: Format,
    pub max_tokens: u32,
    pub temperature: f64,
}

/// A completed call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatReply {
    pub text: String,
    /// As reported by the endpoint; `None` when it sent no usage.
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Prompt tokens the server served from its prefix cache, when it says.
    pub cached_tokens: Option<u64>,
    pub finish_reason: Option<String>,
    /// HTTP attempts made (retries included).
    pub attempts: u32,
    pub latency: Duration,
}

#[derive(Debug, Default, Deserialize)]
struct WireResponse {
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Default, Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    delta: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    /// OpenAI and vLLM: `prompt_tokens_details.cached_tokens`.
    #[serde(default)]
    prompt_tokens_details: Option<WirePromptDetails>,
    /// llama.cpp's server reports its cache hits in `timings`, not here.
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct WirePromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl WireUsage {
    fn cached(&self) -> Option<u64> {
        self.prompt_tokens_details.as_ref().and_then(|d| d.cached_tokens).or(self.cached_tokens)
    }
}

/// Message content as text: a string, or the text parts of a list.
fn content_text(v: &Option<Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct ModelList {
    #[serde(default)]
    data: Vec<ModelEntry>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct ModelEntry {
    id: String,
}

pub struct Endpoint {
    pub name: String,
    pub base_url: String,
    pub context_window: u32,
    client: Client<EndpointAuth>,
    /// The plain HTTP client, for Ollama's native API.
    pub(super) http: reqwest::Client,
    pub(super) secret: Option<SecretString>,
    pub(super) limit: Arc<Semaphore>,
    pub(super) timeout: Duration,
    connect_timeout: Duration,
    pub(super) policy: RetryPolicy,
    mode: AtomicU8,
    pub(super) omit: HashSet<String>,
    max_tokens_param: String,
}

impl Endpoint {
    /// Builds the client; reads the API key from the environment.
    pub fn new(e: &ResolvedEndpoint, cfg: &LlmConfig) -> Result<Self, SetupError> {
        Self::with_env(e, cfg, |var| std::env::var(var).ok())
    }

    pub fn with_env(
        e: &ResolvedEndpoint,
        cfg: &LlmConfig,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SetupError> {
        let secret = match &e.api_key_env {
            None => None,
            Some(var) => {
                let key_name = if e.name == super::config::DEFAULT_ENDPOINT {
                    "llm.api_key_env".to_string()
                } else {
                    format!("llm.endpoints.{}.api_key_env", e.name)
                };
                let value = env(var).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
                let value = value.ok_or_else(|| SetupError::MissingKey { var: var.clone(), key: key_name })?;
                if value.chars().any(|c| c.is_control() || !c.is_ascii()) {
                    return Err(SetupError::BadKey { var: var.clone() });
                }
                Some(SecretString::from(value))
            }
        };
        let connect_timeout = Duration::from_secs(cfg.connect_timeout_secs.max(1));
        crate::tls::install_crypto_provider();
        let http = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|err| SetupError::Http { url: e.base_url.clone(), message: err.to_string() })?;
        let client = Client::build(http.clone(), EndpointAuth::new(&e.base_url, secret.clone()))
            .with_http_service(Transport::new(http.clone()));
        Ok(Self {
            name: e.name.clone(),
            base_url: e.base_url.clone(),
            context_window: e.context_window,
            client,
            http,
            secret,
            limit: Arc::new(Semaphore::new(e.concurrency.max(1))),
            timeout: Duration::from_secs(e.timeout_secs.max(1)),
            connect_timeout,
            policy: RetryPolicy::new(cfg.attempts, cfg.backoff_min_ms, cfg.backoff_max_ms, cfg.retry_after_max_secs),
            // Without `response_format` the schema can only go in the prompt.
            mode: AtomicU8::new(mode_code(if e.omit_params.iter().any(|p| p == "response_format") {
                StructuredMode::Prompt
            } else {
                e.structured_output
            })),
            omit: e.omit_params.iter().cloned().collect(),
            max_tokens_param: e.max_tokens_param.clone(),
        })
    }

    /// Replaces the call timeout (tests use sub-second ones).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// True when `omit_params` names `param`: it is never sent.
    pub fn omits(&self, param: &str) -> bool {
        self.omit.contains(param)
    }

    pub fn has_key(&self) -> bool {
        self.secret.is_some()
    }

    /// Server text made safe to keep: the key removed, shortened.
    pub fn redact(&self, text: &str) -> String {
        redact(text, self.secret.as_ref())
    }

    pub fn mode(&self) -> StructuredMode {
        mode_of(self.mode.load(Ordering::Relaxed))
    }

    /// Starts in `mode` when it is weaker than the one in force (a mode
    /// doctor found); a stronger one is never assumed.
    pub fn start_in(&self, mode: StructuredMode) {
        if mode > self.mode() {
            self.mode.store(mode_code(mode), Ordering::Relaxed);
        }
    }

    /// Moves to the next weaker mode after the endpoint rejected `from`;
    /// returns the mode now in force.
    pub fn lower_mode(&self, from: StructuredMode) -> Option<StructuredMode> {
        let to = from.weaker()?;
        let _ = self.mode.compare_exchange(mode_code(from), mode_code(to), Ordering::Relaxed, Ordering::Relaxed);
        tracing::warn!(endpoint = %self.name, from = from.as_str(), to = self.mode().as_str(), "structured-output mode rejected; lowering it");
        Some(self.mode())
    }

    /// The request body, minus the parameters this endpoint is told to omit.
    pub fn body(&self, req: &ChatRequest, stream: bool) -> Value {
        let mut body = json!({ "model": req.model, "messages": req.messages });
        let map = body.as_object_mut();
        let Some(map) = map else { return body };
        if !self.omit.contains("temperature") {
            map.insert("temperature".into(), json!(req.temperature));
        }
        if !self.omit.contains("max_tokens") {
            map.insert(self.max_tokens_param.clone(), json!(req.max_tokens));
        }
        if !self.omit.contains("response_format") {
            match &req.format {
                Format::Text => {}
                Format::JsonObject => {
                    map.insert("response_format".into(), json!({ "type": "json_object" }));
                }
                // A streamed call in Ollama's mode goes through the
                // OpenAI-compatible endpoint, which maps json_schema onto
                // the same `format`.
                Format::OllamaSchema { schema } => {
                    map.insert(
                        "response_format".into(),
                        json!({ "type": "json_schema", "json_schema": { "name": "reply", "schema": schema } }),
                    );
                }
                Format::JsonSchema { name, schema } => {
                    map.insert(
                        "response_format".into(),
                        json!({ "type": "json_schema", "json_schema": { "name": name, "schema": schema, "strict": true } }),
                    );
                }
            }
        }
        if stream {
            map.insert("stream".into(), json!(true));
            if !self.omit.contains("stream_options") {
                map.insert("stream_options".into(), json!({ "include_usage": true }));
            }
        }
        body
    }

    /// One chat completion, retried on transient failures.
    pub async fn chat(&self, req: &ChatRequest) -> Result<ChatReply, LlmError> {
        if matches!(req.format, Format::OllamaSchema { .. }) {
            return self.chat_ollama(req).await;
        }
        let body = self.body(req, false);
        let started = Instant::now();
        let (result, attempts) = retry(self.policy, || self.chat_once(&body)).await;
        let wire = result?;
        let choice = wire.choices.into_iter().next().ok_or_else(|| LlmError::Protocol {
            url: self.base_url.clone(),
            message: "the reply has no choices".into(),
        })?;
        let usage = wire.usage.unwrap_or_default();
        Ok(ChatReply {
            text: content_text(&choice.message.unwrap_or_default().content),
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            cached_tokens: usage.cached(),
            finish_reason: choice.finish_reason,
            attempts,
            latency: started.elapsed(),
        })
    }

    async fn chat_once(&self, body: &Value) -> Result<WireResponse, LlmError> {
        let _permit = self.limit.acquire().await.map_err(|_| self.closed())?;
        let chat = self.client.chat();
        match tokio::time::timeout(self.timeout, chat.create_byot::<&Value, WireResponse>(body)).await {
            Err(_) => Err(self.timed_out()),
            Ok(r) => r.map_err(|e| from_openai(e, &self.base_url, self.secret.as_ref())),
        }
    }

    /// A streamed chat completion: `on_text` gets each piece of content as
    /// it arrives. Opening the stream is retried; a stream that breaks
    /// midway is not (its text was already shown).
    pub async fn chat_stream(&self, req: &ChatRequest, mut on_text: impl FnMut(&str)) -> Result<ChatReply, LlmError> {
        let body = self.body(req, true);
        let started = Instant::now();
        let (opened, attempts) = retry(self.policy, || async {
            let permit = self.limit.clone().acquire_owned().await.map_err(|_| self.closed())?;
            let chat = self.client.chat();
            match tokio::time::timeout(self.timeout, chat.create_stream_byot::<&Value, WireResponse>(&body)).await {
                Err(_) => Err(self.timed_out()),
                Ok(r) => r.map(|s| (s, permit)).map_err(|e| from_openai(e, &self.base_url, self.secret.as_ref())),
            }
        })
        .await;
        let (mut stream, _permit) = opened?;
        let mut reply = ChatReply { attempts, ..ChatReply::default() };
        loop {
            let next = match tokio::time::timeout(self.timeout, stream.next()).await {
                Err(_) => return Err(self.timed_out()),
                Ok(None) => break,
                Ok(Some(chunk)) => chunk.map_err(|e| from_openai(e, &self.base_url, self.secret.as_ref()))?,
            };
            if let Some(u) = next.usage {
                reply.prompt_tokens = u.prompt_tokens.or(reply.prompt_tokens);
                reply.completion_tokens = u.completion_tokens.or(reply.completion_tokens);
                reply.cached_tokens = u.cached().or(reply.cached_tokens);
            }
            for choice in next.choices {
                let piece = content_text(&choice.delta.or(choice.message).unwrap_or_default().content);
                if !piece.is_empty() {
                    on_text(&piece);
                    reply.text.push_str(&piece);
                }
                if choice.finish_reason.is_some() {
                    reply.finish_reason = choice.finish_reason;
                }
            }
        }
        reply.latency = started.elapsed();
        Ok(reply)
    }

    /// The models the endpoint serves (one attempt, connect-timeout bound).
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let models = self.client.models();
        let limit = self.connect_timeout + self.timeout.min(Duration::from_secs(10));
        let list = match tokio::time::timeout(limit, models.list_byot::<ModelList>()).await {
            // The message names the wait that actually passed.
            Err(_) => return Err(LlmError::Timeout { url: self.base_url.clone(), secs: limit.as_secs().max(1) }),
            Ok(r) => r.map_err(|e| from_openai(e, &self.base_url, self.secret.as_ref()))?,
        };
        Ok(list.data.into_iter().map(|m| m.id).collect())
    }

    fn timed_out(&self) -> LlmError {
        LlmError::Timeout { url: self.base_url.clone(), secs: self.timeout.as_secs().max(1) }
    }

    fn closed(&self) -> LlmError {
        LlmError::Protocol { url: self.base_url.clone(), message: "the endpoint's call limiter was closed".into() }
    }
}

/// Whether `wanted` is among `served`, also matching Ollama's `:latest`
/// tag and OpenRouter-style `vendor/` prefixes case-insensitively.
pub fn model_served(served: &[String], wanted: &str) -> bool {
    let norm = |s: &str| s.trim().to_lowercase().trim_end_matches(":latest").to_string();
    let w = norm(wanted);
    served.iter().any(|s| norm(s) == w)
}

fn mode_code(m: StructuredMode) -> u8 {
    match m {
        StructuredMode::JsonSchema => 0,
        StructuredMode::OllamaFormat => 1,
        StructuredMode::JsonObject => 2,
        StructuredMode::Prompt => 3,
    }
}

fn mode_of(code: u8) -> StructuredMode {
    match code {
        0 => StructuredMode::JsonSchema,
        1 => StructuredMode::OllamaFormat,
        2 => StructuredMode::JsonObject,
        _ => StructuredMode::Prompt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(omit: &[&str]) -> Endpoint {
        let cfg = LlmConfig { omit_params: omit.iter().map(|s| s.to_string()).collect(), ..LlmConfig::default() };
        let e = cfg.resolved_endpoints().remove(0);
        Endpoint::with_env(&e, &cfg, |_| None).unwrap()
    }

    fn request() -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![Message::user("hi")],
            format: Format::JsonSchema { name: "x".into(), schema: json!({"type": "object"}) },
            max_tokens: 100,
            temperature: 0.2,
        }
    }

    #[test]
    fn omitted_parameters_are_left_out() {
        let full = endpoint(&[]).body(&request(), true);
        assert!(full.get("temperature").is_some() && full.get("max_tokens").is_some());
        assert_eq!(full["response_format"]["type"], "json_schema");
        assert_eq!(full["stream_options"]["include_usage"], true);
        let lean_endpoint = endpoint(&["temperature", "max_tokens", "stream_options", "response_format"]);
        assert_eq!(lean_endpoint.mode(), StructuredMode::Prompt);
        let lean = lean_endpoint.body(&request(), true);
        for k in ["temperature", "max_tokens", "stream_options", "response_format"] {
            assert!(lean.get(k).is_none(), "{k} should be omitted: {lean}");
        }
        assert_eq!(lean["stream"], true);
    }

    #[test]
    fn missing_key_names_the_variable() {
        let cfg = LlmConfig { api_key_env: Some("SLEUTH_TEST_NO_SUCH_KEY".into()), ..LlmConfig::default() };
        let e = cfg.resolved_endpoints().remove(0);
        let err = Endpoint::with_env(&e, &cfg, |_| None).err().unwrap().to_string();
        assert!(err.contains("SLEUTH_TEST_NO_SUCH_KEY") && err.contains("llm.api_key_env"), "{err}");
        let bad = Endpoint::with_env(&e, &cfg, |_| Some("sk-abc\ndef".into())).err().unwrap();
        assert_eq!(bad, SetupError::BadKey { var: "SLEUTH_TEST_NO_SUCH_KEY".into() });
    }

    #[test]
    fn modes_are_lowered_one_step_at_a_time() {
        let e = endpoint(&[]);
        assert_eq!(e.mode(), StructuredMode::JsonSchema);
        assert_eq!(e.lower_mode(StructuredMode::JsonSchema), Some(StructuredMode::JsonObject));
        // A second caller that saw the old mode does not skip a step.
        assert_eq!(e.lower_mode(StructuredMode::JsonSchema), Some(StructuredMode::JsonObject));
        assert_eq!(e.lower_mode(StructuredMode::JsonObject), Some(StructuredMode::Prompt));
        assert_eq!(e.lower_mode(StructuredMode::Prompt), None);
    }

    #[test]
    fn served_models_match_loosely() {
        let served = vec!["llama3.1:latest".to_string(), "gpt-4o-mini".to_string()];
        assert!(model_served(&served, "llama3.1"));
        assert!(model_served(&served, "GPT-4o-mini"));
        assert!(!model_served(&served, "llama3.2"));
    }
}
