//! A wiremock server on loopback that plays an OpenAI-compatible endpoint
//! for the LLM reasoner's tests and benchmark. By default it answers every
//! role with valid JSON built from the prompt it receives (quoting the
//! sources it was shown, so citations verify); a test can queue other
//! behaviours per role: raw content, an HTTP status, a delay.

#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use sleuth::llm::usage::count_tokens;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Engine settings for tests: `max_iterations`, 4 queries, 6 sources (the
/// routers tests build retry fast).
pub fn settings(max_iterations: u32) -> sleuth::engine::settings::EngineSettings {
    let limits = sleuth::engine::protocol::Limits {
        max_iterations,
        max_queries: 4,
        max_sources: 6,
        time_limit_secs: 600,
        cost_budget_usd: 0.0,
        token_budget: 0,
    };
    let mut s = sleuth::engine::settings::EngineSettings::with_limits("test-session", limits);
    // The scripted critiques were written for the weighted average and its
    // 0.85 threshold; the calibrated mapping is tested on its own.
    s.evaluate.calibration.enabled = false;
    s.decide.confidence_threshold = 0.85;
    s
}

/// What the server does with one call of a role.
#[derive(Debug, Clone)]
pub enum Behaviour {
    /// Answer 200 with this message content.
    Content(String),
    /// Answer with this status, optional Retry-After, and body.
    Status(u16, Option<String>, String),
    /// The default answer, after a delay.
    Slow(Duration),
}

#[derive(Default)]
pub struct FakeState {
    /// Every chat request body, in order.
    pub requests: Mutex<Vec<Value>>,
    /// The Authorization header of every request (chat and models).
    pub auth: Mutex<Vec<Option<String>>>,
    pub queued: Mutex<HashMap<String, VecDeque<Behaviour>>>,
    pub calls: Mutex<HashMap<String, u32>>,
    /// Send `usage` in replies.
    pub usage: std::sync::atomic::AtomicBool,
    /// Refuse `response_format` json_schema (and json_object) with a 400.
    pub reject_schema: std::sync::atomic::AtomicBool,
    pub reject_json_object: std::sync::atomic::AtomicBool,
    /// Ask for clarification in the first critique.
    pub clarify_first: std::sync::atomic::AtomicBool,
    /// The critique call from which every aspect counts as addressed.
    pub full_coverage_from: AtomicU32,
    /// Echo this text in error bodies (servers that echo the API key).
    pub echo: Mutex<Option<String>>,
    /// Answer json_schema with HTTP 500, as llama-cpp-python's server does.
    pub schema_500: std::sync::atomic::AtomicBool,
    /// Answer `GET /models` with 404 (servers without the endpoint).
    pub no_models: std::sync::atomic::AtomicBool,
    /// Every chat reply waits this long (milliseconds).
    pub delay_ms: std::sync::atomic::AtomicU64,
    /// Plan queries from the words of the question (the default plans
    /// "widget facts" queries the scripted provider rotates on).
    pub queries_from_question: std::sync::atomic::AtomicBool,
    /// Answer json_schema on the OpenAI-compatible endpoint with prose, as
    /// an Ollama whose compatibility layer ignores it does.
    pub schema_ignored: std::sync::atomic::AtomicBool,
    /// Every request to Ollama's native `/api/chat`, in order.
    pub native: Mutex<Vec<Value>>,
    /// Cut this percentage of replies in half (chosen by a fixed spread
    /// over the call count, so a run is repeatable), as a server that drops
    /// the end of a reply does; `finish_reason` still says "stop".
    pub truncate_percent: AtomicU32,
    /// Replies cut so far, with the role they answered.
    pub truncated: AtomicU32,
    pub truncated_replies: Mutex<Vec<(String, String)>>,
    /// Answer `{}` to every chat request, as Gemma 3 270M on
    /// llama-cpp-python does to JSON requests.
    pub empty_objects: std::sync::atomic::AtomicBool,
    /// Chat requests answered so far (every role).
    pub answered: AtomicU32,
}

pub struct FakeLlm {
    pub server: MockServer,
    pub state: Arc<FakeState>,
}

