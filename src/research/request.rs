//! One research request, whichever front end it came from: `sleuth run`'s
//! flags, the TUI's prompt, the HTTP body and the MCP arguments all become
//! a `ResearchRequest`, and `apply` alone turns it into the configuration
//! the session runs under, checked by the configuration's own validation
//! (`config::validate`, the ranges of `config/ranges.rs`). So
//! `POST /run {"max_iters": 1000}` is refused exactly as `--max-iterations
//! 1000` and `limits.max_iterations = 1000` are.

use serde::{Deserialize, Serialize};

use crate::config::{AskPolicy, Config, Preset, ReasonerKind};
use crate::engine::tiers::SourceMode;

/// Every choice a session can make for itself; each is optional and
/// leaves the configuration's value when absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResearchRequest {
    pub preset: Option<Preset>,
    pub max_iterations: Option<u32>,
    /// Queries per iteration.
    pub max_queries: Option<u32>,
    /// New sources per iteration.
    pub max_sources: Option<u32>,
    /// Seconds; 0 means no limit.
    pub time_limit_secs: Option<u64>,
    /// US dollars; 0 means no limit.
    pub cost_budget_usd: Option<f64>,
    /// Tokens; 0 means no limit.
    pub token_budget: Option<u64>,
    pub reasoner: Option<ReasonerKind>,
    pub source_mode: Option<SourceMode>,
    /// Which kinds of source to search.
    pub sources: Option<Sources>,
    /// Pause after every iteration.
    pub step: Option<bool>,
    /// How a clarifying question is answered without a person at hand.
    pub ask: Option<AskPolicy>,
}

/// A request field, for errors that name it in each front end's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Question,
    Preset,
    MaxIterations,
    MaxQueries,
    MaxSources,
    TimeLimit,
    CostBudget,
    TokenBudget,
    Reasoner,
    SourceMode,
    Sources,
    Step,
    Ask,
}

impl Field {
    const ALL: [Field; 13] = [
        Field::Question,
        Field::Preset,
        Field::MaxIterations,
        Field::MaxQueries,
        Field::MaxSources,
        Field::TimeLimit,
        Field::CostBudget,
        Field::TokenBudget,
        Field::Reasoner,
        Field::SourceMode,
        Field::Sources,
        Field::Step,
        Field::Ask,
    ];

    /// The configuration key the field sets.
    pub fn config_key(self) -> &'static str {
        match self {
            Field::Question => "research.max_question_chars",
            Field::Preset => "research.preset",
            Field::MaxIterations => "limits.max_iterations",
            Field::MaxQueries => "limits.max_queries",
            Field::MaxSources => "limits.max_sources",
            Field::TimeLimit => "limits.time_limit_secs",
            Field::CostBudget => "limits.cost_budget_usd",
            Field::TokenBudget => "limits.token_budget",
            Field::Reasoner => "research.reasoner",
            Field::SourceMode => "research.source_mode",
            Field::Sources => "search.sources",
            Field::Step => "research.step_mode",
            Field::Ask => "research.ask",
        }
    }

    /// The command-line flag that sets the field.
    pub fn flag(self) -> &'static str {
        match self {
            Field::Question => "the question",
            Field::Preset => "--preset",
            Field::MaxIterations => "--max-iterations",
            Field::MaxQueries => "--max-queries",
            Field::MaxSources => "--max-sources",
            Field::TimeLimit => "--time-limit",
            Field::CostBudget => "--cost-budget",
            Field::TokenBudget => "--token-budget",
            Field::Reasoner => "--reasoner",
            Field::SourceMode => "--mode",
            Field::Sources => "--sources",
            Field::Step => "--step",
            Field::Ask => "--ask",
        }
    }
}

/// A request a session cannot run under, naming the field at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct RequestError {
    pub field: Field,
    pub message: String,
}

impl RequestError {
    pub fn new(field: Field, message: impl Into<String>) -> Self {
        Self { field, message: message.into() }
    }
}

/// Which kinds of source a session searches (`--sources`): the one
/// vocabulary of `[search] sources`.
pub use crate::search::SourceSet as Sources;

impl ResearchRequest {
    /// `base` with this request's choices, validated as a configuration
    /// file would be (the same ranges, the same messages).
    pub fn apply(&self, base: &Config) -> Result<Config, RequestError> {
        let mut c = base.clone();
        if let Some(p) = self.preset {
            c.research.preset = p;
        }
        let limits = &mut c.limits;
        set(&mut limits.max_iterations, self.max_iterations);
        set(&mut limits.max_queries, self.max_queries);
        set(&mut limits.max_sources, self.max_sources);
        set(&mut limits.time_limit_secs, self.time_limit_secs);
        set(&mut limits.cost_budget_usd, self.cost_budget_usd);
        set(&mut limits.token_budget, self.token_budget);
        if let Some(r) = self.reasoner {
            c.research.reasoner = r;
        }
        if let Some(m) = self.source_mode {
            c.research.source_mode = m;
        }
        if let Some(s) = self.sources {
            c.search.sources = Some(s);
            c.search.chains = s.chains(&c.web);
        }
        if let Some(step) = self.step {
            c.research.step_mode = step;
        }
        if let Some(a) = self.ask {
            c.research.ask = a;
        }
        if let Some(invalid) = crate::config::validate(&c).into_iter().next() {
            let field = Field::ALL.into_iter().find(|f| invalid.key == f.config_key());
            return Err(match field {
                Some(field) => RequestError::new(field, invalid.message),
                // The base configuration was checked when it was loaded.
                None => RequestError::new(Field::Preset, format!("{}: {}", invalid.key, invalid.message)),
            });
        }
        Ok(c)
    }

