//! `LlmReasoner`: the engine's `Reasoner` on an OpenAI-compatible endpoint.
//! Every role asks for JSON (see `call`), repairs a malformed reply at most
//! `max_repairs` times by sending the parse error back, and reports tokens
//! and cost. WRITE streams its report (see `write`).

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::de::DeserializeOwned;

use super::compaction::{PassageCache, prompt_budget};
use super::config::{LlmConfig, StructuredMode};
use super::endpoint::{ChatRequest, Endpoint, Format, Message};
use super::error::{LlmError, SetupError};
use super::prompts::{Prompts, prompts_dir};
use super::render::{Prompt, Renderer, claims_format_rules, format_rules};
use super::schema;
use super::structured;
use super::usage::Meter;
use super::wire::{ClarifyWire, CritiqueWire, DraftWire, PlanWire, ReviewWire};
use crate::engine::model::{Clarification, Critique, Draft, Role, SourceId, SourceVerdict, Usage};
use crate::engine::reasoner::{
    ClarifyContext, CritiqueContext, DraftContext, PlanContext, PlanOutput, Reasoner, ReasonerError, Reply,
    ReportStream, ReviewContext, WriteContext, WriteOutput,
};

/// Characters of a bad reply echoed back in a repair turn (about 400
/// tokens: within the room `compaction::repair_reserve` keeps for it).
const REPAIR_EXCERPT_CHARS: usize = 1500;

pub struct LlmReasoner {
    pub(super) config: LlmConfig,
    endpoints: Vec<Arc<Endpoint>>,
    pub(super) prompts: Prompts,
    pub(super) cache: PassageCache,
    /// Usage of calls whose role failed, reported with the next reply so
    /// budgets still count it.
    pending: Mutex<Vec<Usage>>,
}

/// One structured exchange: the system prompt and the turns after it.
pub(super) struct Call<'a> {
    pub role: Role,
    pub system: &'a str,
    pub turns: Vec<Message>,
    pub known: &'a [SourceId],
    /// Ask for JSON (WRITE's report is text; its claims repair is JSON).
    pub json: bool,
    /// Bad replies sent back at most this many times.
    pub max_repairs: u32,
}

impl LlmReasoner {
    /// Builds the endpoints the roles use; prompt overrides come from
    /// `<config_dir>/prompts/`.
    pub fn from_config(config: &LlmConfig, config_dir: &Path) -> Result<Self, SetupError> {
        let prompts = Prompts::load(&prompts_dir(config_dir))?;
        let mut endpoints = Vec::new();
        for e in config.resolved_endpoints() {
            if Role::ALL.iter().any(|r| config.role_target(*r).0 == e.name) {
                endpoints.push(Endpoint::new(&e, config)?);
            }
        }
        Self::with_endpoints(config.clone(), prompts, endpoints)
    }

    /// With endpoints built by the caller (tests shorten their timeouts).
    pub fn with_endpoints(config: LlmConfig, prompts: Prompts, endpoints: Vec<Endpoint>) -> Result<Self, SetupError> {
        for role in Role::ALL {
            let (endpoint, _) = config.role_target(role);
            if !endpoints.iter().any(|e| e.name == endpoint) {
                return Err(SetupError::UnknownEndpoint { role: role.to_string(), endpoint });
            }
        }
        Ok(Self {
            config,
            endpoints: endpoints.into_iter().map(Arc::new).collect(),
            prompts,
            cache: PassageCache::default(),
            pending: Mutex::new(Vec::new()),
        })
    }

    /// A reasoner for another session: the same endpoints (their clients and
    /// connections) and prompts, with its own passage cache and pending usage.
    pub fn for_session(&self) -> Self {
        Self {
            config: self.config.clone(),
            endpoints: self.endpoints.clone(),
            prompts: self.prompts.clone(),
            cache: PassageCache::default(),
            pending: Mutex::new(Vec::new()),
        }
    }

