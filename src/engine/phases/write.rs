//! WRITE and VERIFY: the report from the best draft across iterations
//! (not necessarily the last), streamed as it is written, then every citation checked.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::call::Share;
use crate::engine::caveats::{WRITER_FAILED, answer_lead, answer_status, caveats};
use crate::engine::check::SourceDoc;
use crate::engine::citations::{citation_markers, mark_unsupported, verify};
use crate::engine::model::{Claim, Degradation, Draft, Phase, Report, Role, SourceId, StopReason, Verification};
use crate::engine::protocol::Event;
use crate::engine::reasoner::{ReasonerError, WriteContext, WriteOutput};
use crate::engine::render::{assemble, fallback_body};
use crate::engine::run::{Engine, EngineError};
use crate::text::pages::{page_of, pages_label};

enum WriteStep {
    Chunk(Option<String>),
    Done(Result<crate::engine::reasoner::Reply<WriteOutput>, ReasonerError>),
    Tick,
}

impl Engine {
    pub(crate) async fn write_phase(&mut self, stop: StopReason) -> Result<(), EngineError> {
        if !self.state.report_stream.is_empty() {
            // Fragments of a write that never finished (a crash, a cancel
            // mid-stream): marked void before this write streams its own.
            let discarded_bytes = self.state.report_stream.len() as u64;
            self.emit(Event::ReportRestarted { discarded_bytes })?;
        }
        let best = self.state.best_iteration().map(|it| (it.iteration, it.draft.clone(), it.evaluation.clone()));
        let (based_on, draft, evaluation) = match best {
            Some((n, d, e)) => (Some(n), d, e),
            None => (None, None, None),
        };
        let mut caveats = caveats(&self.state, stop, based_on, &self.settings.decide);
        let status = answer_status(&self.state, based_on);
        let has_material = draft.as_ref().is_some_and(|d| !d.claims.is_empty());
        if let Some(t) = &self.state.takeover {
            caveats.push(t.caveat());
        }
        // With no source to write from, no model call: the lead says why.
        // Nor when the sources do not answer and nothing was drafted: the
        // lead alone is then the body, whatever a writer would write.
        let lead_alone = !has_material && answer_lead(&self.state, status, false).is_some();
        let nothing_to_cite =
            lead_alone || (draft.as_ref().is_none_or(|d| d.cited_sources().is_empty()) && !self.has_usable_source());
        let (body, claims) = if stop == StopReason::Cancelled || draft.is_none() || nothing_to_cite {
            (fallback_body(draft.as_ref()), draft.map(|d| d.claims).unwrap_or_default())
        } else {
            let draft = draft.unwrap_or_default();
            match self.stream_write(&draft, based_on, evaluation, caveats.clone(), stop).await? {
                None => return Ok(()),
                Some(Some(out)) => match self.check_report(&out, &draft) {
                    Ok(()) => (out.markdown, out.claims),
                    Err(why) => {
                        self.emit_error(Phase::Write, format!("the written report was not used: {why}"))?;
                        (fallback_body(Some(&draft)), draft.claims.clone())
                    }
                },
                Some(None) => {
                    caveats.insert(0, WRITER_FAILED.to_string());
                    (fallback_body(Some(&draft)), draft.claims.clone())
                }
            }
        };
        // Sources were found: a body citing none of them is not published as
        // the answer (a draft of uncited prose, a writer that dropped every
        // citation). Their quoted opening sentences stand in, and it shows.
        let published_as_answer = has_material || answer_lead(&self.state, status, has_material).is_none();
        let (body, claims, has_material) = if stop != StopReason::Cancelled
            && published_as_answer
            && citation_markers(&body).is_empty()
            && self.has_usable_source()
        {
            let docs = self.usable_docs();
            let quoted = crate::engine::fallback::draft(&docs, None);
            self.emit_error(
                Phase::Draft,
                format!(
                    "the report would cite none of the {} sources found; their quoted opening sentences stand in",
                    docs.len()
                ),
            )?;
            let material = !quoted.claims.is_empty();
            (quoted.markdown, quoted.claims, material)
        } else {
            (body, claims, has_material)
        };
        // Said first, whatever the writer wrote: the material is not an answer.
        let body = match answer_lead(&self.state, status, has_material) {
            Some(lead) if !has_material => lead,
            Some(lead) => format!("{lead}\n\n{body}"),
            None => body,
        };
        if let Some(caveat) = self.reasoning_fallbacks()? {
            caveats.push(caveat);
        }
        // The caveats cite sources too (monitor mode's unconfirmed tier-5
        // statements): every id the report uses is listed and checked.
        let verification = self.verify_claims(&format!("{body}\n\n{}", caveats.join("\n")), &claims);
        let cited: Vec<SourceId> = verification.cited.clone();
        // Every cited sentence of the body was checked: those not backed are marked.
        let marked = mark_unsupported(&body, &verification);
        let pages = self.cited_pages(&claims, &verification);
        let markdown = assemble(&self.state, &marked, &cited, &caveats, &pages);
        let report = Report { markdown, claims, based_on_iteration: based_on, caveats, stop, answer: status };
        self.emit(Event::ReportWritten { report })?;
        self.emit(Event::Verified { verification })?;
        self.checkpoint()
    }

