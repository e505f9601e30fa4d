//! Checking endpoints: at start (is each one there? if not, say which URL
//! and how to fix it) and for `sleuth doctor` (models, JSON-schema support,
//! one round trip).

use std::time::Duration;

use serde_json::json;

use super::config::StructuredMode;
use super::endpoint::{ChatRequest, Endpoint, Format, Message, model_served};
use super::error::LlmError;
use super::reasoner::LlmReasoner;
use crate::engine::model::Role;

/// What to do about an endpoint nobody answers at (`run` at its start
/// check and `doctor` both say it).
pub const START_THE_SERVER: &str = "start the server (Ollama: `ollama serve`; llama.cpp: `llama-server -m model.gguf --port 8080`; vLLM: `vllm serve MODEL`), or set [llm] base_url to where it runs";

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
        LlmError::Unreachable { message, .. } => {
            format!("cannot reach the LLM endpoint at {url}: {message}\n  fix: {START_THE_SERVER}, {builtin}")
        }
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
    /// Each structured-output mode tried, strongest first: whether the
    /// reply matched the schema (or why not).
    pub modes: Vec<(StructuredMode, Result<(), String>)>,
    /// The mode a run will start with: the strongest that worked.
    pub chosen: Option<StructuredMode>,
    /// The model ignored an instruction given only in the system message
    /// (chat templates that drop it): `fold_system_prompt = true` helps.
    pub drops_system: bool,
    /// One plain chat round trip with the fastest configured model.
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
        // A server without /models (HTTP 404) may still chat: the probes decide.
        let no_models = matches!(listed, Err(LlmError::Status { status: 404, .. }));
        let mut report = EndpointReport {
            name: ep.name.clone(),
            url: ep.base_url.clone(),
            key_env: r.key_env(&ep.name),
            reachable: listed.as_ref().map(|_| started.elapsed()).map_err(|e| e.to_string()),
            models: listed.clone().unwrap_or_default(),
            configured,
            json_schema: SchemaSupport::Unknown("the endpoint is not reachable".into()),
            modes: Vec::new(),
            chosen: None,
            drops_system: false,
            round_trip: Err("not tried: the endpoint is not reachable".into()),
        };
        if listed.is_ok() || no_models {
            let models = listed.clone().unwrap_or_default();
            for (_, model, served) in report.configured.iter_mut() {
                *served = (!models.is_empty()).then(|| model_served(&models, model));
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
            if report.round_trip.is_ok() {
                report.modes = mode_probes(ep, &model, &report.json_schema).await;
                report.chosen = report.modes.iter().find(|(_, r)| r.is_ok()).map(|(m, _)| *m);
                report.drops_system = drops_system(ep, &model).await;
            }
        }
        out.push(report);
    }
    out
}

fn probe_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": { "ok": { "type": "boolean" } },
        "required": ["ok"],
        "additionalProperties": false
    })
}

fn replied_ok(text: &str) -> bool {
    super::structured::parse::<serde_json::Value>(text)
        .ok()
        .is_some_and(|v| v.get("ok").is_some_and(serde_json::Value::is_boolean))
}

/// Each mode from json_schema down: json_schema's result comes from the
/// schema probe; ollama_format asks Ollama's native API with the schema in
/// `format`; json_object and prompt put the schema in the prompt, as a run
/// does.
async fn mode_probes(ep: &Endpoint, model: &str, schema: &SchemaSupport) -> Vec<(StructuredMode, Result<(), String>)> {
    let mut out = Vec::new();
    out.push((
        StructuredMode::JsonSchema,
        match schema {
            SchemaSupport::Supported => Ok(()),
            SchemaSupport::Ignored(r) => Err(format!("reply did not match: {r}")),
            SchemaSupport::Rejected(e) | SchemaSupport::Unknown(e) => Err(e.clone()),
            SchemaSupport::NotProbed(why) => Err(format!("not probed ({why})")),
        },
    ));
    // Ollama's native API, asked only when json_schema did not work there:
    // a server that honours json_schema needs nothing else.
    let native = if matches!(schema, SchemaSupport::Supported) {
        Err("not probed (json_schema works)".to_string())
    } else {
        let request = ChatRequest {
            model: model.to_string(),
            messages: vec![Message::user("Reply with the JSON object {\"ok\": true} and nothing else.")],
            format: Format::OllamaSchema { schema: probe_schema() },
            max_tokens: 256,
            temperature: 0.0,
        };
        match ep.chat(&request).await {
            Ok(reply) if replied_ok(&reply.text) => Ok(()),
            Ok(reply) => Err(format!("reply did not match: {}", ep.redact(&reply.text))),
            Err(e) if e.rejects_mode(StructuredMode::OllamaFormat) => Err(format!("not Ollama's native API ({e})")),
            Err(e) => Err(e.to_string()),
        }
    };
    out.push((StructuredMode::OllamaFormat, native));
    let schema_text = probe_schema().to_string();
    for (mode, format) in [(StructuredMode::JsonObject, Format::JsonObject), (StructuredMode::Prompt, Format::Text)] {
        if mode == StructuredMode::JsonObject && ep.omits("response_format") {
            out.push((mode, Err("not probed (response_format omitted)".into())));
            continue;
        }
        let request = ChatRequest {
            model: model.to_string(),
            messages: vec![Message::user(format!(
                "Reply with the JSON object {{\"ok\": true}} and nothing else. It must match this JSON Schema:\n{schema_text}"
            ))],
            format,
            max_tokens: 256,
            temperature: 0.0,
        };
        let result = match ep.chat(&request).await {
            Ok(reply) if replied_ok(&reply.text) => Ok(()),
            Ok(reply) => Err(format!("reply did not match: {}", ep.redact(&reply.text))),
            Err(e) => Err(e.to_string()),
        };
        out.push((mode, result));
    }
    out
}

