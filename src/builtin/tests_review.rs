//! REVIEW's rejection reasons and CRITIQUE's gaps and contradictions,
//! through the `Reasoner` trait with sources built in memory.

use super::BuiltinConfig;
use super::test_docs::{claim, doc, reasoner, with_config};
use crate::engine::model::{Critique, Draft, SourceId, SourceVerdict};
use crate::engine::reasoner::{CritiqueContext, Reasoner, ReviewContext, SourceDoc};

const QUESTION: &str = "How does the borrow checker verify lifetimes?";

const ON_TOPIC: &str = "# Borrow checker\nThe borrow checker verifies that every reference lives no longer than \
    the value it points to. It compares the lifetimes of references at each use and rejects code where a borrow \
    outlives its owner. Lifetimes are regions of code where a reference must stay valid. The borrow checker also \
    forbids a mutable borrow while shared borrows are alive, which prevents data races at compile time.";

const ALSO_ON_TOPIC: &str = "Lifetimes in function signatures tell the borrow checker how long the returned \
    reference may be used. When elision rules do not apply, the author writes the lifetimes explicitly and the \
    borrow checker verifies each caller against them. Non-lexical lifetimes let a borrow end at its last use \
    rather than at the end of the enclosing block, so more correct programs are accepted.";

const GARDENING: &str = "Tomatoes need six hours of direct sunlight and deep watering twice a week. Prune the \
    suckers that grow between the stem and the branches so the plant puts its energy into fruit. Mulch keeps \
    the soil moist and cool during the summer. Tomatoes planted too close together catch blight, so leave \
    plenty of room between plants and water the soil rather than the leaves.";

const SHORT: &str = "The borrow checker verifies lifetimes of references.";

const MOVED: &str = "This page has moved. The borrow checker documentation, including the chapter on lifetimes \
    and references, is now part of the reference book; please update your bookmarks and links to the new \
    address, since this copy is not maintained any more and will be removed from the server soon.";

async fn review(cfg: BuiltinConfig, candidates: Vec<SourceDoc>, kept: Vec<SourceDoc>) -> Vec<SourceVerdict> {
    review_again(cfg, candidates, kept, Vec::new()).await
}

async fn review_again(
    cfg: BuiltinConfig,
    candidates: Vec<SourceDoc>,
    kept: Vec<SourceDoc>,
    found_again: Vec<SourceId>,
) -> Vec<SourceVerdict> {
    let ctx = ReviewContext { question: QUESTION.into(), constraints: Vec::new(), candidates, kept, found_again };
    with_config(cfg).review(ctx).await.unwrap().value
}

fn verdict(verdicts: &[SourceVerdict], id: u32) -> &SourceVerdict {
    verdicts.iter().find(|v| v.id == SourceId(id)).unwrap_or_else(|| panic!("no verdict for [{id}]: {verdicts:?}"))
}

fn reason(verdicts: &[SourceVerdict], id: u32) -> Option<&str> {
    verdict(verdicts, id).reason.as_deref()
}

/// A copy of `text` with one word changed: the same page under another address.
fn near_copy(text: &str) -> String {
    text.replacen("at compile time", "at build time", 1)
}

