//! PLAN (the first iteration) and REFINE (after CONTINUE): both ask the
//! reasoner for queries; REFINE first picks a strategy and afterwards
//! applies the mechanical rewrites.

use std::collections::{BTreeMap, HashSet};

use crate::engine::fallback;
use crate::engine::memory::MemoryEntry;
use crate::engine::model::Role;
use crate::engine::model::{PlannedQuery, Refinement, Reflection, SuggestedRefinement};
use crate::engine::protocol::Event;
use crate::engine::reasoner::{PlanContext, PlanOutput};
use crate::engine::refine::{QueryYield, apply_keywords, apply_mechanics, excludable, select_strategy, words_of};
use crate::engine::run::{Engine, EngineError};
use crate::engine::state::{QueryResult, SessionState};
use crate::engine::tiers::SourceMode;
use crate::text::{normalize_for_match, sanitize_inline};

impl Engine {
    pub(crate) async fn plan_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let memories = self.memories();
        let ctx = PlanContext {
            question: self.question(),
            constraints: self.constraints(),
            iteration: n,
            max_queries: self.max_queries(),
            strategy: None,
            strategy_rationale: String::new(),
            prior: None,
            sources: self.usable_docs(),
            already_run: self.already_run().into_iter().collect(),
            memories: memories.clone(),
        };
        let Some((reflection, queries)) = self.ask_planner(ctx).await? else { return Ok(()) };
        let queries = tidy_queries(queries, self.max_queries(), self.state.question());
        let queries = if queries.is_empty() {
            fallback::plan(self.state.question(), self.state.said_constraints(), self.max_queries()).1
        } else {
            queries
        };
        self.emit(Event::Planned {
            iteration: n,
            reflection,
            queries,
            lessons_used: memories.iter().map(|m| m.mistake.clone()).collect(),
            memories_used: memories.into_iter().map(|m| m.id).collect(),
        })
    }

    pub(crate) async fn refine_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let Some(it) = self.state.iteration_record(n) else { return Ok(()) };
        let Some(evaluation) = it.evaluation.clone() else { return Ok(()) };
        let (strategy, rationale) = select_strategy(&evaluation, &self.state.convergence_trend, &self.settings.refine);
        let mut suggestion = it.review.as_ref().and_then(|(_, r)| r.suggested_refinement.clone());
        if self.settings.source_mode == SourceMode::Strict {
            with_filtered_sites(&mut suggestion, &self.state);
        }
        let previous: Vec<(String, Option<usize>)> = it
            .queries
            .iter()
            .map(|q| match &q.result {
                Some(QueryResult::Searched { hits, .. }) => (q.query.text.clone(), Some(*hits)),
                _ => (q.query.text.clone(), None),
            })
            .collect();
        let already_run = self.already_run();
        let ctx = PlanContext {
            question: self.question(),
            constraints: self.constraints(),
            iteration: n + 1,
            max_queries: self.max_queries(),
            strategy: Some(strategy),
            strategy_rationale: rationale.clone(),
            prior: self.prior(n),
            sources: self.usable_docs(),
            already_run: already_run.iter().cloned().collect(),
            memories: Vec::new(),
        };
        let Some((reflection, planned)) = self.ask_planner(ctx).await? else { return Ok(()) };
        let planned = tidy_queries(planned, usize::MAX, self.state.question());
        let yields: Vec<QueryYield> = previous.iter().map(|(text, hits)| QueryYield { text, hits: *hits }).collect();
        let max = self.max_queries();
        // Exclusions earlier refinements computed: they applied to the
        // iteration after theirs only.
        let stale: HashSet<String> = self
            .state
            .iterations
            .iter()
            .filter(|r| r.iteration != n)
            .filter_map(|r| r.refinement.as_ref())
            .flat_map(|r| r.negative_keywords.iter().cloned())
            .collect();
        let s = &self.settings.refine;
        let mut m = apply_mechanics(planned.clone(), &yields, &already_run, suggestion.as_ref(), max, &stale, s);
        if m.queries.is_empty() {
            // Everything was tried already: repeat the planner's best rather
            // than run an empty iteration, with this refinement's keywords
            // (strict mode's `-site:` exclusions among them).
            m.queries = if planned.is_empty() {
                fallback::plan(self.state.question(), self.state.said_constraints(), max).1
            } else {
                planned.into_iter().take(max).collect()
            };
            let (negative, positive) = suggestion.as_ref().map_or((Vec::new(), Vec::new()), |s| {
                (s.add_negative_keywords.clone(), s.add_positive_keywords.clone())
            });
            m.negative_keywords = apply_keywords(&mut m.queries, &negative, &positive, &stale);
        }
        // An answered ASK rules a meaning out: its words leave the queries.
        if let Some(i) = &self.state.interpretation {
            i.constrain(&mut m.queries);
            for t in &i.excluded {
                if !m.negative_keywords.contains(t) {
                    m.negative_keywords.push(t.clone());
                }
            }
            if m.queries.is_empty() {
                m.queries = fallback::plan(self.state.question(), self.state.said_constraints(), max).1;
                i.constrain(&mut m.queries);
            }
        }
        let refinement = Refinement {
            strategy,
            rationale,
            reflection,
            queries: m.queries,
            negative_keywords: m.negative_keywords,
            positive_keywords: m.positive_keywords,
            reformulations: m.reformulations,
            focus: evaluation.gaps.clone(),
        };
        self.emit(Event::Refined { iteration: n, refinement })
    }

    /// Calls the planner, degrading to the fallback plan on failure.
    async fn ask_planner(&mut self, ctx: PlanContext) -> Result<Option<(Reflection, Vec<PlannedQuery>)>, EngineError> {
        let (question, max) = (ctx.question.clone(), ctx.max_queries);
        let said = self.state.said_constraints().to_vec();
        let Some(reply) = self.reason_or_hand_over(Role::Plan, ctx, |r, c| async move { r.plan(c).await }).await?
        else {
            return Ok(None);
        };
        Ok(Some(match reply {
            Some(PlanOutput { reflection, queries }) => (reflection, queries),
            None => fallback::plan(&question, &said, max),
        }))
    }

    fn memories(&self) -> Vec<MemoryEntry> {
        if !self.settings.memory.enabled {
            return Vec::new();
        }
        let mut m = self.memory.retrieve_similar(self.state.question());
        m.truncate(self.settings.memory.max_in_prompt);
        m
    }

    pub(super) fn max_queries(&self) -> usize {
        self.settings.limits.max_queries.max(1) as usize
    }
}