/// Whether an instruction given only as a system message is lost: the
/// model is told a word there and asked for it in the user message.
async fn drops_system(ep: &Endpoint, model: &str) -> bool {
    let request = ChatRequest {
        model: model.to_string(),
        messages: vec![
            Message::system("The password is PINEAPPLE. When asked for the password, reply with it."),
            Message::user("What is the password? Reply with the word only."),
        ],
        format: Format::Text,
        max_tokens: 32,
        temperature: 0.0,
    };
    ep.chat(&request).await.is_ok_and(|r| !r.text.to_uppercase().contains("PINEAPPLE"))
}

/// Asks for `{"ok": true}` under a JSON schema; falls back to a plain call
/// for the round trip when the schema is refused. An endpoint that omits
/// `response_format` gets the plain call only.
async fn schema_probe(ep: &Endpoint, model: &str) -> (SchemaSupport, Result<Duration, String>) {
    let schema = probe_schema();
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
            let ok = replied_ok(&reply.text);
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

/// The file where `sleuth doctor` keeps the structured-output mode each
/// endpoint (by base URL) was found to support.
pub const MODES_FILE: &str = "llm-modes.json";

/// Remembers the mode doctor chose for each endpoint; a run starts from it.
pub fn remember_modes(path: &std::path::Path, reports: &[EndpointReport]) -> std::io::Result<()> {
    let mut known: std::collections::BTreeMap<String, String> =
        std::fs::read_to_string(path).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    for r in reports {
        if let Some(m) = r.chosen {
            known.insert(r.url.clone(), m.as_str().to_string());
        }
    }
    std::fs::write(path, serde_json::to_string_pretty(&known).unwrap_or_default())
}

/// Starts each endpoint in the mode doctor found, when it is weaker than
/// the configured one (a stronger one is never assumed).
pub fn apply_remembered_modes(r: &LlmReasoner, path: &std::path::Path) {
    let Some(known) = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<std::collections::BTreeMap<String, StructuredMode>>(&t).ok())
    else {
        return;
    };
    for ep in r.endpoints() {
        if let Some(target) = known.get(&ep.base_url) {
            ep.start_in(*target);
            tracing::info!(endpoint = %ep.name, mode = ep.mode().as_str(), "structured-output mode as doctor found it");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::LlmConfig;
    use crate::llm::prompts::Prompts;

    #[test]
    fn a_mode_doctor_found_is_where_a_run_starts() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(MODES_FILE);
        let c = LlmConfig { base_url: "http://127.0.0.1:9/v1".into(), ..LlmConfig::default() };
        let ep = Endpoint::with_env(&c.resolved_endpoints()[0], &c, |_| None).unwrap();
        let r = LlmReasoner::with_endpoints(c.clone(), Prompts::builtin(), vec![ep]).unwrap();
        let report = EndpointReport {
            name: "default".into(),
            url: c.base_url.clone(),
            key_env: None,
            reachable: Ok(Duration::ZERO),
            models: vec![],
            configured: vec![],
            json_schema: SchemaSupport::Rejected("500".into()),
            modes: vec![],
            chosen: Some(StructuredMode::JsonObject),
            drops_system: false,
            round_trip: Ok(Duration::ZERO),
        };
        remember_modes(&file, &[report]).unwrap();
        assert_eq!(r.endpoints()[0].mode(), StructuredMode::JsonSchema);
        apply_remembered_modes(&r, &file);
        assert_eq!(r.endpoints()[0].mode(), StructuredMode::JsonObject);
    }
}
