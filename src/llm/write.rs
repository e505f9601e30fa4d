//! WRITE: the report streams token by token (through `ReportFilter`, so
//! reasoning and the claims JSON never reach the screen); the claims after
//! the `===CLAIMS===` line come in the same reply. They are never asked for
//! by a second call: when they are missing or malformed, the draft's claims
//! whose sources the report still cites stand in, and the engine verifies
//! and marks what the report says either way.

use super::reasoner::{LlmReasoner, unavailable};
use super::render::format_rules;
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
        } else {
            echo_of_prompt(&body, &request.messages)
        };
        if let Some(last_error) = problem {
            let e = ReasonerError::Malformed { role: "write".into(), attempts: 1, last_error };
            return self.finish(Err(e));
        }
        let parsed = claims_text
            .ok_or_else(|| "no claims followed the report (the ===CLAIMS=== line was missing)".to_string())
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

/// Chat-template markers that only appear when a server's template leaked
/// the prompt into the reply.
const TEMPLATE_MARKERS: &[&str] = &["<<SYS>>", "[INST]", "<start_of_turn>", "<|im_start|>", "<|system|>"];

/// Why `body` is the prompt echoed back rather than a report: a template
/// marker, or long lines copied from the instructions (the system prompt,
/// or its folded copy at the head of the first user message; the data after
/// it — question, draft, sources — is what a report may repeat).
fn echo_of_prompt(body: &str, sent: &[super::endpoint::Message]) -> Option<String> {
    if let Some(m) = TEMPLATE_MARKERS.iter().find(|m| body.contains(*m)) {
        return Some(format!("the reply echoes the chat template (`{m}`)"));
    }
    let first = sent.first()?;
    let instructions = match first.role {
        "system" => first.content.as_str(),
        _ => first.content.split("\n\n---\n\n").next().unwrap_or(""),
    };
    let copied = body.lines().map(str::trim).filter(|l| l.len() >= 40).filter(|l| instructions.contains(*l)).count();
    (copied >= 2).then(|| format!("the reply repeats {copied} lines of the prompt's instructions"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::endpoint::Message;

    #[test]
    fn a_reply_repeating_the_instructions_is_an_echo() {
        let system = "# WRITE\n\nYou are the writer of a research agent. Turn the draft into the final\nreport for the person who asked, with every inline citation kept.\nKeep every inline citation [n] of the draft for the statements it supports.";
        let sent = [
            Message::system(system),
            Message::user(
                "QUESTION:\nWhy?\n<draft>\nA long sentence that a report may quote from its source text.\n</draft>",
            ),
        ];
        let echo = "<<SYS>> # WRITE You are the writer";
        assert!(echo_of_prompt(echo, &sent).unwrap().contains("template"));
        let copy = "You are the writer of a research agent. Turn the draft into the final\nreport for the person who asked, with every inline citation kept.";
        assert!(echo_of_prompt(copy, &sent).unwrap().contains("2 lines"));
        let report = "The answer is short [1].\nA long sentence that a report may quote from its source text.";
        assert_eq!(echo_of_prompt(report, &sent), None);
    }
}