    /// For each cited paged source (a PDF), the pages its supported quotes
    /// stand on: `p. 4`, `pp. 4, 7`.
    fn cited_pages(&mut self, claims: &[Claim], verification: &Verification) -> BTreeMap<SourceId, String> {
        let mut pages: BTreeMap<SourceId, Vec<u32>> = BTreeMap::new();
        for c in claims.iter().flat_map(|c| &c.citations) {
            if !verification.cited.contains(&c.source) {
                continue;
            }
            let Some(text) = self.text_of(c.source) else { continue };
            if let Some(p) = page_of(&text, &c.quote) {
                pages.entry(c.source).or_default().push(p);
            }
        }
        pages.into_iter().filter_map(|(id, p)| pages_label(&p).map(|l| (id, l))).collect()
    }

    /// A written report is accepted only when it cites, keeps the source
    /// delimiters out, and its claims verify at least as the draft's did
    /// (a model that echoes its prompt, or answers "I don't know", fails).
    fn check_report(&mut self, out: &WriteOutput, draft: &Draft) -> Result<(), String> {
        if let Some(kind) = json_shape(&out.markdown) {
            return Err(format!("it is a JSON {kind}, not a report"));
        }
        let text = out.markdown.to_lowercase();
        if let Some(tag) =
            ["<source", "</source", "<sources>", "</sources>", "<draft>", "</draft>"].iter().find(|t| text.contains(*t))
        {
            return Err(format!("it contains the prompt's source delimiters (`{tag}`)"));
        }
        let draft_cites = !draft.cited_sources().is_empty();
        // Sources were found: an answer that cites none of them is not one.
        if (draft_cites || self.has_usable_source()) && citation_markers(&out.markdown).is_empty() {
            return Err("it cites no source".into());
        }
        let report = self.verify_claims(&out.markdown, &out.claims);
        if draft_cites && report.claims_supported == 0 {
            let drafted = self.verify_claims(&draft.markdown, &draft.claims);
            if drafted.claims_supported > 0 {
                return Err(format!(
                    "none of its {} claims has a quote found in its source (the draft had {})",
                    report.claims_checked, drafted.claims_supported
                ));
            }
        }
        Ok(())
    }

    /// Whether any source is left to cite.
    fn has_usable_source(&mut self) -> bool {
        !self.usable_docs().is_empty()
    }

    /// Phases the model could not do (they fell back to the built-in
    /// reasoning): recorded as degraded mode, and a caveat naming them.
    fn reasoning_fallbacks(&mut self) -> Result<Option<String>, EngineError> {
        let mut failed: Vec<Role> = Vec::new();
        // After a takeover the reasoner is the built-in: the failures before
        // it were the model's, and so was the one that decided it.
        let took_over = self.state.takeover.as_ref().map(|t| t.role);
        for e in &self.state.errors {
            if let Some(role) = e.phase.role()
                && (took_over.is_some() || self.reasoner.uses_model(role))
                && !failed.contains(&role)
            {
                failed.push(role);
            }
        }
        if let Some(role) = took_over
            && !failed.contains(&role)
        {
            failed.push(role);
        }
        if failed.is_empty() {
            return Ok(None);
        }
        let reason = Degradation::ModelFailed { phases: failed };
        if !self.state.degraded.contains(&reason) {
            let iteration = self.state.iteration();
            self.emit(Event::DegradedMode { iteration, cause: reason.clone() })?;
        }
        Ok(Some(format!(
            "Reasoning was degraded: {reason}; built-in, model-free results stood in for those phases, so treat \
             this answer as weaker than its scores suggest."
        )))
    }

    /// Only reached when a crash fell between writing and verifying.
    pub(crate) fn verify_phase(&mut self) -> Result<(), EngineError> {
        let Some(report) = self.state.report.clone() else { return Ok(()) };
        let verification = self.verify_claims(&report.markdown, &report.claims);
        self.emit(Event::Verified { verification })?;
        self.checkpoint()
    }