/// Strict mode never keeps a site it filtered, so each refinement excludes
/// the sites it filtered more than once so far (`-site:host`), also after
/// an iteration that found nothing new to review.
fn with_filtered_sites(suggestion: &mut Option<SuggestedRefinement>, state: &SessionState) {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &state.sources {
        if s.verdict.as_ref().and_then(|v| v.reason.as_deref()) == Some("tier_filtered") && !s.meta.site.is_empty() {
            *count.entry(s.meta.site.as_str()).or_default() += 1;
        }
    }
    let sites: Vec<String> = count.into_iter().filter(|(_, n)| *n >= 2).map(|(s, _)| format!("site:{s}")).collect();
    if sites.is_empty() {
        return;
    }
    let sug = suggestion.get_or_insert_with(|| SuggestedRefinement {
        reason: "strict mode: sites it filtered before".into(),
        add_negative_keywords: Vec::new(),
        add_positive_keywords: Vec::new(),
    });
    for site in sites {
        if !sug.add_negative_keywords.contains(&site) {
            sug.add_negative_keywords.push(site);
        }
    }
}

/// Model output is untrusted: one-line, non-empty, distinct queries, whose
/// exclusions never remove what is searched for — a word of the query
/// itself or of the question (a planner excluding "lifetime" from a question
/// about lifetimes would keep every page that answers it away).
fn tidy_queries(queries: Vec<PlannedQuery>, max: usize, question: &str) -> Vec<PlannedQuery> {
    let mut seen = std::collections::HashSet::new();
    let asked: HashSet<String> = words_of(question).into_iter().collect();
    queries
        .into_iter()
        .map(|mut q| {
            q.text = sanitize_inline(&q.text).trim().to_string();
            q.intent = sanitize_inline(&q.intent).trim().to_string();
            let words = words_of(&q.text);
            let mut exclude: Vec<String> = Vec::new();
            for t in std::mem::take(&mut q.exclude) {
                let t = sanitize_inline(&t).trim().to_string();
                let names_asked = !t.starts_with("site:") && words_of(&t).iter().any(|w| asked.contains(w));
                if excludable(&t, &words) && !names_asked && !exclude.contains(&t) {
                    exclude.push(t);
                }
            }
            q.exclude = exclude;
            q
        })
        .filter(|q| !q.text.is_empty() && seen.insert(normalize_for_match(&q.text)))
        .take(max)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planned_exclusions_never_remove_the_query_or_the_question_words() {
        let mut q = PlannedQuery::new("borrow checker rules", "x");
        q.exclude = vec![
            "Borrow".into(),
            "lifetimes".into(),
            "checker rules".into(),
            "async".into(),
            "site:example.com".into(),
            "ab".into(),
        ];
        let out = tidy_queries(vec![q], 5, "How do lifetimes relate to the borrow checker?");
        assert_eq!(out[0].exclude, vec!["async".to_string(), "site:example.com".to_string()]);
    }
}
