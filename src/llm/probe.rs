//! Checking endpoints: at start (is each one there? if not, say which URL
//! and how to fix it) and for `sleuth doctor` (models, JSON-schema support,
//! one round trip).

use std::time::Duration;

use serde_json::json;

use super::endpoint::{ChatRequest, Endpoint, Format, Message, model_served};
use super::error::LlmError;
use super::reasoner::LlmReasoner;
use crate::engine::model::Role;

/// What to do about an endpoint that failed its start check.
pub fn start_failure(ep: &Endpoint, key_env: Option<&str>, e: &LlmError) -> String {
    let url = &ep.base_url;
    let builtin = "or research without a model: `sleuth run --reasoner builtin \"…\"` (or research.reasoner = \"builtin\" in the config)";
    match e {
        LlmError::Status { status: 401 | 403, body, .. } => match key_env {
            Some(var) => format!(
                "the LLM endpoint at {url} rejected the API key from ${var} (HTTP {}: {body})\n  fix: put a valid key in {var}, {builtin}",
                e.status().unwrap_or(401)
            ),
            None => format!(
                "the LLM endpoint at {url} wants an API key (HTTP {}: {body})\n  fix: set [llm] api_key_env to the name of the environment variable holding the key, {builtin}",
                e.status().unwrap_or(401)
            ),
        },
        LlmError::Status { status: 404, .. } => format!(
            "the LLM endpoint at {url} answered HTTP 404 to a chat call (and has no /models): is the base URL right? OpenAI-compatible servers usually serve under /v1, e.g. http://localhost:11434/v1 (Ollama), http://localhost:8080/v1 (llama.cpp), http://localhost:8000/v1 (vLLM)\n  fix: correct [llm] base_url, {builtin}"
        ),
        LlmError::Unreachable { message, .. } => format!(
            "cannot reach the LLM endpoint at {url}: {message}\n  fix: start the server (Ollama: `ollama serve`; llama.cpp: `llama-server -m model.gguf --port 8080`; vLLM: `vllm serve MODEL`), or set [llm] base_url to where it runs, {builtin}"
        ),
        LlmError::Timeout { secs, .. } => format!(
            "the LLM endpoint at {url} did not answer within {secs} s\n  fix: check the server is up and not overloaded, or raise llm.connect_timeout_secs, {builtin}"
        ),
        other => {
            format!("the LLM endpoint at {url} failed its check: {other}\n  fix: correct [llm] base_url, {builtin}")
        }
    }
}

/// Every endpoint the roles use answers; else the first failure,
/// explained. `/models` is optional: a server without it (HTTP 404) gets a
/// warning, and one plain chat round trip decides.
pub async fn check_at_start(r: &LlmReasoner) -> Result<(), String> {
    for ep in r.endpoints() {
        match ep.list_models().await {
            Ok(_) => {}
            Err(LlmError::Status { status: 404, .. }) => {
                tracing::warn!(endpoint = %ep.name, url = %ep.base_url, "the endpoint has no /models (HTTP 404); trying a chat call");
                let model = Role::ALL
                    .iter()
                    .map(|role| r.config().role_target(*role))
                    .find(|(name, _)| *name == ep.name)
                    .map_or_else(|| r.config().model.clone(), |(_, m)| m);
                let request = ChatRequest {
                    model,
                    messages: vec![Message::user("Reply with the word ok.")],
                    format: Format::Text,
                    max_tokens: 16,
                    temperature: 0.0,
                };
                if let Err(e) = ep.chat(&request).await {
                    let key_env = r.key_env(&ep.name);
                    return Err(start_failure(ep, key_env.as_deref(), &e));
                }
            }
            Err(e) => {
                let key_env = r.key_env(&ep.name);
                return Err(start_failure(ep, key_env.as_deref(), &e));
            }
        }
        tracing::info!(endpoint = %ep.name, url = %ep.base_url, "LLM endpoint reachable");
    }
    Ok(())
}

/// Whether an endpoint honours `response_format: json_schema`.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaSupport {
    /// Accepted, and the reply matched the schema.
    Supported,
    /// Accepted, but the reply did not match: the server may ignore it.
    Ignored(String),
    /// Refused with a 400-class error naming the response format.
    Rejected(String),
    /// Could not tell (the call failed for another reason).
    Unknown(String),
    /// Not asked: the endpoint is configured never to send the parameter
    /// (`omit_params` names it), so the answer would mean nothing.
    NotProbed(String),
}