#[tokio::test]
async fn each_rejection_has_its_reason_and_a_good_passage_is_kept() {
    let candidates = vec![
        doc(1, "Borrow checker", ON_TOPIC),
        doc(2, "Growing tomatoes", GARDENING),
        doc(3, "Borrow checker", SHORT),
        doc(4, "Borrow checker (mirror)", &near_copy(ON_TOPIC)),
        doc(5, "Borrow checker", MOVED),
        doc(6, "Lifetimes", ALSO_ON_TOPIC),
    ];
    let v = review(BuiltinConfig::default(), candidates, Vec::new()).await;
    assert_eq!(v.len(), 6, "one verdict per candidate: {v:?}");
    let ids: Vec<u32> = v.iter().map(|v| v.id.0).collect();
    assert_eq!(ids, vec![1, 2, 3, 4, 5, 6], "verdicts in candidate order");
    for (id, expected) in [(2, "off_topic"), (3, "too_short"), (4, "duplicate"), (5, "redirect")] {
        assert!(!verdict(&v, id).kept, "[{id}] kept: {v:?}");
        assert_eq!(reason(&v, id), Some(expected), "[{id}]: {v:?}");
    }
    for id in [1, 6] {
        assert!(verdict(&v, id).kept && reason(&v, id).is_none(), "[{id}] not kept cleanly: {v:?}");
        assert!(f64::from(verdict(&v, id).relevance) >= 0.3, "{v:?}");
    }
    assert!(f64::from(verdict(&v, 2).relevance) < 0.3, "{v:?}");
    // What the off-topic page is about instead: words of its own.
    let signals = &verdict(&v, 2).signals;
    assert!(signals.iter().any(|s| GARDENING.to_lowercase().contains(s.as_str())), "{signals:?}");
    assert!(!signals.iter().any(|s| QUESTION.to_lowercase().contains(s.as_str())), "{signals:?}");
}

#[tokio::test]
async fn a_copy_of_a_source_kept_earlier_is_a_duplicate_at_the_configured_similarity() {
    let kept = vec![doc(1, "Borrow checker", ON_TOPIC), doc(2, "Lifetimes", ALSO_ON_TOPIC)];
    let copy = || vec![doc(7, "Borrow checker (mirror)", &near_copy(ON_TOPIC))];
    let v = review(BuiltinConfig::default(), copy(), kept.clone()).await;
    assert_eq!(reason(&v, 7), Some("duplicate"), "{v:?}");
    // A similarity no pair of texts reaches: the copy is judged on its merits.
    let never = BuiltinConfig { duplicate_similarity: 1.01, ..BuiltinConfig::default() };
    let v = review(never, copy(), kept).await;
    assert!(verdict(&v, 7).kept, "{v:?}");
}

#[tokio::test]
async fn thresholds_come_from_the_config() {
    let candidates = || vec![doc(1, "Borrow checker", ON_TOPIC)];
    let v = review(BuiltinConfig::default(), candidates(), Vec::new()).await;
    let relevance = f64::from(verdict(&v, 1).relevance);
    let at = BuiltinConfig { relevance_threshold: relevance - 1e-6, ..BuiltinConfig::default() };
    assert!(verdict(&review(at, candidates(), Vec::new()).await, 1).kept);
    // Far above anything found: even the best source is off topic.
    let far = BuiltinConfig { relevance_threshold: 2.5 * relevance, ..BuiltinConfig::default() };
    assert_eq!(reason(&review(far, candidates(), Vec::new()).await, 1), Some("off_topic"));
    // Just above the best found: the best the corpus offers is kept, a much
    // weaker source beside it is not (the threshold is relative).
    let above = BuiltinConfig { relevance_threshold: relevance + 1e-3, ..BuiltinConfig::default() };
    let weak = doc(
        2,
        "Gardening",
        "Tomatoes need sun and water. The borrow of a spade from a neighbour is common among gardeners who plant in spring and harvest in autumn, and it has nothing to do with programs.",
    );
    let v = review(above, vec![doc(1, "Borrow checker", ON_TOPIC), weak], Vec::new()).await;
    assert!(verdict(&v, 1).kept, "{v:?}");
    assert_eq!(reason(&v, 2), Some("off_topic"), "{v:?}");
    let words = ON_TOPIC.split_whitespace().count();
    // Shorter than the minimum: too short, unless it is among the best found.
    let longer = BuiltinConfig { min_words: words + 10, ..BuiltinConfig::default() };
    assert!(verdict(&review(longer, candidates(), Vec::new()).await, 1).kept);
    let stub =
        BuiltinConfig { min_words: 3 * words + 3, relevance_threshold: relevance / 2.5, ..BuiltinConfig::default() };
    assert_eq!(reason(&review(stub, candidates(), Vec::new()).await, 1), Some("too_short"));
}

const SAFE_QUESTION: &str = "Is the quux registry thread-safe, and what is its eviction policy?";
const SAYS_SAFE: &str = "The quux registry is thread-safe when it is shared between worker pools.";
const SAYS_UNSAFE: &str = "The quux registry is not thread-safe when it is shared between worker pools.";

