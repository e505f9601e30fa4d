//! DRAFT and CRITIQUE.

use crate::engine::fallback;
use crate::engine::model::{AspectKind, Draft, Role};
use crate::engine::monitor::{TierText, compare_tiers};
use crate::engine::protocol::Event;
use crate::engine::reasoner::{CritiqueContext, DraftContext};
use crate::engine::run::{Engine, EngineError};
use crate::engine::tiers::SourceMode;

impl Engine {
    pub(crate) async fn draft_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let sources = self.usable_docs();
        if sources.is_empty() {
            // Nothing to draft from: no call can succeed, so none is made.
            let reason = "no usable source is left to draft from".to_string();
            return self.emit(Event::NoValidSources { iteration: n, reason, strict: Some(false) });
        }
        let previous = self.state.iterations.iter().rev().skip(1).find_map(|it| it.draft.clone());
        let previous_critique = self.state.iterations.iter().rev().skip(1).find_map(|it| it.critique.clone());
        let ctx = DraftContext {
            question: self.question(),
            constraints: self.constraints(),
            iteration: n,
            sources: sources.clone(),
            previous_draft: previous.clone(),
            previous_critique,
            memories: if self.settings.memory.enabled {
                let mut m = self.memory.retrieve_similar(self.state.question());
                m.truncate(self.settings.memory.max_in_prompt);
                m
            } else {
                Vec::new()
            },
        };
        let Some(reply) = self.reason_or_hand_over(Role::Draft, ctx, |r, c| async move { r.draft(c).await }).await?
        else {
            return Ok(());
        };
        let draft = reply.unwrap_or_else(|| fallback::draft(&sources, previous.as_ref()));
        self.emit(Event::Drafted { iteration: n, draft })
    }

    pub(crate) async fn critique_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let draft: Draft = self.state.iteration_record(n).and_then(|it| it.draft.clone()).unwrap_or_default();
        let planned = |kind: AspectKind| -> Vec<String> {
            let mut v: Vec<String> = Vec::new();
            for q in self.state.iterations.iter().flat_map(|it| &it.queries).filter(|q| q.query.aspect_kind == kind) {
                if let Some(a) = &q.query.aspect
                    && !v.contains(a)
                {
                    v.push(a.clone());
                }
            }
            v
        };
        let (planned_aspects, related_aspects) = (planned(AspectKind::Asked), planned(AspectKind::Related));
        let answered_asks =
            self.state.asks.iter().filter(|a| a.answer.is_some()).map(|a| a.clarification.question.clone()).collect();
        let ctx = CritiqueContext {
            question: self.question(),
            constraints: self.constraints(),
            iteration: n,
            draft: draft.clone(),
            sources: self.usable_docs(),
            planned_aspects,
            related_aspects,
            answered_asks,
        };
        let Some(reply) =
            self.reason_or_hand_over(Role::Critique, ctx, |r, c| async move { r.critique(c).await }).await?
        else {
            return Ok(());
        };
        let mut critique = reply.unwrap_or_else(|| fallback::critique(self.state.question(), &draft));
        if self.settings.source_mode == SourceMode::Monitor {
            let docs = self.usable_docs();
            let texts: Vec<TierText<'_>> =
                docs.iter().map(|d| TierText { id: d.meta.id, tier: d.meta.tier, text: &d.text }).collect();
            critique.issues.push(compare_tiers(&texts));
        }
        self.emit(Event::Critiqued { iteration: n, critique })
    }
}
