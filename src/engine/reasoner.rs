//! The `Reasoner`: one async method per role. Implementations: the built-in
//! reasoner (no model), the LLM reasoner, and scripted ones in tests. Every
//! context is owned so a call can run while the engine keeps listening for
//! commands.

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::mpsc::UnboundedSender;

use super::memory::MemoryEntry;
use super::model::{
    Claim, Clarification, Critique, Draft, Evaluation, PlannedQuery, QualityReport, Reflection, SourceId, SourceMeta,
    SourceVerdict, StopReason, Strategy, Usage,
};

/// A source with its stored text, as a reasoner sees it. Cheap to clone:
/// contexts hand every usable source to every phase.
#[derive(Debug, Clone)]
pub struct SourceDoc {
    pub meta: Arc<SourceMeta>,
    pub text: Arc<str>,
    /// REVIEW's relevance, once reviewed.
    pub relevance: Option<f32>,
}

impl SourceDoc {
    /// A web page known only by its id, address, title and text (tier 2,
    /// found in iteration 1, fully relevant): a source for tests, benches
    /// and examples that do not run a search. Not in the shipped library:
    /// tests, benches and examples get it through the `test-support` feature.
    #[cfg(any(test, feature = "test-support"))]
    pub fn page(id: u32, url: &str, title: &str, text: &str) -> Self {
        let site = url.split("://").nth(1).unwrap_or(url).split('/').next().unwrap_or_default();
        Self {
            meta: Arc::new(SourceMeta {
                id: super::model::SourceId(id),
                locator: url.to_string(),
                canonical: url.to_string(),
                title: title.to_string(),
                site: site.to_string(),
                provider: "test".into(),
                kind: super::model::SourceKind::Web,
                tier: Some(2),
                source_type: None,
                heading: None,
                published: None,
                accessed_at_ms: 0,
                iteration: 1,
                query: "q".into(),
                score: 1.0,
                text_len: text.len(),
                text_hash: crate::text::text_hash(text),
                scholarly: None,
            }),
            text: Arc::from(text),
            relevance: Some(1.0),
        }
    }
}

/// What the last iteration did, for planning the next one.
#[derive(Debug, Clone)]
pub struct PriorIteration {
    pub iteration: u32,
    pub queries: Vec<(PlannedQuery, Option<usize>)>,
    pub reflection: Option<Reflection>,
    pub quality: Option<QualityReport>,
    pub critique: Option<Critique>,
    pub evaluation: Option<Evaluation>,
}

#[derive(Debug, Clone)]
pub struct PlanContext {
    pub question: String,
    /// Answers to ASKs and the user's notes, which every phase must respect.
    pub constraints: Vec<String>,
    pub iteration: u32,
    pub max_queries: usize,
    /// Set when re-planning after CONTINUE.
    pub strategy: Option<Strategy>,
    pub strategy_rationale: String,
    pub prior: Option<PriorIteration>,
    /// Kept sources so far, best first (PIVOT draws new terms from them).
    pub sources: Vec<SourceDoc>,
    /// Every query already run in this session.
    pub already_run: Vec<String>,
    pub memories: Vec<MemoryEntry>,
}

#[derive(Debug, Clone)]
pub struct PlanOutput {
    pub reflection: Reflection,
    pub queries: Vec<PlannedQuery>,
}

#[derive(Debug, Clone)]
pub struct ReviewContext {
    pub question: String,
    pub constraints: Vec<String>,
    /// The new sources to judge.
    pub candidates: Vec<SourceDoc>,
    /// Sources kept in earlier iterations (for duplicate detection).
    pub kept: Vec<SourceDoc>,
    /// Candidates an earlier review rejected as off topic that this
    /// iteration's queries, in other words, found again: judged once more,
    /// with that agreement as evidence.
    pub found_again: Vec<SourceId>,
}

#[derive(Debug, Clone)]
pub struct DraftContext {
    pub question: String,
    pub constraints: Vec<String>,
    pub iteration: u32,
    /// Usable sources, most relevant first.
    pub sources: Vec<SourceDoc>,
    pub previous_draft: Option<Draft>,
    pub previous_critique: Option<Critique>,
    pub memories: Vec<MemoryEntry>,
}

#[derive(Debug, Clone)]
pub struct CritiqueContext {
    pub question: String,
    pub constraints: Vec<String>,
    pub iteration: u32,
    pub draft: Draft,
    pub sources: Vec<SourceDoc>,
    /// The aspects the plan set out to cover, when the planner named them.
    pub planned_aspects: Vec<String>,
    /// The related concepts queries searched for (`AspectKind::Related`):
    /// pointers, not aspects to cover.
    pub related_aspects: Vec<String>,
    /// Asks already answered: a critic should not ask the same thing again.
    pub answered_asks: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct WriteContext {
    pub question: String,
    pub constraints: Vec<String>,
    pub draft: Draft,
    pub based_on_iteration: Option<u32>,
    /// Every source the draft cites, then other usable ones.
    pub sources: Vec<SourceDoc>,
    pub evaluation: Option<Evaluation>,
    pub caveats: Vec<String>,
    pub stop: StopReason,
}

#[derive(Debug, Clone)]
pub struct ClarifyContext {
    pub question: String,
    pub critique: Option<Critique>,
    pub sources: Vec<SourceDoc>,
}

/// WRITE's output; the engine adds verification marks and caveats.
#[derive(Debug, Clone)]
pub struct WriteOutput {
    pub markdown: String,
    pub claims: Vec<Claim>,
}

/// A role's value plus the model usage it cost (empty for the built-in).
#[derive(Debug, Clone)]
pub struct Reply<T> {
    pub value: T,
    pub usage: Vec<Usage>,
}

impl<T> Reply<T> {
    pub fn free(value: T) -> Self {
        Self { value, usage: Vec::new() }
    }
}

/// Where WRITE streams report text as it is produced.
pub type ReportStream = UnboundedSender<String>;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ReasonerError {
    #[error("the model's {role} reply could not be used after {attempts} attempt(s): {last_error}")]
    Malformed { role: String, attempts: u32, last_error: String },
    /// Every reply was empty (`{}`, blank): the model cannot do this work,
    /// and asking again would only wait (the engine hands over).
    #[error("the model's {role} replies were empty ({attempts} attempt(s)): it cannot do this work")]
    Empty { role: String, attempts: u32 },
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Failed(String),
}

#[async_trait]
pub trait Reasoner: Send + Sync {
    /// Shown in the session header (`builtin`, `llm:gpt-4o-mini`, …).
    fn name(&self) -> String;
    /// Usage of calls made since the last reply handed it over: the calls of
    /// a role that failed or was cancelled. The engine records it after
    /// every call, so budgets count tokens spent on replies that were not
    /// used. A reasoner without a model has none.
    fn take_usage(&self) -> Vec<Usage> {
        Vec::new()
    }
    /// Whether the role waits on a model. Calls that do not run within the
    /// time limit's deadlines; those that do not are never cut (they are
    /// quick and cost nothing) and their failures are not the model's.
    fn uses_model(&self, _role: super::model::Role) -> bool {
        true
    }
    /// The reasoner that takes over when this one cannot do the work (the
    /// LLM reasoner's built-in, model-free helper); `None`: nothing does.
    fn stand_in(&self) -> Option<Arc<dyn Reasoner>> {
        None
    }
    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError>;
    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError>;
    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError>;
    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError>;
    async fn write(&self, ctx: WriteContext, stream: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError>;
    async fn clarify(&self, ctx: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError>;
}