/// A page on the quux registry whose second sentence is `claim`.
fn registry_page(id: u32, claim: &str) -> SourceDoc {
    let text = format!(
        "# Quux registry\nThe quux registry maps service names to handles for the whole process. {claim} \
         Handles are created lazily on the first lookup of a name."
    );
    doc(id, "Quux registry", &text)
}

/// The critique of a draft quoting `quotes` (source id, sentence) from
/// `sources`, past the first iteration (no related aspects, no ASK).
async fn critique(sources: Vec<SourceDoc>, quotes: &[(u32, &str)]) -> Critique {
    critique_in(2, sources, quotes).await
}

async fn critique_in(iteration: u32, sources: Vec<SourceDoc>, quotes: &[(u32, &str)]) -> Critique {
    let draft = Draft { markdown: String::new(), claims: quotes.iter().map(|(id, q)| claim(*id, q)).collect() };
    let ctx = CritiqueContext {
        question: SAFE_QUESTION.into(),
        constraints: Vec::new(),
        iteration,
        draft,
        sources,
        planned_aspects: Vec::new(),
        related_aspects: Vec::new(),
        answered_asks: Vec::new(),
    };
    reasoner().critique(ctx).await.unwrap().value
}

#[tokio::test]
async fn the_same_sentence_negated_in_another_source_is_a_contradiction() {
    let c = critique(vec![registry_page(1, SAYS_SAFE), registry_page(2, SAYS_UNSAFE)], &[(1, SAYS_SAFE)]).await;
    assert_eq!(c.contradictions.len(), 1, "{:?}", c.contradictions);
    let x = &c.contradictions[0];
    assert_eq!((x.source_a, x.source_b), (SourceId(1), SourceId(2)));
    assert_eq!(x.claim, SAYS_SAFE);
    assert!(c.issues.iter().any(|i| i.description.contains("disagree")), "{:?}", c.issues);
}

#[tokio::test]
async fn agreement_or_different_content_is_no_contradiction() {
    let agree = critique(vec![registry_page(1, SAYS_SAFE), registry_page(2, SAYS_SAFE)], &[]).await;
    assert!(agree.contradictions.is_empty(), "{:?}", agree.contradictions);
    // Negated, but about something else than the other source's sentence.
    let other = "The quux registry is not thread-safe unless it is built with the locking feature enabled.";
    let differ = critique(vec![registry_page(1, SAYS_SAFE), registry_page(2, other)], &[]).await;
    assert!(differ.contradictions.is_empty(), "{:?}", differ.contradictions);
}

#[tokio::test]
async fn an_aspect_no_quoted_sentence_supports_is_a_gap() {
    let sources = vec![registry_page(1, SAYS_SAFE), registry_page(2, SAYS_SAFE), registry_page(3, SAYS_SAFE)];
    let c = critique(sources, &[(1, SAYS_SAFE), (2, SAYS_SAFE)]).await;
    assert!(c.aspects_required.iter().any(|a| a == "eviction policy"), "{:?}", c.aspects_required);
    assert_eq!(c.gaps, vec!["eviction policy".to_string()], "{c:?}");
    let issue = c.issues.iter().find(|i| i.aspect.as_deref() == Some("eviction policy"));
    assert!(issue.is_some_and(|i| i.description.contains("No source")), "{:?}", c.issues);
    // The hyphenated aspect is supported by two quoting sources: addressed.
    let safe = c.aspects_required.iter().find(|a| a.contains("thread-safe")).unwrap();
    assert!(c.aspects_addressed.contains(safe) && !c.weak_aspects.contains(safe), "{c:?}");
    // Quoted from one source only: addressed, but weak.
    let sources = vec![registry_page(1, SAYS_SAFE), registry_page(2, SAYS_SAFE), registry_page(3, SAYS_SAFE)];
    let one = critique(sources, &[(1, SAYS_SAFE)]).await;
    assert!(one.weak_aspects.contains(safe), "{one:?}");
}