    pub fn endpoints(&self) -> &[Arc<Endpoint>] {
        &self.endpoints
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The environment variable holding an endpoint's key, if it has one.
    pub fn key_env(&self, endpoint: &str) -> Option<String> {
        self.config.resolved_endpoints().into_iter().find(|e| e.name == endpoint).and_then(|e| e.api_key_env)
    }

    /// The endpoint and model of a role.
    pub fn target(&self, role: Role) -> (&Endpoint, String) {
        let (name, model) = self.config.role_target(role);
        // `with_endpoints` checked every role's endpoint exists, so the list
        // is not empty and the fallback is never taken.
        let ep = self.endpoints.iter().find(|e| e.name == name).unwrap_or(&self.endpoints[0]);
        (ep, model)
    }

    pub(super) fn renderer(&self, role: Role) -> Renderer<'_> {
        let (ep, _) = self.target(role);
        Renderer {
            prompts: &self.prompts,
            cache: &self.cache,
            budget: match self.config.max_prompt_tokens {
                0 => prompt_budget(ep.context_window, self.config.max_output_tokens),
                cap => prompt_budget(ep.context_window, self.config.max_output_tokens).min(u64::from(cap)),
            },
        }
    }

    pub(super) fn meter(&self, role: Role) -> Meter {
        let (_, model) = self.target(role);
        Meter::new(role, &model, self.config.price(&model))
    }

    /// The reply with its usage, or the error (its usage kept for later).
    pub(super) fn finish<T>(
        &self,
        result: Result<T, ReasonerError>,
        meters: &[Meter],
    ) -> Result<Reply<T>, ReasonerError> {
        let mut usage: Vec<Usage> = meters.iter().filter_map(Meter::usage).collect();
        let Ok(mut pending) = self.pending.lock() else { return result.map(|value| Reply { value, usage }) };
        match result {
            Ok(value) => {
                let mut all: Vec<Usage> = std::mem::take(&mut *pending);
                all.append(&mut usage);
                Ok(Reply { value, usage: all })
            }
            Err(e) => {
                pending.append(&mut usage);
                Err(e)
            }
        }
    }

    pub(super) fn request(&self, role: Role, messages: Vec<Message>, mode: StructuredMode, json: bool) -> ChatRequest {
        let (_, model) = self.target(role);
        let format = match (json, mode) {
            (false, _) | (true, StructuredMode::Prompt) => Format::Text,
            (true, StructuredMode::JsonObject) => Format::JsonObject,
            (true, StructuredMode::JsonSchema) => {
                let (name, schema) = schema::for_role(role);
                Format::JsonSchema { name: name.to_string(), schema }
            }
        };
        ChatRequest {
            model,
            messages,
            format,
            max_tokens: self.config.max_output_tokens,
            temperature: self.config.temperature,
        }
    }

    /// The system message for the endpoint's current mode.
    fn system_message(&self, call: &Call<'_>, mode: StructuredMode) -> Message {
        let rules = if call.json && call.role == Role::Write {
            claims_format_rules(mode)
        } else {
            format_rules(call.role, mode)
        };
        Message::system(format!("{}\n\n## Reply format\n\n{rules}", call.system))
    }

    /// Sends `call`, parses the reply as `W`, maps it with `map`; repairs a
    /// bad reply up to `max_repairs` times, lowers the structured-output
    /// mode when the endpoint rejects it.
    pub(super) async fn call<W, T>(
        &self,
        call: Call<'_>,
        meter: &mut Meter,
        map: impl Fn(W, &[SourceId]) -> Result<T, String>,
    ) -> Result<T, ReasonerError>
    where
        W: DeserializeOwned,
    {
        let (ep, _) = self.target(call.role);
        let mut mode = ep.mode();
        let mut turns = call.turns.clone();
        let mut repairs = 0;
        loop {
            let mut messages = vec![self.system_message(&call, mode)];
            messages.extend(turns.iter().cloned());
            let request = self.request(call.role, messages, mode, call.json);
            let reply = match ep.chat(&request).await {
                Ok(r) => r,
                Err(e) if call.json && e.rejects_response_format() => match ep.lower_mode(mode) {
                    Some(lower) if lower != mode => {
                        mode = lower;
                        continue;
                    }
                    _ => return Err(unavailable(call.role, &e)),
                },
                Err(e) => return Err(unavailable(call.role, &e)),
            };
            meter.record(&request.messages, &reply);
            tracing::debug!(
                role = %call.role,
                model = %request.model,
                mode = mode.as_str(),
                attempts = reply.attempts,
                latency_ms = reply.latency.as_millis() as u64,
                prompt_tokens = ?reply.prompt_tokens,
                completion_tokens = ?reply.completion_tokens,
                "model call"
            );
            let parsed = structured::parse::<W>(&reply.text).and_then(|w| map(w, call.known));
            let error = match parsed {
                Ok(v) => return Ok(v),
                Err(e) if reply.finish_reason.as_deref() == Some("length") => {
                    format!("{e} (the reply was cut off at llm.max_output_tokens: be briefer)")
                }
                Err(e) => e,
            };
            tracing::warn!(role = %call.role, repair = repairs, error = %error, "malformed model reply");
            if repairs >= call.max_repairs {
                return Err(ReasonerError::Malformed {
                    role: call.role.to_string(),
                    attempts: repairs + 1,
                    last_error: ep.redact(&error),
                });
            }
            repairs += 1;
            turns.truncate(call.turns.len());
            turns.push(Message::assistant(excerpt(&reply.text)));
            turns.push(Message::user(format!(
                "Your reply could not be used: {error}. Reply again with only the corrected JSON object, nothing else."
            )));
        }
    }

