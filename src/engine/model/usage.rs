use std::fmt;

use serde::{Deserialize, Serialize};

/// The reasoner roles (one prompt template and one trait method each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Plan,
    Review,
    Draft,
    Critique,
    Write,
    Clarify,
}

impl Role {
    pub const ALL: [Role; 6] = [Role::Plan, Role::Review, Role::Draft, Role::Critique, Role::Write, Role::Clarify];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Plan => "plan",
            Role::Review => "review",
            Role::Draft => "draft",
            Role::Critique => "critique",
            Role::Write => "write",
            Role::Clarify => "clarify",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tokens and cost of one model call (or several, summed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub role: Role,
    pub model: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
    /// True when the endpoint reported no usage and the tokens were counted locally.
    #[serde(default)]
    pub estimated: bool,
    /// Model calls this covers (retries and repairs included).
    #[serde(default = "one")]
    pub calls: u32,
    /// Prompt tokens the server served from its prefix cache (when it
    /// reports them; 0 otherwise).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn one() -> u32 {
    1
}

impl Usage {
    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}
