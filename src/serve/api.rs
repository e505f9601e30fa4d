//! The JSON a client sends and gets back (also the OpenAPI schemas). The
//! answer itself (`RunAnswer`, `JobView`) is the session service's, shared
//! with `sleuth mcp`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::SessionStatus;
use crate::research::request::parse_choice;
use crate::research::{Field, RequestError, ResearchRequest};

/// `POST /run`: one research task and its request options.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The question to research (at most `research.max_question_chars` characters).
    pub task: String,
    /// `simple`, `standard` or `deep` (the preset's limits).
    #[serde(default)]
    pub complexity_tier: Option<String>,
    /// Iterations at most (1..100).
    #[serde(default)]
    pub max_iters: Option<u32>,
    /// Queries per iteration (1..50).
    #[serde(default)]
    pub max_queries: Option<u32>,
    /// New sources per iteration (1..500).
    #[serde(default)]
    pub max_sources: Option<u32>,
    /// Research time limit in seconds (0: none; at most 604800).
    #[serde(default)]
    pub max_execution_time_s: Option<u64>,
    /// LLM token budget (0: none).
    #[serde(default)]
    pub token_budget: Option<u64>,
    /// `builtin` or `llm`.
    #[serde(default)]
    pub reasoner: Option<String>,
    /// `strict`, `discovery` or `monitor`.
    #[serde(default)]
    pub source_mode: Option<String>,
    /// Which kinds of source: `local`, `web`, `academic` or `all`.
    #[serde(default)]
    pub sources: Option<String>,
    /// Server-Sent Events: every engine event, then the answer.
    #[serde(default)]
    pub stream: bool,
    /// Answer `202` with a job id at once.
    #[serde(default, rename = "async")]
    pub run_async: bool,
    /// `first`: a clarifying question takes its first option instead of
    /// stopping the request with the question (`wait`, the default).
    #[serde(default)]
    pub ask: Option<String>,
}

impl RunRequest {
    /// The request as every front end makes it; a field with a value no
    /// choice has is refused here, naming the choices.
    pub fn research(&self) -> Result<ResearchRequest, RequestError> {
        fn choice<T: serde::de::DeserializeOwned>(
            field: Field,
            given: &Option<String>,
            choices: &[&str],
        ) -> Result<Option<T>, RequestError> {
            match given {
                Some(g) => parse_choice(field, body_field(field), g, choices).map(Some),
                None => Ok(None),
            }
        }
        Ok(ResearchRequest {
            preset: choice(Field::Preset, &self.complexity_tier, &["simple", "standard", "deep"])?,
            max_iterations: self.max_iters,
            max_queries: self.max_queries,
            max_sources: self.max_sources,
            time_limit_secs: self.max_execution_time_s,
            token_budget: self.token_budget,
            reasoner: choice(Field::Reasoner, &self.reasoner, &["builtin", "llm"])?,
            source_mode: choice(Field::SourceMode, &self.source_mode, &["strict", "discovery", "monitor"])?,
            sources: choice(Field::Sources, &self.sources, &["local", "web", "academic", "all"])?,
            // Nobody steps a server.
            step: Some(false),
            ..Default::default()
        })
    }

    /// Whether an ASK takes its first option (`"ask": "first"`).
    pub fn answers_first(&self) -> Result<bool, RequestError> {
        match self.ask.as_deref().map(str::trim) {
            None | Some("wait") => Ok(false),
            Some("first") => Ok(true),
            Some(other) => Err(RequestError::new(
                Field::Ask,
                format!("unknown ask \"{}\" (wait or first)", crate::text::sanitize_inline(other)),
            )),
        }
    }
}

/// The body field of `POST /run` that sets a request field.
pub fn body_field(field: Field) -> &'static str {
    match field {
        Field::Question => "task",
        Field::Preset => "complexity_tier",
        Field::MaxIterations => "max_iters",
        Field::MaxQueries => "max_queries",
        Field::MaxSources => "max_sources",
        Field::TimeLimit => "max_execution_time_s",
        Field::CostBudget => "cost_budget_usd",
        Field::TokenBudget => "token_budget",
        Field::Reasoner => "reasoner",
        Field::SourceMode => "source_mode",
        Field::Sources => "sources",
        Field::Step => "step",
        Field::Ask => "ask",
    }
}

/// `POST /jobs/{id}/answer`: an option's text or number (1-based), or free text.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    pub ask_id: String,
    pub answer: String,
}

/// `202 Accepted`: where to follow an asynchronous job.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Accepted {
    pub job_id: String,
    #[schema(value_type = String)]
    pub status: SessionStatus,
    /// `GET` this for the status and, at the end, the answer.
    pub poll: String,
    /// Server-Sent Events of the job (resumable with `Last-Event-ID`).
    pub events: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Preset};
    use crate::engine::tiers::SourceMode;

    fn request(json: &str) -> RunRequest {
        serde_json::from_str(json).expect("parses")
    }

    #[test]
    fn request_choices_land_in_the_config_and_bad_values_name_their_field() {
        let base = Config::default();
        let c = request(r#"{"task":"q","complexity_tier":"deep","max_iters":3,"source_mode":"Strict"}"#)
            .research()
            .and_then(|r| r.apply(&base))
            .expect("valid");
        assert_eq!(c.research.preset, Preset::Deep);
        assert_eq!(c.limits.resolve(c.research.preset).max_iterations, 3);
        assert_eq!(c.research.source_mode, SourceMode::Strict);
        let bad = request(r#"{"task":"q","complexity_tier":"huge"}"#).research().expect_err("invalid");
        assert_eq!(body_field(bad.field), "complexity_tier");
        assert_eq!(bad.message, "unknown complexity_tier \"huge\" (simple, standard or deep)");
        let bad = request(r#"{"task":"q","max_iters":1000}"#).research().and_then(|r| r.apply(&base));
        let bad = bad.expect_err("out of range");
        assert_eq!(
            (body_field(bad.field), bad.message.as_str()),
            ("max_iters", "must be between 1 and 100 (got 1000)")
        );
        assert_eq!(request(r#"{"task":"q","ask":"maybe"}"#).answers_first().expect_err("bad").field, Field::Ask);
        assert!(request(r#"{"task":"q","ask":"first","async":true}"#).answers_first().expect("ok"));
    }
}
