//! The built-in reasoner: every phase of the loop without a model, from
//! retrieval statistics alone. Deterministic: the same sources give the
//! same plan, draft and verdict. See DESIGN §3.
//!
//! Aspects are the question's phrases weighted by corpus rarity
//! (`aspects`); REVIEW scores sources against them (`review`); DRAFT
//! quotes the best sentences by MMR (`draft`); CRITIQUE finds gaps, thin
//! aspects and disagreements (`critique`) and ambiguous questions
//! (`clusters`); REFINE turns the engine's strategy into queries (`plan`).

mod analysis;
mod aspects;
mod clusters;
mod config;
mod critique;
mod draft;
mod plan;
mod rarity;
mod review;
mod score;
mod write;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

pub use config::BuiltinConfig;
pub use rarity::Rarity;

use crate::engine::model::{Clarification, Critique, Draft, SourceVerdict};
use crate::engine::reasoner::{
    ClarifyContext, CritiqueContext, DraftContext, PlanContext, PlanOutput, Reasoner, ReasonerError, Reply,
    ReportStream, ReviewContext, SourceDoc, WriteContext, WriteOutput,
};
use analysis::{AnalyzedDoc, Stemmer, analyze};
use aspects::Aspect;
use rarity::Weights;

/// A source with its analysis.
pub struct Src<'a> {
    pub doc: &'a SourceDoc,
    pub an: Arc<AnalyzedDoc>,
}

pub struct BuiltinReasoner {
    cfg: BuiltinConfig,
    corpus: Option<Arc<dyn Rarity>>,
    corpus_share: f64,
    /// Analyses by text hash: a source is analysed once per session.
    cache: Mutex<HashMap<String, Arc<AnalyzedDoc>>>,
}

impl BuiltinReasoner {
    /// `corpus`: term statistics of the local corpus, if the session uses
    /// it; `corpus_share`: how much to trust them against the session's
    /// own sources (1 when the local corpus is the only provider).
    pub fn new(cfg: BuiltinConfig, corpus: Option<Arc<dyn Rarity>>, corpus_share: f64) -> Self {
        Self { cfg, corpus, corpus_share, cache: Mutex::new(HashMap::new()) }
    }

    fn analyzed<'a>(&self, docs: &'a [SourceDoc], stemmer: &mut Stemmer) -> Vec<Src<'a>> {
        docs.iter()
            .map(|doc| {
                let key = format!("{}:{}", doc.meta.text_hash, doc.meta.text_len);
                let cached = self.cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key).cloned();
                let an = cached.unwrap_or_else(|| {
                    let an = Arc::new(analyze(&doc.meta.title, &doc.text, stemmer));
                    self.cache.lock().unwrap_or_else(|p| p.into_inner()).insert(key, an.clone());
                    an
                });
                Src { doc, an }
            })
            .collect()
    }

    fn weights(&self, sources: &[Src<'_>]) -> Weights {
        let docs: Vec<&AnalyzedDoc> = sources.iter().map(|s| s.an.as_ref()).collect();
        Weights::new(self.corpus.clone(), self.corpus_share, &docs)
    }

    fn aspects(&self, question: &str, weights: &Weights, stemmer: &mut Stemmer) -> Vec<Aspect> {
        aspects::aspects(question, stemmer, weights, self.cfg.max_aspects)
    }

    fn corpus_note(&self) -> String {
        match &self.corpus {
            Some(c) if self.corpus_share >= 1.0 => {
                format!("inverse document frequency over {} corpus passages", c.documents())
            }
            Some(c) => format!(
                "corpus rarity over {} passages, blended with rarity among the session's own sources",
                c.documents()
            ),
            None => "no corpus statistics yet: longer words first, then rarity among the sources found".into(),
        }
    }
}

fn constraint_stems(constraints: &[String], question: &str, stemmer: &mut Stemmer) -> Vec<String> {
    let words = plan::constraint_words(constraints, question);
    stemmer.stems(&words.join(" "))
}

#[async_trait]
impl Reasoner for BuiltinReasoner {
    fn name(&self) -> String {
        "builtin".into()
    }

    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let sources = self.analyzed(&ctx.sources, &mut stemmer);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        if aspects.is_empty() {
            return Err(ReasonerError::Failed("the question has no content words to search for".into()));
        }
        let out = match ctx.strategy {
            None => plan::first_plan(&ctx, &aspects, &weights, &mut stemmer, &self.corpus_note()),
            Some(strategy) => plan::refine_plan(&ctx, strategy, &aspects, &weights, &sources, &mut stemmer),
        };
        Ok(Reply::free(out))
    }

    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let candidates = self.analyzed(&ctx.candidates, &mut stemmer);
        let kept = self.analyzed(&ctx.kept, &mut stemmer);
        let all: Vec<Src<'_>> = candidates.iter().chain(&kept).map(|s| Src { doc: s.doc, an: s.an.clone() }).collect();
        let weights = self.weights(&all);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        let cstems = constraint_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        Ok(Reply::free(review::review(&candidates, &kept, &aspects, &weights, &cstems, &self.cfg)))
    }

    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let sources = self.analyzed(&ctx.sources, &mut stemmer);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        let cstems = constraint_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        Ok(Reply::free(draft::draft(&sources, &aspects, &weights, &cstems, &self.cfg)))
    }

    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let sources = self.analyzed(&ctx.sources, &mut stemmer);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        let mut c = critique::critique(&ctx.draft, &aspects, &sources, &weights, &mut stemmer);
        if ctx.answered_asks.is_empty() && ctx.constraints.is_empty() && ctx.iteration == 1 {
            c.needs_clarification = clusters::separate_meanings(&ctx.question, &aspects, &sources, &weights, &self.cfg);
        }
        Ok(Reply::free(c))
    }

    async fn write(&self, ctx: WriteContext, stream: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError> {
        let (markdown, claims) = write::body(&ctx.draft, ctx.evaluation.as_ref(), ctx.stop);
        for chunk in write::chunks(&markdown) {
            // The engine may have stopped listening (cancel): the body is
            // returned whole anyway.
            let _ = stream.send(chunk);
        }
        Ok(Reply::free(WriteOutput { markdown, claims }))
    }

    async fn clarify(&self, ctx: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError> {
        if let Some(c) = ctx.critique.as_ref().and_then(|c| c.needs_clarification.clone()) {
            return Ok(Reply::free(c));
        }
        let mut stemmer = Stemmer::default();
        let sources = self.analyzed(&ctx.sources, &mut stemmer);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        let found = clusters::separate_meanings(&ctx.question, &aspects, &sources, &weights, &self.cfg);
        Ok(Reply::free(found.unwrap_or_else(|| Clarification {
            question: format!("Which aspect of “{}” matters most to you?", ctx.question),
            options: aspects.iter().map(|a| a.label.clone()).collect(),
        })))
    }
}
