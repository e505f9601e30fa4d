//! The MCP tools: their descriptions (written for a calling model) and
//! what each does, through the session service (`research`).

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction, ElicitationSchema, JsonObject,
    ProgressNotificationParam, Tool,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use crate::engine::SessionStatus;
use crate::engine::protocol::EventRecord;
use crate::research::answer::{PendingAsk, RunAnswer};
use crate::research::request::parse_choice;
use crate::research::{Field, Job, Jobs, ReplayError, RequestError, ResearchRequest, SessionsError, SubmitError};

fn schema(value: Value) -> Arc<JsonObject> {
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

pub fn definitions() -> Vec<Tool> {
    vec![
        Tool::new(
            "research",
            "Research a question with sleuth: it searches the configured sources (a local document corpus and/or the web), \
             reads them, drafts an answer, critiques it and verifies every citation, over several iterations. Takes from \
             a few seconds (built-in reasoner, `simple`) to several minutes (`deep`, LLM reasoner); sends progress \
             notifications meanwhile. Returns the report (Markdown with [n] citations and a Sources list) and, as \
             structured content, the session id, status, confidence and coverage (0..1), the cited sources and caveats. \
             If the question is ambiguous the result is a clarifying question instead: call `answer` with it.",
            schema(json!({
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "The question to research, in full (at most 10000 characters by default: ask the question, not the material)."},
                    "preset": {"type": "string", "enum": ["simple", "standard", "deep"], "description": "Depth: simple (2 iterations), standard (5, default) or deep (10)."},
                    "max_iterations": {"type": "integer", "minimum": 1, "maximum": 100},
                    "time_limit_secs": {"type": "integer", "minimum": 0, "maximum": 604800, "description": "Research time limit (0: none)."}
                },
                "required": ["question"]
            })),
        ),
        Tool::new(
            "answer",
            "Answer the clarifying question a `research` call returned, and continue that research. Give the session id \
             and ask id from that result and the answer: an option's number (from 1), its text, or free text. Returns \
             what `research` returns (the report, or another question).",
            schema(json!({
                "type": "object",
                "properties": {
                    "session_id": {"type": "string"},
                    "ask_id": {"type": "string"},
                    "answer": {"type": "string"}
                },
                "required": ["session_id", "ask_id", "answer"]
            })),
        ),
        Tool::new(
            "search",
            "Search sleuth's configured sources directly (no research loop, about a second). Returns hits: title, \
             locator (URL or corpus path), snippet and provider.",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Hits wanted (default 10)."}
                },
                "required": ["query"]
            })),
        ),
        Tool::new(
            "list_sessions",
            "List sleuth's research sessions, newest first: id, question, status, iterations, confidence. Instant.",
            schema(json!({"type": "object", "properties": {}})),
        ),
        Tool::new(
            "get_report",
            "The Markdown report of a past research session, by session id (see `list_sessions`). Instant.",
            schema(json!({
                "type": "object",
                "properties": {"session_id": {"type": "string"}},
                "required": ["session_id"]
            })),
        ),
    ]
}

fn text_arg<'a>(args: &'a JsonObject, name: &str) -> Result<&'a str, ErrorData> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ErrorData::invalid_params(format!("`{name}` (a non-empty string) is required"), None))
}

fn number_arg(args: &JsonObject, name: &str) -> Result<Option<u64>, ErrorData> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            ErrorData::invalid_params(format!("`{name}` must be a whole number (0 or more), got {v}"), None)
        }),
    }
}

/// The argument of the `research` tool that sets a request field.
fn argument(field: Field) -> &'static str {
    match field {
        Field::Question => "question",
        Field::Preset => "preset",
        Field::MaxIterations => "max_iterations",
        Field::TimeLimit => "time_limit_secs",
        other => other.config_key(),
    }
}

fn request_error(e: RequestError) -> ErrorData {
    ErrorData::invalid_params(format!("`{}`: {}", argument(e.field), e.message), None)
}

/// The request the `research` tool's arguments make.
fn research_request(args: &JsonObject) -> Result<ResearchRequest, ErrorData> {
    let preset = match args.get("preset").and_then(Value::as_str) {
        Some(p) => {
            Some(parse_choice(Field::Preset, "preset", p, &["simple", "standard", "deep"]).map_err(request_error)?)
        }
        None => None,
    };
    // Out of u32's range is out of the config's range too: let it say so.
    let max_iterations = number_arg(args, "max_iterations")?.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    Ok(ResearchRequest {
        preset,
        max_iterations,
        time_limit_secs: number_arg(args, "time_limit_secs")?,
        // Nobody steps an MCP call.
        step: Some(false),
        ..Default::default()
    })
}

