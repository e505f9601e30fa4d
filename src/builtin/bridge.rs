//! The vocabulary bridge. People name what they want in their own words
//! ("a queue that always hands me the smallest item first"); the docs name
//! it once, in the sentence that defines it ("A priority queue implemented
//! with a binary heap."), and use its name everywhere else. Searching the
//! question's words finds passages that share them, not the item they
//! define. The corpus's definitions index (each page's title and opening
//! sentences, built at index time) is searched with the question's words;
//! the items defined with several of them become reads of their pages in
//! the first plan, each with an intent that quotes the definition, so the
//! reflection log shows why the page was read.

use std::collections::HashSet;

use super::Src;
use super::analysis::Stemmer;
use super::aspects::Aspect;
use super::follow::target_words;
use super::rarity::Weights;
use crate::engine::model::{PlannedQuery, SourceVerdict};
use crate::engine::reasoner::PlanOutput;
use crate::search::local::LocalCorpus;
use crate::text::{normalize_for_match, sanitize_inline};

/// A page the corpus defines, as the glossary returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The page's corpus path (a query that is exactly it reads the page).
    pub path: String,
    pub title: String,
    /// The defining sentences.
    pub summary: String,
    pub score: f64,
}

/// The definitions of a corpus's pages, searched by the words that
/// define them.
pub trait Glossary: Send + Sync {
    /// Up to `n` pages whose definitions best match `text`, best first.
    fn defined_by(&self, text: &str, n: usize) -> Vec<Definition>;
}

