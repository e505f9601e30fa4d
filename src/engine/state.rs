//! `SessionState::apply`: the one fold over events, used by the live engine,
//! the headless printer, the TUI and offline review. It is pure: the same
//! events always give the same state, so a replayed log equals the live run.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::interpretation::Interpretation;
use super::model::{
    Critique, Decision, Degradation, Draft, Evaluation, Outcome, Phase, PlannedQuery, QualityReport, Recheck,
    Refinement, Reflection, Report, Role, SourceId, SourceMeta, SourceVerdict, Strategy, Verification,
    legacy_strict_reason,
};
use super::protocol::{Answer, Event, EventRecord, ImportedContext, SessionHeader, Steer};
use crate::engine::model::Clarification;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SessionState {
    pub header: Option<SessionHeader>,
    pub last_seq: u64,
    pub started_at_ms: u64,
    pub updated_at_ms: u64,
    /// Active research time, across resumes.
    pub elapsed_ms: u64,
    pub step_mode: bool,
    /// One record per iteration; `iterations[n - 1]` is iteration `n`.
    pub iterations: Vec<IterationRecord>,
    /// Every source ever added; `sources[id - 1]` has that id.
    pub sources: Vec<SourceEntry>,
    pub confidence: f64,
    pub coverage: f64,
    pub gaps: Vec<String>,
    /// Confidence gain of each evaluated iteration (what the diminishing-returns
    /// rule and the refinement strategy read).
    pub convergence_trend: Vec<f64>,
    pub cost_usd: f64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub usage_estimated: bool,
    pub usage_by_role: BTreeMap<Role, RoleUsage>,
    /// The next iteration's queries, between refinement and its start.
    pub pending_queries: Vec<PlannedQuery>,
    /// Answers to ASKs and user notes: the task's added constraints
    /// (a follow-up's imported findings first).
    pub constraints: Vec<String>,
    /// How many of `constraints`, at the front, are a follow-up's imported
    /// findings rather than the user's words.
    pub imported_constraints: usize,
    pub asks: Vec<AskRecord>,
    /// The meaning the user chose when asked, and what it rules out.
    pub interpretation: Option<Interpretation>,
    pub banned: BTreeSet<SourceId>,
    pub pinned: BTreeSet<SourceId>,
    /// Why the session ran degraded; written out (the JSON export) as the
    /// sentences people read, as before the causes were typed.
    #[serde(serialize_with = "as_sentences")]
    pub degraded: Vec<Degradation>,
    pub errors: Vec<ErrorRecord>,
    /// Set when the built-in reasoner took over from the model.
    pub takeover: Option<super::takeover::Takeover>,
    pub memories_stored: usize,
    pub force_output: bool,
    pub cancel_requested: bool,
    /// Commands refused, as `command: reason`, newest last (for display).
    pub rejected: Vec<String>,
    /// Report text streamed so far (before `report` is set).
    pub report_stream: String,
    pub report: Option<Report>,
    pub verification: Option<Verification>,
    pub outcome: Option<Outcome>,
    /// `sleuth recheck` runs after the end, oldest first.
    pub rechecks: Vec<Recheck>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoleUsage {
    pub calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceEntry {
    pub meta: SourceMeta,
    pub verdict: Option<SourceVerdict>,
    /// Other locators found to be the same document.
    pub duplicates: Vec<String>,
}

impl SourceEntry {
    pub fn kept(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| v.kept)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskRecord {
    pub ask_id: String,
    pub iteration: u32,
    pub clarification: Clarification,
    pub answer: Option<Answer>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorRecord {
    pub iteration: u32,
    pub phase: Phase,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryRecord {
    pub query: PlannedQuery,
    pub result: Option<QueryResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum QueryResult {
    Searched {
        provider: String,
        hits: usize,
        /// Set when the query as planned found nothing and this broader
        /// form was searched instead.
        reformulated_from: Option<String>,
    },
    Failed {
        error: String,
        attempts: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub locator: String,
    pub reason: String,
}

/// Everything that happened in one iteration (queries, sources, scores,
/// decision) and the material of the TUI's reflection log).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IterationRecord {
    pub iteration: u32,
    /// The strategy that produced this iteration's queries (none for the first).
    pub strategy: Option<Strategy>,
    pub reflection: Option<Reflection>,
    pub memories_used: Vec<String>,
    /// The mistakes of `memories_used`, in the same order.
    pub lessons_used: Vec<String>,
    pub planned: bool,
    pub queries: Vec<QueryRecord>,
    pub search_completed: bool,
    pub new_sources: Vec<SourceId>,
    pub duplicates: usize,
    /// Known sources this iteration's queries found again (each once).
    pub found_again: Vec<SourceId>,
    pub skipped: Vec<Skipped>,
    pub fallbacks: Vec<String>,
    pub review: Option<(Vec<SourceVerdict>, QualityReport)>,
    pub no_valid_sources: Option<String>,
    /// Strict mode's tier filter is why nothing was usable.
    pub no_valid_sources_strict: bool,
    pub draft: Option<Draft>,
    pub critique: Option<Critique>,
    pub evaluation: Option<Evaluation>,
    pub decision: Option<Decision>,
    pub refinement: Option<Refinement>,
    pub ask_id: Option<String>,
    pub paused: bool,
    pub resumed: bool,
    pub confidence_before: f64,
    pub cost_usd: f64,
    pub tokens: u64,
    pub started_elapsed_ms: u64,
    pub last_elapsed_ms: u64,
    /// Seq of the last event belonging to this iteration (review mode cuts here).
    pub last_seq: u64,
}

impl IterationRecord {
    pub fn confidence_after(&self) -> Option<f64> {
        self.evaluation.as_ref().map(|e| e.confidence)
    }
}

impl SessionState {
    /// Folds a whole log.
    pub fn replay<'a>(records: impl IntoIterator<Item = &'a EventRecord>) -> Self {
        let mut state = Self::default();
        for r in records {
            state.apply(r);
        }
        state
    }

    /// Applies one event. Total: events that reference something unknown
    /// (a log from a damaged run) are recorded as far as they make sense.
    pub fn apply(&mut self, record: &EventRecord) {
        self.last_seq = record.seq;
        self.updated_at_ms = record.at_ms;
        self.elapsed_ms = record.elapsed_ms;
        if let Some(it) = self.iterations.last_mut() {
            it.last_elapsed_ms = record.elapsed_ms;
            if !matches!(record.event, Event::IterationStarted { .. }) {
                it.last_seq = record.seq;
            }
        }
        match &record.event {
            Event::SessionStarted(header) => {
                self.started_at_ms = record.at_ms;
                self.step_mode = header.step_mode;
                self.header = Some(header.clone());
                if let Some(imported) = &header.imported {
                    self.import(imported);
                }
            }
            Event::IterationStarted { iteration, queries } => {
                let previous = self.iterations.last().and_then(|i| i.refinement.clone());
                let mut rec = IterationRecord {
                    iteration: *iteration,
                    confidence_before: self.confidence,
                    started_elapsed_ms: record.elapsed_ms,
                    last_elapsed_ms: record.elapsed_ms,
                    last_seq: record.seq,
                    ..Default::default()
                };
                if !queries.is_empty() {
                    rec.planned = true;
                    rec.queries = queries.iter().cloned().map(QueryRecord::pending).collect();
                    if let Some(r) = previous {
                        rec.strategy = Some(r.strategy);
                        rec.reflection = Some(r.reflection);
                    }
                }
                self.pending_queries.clear();
                self.iterations.push(rec);
            }
            Event::Planned { iteration, reflection, queries, memories_used, lessons_used } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.planned = true;
                    it.reflection = Some(reflection.clone());
                    it.memories_used = memories_used.clone();
                    it.lessons_used = lessons_used.clone();
                    it.queries = queries.iter().cloned().map(QueryRecord::pending).collect();
                }
            }
            Event::QuerySearched { iteration, query_index, query, provider, hits, reformulated_from } => {
                let result = QueryResult::Searched {
                    provider: provider.clone(),
                    hits: *hits,
                    reformulated_from: reformulated_from.clone(),
                };
                self.set_query_result(*iteration, *query_index, query, result);
            }
            Event::QueryFailed { iteration, query_index, query, error, attempts } => {
                let result = QueryResult::Failed { error: error.clone(), attempts: *attempts };
                self.set_query_result(*iteration, *query_index, query, result);
            }
            Event::ProviderFallback { iteration, from, to, error } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.fallbacks.push(format!("{from} → {to}: {error}"));
                }
            }
            Event::CircuitOpened { iteration, provider, reason } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.fallbacks.push(format!("circuit opened for {provider}: {reason}"));
                }
            }
            Event::CircuitClosed { iteration, provider } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.fallbacks.push(format!("circuit closed for {provider}: a call succeeded"));
                }
                // The report says what happened: it failed, and recovered.
                let failing = Degradation::ProviderFailing { provider: provider.clone() };
                if let Some(r) = self.degraded.iter_mut().find(|r| **r == failing) {
                    *r = Degradation::ProviderRecovered { provider: provider.clone() };
                }
            }
            Event::DegradedMode { cause, .. } => {
                // Failing again after it recovered: the newer news replaces it.
                if let Degradation::ProviderFailing { provider } = cause {
                    let recovered = Degradation::ProviderRecovered { provider: provider.clone() };
                    self.degraded.retain(|r| *r != recovered);
                }
                self.degraded.push(cause.clone())
            }
            Event::SourceAdded { source } => {
                if let Some(it) = self.iteration_mut(source.iteration) {
                    it.new_sources.push(source.id);
                }
                self.sources.push(SourceEntry { meta: source.clone(), verdict: None, duplicates: Vec::new() });
            }
            Event::SourceDuplicate { iteration, of, locator } => {
                if let Some(s) = self.sources.get_mut(of.index())
                    && !s.duplicates.contains(locator)
                {
                    s.duplicates.push(locator.clone());
                }
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.duplicates += 1;
                    if !it.found_again.contains(of) {
                        it.found_again.push(*of);
                    }
                }
            }
            Event::SourceSkipped { iteration, locator, reason } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.skipped.push(Skipped { locator: locator.clone(), reason: reason.clone() });
                }
            }
            Event::SearchCompleted { iteration, .. } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.search_completed = true;
                }
            }
            Event::Reviewed { iteration, verdicts, report } => {
                for v in verdicts {
                    if let Some(s) = self.sources.get_mut(v.id.index()) {
                        s.verdict = Some(v.clone());
                    }
                }
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.review = Some((verdicts.clone(), report.clone()));
                }
            }
            Event::NoValidSources { iteration, reason, strict } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.no_valid_sources = Some(reason.clone());
                    it.no_valid_sources_strict = strict.unwrap_or_else(|| legacy_strict_reason(reason));
                }
            }
            Event::Drafted { iteration, draft } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.draft = Some(draft.clone());
                }
            }
            Event::Critiqued { iteration, critique } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.critique = Some(critique.clone());
                }
            }
            Event::Evaluated { iteration, evaluation } => {
                self.confidence = evaluation.confidence;
                self.coverage = evaluation.coverage;
                self.gaps = evaluation.gaps.clone();
                self.convergence_trend.push(evaluation.gain);
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.evaluation = Some(evaluation.clone());
                }
            }
            Event::Decided { iteration, decision } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.decision = Some(decision.clone());
                }
            }
            Event::Refined { iteration, refinement } => {
                self.pending_queries = refinement.queries.clone();
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.refinement = Some(refinement.clone());
                }
            }
            Event::Paused { iteration } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.paused = true;
                }
            }
            Event::Resumed { iteration } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.resumed = true;
                }
            }
            Event::ModeChanged { step_mode } => self.step_mode = *step_mode,
            Event::Steered { edit } => self.apply_steer(edit),
            Event::AskRaised { ask_id, iteration, clarification } => {
                if let Some(it) = self.iteration_mut(*iteration) {
                    it.ask_id = Some(ask_id.clone());
                }
                self.asks.push(AskRecord {
                    ask_id: ask_id.clone(),
                    iteration: *iteration,
                    clarification: clarification.clone(),
                    answer: None,
                });
            }
            Event::AskAnswered { ask_id, answer } => {
                if let Some(ask) = self.asks.iter_mut().find(|a| &a.ask_id == ask_id) {
                    ask.answer = Some(answer.clone());
                    let constraint =
                        format!("{} — the user answered: {}", ask.clarification.question, answer.as_text());
                    self.constraints.push(constraint);
                    let question = self.header.as_ref().map_or("", |h| h.question.as_str());
                    let mut chosen = Interpretation::from_answer(question, ask.iteration, &ask.clarification, answer);
                    // A second answer narrows further: what the first ruled out stays out.
                    if let Some(earlier) = self.interpretation.take() {
                        for t in earlier.excluded {
                            if !chosen.excluded.contains(&t) {
                                chosen.excluded.push(t);
                            }
                        }
                    }
                    self.interpretation = Some(chosen);
                }
            }
            Event::UsageRecorded { usage } => {
                self.cost_usd += usage.cost_usd;
                self.prompt_tokens += usage.prompt_tokens;
                self.completion_tokens += usage.completion_tokens;
                self.usage_estimated |= usage.estimated;
                let role = self.usage_by_role.entry(usage.role).or_default();
                role.calls += usage.calls;
                role.prompt_tokens += usage.prompt_tokens;
                role.completion_tokens += usage.completion_tokens;
                role.cost_usd += usage.cost_usd;
                if let Some(it) = self.iterations.last_mut() {
                    it.cost_usd += usage.cost_usd;
                    it.tokens += usage.total_tokens();
                }
            }
            Event::Error { phase, message } => {
                self.errors.push(ErrorRecord { iteration: self.iteration(), phase: *phase, message: message.clone() })
            }
            Event::BuiltinTookOver { takeover } => self.takeover = Some(takeover.clone()),
            Event::MemoryStored { .. } => self.memories_stored += 1,
            Event::OutputForced => self.force_output = true,
            Event::CancelRequested => self.cancel_requested = true,
            Event::CommandRejected { command, reason } => self.rejected.push(format!("{command}: {reason}")),
            Event::ReportDelta { text } => self.report_stream.push_str(text),
            Event::ReportRestarted { .. } => self.report_stream.clear(),
            Event::ReportWritten { report } => {
                // One confidence per session: the report's draft's, shown
                // everywhere from here on (summary, `sessions`, the last line).
                let scored = report
                    .based_on_iteration
                    .and_then(|n| self.iteration_record(n)?.evaluation.as_ref())
                    .map(|e| (e.confidence, e.coverage, e.gaps.clone()));
                (self.confidence, self.coverage, self.gaps) = scored.unwrap_or_default();
                self.report = Some(report.clone());
            }
            Event::Verified { verification } => self.verification = Some(verification.clone()),
            Event::SessionEnded { outcome } => self.outcome = Some(outcome.clone()),
            Event::Rechecked { recheck } => self.rechecks.push(recheck.clone()),
        }
    }

    /// A follow-up starts knowing the earlier sources (same ids, same
    /// verdicts) and with the earlier findings as a constraint.
    fn import(&mut self, imported: &ImportedContext) {
        for s in &imported.sources {
            self.sources.push(SourceEntry { meta: s.meta.clone(), verdict: s.verdict.clone(), duplicates: Vec::new() });
        }
        self.constraints.insert(self.imported_constraints, imported.as_constraint());
        self.imported_constraints += 1;
    }

    fn apply_steer(&mut self, edit: &Steer) {
        match edit {
            Steer::EditQuery { index, text } => {
                if let Some(q) = self.pending_queries.get_mut(*index) {
                    q.text = text.clone();
                    q.intent = "edited by the user".into();
                }
            }
            Steer::DeleteQuery { index } => {
                if *index < self.pending_queries.len() {
                    self.pending_queries.remove(*index);
                }
            }
            Steer::AddQuery { text } => self.pending_queries.push(PlannedQuery::new(text.clone(), "added by the user")),
            Steer::AddNote { text } => self.constraints.push(format!("Note from the user: {text}")),
            Steer::BanSource { id } => {
                self.pinned.remove(id);
                self.banned.insert(*id);
            }
            Steer::PinSource { id } => {
                self.banned.remove(id);
                self.pinned.insert(*id);
            }
        }
    }

    fn set_query_result(&mut self, iteration: u32, index: usize, query: &str, result: QueryResult) {
        let Some(it) = self.iteration_mut(iteration) else { return };
        match it.queries.get_mut(index) {
            Some(q) => q.result = Some(result),
            // A query the plan did not list (a damaged log): keep it visible.
            None => it.queries.push(QueryRecord { query: PlannedQuery::new(query, ""), result: Some(result) }),
        }
    }

    fn iteration_mut(&mut self, n: u32) -> Option<&mut IterationRecord> {
        self.iterations.get_mut((n as usize).checked_sub(1)?)
    }

    /// The current iteration number (0 before the first starts).
    pub fn iteration(&self) -> u32 {
        self.iterations.len() as u32
    }

    pub fn current(&self) -> Option<&IterationRecord> {
        self.iterations.last()
    }

    pub fn iteration_record(&self, n: u32) -> Option<&IterationRecord> {
        self.iterations.get((n as usize).checked_sub(1)?)
    }

    pub fn source(&self, id: SourceId) -> Option<&SourceEntry> {
        self.sources.get(id.index()).filter(|s| s.meta.id == id)
    }

    pub fn question(&self) -> &str {
        self.header.as_ref().map_or("", |h| h.question.as_str())
    }

    pub fn max_iterations(&self) -> u32 {
        self.header.as_ref().map_or(0, |h| h.limits.max_iterations)
    }

    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// Kept sources minus banned ones, plus pinned ones, in id order.
    pub fn usable_sources(&self) -> impl Iterator<Item = &SourceEntry> {
        self.sources.iter().filter(|s| {
            let id = s.meta.id;
            self.pinned.contains(&id) || (s.kept() && !self.banned.contains(&id))
        })
    }

    /// The iteration whose draft scored best (the candidate WRITE
    /// reports):
    /// highest confidence, then coverage, then the later one. A draft
    /// written before the user answered an ASK is a candidate only when it
    /// keeps to the meaning chosen.
    pub fn best_iteration(&self) -> Option<&IterationRecord> {
        let admitted = |it: &&IterationRecord| match (&it.draft, &self.interpretation) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(d), Some(i)) => i.admits_draft(it.iteration, d),
        };
        self.iterations.iter().filter(admitted).max_by(|a, b| {
            let key =
                |it: &IterationRecord| it.evaluation.as_ref().map_or((-1.0, -1.0), |e| (e.confidence, e.coverage));
            let (ca, va) = key(a);
            let (cb, vb) = key(b);
            ca.total_cmp(&cb).then(va.total_cmp(&vb)).then(a.iteration.cmp(&b.iteration))
        })
    }

    /// The research phases of iteration `n` that failed and fell back to
    /// sleuth's simple defaults, in the order they failed.
    pub fn failed_phases(&self, n: u32) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in self.errors.iter().filter(|e| e.iteration == n && e.phase.falls_back()) {
            let name = e.phase.as_str().to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// The iterations in which `phase` failed and fell back.
    pub fn iterations_where_failed(&self, phase: Phase) -> Vec<u32> {
        self.errors.iter().filter(|e| e.phase == phase).map(|e| e.iteration).collect()
    }

    /// Whether phases the model was to do fell back to built-in results
    /// (not search trouble): a script tells such a run apart by its exit code.
    pub fn reasoning_degraded(&self) -> bool {
        self.degraded.iter().any(Degradation::is_reasoning)
    }

    /// The constraints the user gave (answers and notes), without a
    /// follow-up's imported findings: those are context, not words to search.
    pub fn said_constraints(&self) -> &[String] {
        self.constraints.get(self.imported_constraints..).unwrap_or_default()
    }

    /// The ask still waiting for an answer, if any.
    pub fn open_ask(&self) -> Option<&AskRecord> {
        self.asks.iter().rev().find(|a| a.answer.is_none())
    }

    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }
}

impl QueryRecord {
    fn pending(query: PlannedQuery) -> Self {
        Self { query, result: None }
    }
}

fn as_sentences<S: serde::Serializer>(causes: &[Degradation], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(causes.iter().map(ToString::to_string))
}
