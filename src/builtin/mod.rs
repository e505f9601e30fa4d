//! The built-in reasoner: every phase of the loop without a model, from
//! retrieval statistics alone. Deterministic: the same sources give the
//! same plan, draft and verdict. See docs/builtin.md.
//!
//! Aspects are the question's phrases weighted by corpus rarity
//! (`aspects`); REVIEW scores sources against them (`review`); DRAFT
//! quotes the best sentences by MMR (`draft`); CRITIQUE finds gaps, thin
//! aspects and disagreements (`critique`) and ambiguous questions
//! (`clusters`); REFINE turns the engine's strategy into queries (`plan`).

mod action;
mod analysis;
mod answer;
mod answering;
mod aspects;
mod avoided;
mod bridge;
mod candidates;
mod clusters;
mod config;
mod copies;
mod critique;
mod direct;
mod draft;
mod follow;
mod frame;
mod parts;
mod phrase;
mod plan;
mod question;
mod rarity;
mod related;
mod release_notes;
mod review;
mod score;
mod unanswered;
mod write;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

pub use answering::{AnswerUnit, AnswerWeights, Signals};
pub use bridge::{Definition, Glossary};
pub use config::BuiltinConfig;
pub use follow::Links;
pub use rarity::Rarity;

use crate::engine::model::{Clarification, Critique, Draft, SourceVerdict};
use crate::engine::reasoner::{
    ClarifyContext, CritiqueContext, DraftContext, PlanContext, PlanOutput, Reasoner, ReasonerError, Reply,
    ReportStream, ReviewContext, SourceDoc, WriteContext, WriteOutput,
};
use analysis::{AnalyzedDoc, Stemmer, analyze};
use aspects::Aspect;
use rarity::Weights;

/// Links followed (pages read) per refinement, at most.
const MAX_READS: usize = 3;
/// Pages defined with the question's words read in the first plan, at most.
const MAX_BRIDGES: usize = 2;

/// A source with its analysis.
pub struct Src<'a> {
    pub doc: &'a SourceDoc,
    pub an: Arc<AnalyzedDoc>,
}

pub struct BuiltinReasoner {
    cfg: BuiltinConfig,
    corpus: Option<Arc<dyn Rarity>>,
    corpus_share: f64,
    /// The corpus's section links, for READ (link following).
    links: Option<Arc<dyn Links>>,
    /// The corpus's page definitions, for the vocabulary bridge.
    glossary: Option<Arc<dyn Glossary>>,
    /// Analyses by text hash: a source is analysed once per session.
    cache: Mutex<HashMap<String, Arc<AnalyzedDoc>>>,
}

impl BuiltinReasoner {
    /// `corpus`: term statistics of the local corpus, if the session uses
    /// it; `corpus_share`: how much to trust them against the session's
    /// own sources (1 when the local corpus is the only provider).
    pub fn new(cfg: BuiltinConfig, corpus: Option<Arc<dyn Rarity>>, corpus_share: f64) -> Self {
        Self { cfg, corpus, corpus_share, links: None, glossary: None, cache: Mutex::new(HashMap::new()) }
    }

    /// Follows the links of the best passages' sections in `links` (READ).
    pub fn with_links(mut self, links: Arc<dyn Links>) -> Self {
        self.links = Some(links);
        self
    }

    /// Bridges the question's words to the items `glossary` defines with them.
    pub fn with_glossary(mut self, glossary: Arc<dyn Glossary>) -> Self {
        self.glossary = Some(glossary);
        self
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
        let mut asked = aspects::aspects(question, stemmer, weights, self.cfg.max_aspects);
        if !self.cfg.word_sense_in_code {
            // Every form matches: a word inside an identifier counts as the word.
            asked.iter_mut().flat_map(|a| a.forms.iter_mut()).for_each(|f| f.2 = true);
        }
        asked
    }

    /// The question's aspects plus the related concepts an earlier
    /// critique or the queries named (`AspectKind::Related`).
    fn with_related(
        &self,
        mut asked: Vec<Aspect>,
        labels: &[String],
        weights: &Weights,
        stemmer: &mut Stemmer,
    ) -> Vec<Aspect> {
        for label in labels {
            if asked.iter().any(|a| &a.label == label) {
                continue;
            }
            if let Some(a) = aspects::related_aspect(label, stemmer, weights) {
                asked.push(a);
            }
        }
        asked
    }

