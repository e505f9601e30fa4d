//! WRITE (`write_with_model = true`): the report streams token by token
//! (through `ReportFilter`, so reasoning and the claims JSON never reach the
//! screen); the claims after the `===CLAIMS===` line come in the same reply.
//! A reply without that line was cut off and is refused (the engine's
//! built-in writer takes over). Claims are never asked for by a second
//! call: when they are malformed, the draft's claims whose sources the
//! report still cites stand in, and the engine verifies and marks what the
//! report says either way. Without `write_with_model` the report is the
//! best draft, with no call (`report_from_draft`).

use super::echo::echo_in_reply;
use super::reasoner::{LlmReasoner, unavailable};
use super::render::{CLAIMS_MARKER, format_rules};
use super::stream::{ReportFilter, split_report};
use super::structured;
use super::wire::{ClaimsWire, map_claims};
use crate::engine::citations::citation_markers;
use crate::engine::model::{Claim, Role, SourceId};
use crate::engine::reasoner::{ReasonerError, Reply, ReportStream, WriteContext, WriteOutput};

impl LlmReasoner {
    pub(super) async fn write_report(
        &self,
        ctx: WriteContext,
        stream: ReportStream,
    ) -> Result<Reply<WriteOutput>, ReasonerError> {
        let prompt = self.renderer(Role::Write).write(&ctx);
        let (ep, _) = self.target(Role::Write);
        let mut meter = self.meter(Role::Write);
        let limits = self.limits(&prompt.known, 0);
        let system =
            format!("{}\n\n## Reply format\n\n{}", prompt.system, format_rules(Role::Write, ep.mode(), &limits));
        let messages = self.messages(system, &[super::endpoint::Message::user(prompt.user.clone())]);
        let request = self.request(Role::Write, messages, ep.mode(), false, &limits);
        let mut filter = ReportFilter::default();
        let send = |text: String| {
            if !text.is_empty() {
                // The engine may have stopped listening (cancel): the reply still counts.
                let _ = stream.send(text);
            }
        };
        let flight = super::reasoner::InFlight::new(self, meter.unanswered(&request.messages));
        let result = if self.config.stream_write {
            ep.chat_stream(&request, |piece| send(filter.push(piece))).await
        } else {
            ep.chat(&request).await.inspect(|r| send(filter.push(&r.text)))
        };
        flight.landed();
        let reply = match result {
            Ok(r) => r,
            Err(e) => return self.finish(Err(unavailable(Role::Write, &e))),
        };
        send(filter.finish());
        self.record(meter.record(&request.messages, &reply));
        let (body, claims_text) = split_report(&reply.text);
        let problem = if body.trim().is_empty() {
            Some("the report was empty".to_string())
        } else if let Some(echo) = echo_in_reply(&body, &request.messages) {
            Some(echo)
        } else if claims_text.is_none() {
            // The claims line closes every report: without it the report was
            // cut off (or ignored the format), and half a report is no answer.
            Some(format!(
                "the report ended without its {CLAIMS_MARKER} line: it was cut off or did not follow the format"
            ))
        } else if claims_text.as_deref().is_some_and(structured::is_cut_off) {
            // Cut in its claims: what the report says can no longer be checked
            // against what it claims.
            Some("the report's claims were cut off before their JSON closed".to_string())
        } else {
            None
        };
        if let Some(last_error) = problem {
            let e = ReasonerError::Malformed { role: "write".into(), attempts: 1, last_error };
            return self.finish(Err(e));
        }
        let parsed = claims_text
            .ok_or_else(|| format!("no claims followed the report (the {CLAIMS_MARKER} line was missing)"))
            .and_then(|t| structured::parse::<ClaimsWire>(&t))
            .and_then(|w| map_claims(w.claims, &prompt.known));
        let claims = match parsed {
            Ok(c) if !c.is_empty() => c,
            Ok(_) => draft_claims_cited(&ctx, &body),
            Err(error) => {
                tracing::warn!(%error, "report claims unusable; the draft's claims it cites stand in");
                draft_claims_cited(&ctx, &body)
            }
        };
        self.finish(Ok(WriteOutput { markdown: body, claims }))
    }
}

/// The draft's claims on sources the report cites (all of them when the
/// report cites none of the draft's sources): already checked once, and
/// checked again against the report.
fn draft_claims_cited(ctx: &WriteContext, body: &str) -> Vec<Claim> {
    let known: Vec<SourceId> = ctx.sources.iter().map(|d| d.meta.id).collect();
    let cited: Vec<SourceId> = citation_markers(body).into_iter().map(SourceId).collect();
    let usable = |c: &&Claim| c.citations.iter().all(|x| known.contains(&x.source));
    let on_cited: Vec<Claim> = ctx
        .draft
        .claims
        .iter()
        .filter(usable)
        .filter(|c| c.citations.iter().any(|x| cited.contains(&x.source)))
        .cloned()
        .collect();
    if on_cited.is_empty() { ctx.draft.claims.iter().filter(usable).cloned().collect() } else { on_cited }
}

/// The report without a call (`write_with_model = false`): the best draft
/// as the model wrote it, with its claims, already checked once and checked
/// again by VERIFY against what is printed.
pub(super) fn report_from_draft(ctx: &WriteContext, stream: &ReportStream) -> WriteOutput {
    let mut markdown = ctx.draft.markdown.trim().to_string();
    if markdown.is_empty() {
        markdown = "The sources found do not answer this question.".to_string();
    }
    markdown.push('\n');
    // The engine may have stopped listening (cancel): the body is returned whole anyway.
    let _ = stream.send(markdown.clone());
    WriteOutput { markdown, claims: ctx.draft.claims.clone() }
}
