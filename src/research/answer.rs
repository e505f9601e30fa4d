//! What a session's answer looks like to a program: the report, the cited
//! sources, the scores, the caveats, or the question it waits on. `sleuth
//! serve` returns it from `/run` and `/jobs/{id}`; `sleuth mcp` as a tool
//! result's structured content. (Also the OpenAPI schemas.)

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::SessionStatus;
use crate::engine::state::SessionState;

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

/// The final answer of a research job: the report, its sources, confidence
/// and how the loop ended.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RunAnswer {
    pub job_id: String,
    pub session_id: String,
    /// `queued`, `running`, `waiting_on_ask`, `finished`, `unanswered` (the
    /// sources found do not answer), `not_searched`, `degraded` (model
    /// phases fell back), `cancelled`, `failed` or `interrupted` — the
    /// words `sleuth sessions` uses.
    #[schema(value_type = String)]
    pub status: SessionStatus,
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
    #[schema(value_type = String)]
    pub status: SessionStatus,
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

/// The ask a session waits on, as a program sees it.
pub fn pending_ask(state: &SessionState) -> Option<PendingAsk> {
    state.open_ask().map(|a| PendingAsk {
        ask_id: a.ask_id.clone(),
        question: a.clarification.question.clone(),
        options: a.clarification.options.clone(),
    })
}

/// The answer of a session in `state`.
pub fn answer_of(job_id: &str, session_id: &str, status: SessionStatus, state: &SessionState) -> RunAnswer {
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

    #[test]
    fn the_summary_is_the_first_plain_paragraph() {
        let md = "# Title\n\nThe answer is here [1].\n\nMore.\n\n## Sources\n- [1] a";
        assert_eq!(first_paragraph(md), "The answer is here [1].");
        assert_eq!(first_paragraph(""), "");
    }
}
