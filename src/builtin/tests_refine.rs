//! REFINE: each strategy's queries do what the strategy says, from the
//! prior critique (gaps, weak and covered aspects) and the kept sources.

use super::test_docs::{doc, reasoner};
use crate::engine::model::{Critique, PlannedQuery, Strategy, Verdict};
use crate::engine::reasoner::{PlanContext, PriorIteration, Reasoner, SourceDoc};

const QUESTION: &str = "What does the borrow checker do with closures and lifetimes?";

/// Kept sources, best first. `capture` keeps company with closures and
/// `variance` with lifetimes; each of the best three has a term of its
/// own (`upvar`, `variance`, `reborrowing`); the fourth's (`Polonius`)
/// is not among the best passages.
fn sources() -> Vec<SourceDoc> {
    vec![
        doc(
            1,
            "Closures",
            "# Closures\nClosures capture variables from the enclosing scope. A closure that mutates a captured \
             variable captures it by unique borrow. The borrow checker treats each capture of a closure as a \
             borrow that lasts as long as the closure. Moving a closure into a thread needs the move keyword so \
             the capture takes ownership. Each upvar of the closure is recorded, and every upvar is checked.",
        ),
        doc(
            2,
            "Lifetimes",
            "# Lifetimes\nLifetimes name the region where a reference is valid. Variance decides whether a longer \
             lifetime may stand in for a shorter one. Lifetimes in a struct follow the variance of the fields \
             that hold references. The borrow checker uses variance when it compares lifetimes of references.",
        ),
        doc(
            3,
            "Reborrowing",
            "# Borrow checker\nThe borrow checker performs reborrowing when a mutable reference is passed to a \
             function. Reborrowing creates a shorter borrow from an existing one. Without reborrowing, the \
             borrow checker would move the mutable reference and reject the later use.",
        ),
        doc(
            4,
            "Polonius",
            "# Polonius\nPolonius is a new formulation of the borrow checker. Polonius computes loans with \
             datalog rules. Polonius accepts some programs that are rejected today, and Polonius may replace \
             the current analysis of every borrow checker.",
        ),
    ]
}

/// The last critique: `gaps` unsupported, `weak` on one source, the rest covered.
fn prior(gaps: &[&str], weak: &[&str]) -> PriorIteration {
    let labels = ["borrow checker", "closures", "lifetimes"];
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let critique = Critique {
        verdict: Verdict::Warn,
        issues: Vec::new(),
        aspects_required: owned(&labels),
        aspects_addressed: labels.iter().filter(|l| !gaps.contains(l)).map(|l| l.to_string()).collect(),
        weak_aspects: owned(weak),
        gaps: owned(gaps),
        related_aspects: Vec::new(),
        contradictions: Vec::new(),
        needs_clarification: None,
        dimensions: None,
        answer_relevance: None,
        unanswered: false,
    };
    PriorIteration {
        iteration: 1,
        queries: Vec::new(),
        reflection: None,
        quality: None,
        critique: Some(critique),
        evaluation: None,
    }
}

async fn refine(strategy: Strategy, prior: PriorIteration, already_run: &[&str]) -> (Vec<PlannedQuery>, Vec<String>) {
    let ctx = PlanContext {
        question: QUESTION.into(),
        constraints: Vec::new(),
        iteration: 2,
        max_queries: 10,
        strategy: Some(strategy),
        strategy_rationale: "test".into(),
        prior: Some(prior),
        sources: sources(),
        already_run: already_run.iter().map(|q| q.to_string()).collect(),
        memories: Vec::new(),
    };
    let out = reasoner().plan(ctx).await.unwrap().value;
    assert!(!out.queries.is_empty(), "{strategy:?} planned nothing");
    (out.queries, out.reflection.assumptions)
}

fn tagged<'q>(queries: &'q [PlannedQuery], aspect: &str) -> Vec<&'q str> {
    queries.iter().filter(|q| q.aspect.as_deref() == Some(aspect)).map(|q| q.text.as_str()).collect()
}