pub async fn research(
    jobs: &Arc<Jobs>,
    args: &JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let question = text_arg(args, "question")?;
    let request = research_request(args)?;
    let (question, config) = jobs.sessions().check(question, &request).map_err(|e| match e {
        SessionsError::Request(r) => request_error(r),
        other => ErrorData::internal_error(other.to_string(), None),
    })?;
    ready(jobs, context).await?;
    let job = jobs.submit(question, config, false).map_err(|e| match e {
        SubmitError::QueueFull { retry_after_secs } => ErrorData::internal_error(
            format!("sleuth is busy (every slot and queue place taken); retry in {retry_after_secs} s"),
            None,
        ),
        SubmitError::ShuttingDown => ErrorData::internal_error("sleuth is shutting down", None),
    })?;
    Ok(follow(&job, None, context).await)
}

/// Builds the runtime on first use (the corpus index, the model check),
/// telling the client how it goes by progress notifications.
async fn ready(jobs: &Arc<Jobs>, context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    let sessions = jobs.sessions();
    if sessions.built().is_some() {
        return Ok(());
    }
    let token = context.meta.get_progress_token();
    let mut lines = sessions.progress();
    let build = sessions.runtime();
    tokio::pin!(build);
    let mut step = 0.0;
    loop {
        tokio::select! {
            built = &mut build => {
                return built.map(|_| ()).map_err(|e| ErrorData::internal_error(format!("sleuth cannot start: {e}"), None));
            }
            changed = lines.changed() => {
                let line = lines.borrow_and_update().clone();
                if changed.is_err() {
                    continue;
                }
                if let (Some(token), Some(line)) = (&token, line) {
                    step += 1.0;
                    let param = ProgressNotificationParam::new(token.clone(), step).with_message(line);
                    let _ = context.peer.notify_progress(param).await;
                }
            }
        }
    }
}

pub async fn answer(
    jobs: &Arc<Jobs>,
    args: &JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let session = text_arg(args, "session_id")?;
    let ask_id = text_arg(args, "ask_id")?;
    let text = text_arg(args, "answer")?;
    let job = jobs.get(session).ok_or_else(|| {
        ErrorData::invalid_params(
            format!("no running session `{session}` in this server (a session from an earlier run continues with `sleuth resume {session}`)"),
            None,
        )
    })?;
    job.answer_ask(ask_id, text).map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
    Ok(follow(&job, Some(ask_id.to_string()), context).await)
}

/// Waits for the job to end or ask, sending a progress notification per
/// event when the caller asked for progress. A question goes to the user
/// as an elicitation when the client supports it; otherwise (or when the
/// user declines) the result carries the question for `answer`.
async fn follow(job: &Arc<Job>, answered: Option<String>, context: &RequestContext<RoleServer>) -> CallToolResult {
    let token = context.meta.get_progress_token();
    let mut rx = job.subscribe();
    let mut after = job.last_seq();
    // An ask just answered stays open until the engine takes the answer.
    let mut answered = answered;
    loop {
        if job.is_over() {
            break;
        }
        if let Some(ask) = job.ask().filter(|a| answered.as_deref() != Some(a.ask_id.as_str())) {
            match elicit(&ask, context).await {
                Some(answer) if job.answer_ask(&ask.ask_id, &answer).is_ok() => answered = Some(ask.ask_id),
                _ => break,
            }
        }
        tokio::select! {
            changed = rx.changed() => if changed.is_err() { break },
            _ = context.ct.cancelled() => {
                let _ = job.cancel();
            }
        }
        let (events, _) = job.events_after(after);
        let Some(last) = events.last() else { continue };
        after = last.seq;
        if let Some(token) = &token {
            let message = events.iter().map(event_kind).collect::<Vec<_>>().join(", ");
            let param = ProgressNotificationParam::new(token.clone(), after as f64).with_message(message);
            let _ = context.peer.notify_progress(param).await;
        }
    }
    result_of(&job.answer())
}

/// Asks the user through the client (form elicitation), when it can.
async fn elicit(ask: &PendingAsk, context: &RequestContext<RoleServer>) -> Option<String> {
    if !context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
        return None;
    }
    let options: Vec<String> = ask.options.iter().enumerate().map(|(i, o)| format!("{}. {o}", i + 1)).collect();
    let schema = ElicitationSchema::builder()
        .required_string("answer")
        .description("An option's number or text, or your own words")
        .build()
        .ok()?;
    let message = format!("{}\n{}", ask.question, options.join("\n"));
    let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
    let result = context.peer.create_elicitation(params).await.ok()?;
    if result.action != ElicitationAction::Accept {
        return None;
    }
    let answer = result.content?.get("answer")?.as_str()?.trim().to_string();
    (!answer.is_empty()).then_some(answer)
}

