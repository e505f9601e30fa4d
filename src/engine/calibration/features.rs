//! The signals EVALUATE has about a draft, by name: the confidence components,
//! the inputs behind them, and signals of how the answer was found (how
//! far its source stood above the other results of its query, how much of
//! the question its opening and the opening's section labels name). Each is
//! computed from the session alone, never from gold data, so the same
//! function feeds the calibration benchmark and a live session.
//!
//! A feature is a number; a boolean is 0 or 1. Adding one is adding a line
//! here (and to [`FEATURES`]): the fit picks features by name and a feature
//! without a coefficient weighs nothing.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::citations::citation_markers;
use crate::engine::model::{ConfidenceComponents, Critique, Draft, SourceId, Verdict};
use crate::engine::state::SourceEntry;
use crate::text::content_terms;

use super::super::evaluate::CitedSource;

/// Every feature [`features`] computes, with what it measures.
pub const FEATURES: &[(&str, &str)] = &[
    ("answer_relevance", "component: the critic's answer relevance of the direct answer"),
    ("source_quality", "component: tier × review relevance of the cited sources"),
    ("coverage", "component: aspects answered ÷ aspects required"),
    ("citation_density", "component: claims whose quote is in the source and says what the claim says ÷ claims"),
    ("consistency", "component: 1 − 0.25 per contradiction"),
    ("weighted", "the components' weighted average (the confidence before calibration)"),
    ("unanswered", "1 when the critic found that the sources do not answer"),
    ("held_back", "1 when the draft is held back (unanswered, a fallback, answer relevance unjudged or low)"),
    ("weak_share", "aspects resting on a single source ÷ aspects required"),
    ("verdict_pass", "1 when the critic's verdict is pass"),
    ("verdict_reject", "1 when the critic's verdict is reject"),
    ("claims", "ln(1 + claims drafted)"),
    ("cited_sources", "ln(1 + sources cited)"),
    ("max_relevance", "the highest review relevance among the cited sources"),
    ("opening_relevance", "review relevance of the source the direct answer cites first"),
    ("opening_margin", "that source's search score ÷ the best score among the results of the query that found it"),
    ("opening_overlap", "share of the question's content words the direct answer holds"),
    ("label_overlap", "share of the question's content words the direct answer's section labels hold"),
    ("opening_code", "1 when the direct answer quotes code"),
    ("question_words", "ln(1 + content words of the question)"),
    (
        "agreed_name_sources",
        "ln(1 + the most sources whose cited sentences name one code item the question does not name)",
    ),
    ("kept_share", "sources review kept ÷ sources found in the session"),
];

/// What [`features`] reads: EVALUATE's input and what it derived.
pub struct FeatureInput<'a> {
    pub question: &'a str,
    pub draft: Option<&'a Draft>,
    /// The critique, when a critic (not a fallback) judged the draft.
    pub judged: Option<&'a Critique>,
    pub components: &'a ConfidenceComponents,
    pub weighted: f64,
    pub unanswered: bool,
    pub held_back: bool,
    pub cited: &'a [CitedSource<'a>],
    /// Every source of the session, for the search scores of the
    /// answering source's query.
    pub all_sources: &'a [SourceEntry],
}

/// The features of one draft, by name (every name of [`FEATURES`]).
pub fn features(i: &FeatureInput<'_>) -> BTreeMap<String, f64> {
    let c = i.components;
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let (required, weak) = i.judged.map_or((0, 0), |c| (c.aspects_required.len(), c.weak_aspects.len()));
    let claims = i.draft.map_or(0, |d| d.claims.len());
    let opening = i.draft.map_or("", |d| first_paragraph(&d.markdown));
    let answering = citation_markers(opening).first().map(|n| SourceId(*n));
    let relevance_of =
        |id: SourceId| i.cited.iter().find(|s| s.meta.id == id).and_then(|s| s.verdict.filter(|_| !s.fallback_verdict));
    let question_terms = content_terms(i.question);
    let kept = i.all_sources.iter().filter(|s| s.kept()).count();
    let values = [
        ("answer_relevance", c.answer_relevance),
        ("source_quality", c.source_quality),
        ("coverage", c.coverage),
        ("citation_density", c.citation_density),
        ("consistency", c.consistency),
        ("weighted", i.weighted),
        ("unanswered", flag(i.unanswered)),
        ("held_back", flag(i.held_back)),
        ("weak_share", if required == 0 { 0.0 } else { weak.min(required) as f64 / required as f64 }),
        ("verdict_pass", flag(i.judged.is_some_and(|c| c.verdict == Verdict::Pass))),
        ("verdict_reject", flag(i.judged.is_none_or(|c| c.verdict == Verdict::Reject))),
        ("claims", (1.0 + claims as f64).ln()),
        ("cited_sources", (1.0 + i.cited.len() as f64).ln()),
        (
            "max_relevance",
            i.cited
                .iter()
                .filter(|s| !s.fallback_verdict)
                .filter_map(|s| s.verdict.map(|v| f64::from(v.relevance)))
                .fold(0.0, f64::max),
        ),
        ("opening_relevance", answering.and_then(relevance_of).map_or(0.0, |v| f64::from(v.relevance))),
        ("opening_margin", answering.map_or(0.0, |id| score_margin(id, i.all_sources))),
        ("opening_overlap", share_named(&question_terms, opening)),
        ("label_overlap", share_named(&question_terms, &labels(opening).join(" "))),
        ("opening_code", flag(opening.contains('`'))),
        ("question_words", (1.0 + question_terms.len() as f64).ln()),
        (
            "agreed_name_sources",
            (1.0 + i.draft.map_or(0, |d| agreed_name_sources(i.question, &d.markdown)) as f64).ln(),
        ),
        ("kept_share", if i.all_sources.is_empty() { 0.0 } else { kept as f64 / i.all_sources.len() as f64 }),
    ];
    values.into_iter().map(|(k, v)| (k.to_string(), if v.is_finite() { v } else { 0.0 })).collect()
}

