//! Tokens and cost. Usage comes from each response; where an endpoint
//! sends none, the tokens are counted locally with tiktoken (o200k) and the
//! usage is marked as an estimate. Cost comes from the `[llm.pricing]` table.

use super::config::Price;
use super::endpoint::{ChatReply, Message};
use crate::engine::model::{Role, Usage};

/// Tokens in a text (o200k; other tokenizers differ by some percent, which
/// the compaction margin absorbs).
pub fn count_tokens(text: &str) -> u64 {
    tiktoken_rs::o200k_base_singleton().count_ordinary(text) as u64
}

/// Per-message framing tokens in the chat format.
const PER_MESSAGE: u64 = 4;
const PER_REPLY: u64 = 3;

/// Tokens a list of messages occupies in the context window.
pub fn prompt_tokens(messages: &[Message]) -> u64 {
    messages.iter().map(|m| count_tokens(&m.content) + PER_MESSAGE).sum::<u64>() + PER_REPLY
}

pub fn cost_usd(price: Option<Price>, prompt: u64, completion: u64) -> f64 {
    price.map_or(0.0, |p| (prompt as f64 * p.input + completion as f64 * p.output) / 1_000_000.0)
}

/// Sums the calls one role makes (repairs included) into one `Usage`.
#[derive(Debug, Clone)]
pub struct Meter {
    role: Role,
    model: String,
    price: Option<Price>,
    prompt: u64,
    completion: u64,
    estimated: bool,
    calls: u32,
    cached: u64,
}

impl Meter {
    pub fn new(role: Role, model: &str, price: Option<Price>) -> Self {
        Self { role, model: model.to_string(), price, prompt: 0, completion: 0, estimated: false, calls: 0, cached: 0 }
    }

    /// Adds one answered call: the endpoint's figures, else local counts.
    /// Returns that call's own usage, to be recorded as it happens.
    pub fn record(&mut self, sent: &[Message], reply: &ChatReply) -> Usage {
        let prompt = reply.prompt_tokens.unwrap_or_else(|| prompt_tokens(sent));
        let completion = reply.completion_tokens.unwrap_or_else(|| count_tokens(&reply.text));
        let estimated = reply.prompt_tokens.is_none() || reply.completion_tokens.is_none();
        let cached = reply.cached_tokens.unwrap_or(0);
        self.estimated |= estimated;
        self.prompt += prompt;
        self.completion += completion;
        self.cached += cached;
        self.calls += 1;
        Usage {
            role: self.role,
            model: self.model.clone(),
            prompt_tokens: prompt,
            completion_tokens: completion,
            cost_usd: cost_usd(self.price, prompt, completion),
            estimated,
            calls: 1,
            cached_tokens: cached,
        }
    }

    /// A call that was sent and never answered (cancelled, or cut by the
    /// time limit): its prompt, counted locally; the server did read it.
    pub fn unanswered(&self, sent: &[Message]) -> Usage {
        let prompt = prompt_tokens(sent);
        Usage {
            role: self.role,
            model: self.model.clone(),
            prompt_tokens: prompt,
            completion_tokens: 0,
            cost_usd: cost_usd(self.price, prompt, 0),
            estimated: true,
            calls: 1,
            cached_tokens: 0,
        }
    }

    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// `None` when no call was answered.
    pub fn usage(&self) -> Option<Usage> {
        (self.calls > 0).then(|| Usage {
            role: self.role,
            model: self.model.clone(),
            prompt_tokens: self.prompt,
            completion_tokens: self.completion,
            cost_usd: cost_usd(self.price, self.prompt, self.completion),
            estimated: self.estimated,
            calls: self.calls,
            cached_tokens: self.cached,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_usage_is_used_and_priced() {
        let mut m = Meter::new(Role::Draft, "gpt-4o-mini", Some(Price { input: 0.15, output: 0.60 }));
        let reply = ChatReply {
            text: "ok".into(),
            prompt_tokens: Some(1000),
            completion_tokens: Some(500),
            ..ChatReply::default()
        };
        m.record(&[Message::user("hello")], &reply);
        m.record(&[Message::user("hello")], &reply);
        let u = m.usage().unwrap();
        assert_eq!((u.prompt_tokens, u.completion_tokens, u.calls, u.estimated), (2000, 1000, 2, false));
        assert!((u.cost_usd - (2000.0 * 0.15 + 1000.0 * 0.60) / 1e6).abs() < 1e-12);
    }

    #[test]
    fn missing_usage_is_estimated_and_marked() {
        let mut m = Meter::new(Role::Plan, "local", None);
        let sent = [Message::system("You are a planner."), Message::user("Plan searches about Rust lifetimes.")];
        m.record(&sent, &ChatReply { text: "{\"queries\": []}".into(), ..ChatReply::default() });
        let u = m.usage().unwrap();
        assert!(u.estimated);
        assert_eq!(u.prompt_tokens, prompt_tokens(&sent));
        assert!(u.prompt_tokens > 10 && u.completion_tokens > 3, "{u:?}");
        assert_eq!(u.cost_usd, 0.0);
        assert!(Meter::new(Role::Plan, "m", None).usage().is_none());
    }
}
