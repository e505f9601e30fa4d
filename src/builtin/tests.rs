//! Constraints on the built-in plan: what the user said narrows every
//! query a little; a follow-up's imported findings never reach them.

use super::BuiltinReasoner;
use super::plan::{MAX_CONSTRAINT_WORDS, MAX_WORDS_PER_CONSTRAINT, constraint_words};
use crate::engine::imported::ImportedContext;
use crate::engine::reasoner::{PlanContext, Reasoner};

const FOLLOW_UP: &str = "And how do I write a From impl for my error?";

/// A finished session's findings: long claims full of content words.
fn imported() -> ImportedContext {
    let findings = (1..=12)
        .map(|i| {
            format!(
                "The question mark operator{i} converts library errors through conversion traits, propagating \
                 failures upward while boxing heterogeneous variants and preserving backtraces [{i}]"
            )
        })
        .collect();
    ImportedContext {
        session_id: "20260101-000000-abcd".into(),
        question: "How does the ? operator convert errors?".into(),
        findings,
        sources: Vec::new(),
    }
}

fn plan_context(constraints: Vec<String>) -> PlanContext {
    PlanContext {
        question: FOLLOW_UP.into(),
        constraints,
        iteration: 1,
        max_queries: 10,
        strategy: None,
        strategy_rationale: String::new(),
        prior: None,
        sources: Vec::new(),
        already_run: Vec::new(),
        memories: Vec::new(),
    }
}

#[test]
fn imported_findings_add_no_query_words() {
    let constraint = imported().as_constraint();
    assert!(constraint.len() > 1_000, "the findings are long: {}", constraint.len());
    assert_eq!(constraint_words(&[constraint], FOLLOW_UP), Vec::<String>::new());
}

#[test]
fn a_users_note_and_answer_still_add_words_a_few_each() {
    let note = "Note from the user: prefer tokio examples with thiserror derive macros, anyhow context chains, \
                backtrace capture, custom display formatting";
    let answer = "Which meaning? — the user answered: library crates";
    let words = constraint_words(&[note.to_string(), answer.to_string()], FOLLOW_UP);
    assert_eq!(words.len(), MAX_WORDS_PER_CONSTRAINT + 2, "{words:?}");
    assert!(words.contains(&"tokio".to_string()), "{words:?}");
    assert!(words.contains(&"library".to_string()) && words.contains(&"crates".to_string()), "{words:?}");
    assert!(!words.contains(&"formatting".to_string()), "the note's tail is cut: {words:?}");
    let many: Vec<String> = (0..10).map(|i| format!("Note from the user: alpha{i} beta{i} gamma{i}")).collect();
    assert_eq!(constraint_words(&many, FOLLOW_UP).len(), MAX_CONSTRAINT_WORDS);
}

#[tokio::test]
async fn a_follow_ups_queries_stay_short() {
    let reasoner = BuiltinReasoner::new(Default::default(), None, 0.0);
    let plain = reasoner.plan(plan_context(Vec::new())).await.unwrap().value;
    let followed = reasoner.plan(plan_context(vec![imported().as_constraint()])).await.unwrap().value;
    let texts = |qs: &[crate::engine::model::PlannedQuery]| qs.iter().map(|q| q.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&followed.queries), texts(&plain.queries), "the findings changed no query");
    for q in &followed.queries {
        assert!(q.text.len() < 100, "a query ballooned: {} characters: {}", q.text.len(), q.text);
        assert!(!q.text.contains("heterogeneous"), "a finding's word reached a query: {}", q.text);
    }
}

fn queries_of(question: &str) -> Vec<String> {
    let reasoner = BuiltinReasoner::new(Default::default(), None, 0.0);
    let ctx = PlanContext { question: question.into(), ..plan_context(Vec::new()) };
    let plan = futures::executor::block_on(reasoner.plan(ctx)).unwrap().value;
    plan.queries.into_iter().map(|q| q.text).collect()
}

/// "… without wrapping everything in Arc": what the asker would do without
/// names what the answer replaces, so the question is searched without it
/// too, right after the whole question; the aspects stay.
#[test]
fn what_the_asker_would_do_without_is_left_out_of_one_query() {
    let qs = queries_of("Can I spawn threads that borrow local variables without wrapping everything in Arc?");
    assert!(qs[0].contains("Arc"), "the whole question first: {qs:?}");
    assert!(qs[1].contains("spawn threads") && qs[1].contains("borrow local variables"), "{qs:?}");
    assert!(!qs[1].contains("Arc") && !qs[1].contains("wrapping"), "{qs:?}");
    assert!(qs.iter().any(|q| q.starts_with("Arc")), "Arc stays an aspect of its own: {qs:?}");
    // With one thing left ("compile"), "std" is what is asked.
    let qs = queries_of("Can I compile without std?");
    assert!(qs[1].contains("std"), "{qs:?}");
}

/// The aspects are the question's heaviest few; a question with more
/// words than that is also searched with every one of them, right after
/// the whole question, so a common word central to it is not lost.
#[test]
fn a_question_longer_than_its_aspects_is_searched_with_every_word() {
    let q =
        "In a garden, how do I water the roses on a timer and also feed the tulips, or prune the hedges by the fence?";
    let qs = queries_of(q);
    let words = ["garden", "roses", "timer", "tulips", "hedges", "fence"];
    assert!(words.iter().any(|w| !qs[0].contains(w)), "the whole question holds the capped aspects: {qs:?}");
    assert!(words.iter().all(|w| qs[1].contains(w)), "then every word: {qs:?}");
    // A question of few words is searched once whole.
    let qs = queries_of("How do I water roses on a timer?");
    assert_eq!(
        qs.iter().filter(|q| q.contains("water") && q.contains("roses") && q.contains("timer")).count(),
        1,
        "{qs:?}"
    );
}