#[tokio::test]
async fn a_sentence_counts_for_an_aspect_only_in_the_questions_context() {
    // "thread-safe" appears in a page about something else (a low review
    // relevance), in a sentence with no word of the other aspect asked.
    let aside = "The spline cache is thread-safe when the quux registry is not involved at all.";
    let page = |relevance: f32| {
        let mut d = doc(1, "Splines", &format!("# Splines\nSplines bend smoothly between points. {aside}"));
        d.relevance = Some(relevance);
        d
    };
    let off = critique(vec![page(0.2)], &[(1, aside)]).await;
    let safe = off.aspects_required.iter().find(|a| a.contains("thread-safe")).unwrap().clone();
    assert!(off.gaps.contains(&safe), "a word in passing answers nothing: {off:?}");
    let on = critique(vec![page(0.9)], &[(1, aside)]).await;
    assert!(on.aspects_addressed.contains(&safe), "a source about the question speaks in its context: {on:?}");
}

#[tokio::test]
async fn a_rejected_source_found_again_by_another_query_is_judged_with_that_evidence() {
    let borderline = doc(
        3,
        "Scopes",
        "A reference is valid from its creation to its last use. The checker reports an error when a value is \
         dropped while something still points to it, and the message names both places in the code.",
    );
    let kept = vec![doc(1, "Borrow checker", ON_TOPIC)];
    let first = review(BuiltinConfig::default(), vec![borderline.clone()], kept.clone()).await;
    let relevance = f64::from(verdict(&first, 3).relevance);
    // A threshold the page misses on its words alone.
    let cfg = BuiltinConfig { relevance_threshold: relevance * 1.1, ..BuiltinConfig::default() };
    let alone = review(cfg.clone(), vec![borderline.clone()], kept.clone()).await;
    assert_eq!(reason(&alone, 3), Some("off_topic"), "{alone:?}");
    let again = review_again(cfg, vec![borderline], kept, vec![SourceId(3)]).await;
    assert!(verdict(&again, 3).kept, "{again:?}");
    assert!(f64::from(verdict(&again, 3).relevance) > relevance, "{again:?}");
}

#[tokio::test]
async fn a_page_holding_a_question_word_only_inside_an_identifier_is_not_kept_on_it() {
    // "leading zeros" asked in prose; one page names only the method
    // `leading_zeros` (the count of unset high bits), the other pads.
    let bits = "# Method u32\n\nTo count how many of the high bits of a number are unset, call \
                `u32::leading_zeros`; `u32::trailing_zeros` counts the low ones. Both take the number by copy \
                and run in constant time on every platform, so bit tricks in hot loops can call them freely \
                without a branch. Signed integers have the same methods, with the \
                same results for the same bits.";
    let pad = "# Formatting\n\nA width in a format string pads the value to that many characters. With a `0` \
               before the width, a number is padded with leading zeros instead of spaces, so `{:05}` writes 42 \
               as 00042. The sign, if any, comes before the zeros, and a precision can be combined with it for \
               decimal numbers.";
    let ctx = ReviewContext {
        question: "How do I print a number with leading zeros?".into(),
        constraints: Vec::new(),
        candidates: vec![doc(1, "u32", bits), doc(2, "Formatting", pad)],
        kept: Vec::new(),
        found_again: Vec::new(),
    };
    let v = reasoner().review(ctx).await.unwrap().value;
    assert!(verdict(&v, 2).kept, "{v:?}");
    assert!(!verdict(&v, 1).kept, "{v:?}");
    assert!(verdict(&v, 1).relevance < verdict(&v, 2).relevance / 2.0, "{v:?}");
}