    /// A role whose prompt is one user message and whose reply is JSON.
    async fn simple<W, T>(
        &self,
        role: Role,
        prompt: Prompt,
        map: impl Fn(W, &[SourceId]) -> Result<T, String>,
    ) -> Result<Reply<T>, ReasonerError>
    where
        W: DeserializeOwned,
    {
        let mut meter = self.meter(role);
        let call = Call {
            role,
            system: &prompt.system,
            turns: vec![Message::user(prompt.user.clone())],
            known: &prompt.known,
            json: true,
            max_repairs: self.config.max_repairs,
        };
        let result = self.call(call, &mut meter, map).await;
        self.finish(result, &[meter])
    }
}

pub(super) fn unavailable(role: Role, e: &LlmError) -> ReasonerError {
    ReasonerError::Unavailable(format!("the {role} model call failed: {e}"))
}

/// The start of a bad reply, to show the model what it wrote.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(REPAIR_EXCERPT_CHARS) {
        None => text.to_string(),
        Some((i, _)) => format!("{}\n[… the rest of your reply is not repeated here]", &text[..i]),
    }
}

#[async_trait]
impl Reasoner for LlmReasoner {
    fn name(&self) -> String {
        format!("llm:{}", self.target(Role::Draft).1)
    }

    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        let prompt = self.renderer(Role::Plan).plan(&ctx);
        self.simple(Role::Plan, prompt, |w: PlanWire, _| {
            w.into_queries().map(|(reflection, queries)| PlanOutput { reflection, queries })
        })
        .await
    }

    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError> {
        if ctx.candidates.is_empty() {
            return Ok(Reply::free(Vec::new()));
        }
        let renderer = self.renderer(Role::Review);
        let batches: Vec<Prompt> =
            ctx.candidates.chunks(renderer.review_capacity()).map(|c| renderer.review(&ctx, c)).collect();
        // Batches run at once; the endpoint's limit bounds them.
        let runs = batches.into_iter().map(|prompt| async move {
            let mut meter = self.meter(Role::Review);
            let call = Call {
                role: Role::Review,
                system: &prompt.system,
                turns: vec![Message::user(prompt.user.clone())],
                known: &prompt.known,
                json: true,
                max_repairs: self.config.max_repairs,
            };
            let r = self.call(call, &mut meter, |w: ReviewWire, known| w.into_verdicts(known)).await;
            (r, meter)
        });
        let done = futures::future::join_all(runs).await;
        let meters: Vec<Meter> = done.iter().map(|(_, m)| m.clone()).collect();
        let mut verdicts = Vec::new();
        let mut first_error = None;
        for (r, _) in done {
            match r {
                Ok(mut v) => verdicts.append(&mut v),
                Err(e) => {
                    tracing::warn!(error = %e, "a review batch failed; its sources stay at neutral relevance");
                    first_error.get_or_insert(e);
                }
            }
        }
        let result = match first_error {
            Some(e) if verdicts.is_empty() => Err(e),
            _ => Ok(verdicts),
        };
        self.finish(result, &meters)
    }

    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        let prompt = self.renderer(Role::Draft).draft(&ctx);
        self.simple(Role::Draft, prompt, |w: DraftWire, known| w.into_draft(known)).await
    }

    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        let prompt = self.renderer(Role::Critique).critique(&ctx);
        self.simple(Role::Critique, prompt, |w: CritiqueWire, known| w.into_critique(known)).await
    }

    async fn write(&self, ctx: WriteContext, stream: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError> {
        self.write_report(ctx, stream).await
    }

    async fn clarify(&self, ctx: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError> {
        let prompt = self.renderer(Role::Clarify).clarify(&ctx);
        self.simple(Role::Clarify, prompt, |w: ClarifyWire, _| {
            w.into_clarification().ok_or_else(|| "`question` is empty; ask one question".to_string())
        })
        .await
    }
}
