//! A source rejected as off topic is judged again when a later iteration's
//! queries find it again (issue: small corpora word things their own way),
//! once, with the finding-again passed to the reviewer as evidence.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use crate::support;
use sleuth::engine::SessionState;
use sleuth::engine::model::SourceId;
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};
use support::{Harness, settings};

#[tokio::test]
async fn a_rejected_source_found_again_is_reviewed_once_more_and_can_be_kept() {
    // Three pages, every query finds all three: iteration 2 finds pages 2
    // and 3 again after iteration 1 rejected them.
    let mut reasoner = ScriptedReasoner::new(vec![Turn::coverage(1, 4)]);
    reasoner.off_topic = vec![SourceId(2), SourceId(3)];
    let h = Harness::new(settings(3), reasoner, ScriptedProvider::new("scripted", corpus(3)));
    let reviews = h.reasoner.clone();
    let out = h.run("what are widgets").await;
    assert!(out.state.iterations.len() >= 3, "{:?}", out.state.iterations.len());

    let contexts = reviews.review_contexts.lock().unwrap().clone();
    let ids = |k: usize| -> Vec<u32> { contexts[k].candidates.iter().map(|c| c.meta.id.0).collect() };
    assert_eq!(ids(0), vec![1, 2, 3], "iteration 1 reviews what it found");
    assert!(contexts[0].found_again.is_empty());
    // Iteration 2 found nothing new; the two rejected pages come back, marked.
    assert_eq!(ids(1), vec![2, 3]);
    assert_eq!(contexts[1].found_again, vec![SourceId(2), SourceId(3)]);
    // Each is reconsidered once: iteration 3 finds them again and moves on.
    assert_eq!(contexts.len(), 2, "no third review of the same pages: {contexts:?}");

    let kept: Vec<u32> = out.state.usable_sources().map(|s| s.meta.id.0).collect();
    assert_eq!(kept, vec![1, 2, 3], "the second verdict stands");
    // The log alone rebuilds it (review mode, resume).
    assert_eq!(SessionState::replay(&out.records), out.state);
}

#[tokio::test]
async fn a_source_kept_at_once_is_not_reviewed_again() {
    let h = Harness::new(
        settings(2),
        ScriptedReasoner::new(vec![Turn::coverage(1, 4)]),
        ScriptedProvider::new("scripted", corpus(3)),
    );
    let reviews = h.reasoner.clone();
    let out = h.run("what are widgets").await;
    assert_eq!(out.state.iterations.len(), 2);
    // Everything was kept at once: iteration 2 has nothing to review.
    assert_eq!(reviews.review_contexts.lock().unwrap().len(), 1);
    assert_eq!(out.state.iterations[1].found_again.len(), 3);
}
