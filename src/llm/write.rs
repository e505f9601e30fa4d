//! WRITE: the report streams token by token (through `ReportFilter`, so
//! reasoning and the claims JSON never reach the screen); the claims after
//! the `===CLAIMS===` line are parsed, and asked for again on their own when
//! they are missing or malformed. If that fails too, the draft's claims
//! stand in: the engine verifies every one of them either way.

use super::endpoint::Message;
use super::reasoner::{Call, LlmReasoner, unavailable};
use super::render::format_rules;
use super::stream::{ReportFilter, split_report};
use super::structured;
use super::usage::count_tokens;
use super::wire::{ClaimsWire, map_claims};
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
        let system = format!("{}\n\n## Reply format\n\n{}", prompt.system, format_rules(Role::Write, ep.mode()));
        let messages = vec![Message::system(system), Message::user(prompt.user.clone())];
        let request = self.request(Role::Write, messages, ep.mode(), false);
        let mut filter = ReportFilter::default();
        let send = |text: String| {
            if !text.is_empty() {
                // The engine may have stopped listening (cancel): the reply still counts.
                let _ = stream.send(text);
            }
        };
        let result = if self.config.stream_write {
            ep.chat_stream(&request, |piece| send(filter.push(piece))).await
        } else {
            ep.chat(&request).await.inspect(|r| send(filter.push(&r.text)))
        };
        let reply = match result {
            Ok(r) => r,
            Err(e) => return self.finish(Err(unavailable(Role::Write, &e)), &[meter]),
        };
        send(filter.finish());
        meter.record(&request.messages, &reply);
        let (body, claims_text) = split_report(&reply.text);
        if body.trim().is_empty() {
            let e = ReasonerError::Malformed {
                role: "write".into(),
                attempts: 1,
                last_error: "the report was empty".into(),
            };
            return self.finish(Err(e), &[meter]);
        }
        let parsed = claims_text
            .ok_or_else(|| "no claims followed the report (the ===CLAIMS=== line was missing)".to_string())
            .and_then(|t| structured::parse::<ClaimsWire>(&t))
            .and_then(|w| map_claims(w.claims, &prompt.known));
        let claims = match parsed {
            Ok(c) => c,
            Err(error) => self.repair_claims(&ctx, &body, &error, &mut meter).await,
        };
        self.finish(Ok(WriteOutput { markdown: body, claims }), &[meter])
    }

    /// Asks for the claims of `body` on their own; the draft's claims if
    /// that fails as well (or repairs are off).
    async fn repair_claims(
        &self,
        ctx: &WriteContext,
        body: &str,
        error: &str,
        meter: &mut super::usage::Meter,
    ) -> Vec<Claim> {
        let known: Vec<SourceId> = ctx.sources.iter().map(|d| d.meta.id).collect();
        let fallback = || -> Vec<Claim> {
            ctx.draft.claims.iter().filter(|c| c.citations.iter().all(|x| known.contains(&x.source))).cloned().collect()
        };
        if self.config.max_repairs == 0 {
            tracing::warn!(%error, "report claims unusable; the draft's claims stand in");
            return fallback();
        }
        // The report joins the conversation: the sources give it room.
        let mut renderer = self.renderer(Role::Write);
        renderer.budget = renderer.budget.saturating_sub(count_tokens(body));
        let prompt = renderer.write(ctx);
        let call = Call {
            role: Role::Write,
            system: &prompt.system,
            turns: vec![
                Message::user(prompt.user.clone()),
                Message::assistant(body.to_string()),
                Message::user(format!(
                    "The claims after your report could not be used: {error}. Reply now with only the JSON object \
{{\"claims\": [...]}} for the report above: each claim with its text, aspect and citations (source id and a quote \
copied word for word from that source)."
                )),
            ],
            known: &prompt.known,
            json: true,
            max_repairs: self.config.max_repairs - 1,
        };
        match self.call(call, meter, |w: ClaimsWire, known| map_claims(w.claims, known)).await {
            Ok(claims) => claims,
            Err(e) => {
                tracing::warn!(error = %e, "report claims unusable after repair; the draft's claims stand in");
                fallback()
            }
        }
    }
}
