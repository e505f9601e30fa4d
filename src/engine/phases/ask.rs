//! ASK: turn the critique's need for clarification into a question with an
//! id; the loop waits for `Command::Answer` with that id.

use crate::engine::model::Clarification;
use crate::engine::model::Role;
use crate::engine::protocol::Event;
use crate::engine::reasoner::ClarifyContext;
use crate::engine::run::{Engine, EngineError};
use crate::text::sanitize_inline;

impl Engine {
    pub(crate) async fn ask_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let critique = self.state.iteration_record(n).and_then(|it| it.critique.clone());
        let from_critique = critique.as_ref().and_then(|c| c.needs_clarification.clone());
        // The critic that raised the ask named the readings: that is the
        // question to put, and a clarify call would only re-read it.
        let named = from_critique.clone().filter(|c| c.options.iter().filter(|o| !o.trim().is_empty()).count() >= 2);
        let reply = match named {
            Some(c) => Some(c),
            None => {
                let ctx = ClarifyContext { question: self.question(), critique, sources: self.usable_docs() };
                let Some(reply) =
                    self.reason_or_hand_over(Role::Clarify, ctx, |r, c| async move { r.clarify(c).await }).await?
                else {
                    return Ok(());
                };
                reply
            }
        };
        let clarification = match reply {
            Some(c) => c,
            None => from_critique.unwrap_or_else(|| Clarification {
                question: format!("What exactly do you mean by: {}?", self.state.question()),
                options: Vec::new(),
            }),
        };
        let clarification = Clarification {
            question: sanitize_inline(&clarification.question),
            options: clarification
                .options
                .iter()
                .map(|o| sanitize_inline(o))
                .filter(|o| !o.trim().is_empty())
                .collect(),
        };
        let ask_id = format!("ask-{n}-{}", self.state.asks.len() + 1);
        self.emit(Event::AskRaised { ask_id, iteration: n, clarification })?;
        self.checkpoint()
    }
}