impl FakeLlm {
    pub async fn start() -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(FakeState::default());
        state.usage.store(true, Ordering::SeqCst);
        state.full_coverage_from.store(2, Ordering::SeqCst);
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(Chat(state.clone()))
            .mount(&server)
            .await;
        Mock::given(method("GET")).and(path("/v1/models")).respond_with(Models(state.clone())).mount(&server).await;
        Self { server, state }
    }

    /// Also serves Ollama's native `POST /api/chat` (`format: <schema>`),
    /// replying in Ollama's shape with the same content as the OpenAI one.
    pub async fn serve_ollama_native(&self) {
        Mock::given(method("POST"))
            .and(path("/api/chat"))
            .respond_with(OllamaChat(self.state.clone()))
            .mount(&self.server)
            .await;
    }

    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    pub fn queue(&self, role: &str, b: Behaviour) {
        self.state.queued.lock().unwrap().entry(role.to_string()).or_default().push_back(b);
    }

    /// Requests of one role, in order.
    pub fn requests_of(&self, role: &str) -> Vec<Value> {
        self.state.requests.lock().unwrap().iter().filter(|r| role_of(r) == role).cloned().collect()
    }

    pub fn roles_seen(&self) -> Vec<String> {
        let mut v: Vec<String> = self.state.requests.lock().unwrap().iter().map(role_of).collect();
        v.dedup();
        v
    }

    pub fn count(&self, role: &str) -> u32 {
        self.state.calls.lock().unwrap().get(role).copied().unwrap_or(0)
    }
}

/// The role of a request: the heading of its system prompt (`# PLAN` …).
pub fn role_of(body: &Value) -> String {
    let system = body["messages"][0]["content"].as_str().unwrap_or("");
    system.lines().next().unwrap_or("").trim_start_matches('#').trim().to_lowercase()
}

pub fn user_text(body: &Value) -> String {
    body["messages"][1]["content"].as_str().unwrap_or("").to_string()
}

/// Prompt tokens of a request, counted as the reasoner counts them.
pub fn request_tokens(body: &Value) -> u64 {
    body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().map(|x| count_tokens(x["content"].as_str().unwrap_or("")) + 4).sum::<u64>() + 3)
}

/// (id, text) of every `<source id="N" …>` block in a prompt.
pub fn sources_in(prompt: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(i) = rest.find("<source id=\"") {
        let after = &rest[i + 12..];
        let id: u32 = after.split('"').next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let body_start = after.find(">\n").map_or(after.len(), |j| j + 2);
        let body = &after[body_start..];
        let end = body.find("</source>").unwrap_or(body.len());
        out.push((id, body[..end].trim().to_string()));
        rest = &body[end..];
    }
    out
}

fn first_sentence(text: &str) -> String {
    let t = text.trim_start_matches("[…]").trim();
    t.split(". ").next().unwrap_or(t).trim_end_matches('.').to_string()
}

struct Models(Arc<FakeState>);

impl Respond for Models {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let auth = request.headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
        self.0.auth.lock().unwrap().push(auth);
        if self.0.no_models.load(Ordering::SeqCst) {
            return ResponseTemplate::new(404).set_body_string("Not Found");
        }
        ResponseTemplate::new(200).set_body_json(json!({
            "object": "list",
            "data": [{ "id": "test-model", "object": "model", "created": 0, "owned_by": "test" },
                     { "id": "fast-model:latest", "object": "model", "created": 0, "owned_by": "test" }]
        }))
    }
}

struct OllamaChat(Arc<FakeState>);

impl Respond for OllamaChat {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let s = &self.0;
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        s.native.lock().unwrap().push(body.clone());
        let role = role_of(&body);
        let n = {
            let mut calls = s.calls.lock().unwrap();
            let c = calls.entry(role.clone()).or_insert(0);
            *c += 1;
            *c
        };
        if !body["format"].is_object() {
            return ResponseTemplate::new(400).set_body_json(json!({ "error": "format must be a JSON schema here" }));
        }
        let content = default_content(s, &role, &body, n);
        let prompt = request_tokens(&body);
        ResponseTemplate::new(200).set_body_json(json!({
            "model": body["model"], "created_at": "2024-12-09T16:45:04.380923Z",
            "message": { "role": "assistant", "content": content },
            "done": true, "done_reason": "stop",
            "prompt_eval_count": prompt, "eval_count": count_tokens(&content)
        }))
    }
}

struct Chat(Arc<FakeState>);

