//! `LlmReasoner`: the engine's `Reasoner` on an OpenAI-compatible endpoint.
//! Every role asks for JSON (see `call`), repairs a malformed reply at most
//! `max_repairs` times by sending the parse error back, and records the
//! tokens of every answered call as it happens. WRITE streams its report
//! (see `write`).
//!
//! Call structure (the user pays for every call and waits on the sequential
//! ones): REVIEW runs without a model unless `review_with_model`; DRAFT
//! returns its own critique in the same reply (`self_check`), so CRITIQUE
//! answers from it without a call; REFINE takes the check's gaps as the next
//! queries unless `refine_with_model`; the report is the best draft unless
//! `write_with_model`. The first iteration costs PLAN and DRAFT, every later
//! one its DRAFT.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::de::DeserializeOwned;

use super::compaction::{PassageCache, prompt_budget};
use super::config::{LlmConfig, StructuredMode};
use super::echo::echo_in_reply;
use super::endpoint::{ChatRequest, Endpoint, Format, Message};
use super::error::{LlmError, SetupError};
use super::prompts::{Prompts, prompts_dir};
use super::render::{Prompt, Renderer, claims_format_rules, format_rules};
use super::schema;
use super::structured::{self, Unusable};
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
    /// Usage of every answered call, recorded when the reply arrives and
    /// handed over with the role's reply or by `take_usage` (a failed or
    /// cancelled role's calls still count against the budgets).
    pending: Mutex<Vec<Usage>>,
    /// The model-free reasoner: REVIEW when `review_with_model` is off, the
    /// built-in half of a refinement, and the stand-in that takes over when
    /// the model cannot do the work.
    helper: Arc<dyn Reasoner>,
    /// DRAFT's self-checks by the draft's text: CRITIQUE answers from them.
    checks: Mutex<HashMap<u64, Critique>>,
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
    /// Bounds of the reply's lists and ids (the schema's `maxItems`, `enum`).
    pub limits: schema::Limits,
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
            helper: Arc::new(crate::builtin::BuiltinReasoner::new(Default::default(), None, 0.0)),
            checks: Mutex::new(HashMap::new()),
        })
    }

    /// The model-free reasoner used for REVIEW and WRITE (the builder passes one that
    /// knows the local corpus's term statistics).
    pub fn with_helper(mut self, helper: Arc<dyn Reasoner>) -> Self {
        self.helper = helper;
        self
    }

    /// The model-free reasoner beside the model (REVIEW, the built-in
    /// refinement, and the stand-in when the model cannot do the work).
    pub(super) fn helper(&self) -> &Arc<dyn Reasoner> {
        &self.helper
    }

    /// The list bounds of a call that may cite `known`.
    pub(super) fn limits(&self, known: &[SourceId], max_queries: usize) -> schema::Limits {
        schema::Limits {
            max_items: self.config.max_list_items.max(1),
            max_queries: max_queries.max(1) as u32,
            ids: known.iter().map(|id| id.0).collect(),
            self_check: self.config.self_check,
        }
    }

    /// A reasoner for another session: the same endpoints (their clients and
    /// connections), prompts and review helper, with its own passage cache,
    /// pending usage and self-checks.
    pub fn for_session(&self) -> Self {
        Self {
            config: self.config.clone(),
            endpoints: self.endpoints.clone(),
            prompts: self.prompts.clone(),
            cache: PassageCache::default(),
            pending: Mutex::new(Vec::new()),
            helper: self.helper.clone(),
            checks: Mutex::new(HashMap::new()),
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

    /// The role's prompt builder, within the smallest of the window, the
    /// `max_prompt_tokens` cap and the role's own budget.
    pub(super) fn renderer(&self, role: Role) -> Renderer<'_> {
        let (ep, _) = self.target(role);
        let mut budget = prompt_budget(ep.context_window, self.config.max_output_tokens);
        for cap in [self.config.max_prompt_tokens, self.config.prompt_tokens.get(role)] {
            if cap > 0 {
                budget = budget.min(u64::from(cap));
            }
        }
        Renderer { prompts: &self.prompts, cache: &self.cache, budget }
    }

    pub(super) fn meter(&self, role: Role) -> Meter {
        let (_, model) = self.target(role);
        Meter::new(role, &model, self.config.price(&model))
    }

    /// Records one answered call's usage at once.
    pub(super) fn record(&self, usage: Usage) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.push(usage);
        }
    }

    /// Usage recorded and not yet handed over.
    fn drain(&self) -> Vec<Usage> {
        self.pending.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default()
    }

    /// The reply with the usage recorded so far; an error leaves the usage
    /// for `take_usage`.
    pub(super) fn finish<T>(&self, result: Result<T, ReasonerError>) -> Result<Reply<T>, ReasonerError> {
        result.map(|value| Reply { value, usage: self.drain() })
    }

    /// The messages of a call: the system prompt on its own, or at the head
    /// of the first user message (`fold_system_prompt`).
    pub(super) fn messages(&self, system: String, turns: &[Message]) -> Vec<Message> {
        let mut out = Vec::with_capacity(turns.len() + 1);
        match turns.split_first() {
            Some((first, rest)) if self.config.fold_system_prompt && first.role == "user" => {
                out.push(Message::user(format!("{system}\n\n---\n\n{}", first.content)));
                out.extend(rest.iter().cloned());
            }
            _ => {
                out.push(Message::system(system));
                out.extend(turns.iter().cloned());
            }
        }
        out
    }

    pub(super) fn request(
        &self,
        role: Role,
        messages: Vec<Message>,
        mode: StructuredMode,
        json: bool,
        limits: &schema::Limits,
    ) -> ChatRequest {
        let (_, model) = self.target(role);
        let format = match (json, mode) {
            (false, _) | (true, StructuredMode::Prompt) => Format::Text,
            (true, StructuredMode::JsonObject) => Format::JsonObject,
            (true, StructuredMode::JsonSchema) => {
                let (name, schema) = schema::for_call(role, limits);
                Format::JsonSchema { name: name.to_string(), schema }
            }
            (true, StructuredMode::OllamaFormat) => Format::OllamaSchema { schema: schema::for_call(role, limits).1 },
        };
        ChatRequest {
            model,
            messages,
            format,
            max_tokens: self.config.max_output_tokens,
            temperature: self.config.temperature,
        }
    }

    /// The system prompt for the endpoint's current mode.
    fn system_prompt(&self, call: &Call<'_>, mode: StructuredMode) -> String {
        let rules = if call.json && call.role == Role::Write {
            claims_format_rules(mode, &call.limits)
        } else {
            format_rules(call.role, mode, &call.limits)
        };
        format!("{}\n\n## Reply format\n\n{rules}", call.system)
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
        let mut voids = 0;
        loop {
            let messages = self.messages(self.system_prompt(&call, mode), &turns);
            let request = self.request(call.role, messages, mode, call.json, &call.limits);
            let flight = InFlight::new(self, meter.unanswered(&request.messages));
            let answer = ep.chat(&request).await;
            flight.landed();
            let reply = match answer {
                Ok(r) => r,
                Err(e) if call.json && e.rejects_mode(mode) => match ep.lower_mode(mode) {
                    Some(lower) if lower != mode => {
                        mode = lower;
                        continue;
                    }
                    _ => return Err(unavailable(call.role, &e)),
                },
                Err(e) => return Err(unavailable(call.role, &e)),
            };
            self.record(meter.record(&request.messages, &reply));
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
            let parsed = structured::parse_reply::<W>(&reply.text, |list| call.limits.cap(call.role, list))
                .and_then(|w| map(w, call.known).map_err(Unusable::Bad))
                .and_then(|v| match echo_in_reply(&reply.text, &request.messages) {
                    Some(echo) => Err(Unusable::Bad(echo)),
                    None => Ok(v),
                });
            let error = match parsed {
                Ok(v) => return Ok(v),
                Err(Unusable::Void(e)) => {
                    voids += 1;
                    e
                }
                Err(Unusable::Bad(e)) => e,
            };
            let error = if reply.finish_reason.as_deref() == Some("length") {
                format!("{error} (the reply was cut off at llm.max_output_tokens: be briefer)")
            } else {
                error
            };
            tracing::warn!(role = %call.role, repair = repairs, error = %error, "malformed model reply");
            // Twice nothing (the reply and its repair, `{}` both times): a
            // model that cannot do this work; more repairs would only wait.
            let attempts = repairs + 1;
            if voids == attempts && (voids >= 2 || repairs >= call.max_repairs) {
                return Err(ReasonerError::Empty { role: call.role.to_string(), attempts });
            }
            if repairs >= call.max_repairs {
                return Err(ReasonerError::Malformed {
                    role: call.role.to_string(),
                    attempts,
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
        limits: schema::Limits,
        map: impl Fn(W, &[SourceId]) -> Result<T, String>,
    ) -> Result<T, ReasonerError>
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
            limits,
        };
        self.call(call, &mut meter, map).await
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

/// A call in flight: if it is dropped before it lands (the engine cancelled
/// the phase, or the time limit cut it), its prompt is recorded as an
/// estimate, so budgets see what the server was sent.
pub(super) struct InFlight<'a> {
    reasoner: &'a LlmReasoner,
    usage: Option<Usage>,
}

impl<'a> InFlight<'a> {
    pub(super) fn new(reasoner: &'a LlmReasoner, usage: Usage) -> Self {
        Self { reasoner, usage: Some(usage) }
    }

    /// The call returned (answered or failed): nothing to estimate.
    pub(super) fn landed(mut self) {
        self.usage = None;
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Some(u) = self.usage.take() {
            self.reasoner.record(u);
        }
    }
}

/// A draft's key in the self-check cache.
fn draft_key(markdown: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    markdown.trim().hash(&mut h);
    h.finish()
}

#[async_trait]
impl Reasoner for LlmReasoner {
    fn name(&self) -> String {
        format!("llm:{}", self.target(Role::Draft).1)
    }

    fn take_usage(&self) -> Vec<Usage> {
        self.drain()
    }

    fn stand_in(&self) -> Option<Arc<dyn Reasoner>> {
        Some(self.helper.clone())
    }

    fn uses_model(&self, role: Role) -> bool {
        match role {
            Role::Review => self.config.review_with_model,
            Role::Write => self.config.write_with_model,
            _ => true,
        }
    }

    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        if ctx.strategy.is_some() && !self.config.refine_with_model {
            return self.refine_from_check(ctx).await;
        }
        let prompt = self.renderer(Role::Plan).plan(&ctx);
        let limits = self.limits(&[], ctx.max_queries);
        let r = self
            .simple(Role::Plan, prompt, limits, |w: PlanWire, _| {
                w.into_queries().map(|(reflection, queries)| PlanOutput { reflection, queries })
            })
            .await;
        self.finish(r)
    }

    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError> {
        if ctx.candidates.is_empty() {
            return Ok(Reply::free(Vec::new()));
        }
        if !self.config.review_with_model {
            return self.helper.review(ctx).await;
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
                limits: self.limits(&prompt.known, 0),
            };
            self.call(call, &mut meter, |w: ReviewWire, known| w.into_verdicts(known)).await
        });
        let done = futures::future::join_all(runs).await;
        let mut verdicts = Vec::new();
        let mut first_error = None;
        for r in done {
            match r {
                Ok(mut v) => verdicts.append(&mut v),
                Err(e) => {
                    // The engine gives the batch's sources, left without a
                    // verdict, the built-in review and records the error.
                    tracing::warn!(error = %e, "a review batch failed");
                    first_error.get_or_insert(e);
                }
            }
        }
        let result = match first_error {
            Some(e) if verdicts.is_empty() => Err(e),
            _ => Ok(verdicts),
        };
        self.finish(result)
    }

    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        let prompt = self.renderer(Role::Draft).draft(&ctx);
        let limits = self.limits(&prompt.known, 0);
        let r = self.simple(Role::Draft, prompt, limits, |w: DraftWire, known| w.into_checked_draft(known)).await;
        let r = r.map(|(draft, check)| {
            if let (Some(c), Ok(mut checks)) = (check, self.checks.lock()) {
                checks.insert(draft_key(&draft.markdown), c);
            }
            draft
        });
        self.finish(r)
    }

    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        let own = self.checks.lock().ok().and_then(|mut c| c.remove(&draft_key(&ctx.draft.markdown)));
        if let Some(check) = own {
            return self.finish(Ok(check));
        }
        // No self-check (turned off, dropped, or the draft fell back): a
        // compact call within the critique budget.
        let prompt = self.renderer(Role::Critique).critique(&ctx);
        let limits = schema::Limits { self_check: false, ..self.limits(&prompt.known, 0) };
        let r = self.simple(Role::Critique, prompt, limits, |w: CritiqueWire, known| w.into_critique(known)).await;
        self.finish(r)
    }

    async fn write(&self, ctx: WriteContext, stream: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError> {
        if !self.config.write_with_model {
            return Ok(Reply::free(super::write::report_from_draft(&ctx, &stream)));
        }
        self.write_report(ctx, stream).await
    }

    async fn clarify(&self, ctx: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError> {
        let prompt = self.renderer(Role::Clarify).clarify(&ctx);
        let limits = self.limits(&[], 0);
        let r = self
            .simple(Role::Clarify, prompt, limits, |w: ClarifyWire, _| {
                w.into_clarification().ok_or_else(|| "`question` is empty; ask one question".to_string())
            })
            .await;
        self.finish(r)
    }
}