    /// Every sentence the answer model weighs for a draft of `ctx`, with
    /// its signals: what the quality benchmark records to fit
    /// `[builtin.answer]`.
    pub fn answer_units(&self, ctx: &DraftContext) -> Vec<answering::AnswerUnit> {
        let mut stemmer = Stemmer::default();
        let chosen = chosen_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        let sources = in_chosen_sense(self.analyzed(&ctx.sources, &mut stemmer), &chosen);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        let focus = answering::Focus::new(&ctx.question, &aspects);
        let (scored, parts) = answering::score(&sources, &focus, &weights, &self.cfg.answer, self.cfg.draft_sources);
        let mut out: Vec<answering::AnswerUnit> = Vec::new();
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for s in scored {
            let an = &sources[s.source].an;
            let part = &parts[s.source][s.part];
            let heading = part.heading.map(|h| an.headings[h].0.clone()).unwrap_or_default();
            let unit = |text: String, code: bool, literal: f64| answering::AnswerUnit {
                source: sources[s.source].doc.meta.canonical.clone(),
                heading: heading.clone(),
                text,
                part: s.part,
                code,
                signals: answering::Signals { literal, ..s.signals },
                chance: s.chance,
            };
            out.push(unit(
                an.sentence_text(&sources[s.source].doc.text, s.sentence).to_string(),
                false,
                s.signals.literal,
            ));
            if !seen.contains(&(s.source, s.part)) {
                seen.push((s.source, s.part));
                let first = an.sentences.get(part.sentences.start).map_or(0, |x| x.paragraph);
                for &c in part.code.iter().filter(|&&c| an.code[c].after > first) {
                    let b = &an.code[c];
                    let held: Vec<f64> = focus
                        .aspects
                        .iter()
                        .map(|a| {
                            aspects::coverage(a, |k| b.stems.binary_search_by(|x| x.as_str().cmp(k)).is_ok(), &weights)
                        })
                        .collect();
                    out.push(unit(sources[s.source].doc.text[b.start..b.end].to_string(), true, focus.share(&held)));
                }
            }
        }
        out
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

/// Stems of the senses the user chose when asked (answers, not notes).
fn chosen_stems(constraints: &[String], question: &str, stemmer: &mut Stemmer) -> Vec<String> {
    let answers: Vec<String> = constraints.iter().filter(|c| c.contains("answered:")).cloned().collect();
    constraint_stems(&answers, question, stemmer)
}

/// Only the sources in the sense the user chose (all of them when none
/// is, or none fits).
fn in_chosen_sense<'a>(sources: Vec<Src<'a>>, chosen: &[String]) -> Vec<Src<'a>> {
    if chosen.is_empty() || !sources.iter().any(|s| chosen.iter().any(|c| s.an.contains(c))) {
        return sources;
    }
    sources.into_iter().filter(|s| chosen.iter().any(|c| s.an.contains(c))).collect()
}