/// The report's first block of text that is not a heading: its direct answer.
pub fn first_paragraph(markdown: &str) -> &str {
    markdown.split("\n\n").map(str::trim).find(|b| !b.is_empty() && !b.starts_with('#')).unwrap_or_default()
}

/// A source's search score over the best score among the sources its
/// query found: 1 when it was that query's top result.
fn score_margin(id: SourceId, all: &[SourceEntry]) -> f64 {
    let Some(s) = all.iter().find(|s| s.meta.id == id) else { return 0.0 };
    let best = all.iter().filter(|o| o.meta.query == s.meta.query).map(|o| f64::from(o.meta.score)).fold(0.0, f64::max);
    if best <= 0.0 { 0.0 } else { (f64::from(s.meta.score) / best).clamp(0.0, 1.0) }
}

/// Longest code span counted as a name (longer ones are code, not a name).
const MAX_NAME_CHARS: usize = 40;

/// The most sources that agree on one name the question does not use: for
/// each code span (`` `VecDeque` ``) in a cited sentence of the draft, the
/// distinct sources cited for sentences naming it. Several sources naming
/// the same API the asker did not know is what an answer found looks like.
fn agreed_name_sources(question: &str, markdown: &str) -> usize {
    let question = question.to_lowercase();
    let mut named: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for line in markdown.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut rest = line;
        // Each stretch of text up to its `[n]` markers is one cited sentence.
        while let Some(open) = rest.find('[') {
            let markers = citation_markers(&rest[open..]);
            let Some(close) = rest[open..].find(']').map(|c| open + c + 1) else { break };
            if let Some(n) = markers.first() {
                for span in code_spans(&rest[..open]) {
                    if span.chars().count() <= MAX_NAME_CHARS && !question.contains(&span.to_lowercase()) {
                        named.entry(span.to_string()).or_default().insert(*n);
                    }
                }
                rest = &rest[close..];
            } else {
                rest = &rest[open + 1..];
            }
        }
    }
    named.values().map(BTreeSet::len).max().unwrap_or(0)
}

/// The `code` spans of a text, without their backticks.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// Labels the direct answer gives its quotes: the emphasised `*Heading:*`
/// spans and bold `**…**` runs.
fn labels(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('*') {
        let after = rest[start..].trim_start_matches('*');
        let Some(end) = after.find('*') else { break };
        let label = after[..end].trim();
        if !label.is_empty() {
            out.push(label);
        }
        rest = after[end..].trim_start_matches('*');
    }
    out
}

/// Share of `terms` that `text` names, in the same or another form of the
/// word (`zero` ~ `zeros`, `formatting` ~ `formatted`).
fn share_named(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let words = content_terms(text);
    let found = terms.iter().filter(|t| words.iter().any(|w| same_word(t, w))).count();
    found as f64 / terms.len() as f64
}

/// One word in two forms: equal, one a prefix of the other of at least
/// four letters, or six letters in common at the start.
fn same_word(a: &str, b: &str) -> bool {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    a == b || (shorter >= 4 && common == shorter) || common >= 6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_labels_of_a_direct_answer_are_its_emphasised_spans() {
        let text = "*Module fmt:* Utilities for formatting. [5] **Padding** with `0`. *Formatter in std::fmt:* Takes.";
        assert_eq!(labels(text), vec!["Module fmt:", "Padding", "Formatter in std::fmt:"]);
        assert!(labels("no labels at all").is_empty());
    }

    #[test]
    fn a_question_word_counts_when_the_text_names_it_in_another_form() {
        let terms = content_terms("pad a number with leading zeros");
        let share = share_named(&terms, "the padding is done with a leading zero");
        // "pad" is too short a stem to match "padding"; "leading" and "zeros" match.
        assert!((share - 2.0 / 4.0).abs() < 1e-9, "{share} of {terms:?}");
        assert!(same_word("formatting", "formatted") && same_word("zero", "zeros"));
        assert!(!same_word("pad", "padding") && !same_word("channel", "chain"));
        assert_eq!(share_named(&[], "anything"), 0.0);
    }

    #[test]
    fn sources_agree_on_a_name_when_their_cited_sentences_name_it() {
        let q = "How do I use a queue with `Vec`?";
        let md = "# Q\n\nUse `VecDeque` for a queue. [1] A `VecDeque` grows. [2]\n\n## More\n\n\
                  - `Vec` is a vector. [3]\n- `VecDeque::push_back` adds, and `VecDeque` pops. [3]\n";
        // VecDeque: sources 1, 2 and 3; Vec is the question's own word.
        assert_eq!(agreed_name_sources(q, md), 3);
        assert_eq!(agreed_name_sources(q, "`Vec` only. [1] `Vec` again. [2]"), 0);
        assert_eq!(agreed_name_sources(q, "No code here. [1]"), 0);
        // A span with no citation after it is nobody's claim.
        assert_eq!(agreed_name_sources(q, "`HashMap` and [not a marker]"), 0);
    }

    #[test]
    fn the_first_paragraph_skips_headings() {
        assert_eq!(first_paragraph("# Title\n\nThe answer [1].\n\n## More\n\nText"), "The answer [1].");
        assert_eq!(first_paragraph(""), "");
    }
}
