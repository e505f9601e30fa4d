//! The JSON a client sends and gets back (also the OpenAPI schemas).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::config::{Config, Preset, ReasonerKind};
use crate::engine::model::Outcome;
use crate::engine::state::SessionState;
use crate::engine::tiers::SourceMode;

/// `POST /run`: one research task (seed 001 §12, with its request options).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The question to research.
    pub task: String,
    /// `simple`, `standard` or `deep` (the preset's limits).
    #[serde(default)]
    pub complexity_tier: Option<String>,
    #[serde(default)]
    pub max_iters: Option<u32>,
    /// Queries per iteration.
    #[serde(default)]
    pub max_queries: Option<u32>,
    /// New sources per iteration.
    #[serde(default)]
    pub max_sources: Option<u32>,
    /// Research time limit in seconds (0: none).
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

/// A request field with a value it cannot take.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub field: &'static str,
    pub message: String,
}

impl RunRequest {
    /// The configuration this request's session runs under: `base` with
    /// the request's choices. Step mode is off: nobody steps a server.
    pub fn configure(&self, base: &Config) -> Result<Config, FieldError> {
        if self.task.trim().is_empty() {
            return Err(FieldError { field: "task", message: "the task is empty; ask a question".into() });
        }
        let mut c = base.clone();
        c.research.step_mode = false;
        if let Some(t) = &self.complexity_tier {
            c.research.preset =
                t.parse::<Preset>().map_err(|message| FieldError { field: "complexity_tier", message })?;
        }
        let positive = |field: &'static str, v: Option<u32>| match v {
            Some(0) => Err(FieldError { field, message: format!("{field} must be at least 1") }),
            v => Ok(v),
        };
        if let Some(n) = positive("max_iters", self.max_iters)? {
            c.limits.max_iterations = Some(n);
        }
        if let Some(n) = positive("max_queries", self.max_queries)? {
            c.limits.max_queries = Some(n);
        }
        if let Some(n) = positive("max_sources", self.max_sources)? {
            c.limits.max_sources = Some(n);
        }
        if let Some(s) = self.max_execution_time_s {
            c.limits.time_limit_secs = Some(s);
        }
        if let Some(t) = self.token_budget {
            c.limits.token_budget = Some(t);
        }
        if let Some(r) = &self.reasoner {
            c.research.reasoner = match r.as_str() {
                "builtin" => ReasonerKind::Builtin,
                "llm" => ReasonerKind::Llm,
                other => {
                    let message = format!("unknown reasoner `{other}` (builtin or llm)");
                    return Err(FieldError { field: "reasoner", message });
                }
            };
        }
        if let Some(m) = &self.source_mode {
            c.research.source_mode = match m.as_str() {
                "strict" => SourceMode::Strict,
                "discovery" => SourceMode::Discovery,
                "monitor" => SourceMode::Monitor,
                other => {
                    let message = format!("unknown source_mode `{other}` (strict, discovery or monitor)");
                    return Err(FieldError { field: "source_mode", message });
                }
            };
        }
        Ok(c)
    }

    /// Whether an ASK takes its first option (`"ask": "first"`).
    pub fn answers_first(&self) -> Result<bool, FieldError> {
        match self.ask.as_deref() {
            None | Some("wait") => Ok(false),
            Some("first") => Ok(true),
            Some(other) => {
                Err(FieldError { field: "ask", message: format!("unknown ask policy `{other}` (wait or first)") })
            }
        }
    }
}

/// A job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Queued,
    Running,
    WaitingOnAsk,
    Finished,
    Cancelled,
    Failed,
    /// Stopped by a shutdown at a checkpoint: `sleuth resume` continues it.
    Interrupted,
}

impl JobStatus {
    pub fn is_final(self) -> bool {
        matches!(self, Self::Finished | Self::Cancelled | Self::Failed | Self::Interrupted)
    }
}

/// A cited source that passed verification.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CitedSource {
    pub id: u32,
    pub title: String,
    /// URL, or the corpus-relative path.
    pub locator: String,
}

/// A clarifying question the session waits on.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PendingAsk {
    pub ask_id: String,
    pub question: String,
    pub options: Vec<String>,
}