impl Respond for Chat {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let s = &self.0;
        let auth = request.headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
        s.auth.lock().unwrap().push(auth);
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        s.requests.lock().unwrap().push(body.clone());
        let role = role_of(&body);
        let n = {
            let mut calls = s.calls.lock().unwrap();
            let c = calls.entry(role.clone()).or_insert(0);
            *c += 1;
            *c
        };
        let format = body["response_format"]["type"].as_str().unwrap_or("");
        let reject = (format == "json_schema" && s.reject_schema.load(Ordering::SeqCst))
            || (format == "json_object" && s.reject_json_object.load(Ordering::SeqCst));
        if format == "json_schema" && s.schema_500.load(Ordering::SeqCst) {
            // llama-cpp-python's words.
            return ResponseTemplate::new(500).set_body_json(json!({
                "error": { "message": "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be 'text' or 'json_object'", "type": "internal_server_error" }
            }));
        }
        if format == "json_schema" && s.schema_ignored.load(Ordering::SeqCst) {
            return reply(s, &body, "Sure! The answer is that widgets connect to gadgets.".into());
        }
        if reject {
            return ResponseTemplate::new(400).set_body_json(json!({
                "error": { "message": format!("response_format type {format} is not supported by this server"), "type": "invalid_request_error" }
            }));
        }
        let k = s.answered.fetch_add(1, Ordering::SeqCst);
        if s.empty_objects.load(Ordering::SeqCst) {
            return reply(s, &body, "{}".into());
        }
        // 37 is prime to 100: every window of 100 calls cuts the same share.
        let cut = (k * 37) % 100 < s.truncate_percent.load(Ordering::SeqCst);
        let queued = s.queued.lock().unwrap().get_mut(&role).and_then(VecDeque::pop_front);
        let echo = s.echo.lock().unwrap().clone().unwrap_or_default();
        let delay = Duration::from_millis(s.delay_ms.load(Ordering::SeqCst));
        let t = match queued {
            Some(Behaviour::Status(code, retry_after, text)) => {
                let mut t = ResponseTemplate::new(code).set_body_string(format!("{text} {echo}"));
                if let Some(ra) = retry_after {
                    t = t.insert_header("retry-after", ra.as_str());
                }
                t
            }
            Some(Behaviour::Content(content)) => reply(s, &body, content),
            Some(Behaviour::Slow(d)) => reply(s, &body, default_content(s, &role, &body, n)).set_delay(d + delay),
            None if cut => {
                s.truncated.fetch_add(1, Ordering::SeqCst);
                let content = default_content(s, &role, &body, n);
                let half: String = content.chars().take(content.chars().count() / 2).collect();
                s.truncated_replies.lock().unwrap().push((role.clone(), half.clone()));
                reply(s, &body, half)
            }
            None => reply(s, &body, default_content(s, &role, &body, n)),
        };
        if delay.is_zero() { t } else { t.set_delay(delay) }
    }
}

/// A JSON completion, or an SSE stream when the request asked for one.
fn reply(s: &FakeState, body: &Value, content: String) -> ResponseTemplate {
    let prompt = request_tokens(body);
    let completion = count_tokens(&content);
    let usage = s.usage.load(Ordering::SeqCst).then(
        // A prefix cache serving the instructions, as OpenAI and vLLM report it.
        || {
            json!({ "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                   "prompt_tokens_details": { "cached_tokens": prompt / 4 } })
        },
    );
    if body["stream"].as_bool() == Some(true) {
        let mut sse = String::new();
        let mut piece = String::new();
        // Pieces of a few words, like tokens arriving.
        for (i, w) in content.split_inclusive(' ').enumerate() {
            piece.push_str(w);
            if i % 3 == 2 {
                let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                    "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
                sse.push_str(&format!("data: {chunk}\n\n"));
                piece.clear();
            }
        }
        let last = json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": "stop"}]});
        sse.push_str(&format!("data: {last}\n\n"));
        if let Some(u) = usage {
            let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [], "usage": u});
            sse.push_str(&format!("data: {chunk}\n\n"));
        }
        sse.push_str("data: [DONE]\n\n");
        return ResponseTemplate::new(200).set_body_raw(sse, "text/event-stream");
    }
    let mut out = json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }]
    });
    if let Some(u) = usage {
        out["usage"] = u;
    }
    ResponseTemplate::new(200).set_body_json(out)
}

fn claims_from(prompt: &str) -> (String, Vec<Value>) {
    let mut md = String::new();
    let mut claims = Vec::new();
    for (id, text) in sources_in(prompt).into_iter().take(5) {
        let quote = first_sentence(&text);
        if quote.len() < 10 {
            continue;
        }
        md.push_str(&format!("- {quote} [{id}]\n"));
        claims.push(json!({ "text": quote, "aspect": "widgets", "citations": [{ "source": id, "quote": quote }] }));
    }
    (md, claims)
}