/// Related concepts are pointers, of their own kind: never among the
/// aspects required, addressed or missing (so never in coverage, a caveat
/// or an issue), and named without any internal prefix.
#[tokio::test]
async fn related_concepts_are_pointers_never_aspects_to_cover() {
    let sources = vec![registry_page(1, SAYS_SAFE), registry_page(2, SAYS_SAFE), registry_page(3, SAYS_SAFE)];
    let c = critique_in(1, sources, &[(1, SAYS_SAFE)]).await;
    assert!(!c.related_aspects.is_empty(), "the sources pair the question with a concept: {c:?}");
    for r in &c.related_aspects {
        assert!(!r.contains(':'), "a label, not an internal marker: {r}");
        for list in [&c.aspects_required, &c.aspects_addressed, &c.weak_aspects, &c.gaps] {
            assert!(!list.contains(r), "{r} is a pointer, not an aspect to cover: {c:?}");
        }
        assert!(c.issues.iter().all(|i| i.aspect.as_deref() != Some(r.as_str())), "{:?}", c.issues);
    }
    assert!(c.aspects_required.iter().all(|a| !a.starts_with("related")), "{:?}", c.aspects_required);
    // Past the first iteration the queries carry them, by kind.
    let sources = vec![registry_page(1, SAYS_SAFE), registry_page(2, SAYS_SAFE), registry_page(3, SAYS_SAFE)];
    let draft = Draft { markdown: String::new(), claims: vec![claim(1, SAYS_SAFE)] };
    let ctx = CritiqueContext {
        question: SAFE_QUESTION.into(),
        constraints: Vec::new(),
        iteration: 2,
        draft,
        sources,
        planned_aspects: Vec::new(),
        related_aspects: c.related_aspects.clone(),
        answered_asks: Vec::new(),
    };
    let later = reasoner().critique(ctx).await.unwrap().value;
    assert_eq!(later.related_aspects, c.related_aspects);
    assert_eq!(later.aspects_required, c.aspects_required);
}

/// A changelog of a borrow-checking tool: every release names the borrow
/// checker and lifetimes, none says how it verifies them.
fn changelog() -> String {
    (0..6)
        .map(|i| {
            format!(
                "## Version 1.{}.0 (2025-0{}-01)\n\nThe borrow checker now verifies lifetimes of references in \
                 closures in more cases. Fixed a bug where the borrow checker reported lifetimes of references \
                 twice. Improved the error message for lifetimes that outlive their owner.\n\n",
                20 - i,
                i + 1
            )
        })
        .collect()
}

#[tokio::test]
async fn a_changelog_is_kept_only_for_a_question_about_a_release() {
    let candidates = || vec![doc(1, "Borrow checker", ON_TOPIC), doc(2, "Changes", &changelog())];
    let v = review(BuiltinConfig::default(), candidates(), Vec::new()).await;
    assert!(verdict(&v, 1).kept, "{v:?}");
    assert_eq!(reason(&v, 2), Some("release_notes"), "{v:?}");
    // The same page for a question about a release is kept.
    let about = ReviewContext {
        question: "Which version made the borrow checker verify lifetimes in closures?".into(),
        constraints: Vec::new(),
        candidates: candidates(),
        kept: Vec::new(),
        found_again: Vec::new(),
    };
    let v = with_config(BuiltinConfig::default()).review(about).await.unwrap().value;
    assert!(verdict(&v, 2).kept, "a release question keeps the changelog: {v:?}");
}

#[tokio::test]
async fn a_changelog_is_kept_for_its_own_version_not_for_a_version_of_something_else() {
    let ask = |question: &str| ReviewContext {
        question: question.into(),
        constraints: Vec::new(),
        candidates: vec![doc(1, "Borrow checker", ON_TOPIC), doc(2, "Changes", &changelog())],
        kept: Vec::new(),
        found_again: Vec::new(),
    };
    // 1.18 is one of the log's releases ("Version 1.18.0").
    let own = ask("Did the borrow checker check lifetimes of references in closures in 1.18?");
    let v = with_config(BuiltinConfig::default()).review(own).await.unwrap().value;
    assert!(verdict(&v, 2).kept, "{v:?}");
    // 0.2 is the asker's dependency, not a release of the log.
    let other = ask(
        "With `checker = \"0.2\"` in my manifest, why does the borrow checker reject lifetimes of references in closures?",
    );
    let v = with_config(BuiltinConfig::default()).review(other).await.unwrap().value;
    assert_eq!(reason(&v, 2), Some("release_notes"), "{v:?}");
}
