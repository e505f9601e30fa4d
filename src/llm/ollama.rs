//! Ollama's native chat API, for the `ollama_format` structured-output
//! mode: `POST /api/chat` with `format: <JSON schema>`, which Ollama (0.5
//! and later) enforces while decoding. Only JSON calls go here; streamed
//! text (WRITE) stays on the OpenAI-compatible endpoint.

use std::time::Instant;

use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::{Value, json};

use super::endpoint::{ChatReply, ChatRequest, Endpoint, Format};
use super::error::{LlmError, from_reqwest, parse_retry_after, redact};
use crate::resilience::retry;

/// Error bodies kept for the message: Ollama's are one line.
const MAX_ERROR_BYTES: usize = 4096;

/// `http://host:11434/v1` → `http://host:11434/api/chat`: the native API
/// lives beside the OpenAI-compatible one, not under it.
pub fn native_chat_url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base);
    format!("{root}/api/chat")
}

/// The request body: the schema in `format`, the output limit and the
/// temperature in `options` (Ollama's names), minus omitted parameters.
pub fn native_body(ep: &Endpoint, req: &ChatRequest) -> Value {
    let mut options = serde_json::Map::new();
    if !ep.omits("temperature") {
        options.insert("temperature".into(), json!(req.temperature));
    }
    if !ep.omits("max_tokens") {
        options.insert("num_predict".into(), json!(req.max_tokens));
    }
    let mut body = json!({ "model": req.model, "messages": req.messages, "stream": false, "options": options });
    if let (Format::OllamaSchema { schema }, Some(map)) = (&req.format, body.as_object_mut()) {
        map.insert("format".into(), schema.clone());
    }
    body
}

#[derive(Debug, Default, Deserialize)]
struct NativeReply {
    #[serde(default)]
    message: Option<NativeMessage>,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    prompt_eval_count: Option<u64>,
    #[serde(default)]
    eval_count: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct NativeMessage {
    #[serde(default)]
    content: String,
}

impl Endpoint {
    /// One native chat call, retried on transient failures like the
    /// OpenAI-compatible one, within the same call limit and timeout.
    pub(super) async fn chat_ollama(&self, req: &ChatRequest) -> Result<ChatReply, LlmError> {
        let url = native_chat_url(&self.base_url);
        let body = native_body(self, req);
        let started = Instant::now();
        let (result, attempts) = retry(self.policy, || self.ollama_once(&url, &body)).await;
        let reply = result?;
        Ok(ChatReply {
            text: reply.message.map(|m| m.content).unwrap_or_default(),
            prompt_tokens: reply.prompt_eval_count,
            completion_tokens: reply.eval_count,
            cached_tokens: None,
            finish_reason: reply.done_reason,
            attempts,
            latency: started.elapsed(),
        })
    }

    async fn ollama_once(&self, url: &str, body: &Value) -> Result<NativeReply, LlmError> {
        let _permit = self.limit.acquire().await.map_err(|_| LlmError::Protocol {
            url: self.base_url.clone(),
            message: "the endpoint's call limiter was closed".into(),
        })?;
        let mut request = self.http.post(url).timeout(self.timeout).json(body);
        if let Some(key) = &self.secret {
            request = request.bearer_auth(key.expose_secret());
        }
        let secret = self.secret.as_ref();
        let timed_out = || LlmError::Timeout { url: url.to_string(), secs: self.timeout.as_secs().max(1) };
        let response = request
            .send()
            .await
            .map_err(|e| if e.is_timeout() { timed_out() } else { from_reqwest(&e, url, secret) })?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let bytes = response
            .bytes()
            .await
            .map_err(|e| if e.is_timeout() { timed_out() } else { from_reqwest(&e, url, secret) })?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_ERROR_BYTES)]).to_string();
            // Ollama says `{"error": "…"}`; keep just the message when it does.
            let message = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
                .unwrap_or(text);
            return Err(LlmError::Status {
                url: url.to_string(),
                status: status.as_u16(),
                retry_after,
                body: redact(&message, secret),
            });
        }
        serde_json::from_slice::<NativeReply>(&bytes).map_err(|e| LlmError::Protocol {
            url: url.to_string(),
            message: format!(
                "the reply is not an Ollama chat response ({e}); it began: {}",
                redact(&String::from_utf8_lossy(&bytes[..bytes.len().min(200)]), secret)
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::LlmConfig;
    use crate::llm::endpoint::Message;

    #[test]
    fn the_native_api_sits_beside_the_openai_one() {
        assert_eq!(native_chat_url("http://localhost:11434/v1"), "http://localhost:11434/api/chat");
        assert_eq!(native_chat_url("http://localhost:11434/v1/"), "http://localhost:11434/api/chat");
        assert_eq!(native_chat_url("https://h/ollama"), "https://h/ollama/api/chat");
    }

    #[test]
    fn the_schema_goes_in_format_and_limits_in_options() {
        let cfg = LlmConfig { omit_params: vec!["temperature".into()], ..LlmConfig::default() };
        let ep = Endpoint::with_env(&cfg.resolved_endpoints()[0], &cfg, |_| None).unwrap();
        let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
        let req = ChatRequest {
            model: "llama3.1".into(),
            messages: vec![Message::user("hi")],
            format: Format::OllamaSchema { schema: schema.clone() },
            max_tokens: 300,
            temperature: 0.2,
        };
        let body = native_body(&ep, &req);
        assert_eq!(body["format"], schema);
        assert_eq!(body["stream"], false);
        assert_eq!(body["options"]["num_predict"], 300);
        assert!(body["options"].get("temperature").is_none(), "omitted: {body}");
        assert!(body.get("response_format").is_none() && body.get("max_tokens").is_none());
        assert_eq!(body["messages"][0]["content"], "hi");
    }
}