    fn verify_claims(&mut self, markdown: &str, claims: &[Claim]) -> Verification {
        // Only the sources the report refers to need their text.
        let mut ids: Vec<SourceId> = citation_markers(markdown).into_iter().map(SourceId).collect();
        ids.extend(claims.iter().flat_map(|c| c.citations.iter().map(|c| c.source)));
        ids.sort();
        ids.dedup();
        let docs: Vec<(SourceId, SourceDoc)> =
            ids.into_iter().filter_map(|id| self.text_of(id).map(|t| (id, SourceDoc::new(&t)))).collect();
        let doc_of = |id: SourceId| docs.iter().find(|(i, _)| *i == id).map(|(_, d)| d);
        verify(markdown, claims, &doc_of)
    }

    /// Runs WRITE, batching streamed text into `ReportDelta` events.
    /// `None`: interrupted; `Some(None)`: the writer failed (error recorded).
    async fn stream_write(
        &mut self,
        draft: &Draft,
        based_on: Option<u32>,
        evaluation: Option<crate::engine::model::Evaluation>,
        caveats: Vec<String>,
        stop: StopReason,
    ) -> Result<Option<Option<WriteOutput>>, EngineError> {
        let mut sources = Vec::new();
        for id in draft.cited_sources() {
            if let Some(d) = self.doc(id) {
                sources.push(d);
            }
        }
        for d in self.usable_docs() {
            if !sources.iter().any(|s| s.meta.id == d.meta.id) {
                sources.push(d);
            }
        }
        let ctx = WriteContext {
            question: self.question(),
            constraints: self.constraints(),
            draft: draft.clone(),
            based_on_iteration: based_on,
            sources,
            evaluation,
            caveats,
            stop,
        };
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let reasoner = self.reasoner.clone();
        // WRITE has the rest of the time limit, at least its reserved share.
        let left = self.time_left(Share::Write);
        let write = async move {
            match left {
                None => reasoner.write(ctx, tx).await,
                Some(d) => tokio::time::timeout(d, reasoner.write(ctx, tx)).await.unwrap_or_else(|_| {
                    Err(ReasonerError::Unavailable(format!(
                        "the time limit was reached after waiting {:.1} s for the report",
                        d.as_secs_f64()
                    )))
                }),
            }
        };
        tokio::pin!(write);
        let batch = Duration::from_millis(self.settings.stream_batch_ms.max(1));
        let mut buffer = String::new();
        let mut last_flush = Instant::now();
        let mut chunks_open = true;
        loop {
            let deadline = last_flush + batch;
            let pending = !buffer.is_empty();
            let step = self
                .await_work(async {
                    tokio::select! {
                        biased;
                        chunk = rx.recv(), if chunks_open => WriteStep::Chunk(chunk),
                        _ = tokio::time::sleep_until(deadline), if pending => WriteStep::Tick,
                        done = &mut write => WriteStep::Done(done),
                    }
                })
                .await?;
            match step {
                None => {
                    self.record_late_usage()?;
                    return Ok(None);
                }
                Some(WriteStep::Chunk(Some(text))) => buffer.push_str(&text),
                Some(WriteStep::Chunk(None)) => chunks_open = false,
                Some(WriteStep::Tick) => {}
                Some(WriteStep::Done(result)) => {
                    while let Ok(text) = rx.try_recv() {
                        buffer.push_str(&text);
                    }
                    if !buffer.is_empty() {
                        self.emit(Event::ReportDelta { text: std::mem::take(&mut buffer) })?;
                    }
                    self.record_late_usage()?;
                    return Ok(Some(match result {
                        Ok(r) => {
                            self.emit_usage(r.usage)?;
                            Some(r.value)
                        }
                        Err(e) => {
                            self.emit_error(Phase::Write, e.to_string())?;
                            None
                        }
                    }));
                }
            }
            if !buffer.is_empty() && last_flush.elapsed() >= batch {
                self.emit(Event::ReportDelta { text: std::mem::take(&mut buffer) })?;
                last_flush = Instant::now();
            }
        }
    }
}

/// `Some("array")` or `Some("object")` when `text` (code fences aside) is a
/// JSON value rather than prose: a model that answered WRITE with its
/// queries or its claims, not a report.
fn json_shape(text: &str) -> Option<&'static str> {
    let t = text.trim();
    let t = t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).unwrap_or(t);
    let t = t.strip_suffix("```").unwrap_or(t).trim();
    match serde_json::from_str::<serde_json::Value>(t) {
        Ok(serde_json::Value::Array(_)) => Some("array"),
        Ok(serde_json::Value::Object(_)) => Some("object"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_in_place_of_a_report_is_recognised() {
        assert_eq!(super::json_shape("[\"rust lifetimes\", \"borrow checker\"]"), Some("array"));
        assert_eq!(super::json_shape("```json\n{\"claims\": []}\n```"), Some("object"));
        assert_eq!(super::json_shape("Lifetimes bound references [1]."), None);
        assert_eq!(super::json_shape("[1] says lifetimes bound references."), None);
    }
}