/// The final answer of `/run` (seed 001 §5.5's AgentResponse, extended).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RunAnswer {
    pub job_id: String,
    pub session_id: String,
    pub status: JobStatus,
    /// The report (Markdown); empty while the session waits on an ASK.
    pub final_answer: String,
    /// The report's first paragraph.
    pub summary: String,
    pub sources: Vec<CitedSource>,
    pub confidence: f64,
    pub coverage: f64,
    pub iterations: u32,
    pub caveats: Vec<String>,
    /// Set when the session waits for an answer: `POST /jobs/{id}/answer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<PendingAsk>,
}

/// `GET /jobs/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct JobView {
    pub job_id: String,
    pub status: JobStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Events recorded so far.
    pub events: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<PendingAsk>,
    /// Set once the job has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<RunAnswer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
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
    pub status: JobStatus,
    /// `GET` this for the status and, at the end, the answer.
    pub poll: String,
    /// Server-Sent Events of the job (resumable with `Last-Event-ID`).
    pub events: String,
}

/// The ask a session waits on, as the API shows it.
pub fn pending_ask(state: &SessionState) -> Option<PendingAsk> {
    state.open_ask().map(|a| PendingAsk {
        ask_id: a.ask_id.clone(),
        question: a.clarification.question.clone(),
        options: a.clarification.options.clone(),
    })
}

/// The status a replayed state shows (the job's own flags aside).
pub fn status_of(state: &SessionState) -> JobStatus {
    match &state.outcome {
        Some(Outcome::Finished) => JobStatus::Finished,
        Some(Outcome::Cancelled) => JobStatus::Cancelled,
        Some(Outcome::Failed { .. }) => JobStatus::Failed,
        None if state.open_ask().is_some() => JobStatus::WaitingOnAsk,
        None => JobStatus::Running,
    }
}

/// The answer of a session in `state`.
pub fn answer_of(job_id: &str, session_id: &str, status: JobStatus, state: &SessionState) -> RunAnswer {
    let report = state.report.as_ref();
    let final_answer = report.map(|r| r.markdown.clone()).unwrap_or_default();
    let cited = state.verification.as_ref().map(|v| v.cited.clone()).unwrap_or_default();
    let sources = state
        .sources
        .iter()
        .filter(|s| s.kept() && cited.contains(&s.meta.id))
        .map(|s| CitedSource { id: s.meta.id.0, title: s.meta.title.clone(), locator: s.meta.locator.clone() })
        .collect();
    RunAnswer {
        job_id: job_id.to_string(),
        session_id: session_id.to_string(),
        status,
        summary: first_paragraph(&final_answer),
        final_answer,
        sources,
        confidence: state.confidence,
        coverage: state.coverage,
        iterations: state.iteration(),
        caveats: report.map(|r| r.caveats.clone()).unwrap_or_default(),
        ask: pending_ask(state),
    }
}

/// The first paragraph of a Markdown report that is neither a heading nor a list.
fn first_paragraph(markdown: &str) -> String {
    markdown
        .split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with('#') && !p.starts_with('-') && !p.starts_with('>'))
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> RunRequest {
        serde_json::from_str(json).expect("parses")
    }

    #[test]
    fn request_choices_land_in_the_config_and_bad_values_name_their_field() {
        let base = Config::default();
        let c = request(r#"{"task":"q","complexity_tier":"deep","max_iters":3,"source_mode":"strict"}"#)
            .configure(&base)
            .expect("valid");
        assert_eq!(c.research.preset, Preset::Deep);
        assert_eq!(c.limits.resolve(c.research.preset).max_iterations, 3);
        assert_eq!(c.research.source_mode, SourceMode::Strict);
        let bad = request(r#"{"task":"q","complexity_tier":"huge"}"#).configure(&base).expect_err("invalid");
        assert_eq!(bad.field, "complexity_tier");
        let bad = request(r#"{"task":"q","max_iters":0}"#).configure(&base).expect_err("invalid");
        assert_eq!(bad.field, "max_iters");
        let bad = request(r#"{"task":"  "}"#).configure(&base).expect_err("invalid");
        assert_eq!(bad.field, "task");
        assert_eq!(request(r#"{"task":"q","ask":"maybe"}"#).answers_first().expect_err("bad").field, "ask");
        assert!(request(r#"{"task":"q","ask":"first","async":true}"#).answers_first().expect("ok"));
    }

    #[test]
    fn the_summary_is_the_first_plain_paragraph() {
        let md = "# Title\n\nThe answer is here [1].\n\nMore.\n\n## Sources\n- [1] a";
        assert_eq!(first_paragraph(md), "The answer is here [1].");
        assert_eq!(first_paragraph(""), "");
    }
}