impl Glossary for LocalCorpus {
    fn defined_by(&self, text: &str, n: usize) -> Vec<Definition> {
        // A failed search bridges nothing; the plan's own queries still run.
        LocalCorpus::defined_by(self, text, n)
            .map(|hits| {
                hits.into_iter()
                    .map(|h| Definition { path: h.path, title: h.title, summary: h.summary, score: f64::from(h.score) })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Definitions looked at per question.
const CANDIDATES: usize = 8;
/// A definition shares at least this many terms of one of the question's
/// aspects (a phrase): one shared word is a coincidence of vocabulary, two
/// words of one phrase are its meaning.
const MIN_SHARED: usize = 2;
/// A shorter stem ("s" of "program's") is no word to share.
const MIN_STEM_CHARS: usize = 3;
/// A bridge's match is at least this share of the best bridge's: weaker
/// matches would replace the plan's own queries with noise.
const RELATIVE_CUT: f64 = 0.6;

/// A query that reads a page the docs define with the question's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Bridge {
    /// The page's corpus path.
    pub path: String,
    pub intent: String,
    /// The label of the aspect its definition restates.
    pub aspect: String,
}

/// Up to `max` pages defined with the question's words: searched in the
/// glossary with the question's (asked) aspects, kept when their definition
/// restates an aspect (shares at least `MIN_SHARED` of its terms), their shared
/// weight within `RELATIVE_CUT` of the best, and their name is not already
/// a word of the question (its own queries find those).
pub fn bridges(
    question: &str,
    aspects: &[Aspect],
    w: &Weights,
    glossary: &dyn Glossary,
    stemmer: &mut Stemmer,
    max: usize,
) -> Vec<Bridge> {
    let asked: Vec<&Aspect> = aspects.iter().filter(|a| !a.related).collect();
    let q_stems: HashSet<String> = asked.iter().flat_map(|a| a.stems.iter().cloned()).collect();
    let text: Vec<&str> = asked.iter().map(|a| a.label.as_str()).collect();
    if q_stems.len() < MIN_SHARED || max == 0 {
        return Vec::new();
    }
    let question_words: HashSet<String> = stemmer.stems(question).into_iter().collect();
    let mut scored: Vec<(f64, Vec<String>, String, Definition)> = Vec::new();
    for d in glossary.defined_by(&text.join(" "), CANDIDATES) {
        let name = target_words(&d.path);
        let name_stems = stemmer.stems(&name);
        if name_stems.is_empty() || name_stems.iter().all(|s| question_words.contains(s)) {
            continue;
        }
        let said: HashSet<String> = stemmer.stems(&d.summary).into_iter().collect();
        let mut shared: Vec<String> =
            q_stems.iter().filter(|s| s.chars().count() >= MIN_STEM_CHARS && said.contains(*s)).cloned().collect();
        shared.sort();
        // The definition restates a phrase of the question: two words of
        // one aspect, not two words from unrelated parts of it.
        let restated = asked
            .iter()
            .map(|a| (a.stems.iter().filter(|s| shared.contains(*s)).count(), a))
            .filter(|(n, _)| *n >= MIN_SHARED)
            .max_by(|x, y| x.0.cmp(&y.0).then(y.1.position.cmp(&x.1.position)));
        let Some((_, aspect)) = restated else { continue };
        let value: f64 = shared.iter().map(|s| w.of(s)).sum();
        scored.push((value, shared, aspect.label.clone(), d));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.3.score.total_cmp(&a.3.score)).then(a.3.path.cmp(&b.3.path)));
    let best = scored.first().map_or(0.0, |s| s.0);
    scored
        .into_iter()
        .filter(|(value, _, _, _)| *value >= RELATIVE_CUT * best)
        .take(max)
        .map(|(_, shared, aspect, d)| {
            let words = surface(&shared, &text.join(" "), stemmer);
            Bridge {
                intent: format!(
                    "bridge: “{words}” — the docs define {} as “{}”",
                    target_words(&d.path),
                    sanitize_inline(&d.summary)
                ),
                path: d.path,
                aspect,
            }
        })
        .collect()
}

/// The bridges still worth reading: their page is not a source yet, and
/// no sentence of the sources supports the aspect they restate (holds all
/// its key terms). Where the question's own words found support, its
/// vocabulary needs no bridge.
pub fn still_needed(bridges: Vec<Bridge>, aspects: &[Aspect], sources: &[Src<'_>]) -> Vec<Bridge> {
    bridges
        .into_iter()
        .filter(|b| !sources.iter().any(|s| s.doc.meta.canonical == b.path))
        .filter(|b| {
            let Some(a) = aspects.iter().find(|a| a.label == b.aspect) else { return true };
            !sources.iter().any(|s| s.an.sentences.iter().any(|x| a.key.iter().all(|k| x.has(k))))
        })
        .collect()
}

/// The question's own words for `stems`, in the question's order.
fn surface(stems: &[String], text: &str, stemmer: &mut Stemmer) -> String {
    let mut out: Vec<String> = Vec::new();
    for (stem, word) in stemmer.words(text, false) {
        if stems.contains(&stem) && !out.contains(&word) {
            out.push(word);
        }
    }
    out.join(" ")
}

/// Puts the bridges into a plan within its budget: they replace its last
/// (weakest) queries rather than go beyond `max_queries`, the plan's first
/// query (the whole question) always kept. Says so in the reflection.
pub fn add_bridges(out: &mut PlanOutput, bridges: &[Bridge], already_run: &[String], max_queries: usize) {
    let max = max_queries.max(1);
    let mut seen: HashSet<String> = already_run.iter().map(|q| normalize_for_match(q)).collect();
    seen.extend(out.queries.iter().map(|q| normalize_for_match(&q.text)));
    let fresh: Vec<&Bridge> = bridges.iter().filter(|b| !seen.contains(&normalize_for_match(&b.path))).collect();
    let room = max.saturating_sub(1).min(fresh.len());
    if room == 0 {
        return;
    }
    out.queries.truncate(max - room);
    for b in fresh.into_iter().take(room) {
        out.queries.push(PlannedQuery::new(b.path.clone(), b.intent.clone()));
    }
    out.reflection.assumptions.push(format!(
        "BRIDGE: the question's words define {} page(s) under other names in the docs; their pages are read.",
        room
    ));
}

/// REVIEW of bridged pages: an item's page describes the item, not the
/// question, so it rarely repeats the question's words and review finds it
/// off topic. A page first found by its bridge read (the query that found
/// it is its path) and still defined with the question's words (`bridges`
/// keeps it) is vouched for by its definition: the off-topic verdict is
/// lifted when it shares any of the question's terms; its relevance stays
/// as measured, and the verdict says why.
pub fn vouch(verdicts: &mut [SourceVerdict], candidates: &[Src<'_>], bridged: &[Bridge]) {
    for v in verdicts.iter_mut().filter(|v| !v.kept && v.reason.as_deref() == Some("off_topic") && v.relevance > 0.0) {
        let Some(c) = candidates.iter().find(|c| c.doc.meta.id == v.id) else { continue };
        let path = c.doc.meta.canonical.as_str();
        if c.doc.meta.query != path {
            continue;
        }
        if let Some(b) = bridged.iter().find(|b| b.path == path) {
            v.kept = true;
            v.reason = None;
            v.signals = vec![b.intent.clone()];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Reflection;

    struct Defs(Vec<Definition>);

    impl Glossary for Defs {
        fn defined_by(&self, _text: &str, n: usize) -> Vec<Definition> {
            self.0.iter().take(n).cloned().collect()
        }
    }

    fn def(path: &str, summary: &str, score: f64) -> Definition {
        Definition { path: path.into(), title: String::new(), summary: summary.into(), score }
    }

    fn aspects(question: &str, w: &Weights, stemmer: &mut Stemmer) -> Vec<Aspect> {
        super::super::aspects::aspects(question, stemmer, w, 6)
    }

    /// A corpus in which "first" and "item" are common words.
    struct Counts;

    impl super::super::Rarity for Counts {
        fn documents(&self) -> u64 {
            10_000
        }
        fn frequency(&self, stem: &str) -> u64 {
            if matches!(stem, "first" | "item") { 3_000 } else { 20 }
        }
    }

    #[test]
    fn a_definition_sharing_a_phrase_with_the_question_becomes_a_read_with_its_reason() {
        let w = Weights::new(Some(std::sync::Arc::new(Counts)), 1.0, &[]);
        let mut stemmer = Stemmer::default();
        let q = "I need a priority queue that always hands me the smallest item first";
        let a = aspects(q, &w, &mut stemmer);
        let glossary = Defs(vec![
            def("lib/kinds/struct.Heap.html", "A priority queue implemented with a binary heap.", 9.0),
            def("lib/iter/index.html", "Composable external iteration: the first item.", 8.0),
            def("lib/kinds/struct.Ring.html", "A double-ended queue.", 7.0),
        ]);
        let got = bridges(q, &a, &w, &glossary, &mut stemmer, 3);
        assert_eq!(got.iter().map(|b| b.path.as_str()).collect::<Vec<_>>(), vec!["lib/kinds/struct.Heap.html"]);
        assert_eq!(
            got[0].intent,
            "bridge: “priority queue” — the docs define Heap as “A priority queue implemented with a binary heap.”"
        );
    }

    #[test]
    fn an_item_the_question_names_is_not_bridged() {
        let w = Weights::new(None, 0.0, &[]);
        let mut stemmer = Stemmer::default();
        let q = "how does the priority queue Heap order items";
        let a = aspects(q, &w, &mut stemmer);
        let glossary = Defs(vec![def("lib/struct.Heap.html", "A priority queue that orders items.", 9.0)]);
        assert!(bridges(q, &a, &w, &glossary, &mut stemmer, 3).is_empty());
    }

    #[test]
    fn review_vouches_only_for_a_page_its_bridge_read_found() {
        use crate::engine::model::SourceId;
        let mut stemmer = Stemmer::default();
        let page = |id: u32, path: &str, query: &str| {
            let mut doc = crate::engine::reasoner::SourceDoc::page(id, path, "T", "A priority queue.");
            let meta = std::sync::Arc::make_mut(&mut doc.meta);
            meta.canonical = path.into();
            meta.query = query.into();
            doc
        };
        let docs = [
            page(1, "lib/heap.html", "lib/heap.html"),
            page(2, "lib/ring.html", "ring buffer"),
            page(3, "lib/other.html", "lib/other.html"),
        ];
        let srcs: Vec<Src<'_>> = docs
            .iter()
            .map(|d| Src {
                doc: d,
                an: std::sync::Arc::new(super::super::analysis::analyze("T", &d.text, &mut stemmer)),
            })
            .collect();
        let off = |id: u32| SourceVerdict {
            id: SourceId(id),
            kept: false,
            reason: Some("off_topic".into()),
            relevance: 0.2,
            signals: Vec::new(),
        };
        let mut verdicts = vec![off(1), off(2), off(3)];
        let bridged = vec![
            Bridge { path: "lib/heap.html".into(), intent: "bridge: heap".into(), aspect: String::new() },
            Bridge { path: "lib/ring.html".into(), intent: "bridge: ring".into(), aspect: String::new() },
        ];
        vouch(&mut verdicts, &srcs, &bridged);
        assert!(verdicts[0].kept && verdicts[0].signals == vec!["bridge: heap".to_string()]);
        assert!(!verdicts[1].kept, "found by another query: not vouched for");
        assert!(!verdicts[2].kept, "read, but not a bridge of this question");
    }

    #[test]
    fn an_aspect_a_source_sentence_supports_needs_no_bridge() {
        let mut stemmer = Stemmer::default();
        let w = Weights::new(Some(std::sync::Arc::new(Counts)), 1.0, &[]);
        let a = aspects("priority queue or ring buffer", &w, &mut stemmer);
        let doc =
            crate::engine::reasoner::SourceDoc::page(1, "lib/ring.html", "Ring", "A ring buffer grows. It is fast.");
        let srcs = vec![Src {
            doc: &doc,
            an: std::sync::Arc::new(super::super::analysis::analyze("Ring", &doc.text, &mut stemmer)),
        }];
        let b = |p: &str, aspect: &str| Bridge { path: p.into(), intent: String::new(), aspect: aspect.into() };
        let label = |word: &str| a.iter().find(|x| x.label.contains(word)).map(|x| x.label.clone()).expect("aspect");
        let kept = still_needed(
            vec![b("lib/heap.html", &label("priority")), b("lib/deque.html", &label("ring")), b("lib/ring.html", "")],
            &a,
            &srcs,
        );
        assert_eq!(
            kept.iter().map(|b| b.path.as_str()).collect::<Vec<_>>(),
            vec!["lib/heap.html"],
            "a supported aspect and a page already a source are not bridged"
        );
    }

    #[test]
    fn bridges_replace_the_weakest_queries_within_the_budget() {
        let mut out = PlanOutput {
            reflection: Reflection::default(),
            queries: (0..4).map(|i| PlannedQuery::new(format!("q{i}"), String::new())).collect(),
        };
        let b = |p: &str| Bridge { path: p.into(), intent: format!("bridge: {p}"), aspect: String::new() };
        add_bridges(&mut out, &[b("a.html"), b("q1"), b("c.html")], &["c.html".into()], 4);
        let texts: Vec<&str> = out.queries.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts, vec!["q0", "q1", "q2", "a.html"], "a query already planned or run is not bridged twice");
        assert!(out.reflection.assumptions.iter().any(|a| a.starts_with("BRIDGE: ")));
    }
}