    /// Whether the request chooses anything at all.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

fn set<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

/// The question as a session takes it: trimmed, not empty, and at most
/// `research.max_question_chars` characters (every front end asks here).
pub fn checked_question(question: &str, config: &Config) -> Result<String, RequestError> {
    let question = question.trim();
    if question.is_empty() {
        return Err(RequestError::new(Field::Question, "the question is empty; ask something"));
    }
    let cap = config.research.max_question_chars;
    let length = question.chars().count();
    if length > cap {
        return Err(RequestError::new(
            Field::Question,
            format!(
                "the question is {length} characters long; the limit is {cap} (research.max_question_chars): \
                 ask the question itself and leave the material out — sleuth finds it in its sources"
            ),
        ));
    }
    Ok(question.to_string())
}

/// A choice read from a string (an HTTP or MCP field), or an error listing
/// the choices: `unknown reasoner "gpt" (builtin or llm)`.
/// Read by the type's own serde names, never a second hand-kept list.
pub fn parse_choice<T: serde::de::DeserializeOwned>(
    field: Field,
    what: &str,
    given: &str,
    choices: &[&str],
) -> Result<T, RequestError> {
    let name = serde_json::Value::String(given.trim().to_ascii_lowercase());
    serde_json::from_value::<T>(name).map_err(|_| {
        let listed = match choices.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        RequestError::new(field, format!("unknown {what} \"{}\" ({listed})", crate::text::sanitize_inline(given)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_land_in_the_config_and_out_of_range_values_are_refused_as_the_config_refuses_them() {
        let base = Config::default();
        let request = ResearchRequest {
            preset: Some(Preset::Deep),
            max_iterations: Some(3),
            source_mode: Some(SourceMode::Strict),
            step: Some(true),
            ..Default::default()
        };
        let c = request.apply(&base).expect("valid");
        assert_eq!(c.limits.resolve(c.research.preset).max_iterations, 3);
        assert_eq!((c.research.source_mode, c.research.step_mode), (SourceMode::Strict, true));
        for (request, field) in [
            (ResearchRequest { max_iterations: Some(1000), ..Default::default() }, Field::MaxIterations),
            (ResearchRequest { max_iterations: Some(0), ..Default::default() }, Field::MaxIterations),
            (ResearchRequest { max_queries: Some(51), ..Default::default() }, Field::MaxQueries),
            (ResearchRequest { cost_budget_usd: Some(-1.0), ..Default::default() }, Field::CostBudget),
            (ResearchRequest { time_limit_secs: Some(10_000_000), ..Default::default() }, Field::TimeLimit),
        ] {
            let e = request.apply(&base).expect_err("out of range");
            assert_eq!(e.field, field);
            assert!(e.message.starts_with("must be between"), "{}", e.message);
        }
        let e = ResearchRequest { max_iterations: Some(1000), ..Default::default() }.apply(&base).expect_err("range");
        assert_eq!(e.message, "must be between 1 and 100 (got 1000)");
    }

    #[test]
    fn sources_set_the_chains_of_that_kind() {
        let mut base = Config::default();
        base.web.tavily_api_key_env = "SLEUTH_TEST_UNSET_TAVILY".into();
        base.web.brave_api_key_env = "SLEUTH_TEST_UNSET_BRAVE".into();
        let local = ResearchRequest { sources: Some(Sources::Local), ..Default::default() }.apply(&base).expect("ok");
        assert_eq!(local.search.chains, vec![vec!["local".to_string()]]);
        let web = ResearchRequest { sources: Some(Sources::Web), ..Default::default() }.apply(&base).expect("ok");
        assert_eq!(web.search.chains, vec![vec!["wikipedia".to_string()]], "no web provider configured");
        let academic = ResearchRequest { sources: Some(Sources::Academic), ..Default::default() };
        let academic = academic.apply(&base).expect("ok");
        assert_eq!(academic.search.sources, Some(Sources::Academic));
        assert!(academic.search.chains.iter().all(|c| c.len() == 1 && c[0] != "local"), "{:?}", academic.search.chains);
    }

    #[test]
    fn a_question_is_trimmed_not_empty_and_capped() {
        let mut c = Config::default();
        c.research.max_question_chars = 100;
        assert_eq!(checked_question("  why?  ", &c).expect("ok"), "why?");
        assert_eq!(checked_question("   ", &c).expect_err("empty").field, Field::Question);
        let e = checked_question(&"word ".repeat(40), &c).expect_err("long");
        assert!(e.message.contains("199 characters long; the limit is 100"), "{}", e.message);
    }

    #[test]
    fn a_choice_names_the_choices() {
        let e = parse_choice::<Sources>(Field::Sources, "source kind", "books", &["local", "web", "all"])
            .expect_err("unknown");
        assert_eq!(e.message, "unknown source kind \"books\" (local, web or all)");
        assert_eq!(parse_choice::<Sources>(Field::Sources, "x", " Web ", &[]), Ok(Sources::Web));
    }
}