/// The critic's judgement of the `n`-th draft: gadgets are missing until
/// `full_coverage_from`; the first asks for clarification if told to.
fn critique_of(s: &FakeState, n: u32, user: &str) -> Value {
    let full = n >= s.full_coverage_from.load(Ordering::SeqCst);
    // Gaps phrased as searches: with question-drawn plans, the pairs of the
    // question's words the next plan would have searched (what a model's
    // check names as missing); otherwise the missing aspect.
    let gaps = if full {
        json!([])
    } else if s.queries_from_question.load(Ordering::SeqCst) {
        let q = question_in(user);
        let words: Vec<&str> = q.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 3).collect();
        json!(words.chunks(2).skip(n as usize % 2).take(2).map(|p| p.join(" ")).collect::<Vec<_>>())
    } else {
        json!(["gadgets"])
    };
    let clarify = s.clarify_first.load(Ordering::SeqCst)
        && n == 1
        && !user.contains("ALREADY ASKED AND ANSWERED")
        && !user.contains("CONSTRAINTS FROM THE USER");
    json!({
        "verdict": if full { "PASS" } else { "WARN" },
        "issues": if full { json!([]) } else { json!([{ "severity": "medium", "description": format!("gadgets missing {n}"), "aspect": "gadgets" }]) },
        "aspects_required": ["widgets", "gadgets"],
        "aspects_addressed": if full { json!(["widgets", "gadgets"]) } else { json!(["widgets"]) },
        "weak_aspects": [], "gaps": gaps,
        "contradictions": [],
        "needs_clarification": if clarify { json!({ "question": "Which widget do you mean?", "options": ["the blue widget", "the red widget"] }) } else { Value::Null },
        "answer_relevance": 0.9,
        "unanswered": false,
        "dimensions": { "completeness": 0.9, "accuracy": 0.95, "relevance": 0.95, "freshness": 0.9, "coherence": 0.9 }
    })
}

/// The instructions of a request (system message, or the head of the
/// first user message when the system prompt is folded into it).
pub fn instructions(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap_or("").to_string()
}

/// The question of a prompt (the line after `QUESTION:`).
pub fn question_in(prompt: &str) -> String {
    prompt.split("QUESTION:\n").nth(1).and_then(|r| r.lines().next()).unwrap_or("").trim().to_string()
}

/// A valid answer for the role, built from the prompt.
pub fn default_content(s: &FakeState, role: &str, body: &Value, n: u32) -> String {
    let user = if body["messages"][0]["role"] == "user" { instructions(body) } else { user_text(body) };
    match role {
        "plan" if s.queries_from_question.load(Ordering::SeqCst) => {
            // Queries drawn from the question: the whole question, then
            // its longer words in pairs, different in each round.
            let q = question_in(&user);
            let words: Vec<&str> = q.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 3).collect();
            let mut queries = vec![json!({ "query": q, "intent": "the question", "aspect": "widgets", "exclude": [] })];
            for pair in words.chunks(2).skip((n as usize - 1) % 2).take(2) {
                queries.push(json!({ "query": pair.join(" "), "intent": "a part", "aspect": "gadgets", "exclude": [] }));
            }
            json!({
                "reflection": { "plan": format!("plan {n}"), "assumptions": [], "risks": [], "success_criteria": [] },
                "queries": queries
            })
            .to_string()
        }
        "plan" => json!({
            "reflection": { "plan": format!("plan {n}"), "assumptions": ["widgets exist"], "risks": ["gadgets"], "success_criteria": ["facts"] },
            "queries": (1..=3).map(|k| json!({
                // Lengths differ so the scripted provider surfaces different documents.
                "query": format!("widget facts {} round {n} part {k}", "w".repeat((n * 3 + k) as usize)),
                "intent": "facts", "aspect": "widgets", "exclude": [] })).collect::<Vec<_>>()
        })
        .to_string(),
        "review" => {
            let verdicts: Vec<Value> = sources_in(&user)
                .iter()
                .map(|(id, _)| json!({ "id": id, "keep": true, "reason": null, "relevance": 0.9, "signals": [] }))
                .collect();
            json!({ "verdicts": verdicts }).to_string()
        }
        "draft" => {
            let (md, claims) = claims_from(&user);
            let mut out = json!({ "answer": format!("Answer {n}.\n\n{md}"), "claims": claims });
            // Asked to judge itself (`llm.self_check`): the critique comes along.
            if instructions(body).contains("`check`") {
                out["check"] = critique_of(s, n, &user);
            }
            out.to_string()
        }
        "critique" => critique_of(s, n, &user).to_string(),
        "write" if user_text(body).contains("could not be used") || body["messages"].as_array().is_some_and(|m| m.len() > 2) => {
            let (_, claims) = claims_from(&user);
            json!({ "claims": claims }).to_string()
        }
        "write" => {
            let (md, claims) = claims_from(&user);
            format!("The report, written from the sources.\n\n{md}\n===CLAIMS===\n{}", json!({ "claims": claims }))
        }
        "clarify" => json!({ "question": "Which widget do you mean?", "options": ["the blue widget", "the red widget"] }).to_string(),
        // `sleuth doctor`'s system-message probe: a model that reads it.
        _ if instructions(body).starts_with("The password is ") => {
            instructions(body).trim_start_matches("The password is ").split('.').next().unwrap_or("").to_string()
        }
        // `sleuth doctor`'s JSON-schema probe.
        _ if body["messages"][0]["content"].as_str().is_some_and(|c| c.contains("{\"ok\": true}")) => "{\"ok\": true}".into(),
        _ => "{}".into(),
    }
}