/// `sleuth doctor`'s findings about one endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointReport {
    pub name: String,
    pub url: String,
    pub key_env: Option<String>,
    /// `/models` latency, or why it failed.
    pub reachable: Result<Duration, String>,
    pub models: Vec<String>,
    /// (roles, model, served?) — `None` when the endpoint lists no models.
    pub configured: Vec<(Vec<Role>, String, Option<bool>)>,
    pub json_schema: SchemaSupport,
    /// One chat round trip with the fastest configured model.
    pub round_trip: Result<Duration, String>,
}

pub async fn diagnose(r: &LlmReasoner) -> Vec<EndpointReport> {
    let mut out = Vec::new();
    for ep in r.endpoints() {
        let mut configured: Vec<(Vec<Role>, String, Option<bool>)> = Vec::new();
        for role in Role::ALL {
            let (name, model) = r.config().role_target(role);
            if name != ep.name {
                continue;
            }
            match configured.iter_mut().find(|(_, m, _)| *m == model) {
                Some((roles, _, _)) => roles.push(role),
                None => configured.push((vec![role], model, None)),
            }
        }
        let started = std::time::Instant::now();
        let listed = ep.list_models().await;
        let mut report = EndpointReport {
            name: ep.name.clone(),
            url: ep.base_url.clone(),
            key_env: r.key_env(&ep.name),
            reachable: listed.as_ref().map(|_| started.elapsed()).map_err(|e| e.to_string()),
            models: listed.clone().unwrap_or_default(),
            configured,
            json_schema: SchemaSupport::Unknown("the endpoint is not reachable".into()),
            round_trip: Err("not tried: the endpoint is not reachable".into()),
        };
        if let Ok(models) = &listed {
            for (_, model, served) in report.configured.iter_mut() {
                *served = (!models.is_empty()).then(|| model_served(models, model));
            }
            // The review model is the one set up to be fast.
            let model = r.target(Role::Review).1;
            let model = if r.config().role_target(Role::Review).0 == ep.name {
                model
            } else {
                report.configured.first().map(|c| c.1.clone()).unwrap_or(model)
            };
            let (support, round_trip) = schema_probe(ep, &model).await;
            report.json_schema = support;
            report.round_trip = round_trip;
        }
        out.push(report);
    }
    out
}

/// Asks for `{"ok": true}` under a JSON schema; falls back to a plain call
/// for the round trip when the schema is refused. An endpoint that omits
/// `response_format` gets the plain call only.
async fn schema_probe(ep: &Endpoint, model: &str) -> (SchemaSupport, Result<Duration, String>) {
    let schema = json!({
        "type": "object",
        "properties": { "ok": { "type": "boolean" } },
        "required": ["ok"],
        "additionalProperties": false
    });
    let mut request = ChatRequest {
        model: model.to_string(),
        messages: vec![Message::user("Reply with the JSON object {\"ok\": true} and nothing else.")],
        format: Format::JsonSchema { name: "sleuth_probe".into(), schema },
        max_tokens: 256,
        temperature: 0.0,
    };
    if ep.omits("response_format") {
        request.format = Format::Text;
        let round_trip = ep.chat(&request).await.map(|r| r.latency).map_err(|e| e.to_string());
        return (SchemaSupport::NotProbed("response_format omitted".into()), round_trip);
    }
    match ep.chat(&request).await {
        Ok(reply) => {
            let ok = super::structured::parse::<serde_json::Value>(&reply.text)
                .ok()
                .is_some_and(|v| v.get("ok").is_some_and(serde_json::Value::is_boolean));
            let support = if ok { SchemaSupport::Supported } else { SchemaSupport::Ignored(ep.redact(&reply.text)) };
            (support, Ok(reply.latency))
        }
        Err(e) if e.rejects_response_format() => {
            request.format = Format::Text;
            let round_trip = ep.chat(&request).await.map(|r| r.latency).map_err(|e| e.to_string());
            (SchemaSupport::Rejected(e.to_string()), round_trip)
        }
        Err(e) => (SchemaSupport::Unknown(e.to_string()), Err(e.to_string())),
    }
}