/// The event's kind, for a progress message (`[1] planned`, `[1] query_searched`…).
fn event_kind(record: &EventRecord) -> String {
    let kind = record.event.kind();
    match record.event.iteration() {
        Some(n) => format!("[{n}] {kind}"),
        None => kind.to_string(),
    }
}

fn result_of(a: &RunAnswer) -> CallToolResult {
    let structured = serde_json::to_value(a).unwrap_or(Value::Null);
    let text = match (&a.ask, a.status) {
        (Some(ask), SessionStatus::WaitingOnAsk) => {
            let options: Vec<String> =
                ask.options.iter().enumerate().map(|(i, o)| format!("  {}. {o}", i + 1)).collect();
            format!(
                "The research needs a clarification before it can go on.\n{}\n{}\nCall the `answer` tool with session_id \"{}\", ask_id \"{}\" and the answer (an option's number or text, or your own words).",
                ask.question,
                options.join("\n"),
                a.session_id,
                ask.ask_id
            )
        }
        // Its report says first what is missing or weaker.
        (
            _,
            SessionStatus::Finished | SessionStatus::Unanswered | SessionStatus::NotSearched | SessionStatus::Degraded,
        ) => a.final_answer.clone(),
        (_, status) => format!(
            "The research ended {}: {}\n\n{}",
            status.name(),
            if a.final_answer.is_empty() { "no report was written" } else { "a partial report follows" },
            a.final_answer
        ),
    };
    let failed = matches!(a.status, SessionStatus::Failed | SessionStatus::Interrupted);
    tool_result(text, structured, failed)
}

/// A result with text for a reader and the same facts as structured content.
fn tool_result(text: String, structured: Value, is_error: bool) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result.is_error = Some(is_error);
    result
}

pub async fn search(
    jobs: &Arc<Jobs>,
    args: &JsonObject,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let text = text_arg(args, "query")?.to_string();
    let limit = number_arg(args, "limit")?.unwrap_or(10).clamp(1, 50) as usize;
    ready(jobs, context).await?;
    // Every hit passes the redactor (a provider echoing its key leaks nothing).
    let found =
        jobs.sessions().search(&text, limit).await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let hits: Vec<Value> = found
        .hits
        .iter()
        .map(
            |(provider, h)| json!({"title": h.title, "locator": h.locator, "snippet": h.snippet, "provider": provider}),
        )
        .collect();
    let mut lines: Vec<String> = found
        .hits
        .iter()
        .enumerate()
        .map(|(i, (_, h))| format!("{}. {} — {}\n   {}", i + 1, h.title, h.locator, h.snippet))
        .collect();
    if let Some(e) = &found.error {
        lines.push(format!("search error: {e}"));
    }
    if lines.is_empty() {
        lines.push("no hits".into());
    }
    Ok(tool_result(lines.join("\n"), json!({"hits": hits, "error": found.error}), false))
}

pub fn list_sessions(jobs: &Arc<Jobs>) -> Result<CallToolResult, ErrorData> {
    let sessions = jobs.sessions().list().map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let lines: Vec<String> = sessions
        .iter()
        .map(|s| match &s.summary {
            Some(m) => format!(
                "{} · {} · {} · confidence {:.2} · {}",
                s.id,
                s.status.label(),
                crate::text::counted(m.iterations as usize, "iteration", "iterations"),
                m.confidence,
                crate::text::sanitize_inline(&m.question)
            ),
            None => format!("{} · {}", s.id, s.status.label()),
        })
        .collect();
    let text = if lines.is_empty() { "no sessions yet".to_string() } else { lines.join("\n") };
    Ok(tool_result(text, json!({"sessions": sessions}), false))
}

pub fn get_report(jobs: &Arc<Jobs>, args: &JsonObject) -> Result<CallToolResult, ErrorData> {
    let id = text_arg(args, "session_id")?;
    match report_text(jobs, id) {
        Ok(text) => Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
        Err(message) => Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
    }
}

/// A session's report, redacted, or why there is none.
pub fn report_text(jobs: &Jobs, given: &str) -> Result<String, String> {
    let session = jobs.sessions().replay(given).map_err(|e: ReplayError| e.to_string())?;
    session.report().ok_or_else(|| format!("session `{}` has no report yet", session.id))
}