/// Related aspects the remaining sources still speak of.
fn still_related(aspects: Vec<Aspect>, sources: &[Src<'_>]) -> Vec<Aspect> {
    aspects
        .into_iter()
        .filter(|a| !a.related || sources.iter().any(|s| a.key.iter().all(|k| s.an.contains(k))))
        .collect()
}

#[async_trait]
impl Reasoner for BuiltinReasoner {
    fn name(&self) -> String {
        "builtin".into()
    }

    fn uses_model(&self, _role: crate::engine::model::Role) -> bool {
        false
    }

    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let sources = self.analyzed(&ctx.sources, &mut stemmer);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        if aspects.is_empty() {
            return Err(ReasonerError::Failed("the question has no content words to search for".into()));
        }
        let named: Vec<String> =
            ctx.prior.as_ref().and_then(|p| p.critique.as_ref()).map(|c| c.related_aspects.clone()).unwrap_or_default();
        let aspects = self.with_related(aspects, &named, &weights, &mut stemmer);
        let out = match ctx.strategy {
            None => {
                let uncapped = aspects::aspects(&ctx.question, &mut stemmer, &weights, usize::MAX);
                plan::first_plan(&ctx, &aspects, &uncapped, &weights, &mut stemmer, &self.corpus_note())
            }
            Some(strategy) => {
                let mut out = plan::refine_plan(&ctx, strategy, &aspects, &weights, &sources, &mut stemmer);
                if let Some(links) = &self.links {
                    let reads = follow::reads(&sources, &aspects, &weights, links.as_ref(), &mut stemmer, MAX_READS);
                    follow::add_reads(&mut out, &reads, &ctx.already_run, ctx.max_queries);
                }
                // The bridge: aspects the question's own words found no
                // support for are read where the docs define them.
                if let Some(glossary) = &self.glossary {
                    let found = bridge::bridges(
                        &ctx.question,
                        &aspects,
                        &weights,
                        glossary.as_ref(),
                        &mut stemmer,
                        MAX_BRIDGES,
                    );
                    let found = bridge::still_needed(found, &aspects, &sources);
                    bridge::add_bridges(&mut out, &found, &ctx.already_run, ctx.max_queries);
                }
                out
            }
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
        let chosen = chosen_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        let release = release_notes::release_ask(&ctx.question);
        let asked = review::Asked {
            aspects: &aspects,
            constraint_stems: &cstems,
            chosen: &chosen,
            found_again: &ctx.found_again,
            release: &release,
        };
        let mut verdicts = review::review(&candidates, &kept, &asked, &weights, &self.cfg);
        if let Some(links) = &self.links {
            follow::vouch(&mut verdicts, &candidates, &kept, links.as_ref());
        }
        if let Some(glossary) = &self.glossary {
            let bridged =
                bridge::bridges(&ctx.question, &aspects, &weights, glossary.as_ref(), &mut stemmer, MAX_BRIDGES);
            bridge::vouch(&mut verdicts, &candidates, &bridged);
        }
        Ok(Reply::free(verdicts))
    }

    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let chosen = chosen_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        let sources = in_chosen_sense(self.analyzed(&ctx.sources, &mut stemmer), &chosen);
        let weights = self.weights(&sources);
        let aspects = self.aspects(&ctx.question, &weights, &mut stemmer);
        let named: Vec<String> = ctx.previous_critique.as_ref().map(|c| c.related_aspects.clone()).unwrap_or_default();
        let aspects = still_related(self.with_related(aspects, &named, &weights, &mut stemmer), &sources);
        let cstems = constraint_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        Ok(Reply::free(draft::draft(&sources, &aspects, &ctx.question, &weights, &cstems, &self.cfg)))
    }

    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        let mut stemmer = Stemmer::default();
        let chosen = chosen_stems(&ctx.constraints, &ctx.question, &mut stemmer);
        let sources = in_chosen_sense(self.analyzed(&ctx.sources, &mut stemmer), &chosen);
        let weights = self.weights(&sources);
        let asked = self.aspects(&ctx.question, &weights, &mut stemmer);
        // Related aspects are found once, from the first iteration's sources,
        // then carried by the queries that search for them.
        let aspects = if ctx.iteration == 1 {
            let found = related::discover(&asked, &sources, &weights, &mut stemmer, self.cfg.related_aspects);
            asked.into_iter().chain(found).collect()
        } else {
            still_related(self.with_related(asked, &ctx.related_aspects, &weights, &mut stemmer), &sources)
        };
        let mut c = critique::critique(&ctx.draft, &aspects, &sources, &weights, &mut stemmer);
        critique::judge_answer(&mut c, answer::judge(&ctx.draft, &aspects, &sources, &weights));
        if ctx.answered_asks.is_empty() && ctx.constraints.is_empty() && ctx.iteration == 1 {
            let asked: Vec<Aspect> = aspects.iter().filter(|a| !a.related).cloned().collect();
            c.needs_clarification = clusters::separate_meanings(&asked, &sources, &weights, &self.cfg);
            if let Some(clarification) = c.needs_clarification.clone() {
                // An answer mixing unrelated senses answers none of them: the
                // asked aspects are not addressed until the user picks one.
                critique::ambiguous(&mut c, &asked, &clarification);
            }
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
        let found = clusters::separate_meanings(&aspects, &sources, &weights, &self.cfg);
        Ok(Reply::free(found.unwrap_or_else(|| Clarification {
            question: format!("Which aspect of “{}” matters most to you?", ctx.question),
            options: aspects.iter().map(|a| a.label.clone()).collect(),
        })))
    }
}

#[cfg(test)]
mod test_docs;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_draft;
#[cfg(test)]
mod tests_refine;
#[cfg(test)]
mod tests_review;