fn any_contains(queries: &[PlannedQuery], word: &str) -> bool {
    queries.iter().any(|q| q.text.to_lowercase().contains(word))
}

#[tokio::test]
async fn expand_adds_the_terms_that_keep_company_with_each_aspect() {
    let (qs, _) = refine(Strategy::Expand, prior(&["closures"], &["lifetimes"]), &[]).await;
    // The thin aspects come first.
    assert_eq!(qs[0].aspect.as_deref(), Some("closures"), "{qs:?}");
    let closures = tagged(&qs, "closures");
    assert!(closures.iter().any(|q| q.contains("captur")), "no neighbour of closures: {closures:?}");
    let lifetimes = tagged(&qs, "lifetimes");
    assert!(lifetimes.iter().any(|q| q.to_lowercase().contains("varianc")), "{lifetimes:?}");
    // A neighbour of one aspect is not pinned on another.
    assert!(!closures.iter().any(|q| q.to_lowercase().contains("varianc")), "{closures:?}");
    // Each aspect is also searched on its own.
    assert!(closures.contains(&"closures") && lifetimes.contains(&"lifetimes"), "{qs:?}");
}

#[tokio::test]
async fn narrow_searches_only_the_thin_aspects_and_says_what_it_dropped() {
    let (qs, assumptions) = refine(Strategy::Narrow, prior(&["closures"], &["lifetimes"]), &[]).await;
    for q in &qs {
        let a = q.aspect.as_deref();
        assert!(a == Some("closures") || a == Some("lifetimes"), "a covered aspect searched: {q:?}");
    }
    assert!(!tagged(&qs, "closures").is_empty() && !tagged(&qs, "lifetimes").is_empty(), "{qs:?}");
    assert!(
        assumptions.iter().any(|a| a.contains("no longer searched") && a.contains("borrow checker")),
        "{assumptions:?}"
    );
}

#[tokio::test]
async fn pivot_rewrites_queries_with_the_best_passages_own_terms() {
    let (qs, _) = refine(Strategy::Pivot, prior(&["closures"], &[]), &[]).await;
    let own = ["captur", "upvar", "varianc", "reborrow"];
    let closures = tagged(&qs, "closures");
    assert!(closures.iter().any(|q| own.iter().any(|t| q.to_lowercase().contains(t))), "{closures:?}");
    // One query is the best sources' vocabulary alone, without the question's words.
    let alone: Vec<&PlannedQuery> = qs.iter().filter(|q| q.aspect.is_none()).collect();
    assert_eq!(alone.len(), 1, "{qs:?}");
    let words: Vec<String> = alone[0].text.split_whitespace().map(str::to_lowercase).collect();
    assert!(words.len() >= 2 && words.iter().all(|w| !QUESTION.to_lowercase().contains(w.as_str())), "{words:?}");
    // The fourth source is not among the best: its term stays out.
    assert!(!any_contains(&qs, "polonius"), "{qs:?}");
}

#[tokio::test]
async fn deepen_queries_each_weak_aspect_alone_and_then_its_key_terms() {
    let (qs, _) = refine(Strategy::Deepen, prior(&["closures"], &["lifetimes"]), &[]).await;
    assert!(tagged(&qs, "closures").contains(&"closures"), "{qs:?}");
    assert!(tagged(&qs, "lifetimes").contains(&"lifetimes"), "{qs:?}");
    assert!(tagged(&qs, "borrow checker").is_empty(), "a covered aspect deepened: {qs:?}");
    // A weak aspect of two key terms: alone, then each term alone; a query
    // already run is not run again.
    let (qs, _) = refine(Strategy::Deepen, prior(&[], &["borrow checker"]), &["borrow"]).await;
    let texts = tagged(&qs, "borrow checker");
    assert!(texts.contains(&"borrow checker") && texts.contains(&"checker"), "{qs:?}");
    assert!(!qs.iter().any(|q| q.text == "borrow"), "a query already run came back: {qs:?}");
    assert!(tagged(&qs, "closures").is_empty() && tagged(&qs, "lifetimes").is_empty(), "{qs:?}");
}
