//! REFINE without a model call (`refine_with_model = false`, the default).
//! The draft's check (or the critique) already named what the answer is
//! missing, phrased as searches: those gaps are the next queries. When it
//! named none (or every one was searched), the built-in refinement — the
//! strategy applied to the sources found — chooses them. A round after the
//! first then costs one call, its DRAFT.

use std::collections::HashSet;

use super::reasoner::LlmReasoner;
use crate::engine::model::{PlannedQuery, Reflection};
use crate::engine::reasoner::{PlanContext, PlanOutput, ReasonerError, Reply};
use crate::text::{content_terms, normalize_for_match, sanitize_inline};

/// A gap longer than this (in words) is a sentence, not a search: it is cut.
const MAX_GAP_WORDS: usize = 10;

/// A gap this short (one word: "gadgets") is searched with the question's
/// words beside it, or it would find pages on anything of that name.
const SHORT_GAP_WORDS: usize = 1;

/// The intent of a query searching a named gap.
const GAP_INTENT: &str = "a gap the draft's check named";

/// How many of the question's content words a short gap takes along.
const CONTEXT_WORDS: usize = 3;

impl LlmReasoner {
    pub(super) async fn refine_from_check(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        let max = ctx.max_queries.max(1);
        let mut seen: HashSet<String> = ctx.already_run.iter().map(|q| normalize_for_match(q)).collect();
        let mut queries: Vec<PlannedQuery> = Vec::new();
        let gaps = gaps_named(&ctx);
        for gap in &gaps {
            let text = gap_query(gap, &ctx.question);
            if queries.len() < max && !text.is_empty() && seen.insert(normalize_for_match(&text)) {
                let mut q = PlannedQuery::new(text, GAP_INTENT);
                q.aspect = Some(gap.clone());
                queries.push(q);
            }
        }
        // No gap to search: the built-in refinement, the strategy applied to
        // what was found (no call). Beside named gaps it would only widen the
        // round with searches the check did not ask for.
        let built_in = if queries.is_empty() {
            self.helper().plan(ctx.clone()).await.map(|r| r.value.queries).unwrap_or_default()
        } else {
            Vec::new()
        };
        for q in built_in {
            if queries.len() >= max {
                break;
            }
            if seen.insert(normalize_for_match(&q.text)) {
                queries.push(q);
            }
        }
        let strategy = ctx.strategy.map_or_else(|| "refinement".to_string(), |s| s.to_string());
        let plan = if queries.iter().any(|q| q.intent == GAP_INTENT) {
            format!("{strategy}: search what the draft's check found missing ({}) (no planner call).", gaps.join("; "))
        } else {
            format!("{strategy}: no gap left to search; the built-in refinement chose the searches (no planner call).")
        };
        let reflection = Reflection {
            plan,
            assumptions: vec!["The gaps the check named are what the answer lacks.".into()],
            risks: vec!["A gap the check did not notice stays unsearched.".into()],
            success_criteria: vec!["Sources that fill the named gaps.".into()],
        };
        Ok(Reply::free(PlanOutput { reflection, queries }))
    }
}

/// The gaps and weak aspects of the last judgement, when the model made it
/// (a critique that fell back only matched words: its "gaps" are the
/// question's terms, no evidence of what is missing).
fn gaps_named(ctx: &PlanContext) -> Vec<String> {
    let Some(prior) = &ctx.prior else { return Vec::new() };
    let Some(critique) = &prior.critique else { return Vec::new() };
    let fell_back = prior.evaluation.as_ref().is_some_and(|e| e.failed_phases.iter().any(|p| p == "critique"));
    if fell_back {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for g in critique.gaps.iter().chain(&critique.weak_aspects) {
        let g = sanitize_inline(g).trim().to_string();
        if !g.is_empty() && !out.iter().any(|o| normalize_for_match(o) == normalize_for_match(&g)) {
            out.push(g);
        }
    }
    out
}

/// A gap as a search: at most `MAX_GAP_WORDS` words, and a short one with
/// the question's first content words it lacks.
fn gap_query(gap: &str, question: &str) -> String {
    let words: Vec<&str> = gap.split_whitespace().take(MAX_GAP_WORDS).collect();
    let mut text = words.join(" ");
    if !words.is_empty() && words.len() <= SHORT_GAP_WORDS {
        let own: HashSet<String> = content_terms(&text).into_iter().collect();
        let context: Vec<String> =
            content_terms(question).into_iter().filter(|t| !own.contains(t)).take(CONTEXT_WORDS).collect();
        if !context.is_empty() {
            text = format!("{} {text}", context.join(" "));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_gap_takes_the_question_along_and_a_long_one_is_cut() {
        let q = "How do lifetimes work in Rust structs?";
        assert_eq!(gap_query("elision", q), "lifetimes rust structs elision");
        assert_eq!(gap_query("lifetime elision", q), "lifetime elision", "two words are a search of their own");
        let long = "the exact rules by which the compiler infers lifetimes for methods taking self by reference";
        assert_eq!(gap_query(long, "q").split_whitespace().count(), MAX_GAP_WORDS);
    }
}
