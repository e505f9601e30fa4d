//! The direct answer: the passage — a few contiguous sentences of one
//! section, with its heading and page title — that holds the most of the
//! question's meaning *jointly*. A question asks several things at once
//! ("the difference between A, B and C"); the passage that answers it names
//! them together, where a sentence picked per aspect only answers a part.
//!
//! DRAFT leads with the best passage; CRITIQUE measures answer relevance
//! with the same joint coverage, so the number that holds a draft back is
//! the one that chose its opening.

use super::Src;
use super::analysis::refers_back;
use super::aspects::Aspect;
use super::rarity::Weights;
use super::score::sentence_support;
use super::unanswered::{foreign_names, held_nowhere, unheld_parts, without_own_names};
use crate::engine::model::{Claim, Draft};
use crate::text::normalize_for_match;

/// Most sentences in a passage.
pub const MAX_SENTENCES: usize = 3;
/// Most words in a passage: a direct answer is read at a glance.
const MAX_WORDS: usize = 90;

/// A run of contiguous quotable sentences of one section of one source.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// Index into the sources given.
    pub source: usize,
    /// Sentence indices, inclusive.
    pub first: usize,
    pub last: usize,
    /// Weighted share of the asked aspects the passage holds, its heading
    /// and title counting for half, in `[0, 1]`.
    pub joint: f64,
    /// `joint` scaled by the source's retrieval evidence and by whether the
    /// passage reads on its own: what ranks passages.
    pub score: f64,
}

/// Per sentence of one source, per asked aspect: how much of the aspect
/// the sentence holds (`Support::blended`).
fn supports(src: &Src<'_>, asked: &[&Aspect], w: &Weights) -> Vec<Vec<f64>> {
    (0..src.an.sentences.len())
        .map(|i| asked.iter().map(|a| sentence_support(a, &src.an, i, w).blended()).collect())
        .collect()
}

/// The asked aspects (not the related ones) and their total weight.
fn asked(aspects: &[Aspect]) -> (Vec<&Aspect>, f64) {
    let asked: Vec<&Aspect> = aspects.iter().filter(|a| !a.related).collect();
    let total = asked.iter().map(|a| a.weight).sum::<f64>();
    (asked, total)
}

/// Joint coverage of per-aspect maxima over some sentences' supports.
fn joint_of<'s>(rows: impl Iterator<Item = &'s Vec<f64>>, asked: &[&Aspect], total: f64) -> f64 {
    if total <= 0.0 {
        return 0.0;
    }
    let mut best = vec![0.0f64; asked.len()];
    for row in rows {
        for (b, v) in best.iter_mut().zip(row) {
            *b = b.max(*v);
        }
    }
    asked.iter().zip(&best).map(|(a, b)| a.weight * b).sum::<f64>() / total
}

/// The best passages of the first `max_sources` sources, best first, at
/// most one per source.
pub fn best_passages(sources: &[Src<'_>], aspects: &[Aspect], w: &Weights, max_sources: usize) -> Vec<Passage> {
    let (asked, total) = asked(aspects);
    let mut out = Vec::new();
    for (si, src) in sources.iter().enumerate().take(max_sources) {
        let rows = supports(src, &asked, w);
        let sents = &src.an.sentences;
        let rel = f64::from(src.doc.relevance.unwrap_or(0.5));
        let mut best: Option<Passage> = None;
        for first in 0..sents.len() {
            let s = &sents[first];
            if !s.quotable || rows[first].iter().all(|v| *v <= 0.0) {
                continue;
            }
            // A passage opening with "This …" leans on what it leaves out.
            let standalone = if refers_back(src.an.sentence_text(&src.doc.text, first)) { 0.6 } else { 1.0 };
            let mut words = 0;
            let mut length = 1.0;
            for last in first..sents.len().min(first + MAX_SENTENCES) {
                let t = &sents[last];
                words += t.words;
                if !t.quotable || t.heading != s.heading || t.paragraph.abs_diff(s.paragraph) > 1 || words > MAX_WORDS {
                    break;
                }
                let joint = joint_of(rows[first..=last].iter(), &asked, total);
                // A sentence more that stays on the question explains the
                // answer further; one that leaves it only costs reading.
                if last > first {
                    length *= if rows[last].iter().any(|v| *v > 0.0) { 1.08 } else { 0.9 };
                }
                let score = joint * (0.55 + 0.45 * rel) * standalone * length;
                if best.as_ref().is_none_or(|b| score > b.score) {
                    best = Some(Passage { source: si, first, last, joint, score });
                }
            }
        }
        out.extend(best);
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}

/// Joint coverage of the asked aspects by the given sentences (source,
/// sentence) together: how much of the question they answer between them.
pub fn joint_coverage(sources: &[Src<'_>], aspects: &[Aspect], w: &Weights, sentences: &[(usize, usize)]) -> f64 {
    let (asked, total) = asked(aspects);
    let rows: Vec<Vec<f64>> = sentences
        .iter()
        .filter_map(|&(si, i)| {
            let src = sources.get(si)?;
            (i < src.an.sentences.len())
                .then(|| asked.iter().map(|a| sentence_support(a, &src.an, i, w).blended()).collect())
        })
        .collect();
    joint_of(rows.iter(), &asked, total)
}

/// Below this joint coverage, no passage of the sources answers the
/// question: what they hold are its words, not its answer.
pub const UNANSWERED_BELOW: f64 = 0.4;

/// The same in a big corpus, where the names a question asks about are
/// checked against the sources (`unanswered::foreign_names`): the coverage rule then
/// only has to catch a question whose words are all found but in no
/// passage together, and 0.3 refuses fewer answerable questions (chosen on
/// `rust-docs-user-2`: docs/benchmarks.md). In a small folder or among web
/// pages rare names are not checked, and 0.4 stays.
pub const UNANSWERED_BELOW_BIG_CORPUS: f64 = 0.3;

/// The critic's judgement of a draft's direct answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// How well the first paragraph answers the question as asked, `[0, 1]`.
    pub relevance: f64,
    /// Joint coverage of the first paragraph's quoted sentences.
    pub lead: f64,
    /// Joint coverage of the best passage any kept source holds.
    pub best: f64,
    /// The joint coverage answering needs.
    pub needs: f64,
    /// No passage of the sources answers the question.
    pub unanswered: bool,
    /// Names the question asks about that no kept source mentions.
    pub foreign: Vec<String>,
    /// Asked parts of a rare name that no kept sentence holds whole
    /// (`unheld_parts`).
    pub unheld: Vec<String>,
    /// The asked aspects no kept sentence supports, when they are most of
    /// what is asked (`held_nowhere`); empty otherwise.
    pub nowhere: Vec<String>,
}

/// The draft's first block of text that is not a heading.
pub fn first_paragraph(markdown: &str) -> &str {
    markdown.split("\n\n").map(str::trim).find(|b| !b.is_empty() && !b.starts_with('#')).unwrap_or_default()
}

/// The direct answer as text to find claims in: its first paragraph
/// without the citation markers between sentences (a claim of two
/// sentences is drafted as "One. [1] Two. [1]"), normalized.
pub fn opening_for_match(markdown: &str) -> String {
    let text = first_paragraph(markdown);
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            in_code = !in_code;
        }
        if c == '[' && !in_code && out.ends_with(char::is_whitespace) {
            let inner = rest[1..].split(']').next().unwrap_or_default();
            let marker = rest[1..].contains(']')
                && !inner.is_empty()
                && inner.chars().all(|c| c.is_ascii_digit() || c == ',' || c == ' ');
            if marker {
                rest = &rest[inner.len() + 2..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    normalize_for_match(&out)
}

/// The sentences (source, sentence) a claim quotes: those whose text lies
/// inside one of its quotes.
fn quoted_sentences(claim: &Claim, sources: &[Src<'_>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for c in &claim.citations {
        let Some(si) = sources.iter().position(|s| s.doc.meta.id == c.source) else { continue };
        let quote = normalize_for_match(&c.quote);
        if quote.is_empty() {
            continue;
        }
        let src = &sources[si];
        for i in 0..src.an.sentences.len() {
            let said = normalize_for_match(src.an.sentence_text(&src.doc.text, i));
            if !said.is_empty() && quote.contains(&said) {
                out.push((si, i));
            }
        }
    }
    out
}

/// Answer relevance: the joint coverage of the question by the sentences
/// the first paragraph quotes, times the retrieval evidence behind them
/// (their sources' review relevance). `unanswered` when no passage of any
/// kept source holds enough of the question to answer it.
pub fn judge(draft: &Draft, asked: &[Aspect], sources: &[Src<'_>], w: &Weights) -> Judgement {
    let judged: Vec<Aspect> = asked.iter().filter_map(|a| without_own_names(a, sources, w)).collect();
    // Only the asker's own names asked: judge on everything.
    let aspects = if judged.iter().any(|a| !a.related) { &judged[..] } else { asked };
    let opening = opening_for_match(&draft.markdown);
    let lead_claims: Vec<&Claim> = draft
        .claims
        .iter()
        .filter(|c| !c.text.trim().is_empty() && opening.contains(&normalize_for_match(&c.text)))
        .collect();
    let lead: Vec<(usize, usize)> = lead_claims.iter().flat_map(|c| quoted_sentences(c, sources)).collect();
    let joint = joint_coverage(sources, aspects, w, &lead);
    let mut cited: Vec<usize> = lead.iter().map(|(si, _)| *si).collect();
    cited.sort_unstable();
    cited.dedup();
    let evidence = if cited.is_empty() {
        0.0
    } else {
        cited.iter().map(|&si| f64::from(sources[si].doc.relevance.unwrap_or(0.5))).sum::<f64>() / cited.len() as f64
    };
    let passages = best_passages(sources, aspects, w, sources.len());
    let best = passages.first().map_or(0.0, |p| p.joint);
    // Names are looked for on every kept page, not only the best
    // passage's: the answer about `Into` or `Display` is often on a page
    // that says what to do without naming the trait the asker named.
    let foreign = foreign_names(asked, sources, w);
    let needs = if w.big_corpus() { UNANSWERED_BELOW_BIG_CORPUS } else { UNANSWERED_BELOW };
    let unheld = unheld_parts(asked, sources, w);
    let mut nowhere = held_nowhere(asked, sources, w);
    if nowhere.len() * 2 <= asked.iter().filter(|a| !a.related).count() {
        nowhere.clear();
    }
    let unanswered = best < needs || !foreign.is_empty() || !unheld.is_empty() || !nowhere.is_empty();
    Judgement {
        relevance: joint * (0.6 + 0.4 * evidence),
        lead: joint,
        best,
        needs,
        unanswered,
        foreign,
        unheld,
        nowhere,
    }
}

#[cfg(test)]
mod tests {
    use super::super::unanswered::written_as_name;
    use super::*;
    use crate::builtin::analysis::{Stemmer, analyze};
    use crate::builtin::aspects::aspects;
    use crate::builtin::test_docs::doc;
    use std::sync::Arc;

    #[test]
    fn the_passage_naming_everything_asked_wins_over_sentences_on_one_part() {
        let text = "# Iteration\n\nThe iter method borrows each element. It is common.\n\n\
                    # Three forms\n\nThere are three common methods: iter iterates over references, \
                    iter_mut over mutable references, and into_iter over owned values.\n";
        let other = "# Ownership\n\nCalling into_iter consumes the collection and yields owned values to the caller.\n";
        let docs = [doc(1, "Iterators", text), doc(2, "Vec", other)];
        let mut st = Stemmer::default();
        let srcs: Vec<Src<'_>> =
            docs.iter().map(|d| Src { doc: d, an: Arc::new(analyze(&d.meta.title, &d.text, &mut st)) }).collect();
        let an: Vec<&crate::builtin::analysis::AnalyzedDoc> = srcs.iter().map(|s| s.an.as_ref()).collect();
        let w = Weights::new(None, 0.0, &an);
        let asp = aspects("What is the difference between iter, iter_mut and into_iter?", &mut st, &w, 5);
        let best = best_passages(&srcs, &asp, &w, 10);
        let top = &best[0];
        assert_eq!(top.source, 0);
        let said = srcs[0].an.sentence_text(&srcs[0].doc.text, top.first);
        assert!(said.starts_with("There are three common methods"), "{said}");
        assert!(top.joint > best[1].joint, "{best:?}");
        // Between them, the two sources' best sentences hold no more than the
        // comparing sentence alone.
        let alone = joint_coverage(&srcs, &asp, &w, &[(0, top.first)]);
        assert!((alone - top.joint).abs() < 1e-9);
    }

    /// A claim of two sentences is drafted with a marker after each: the
    /// opening still holds it, so its sentences are judged as the answer.
    #[test]
    fn a_claim_of_two_sentences_in_the_opening_is_judged_as_the_answer() {
        let text = "# Travel expenses\n\nMeals during business travel are reimbursed up to forty euros a day. \
                    Alcohol is never reimbursed. Taxis are reimbursed when no public transport runs.\n";
        let docs = [doc(1, "Travel expenses", text)];
        let mut st = Stemmer::default();
        let srcs: Vec<Src<'_>> =
            docs.iter().map(|d| Src { doc: d, an: Arc::new(analyze(&d.meta.title, &d.text, &mut st)) }).collect();
        let an: Vec<&crate::builtin::analysis::AnalyzedDoc> = srcs.iter().map(|s| s.an.as_ref()).collect();
        let w = Weights::new(None, 0.0, &an);
        let asp = aspects("Is alcohol reimbursed on business trips?", &mut st, &w, 5);
        let quote = "Meals during business travel are reimbursed up to forty euros a day. Alcohol is never reimbursed.";
        let claim = Claim {
            text: quote.into(),
            citations: vec![crate::engine::model::Citation {
                source: crate::engine::model::SourceId(1),
                quote: quote.into(),
            }],
            aspect: None,
        };
        let markdown = "*Travel expenses:* Meals during business travel are reimbursed up to forty euros a day. [1] \
                        Alcohol is never reimbursed. [1]\n";
        let draft = Draft { markdown: markdown.into(), claims: vec![claim] };
        let j = judge(&draft, &asp, &srcs, &w);
        assert!(j.lead > 0.5 && j.relevance > 0.5, "{j:?}");
        assert_eq!(opening_for_match("See `v[0]` here. [2, 3] Next."), "see `v[0]` here. next.");
    }

    /// A corpus of this many passages in which every word is common.
    struct Common(u64);

    impl crate::builtin::Rarity for Common {
        fn documents(&self) -> u64 {
            self.0
        }

        fn frequency(&self, _stem: &str) -> u64 {
            self.0 / 10
        }
    }

    /// A corpus of this many passages in which one word is never used and
    /// every other is held by one passage in the third number (10: common,
    /// 1000: rare).
    struct Without(u64, String, u64);

    impl crate::builtin::Rarity for Without {
        fn documents(&self) -> u64 {
            self.0
        }

        fn frequency(&self, stem: &str) -> u64 {
            if stem == self.1 { 0 } else { self.0 / self.2 }
        }
    }

    fn judged(question: &str, texts: &[(&str, &str)], quote: &str) -> Judgement {
        judged_in(None, question, texts, quote)
    }

    fn judged_in(
        corpus: Option<Arc<dyn crate::builtin::Rarity>>,
        question: &str,
        texts: &[(&str, &str)],
        quote: &str,
    ) -> Judgement {
        let docs: Vec<_> = texts.iter().enumerate().map(|(k, (t, x))| doc(k as u32 + 1, t, x)).collect();
        let mut st = Stemmer::default();
        let srcs: Vec<Src<'_>> =
            docs.iter().map(|d| Src { doc: d, an: Arc::new(analyze(&d.meta.title, &d.text, &mut st)) }).collect();
        let an: Vec<&crate::builtin::analysis::AnalyzedDoc> = srcs.iter().map(|s| s.an.as_ref()).collect();
        let w = Weights::new(corpus, 0.5, &an);
        let asp = aspects(question, &mut st, &w, 5);
        let claim = crate::builtin::test_docs::claim(1, quote);
        let draft = Draft { markdown: format!("{quote} [1]\n"), claims: vec![claim] };
        judge(&draft, &asp, &srcs, &w)
    }

    const POOL: &str = "# Thread pools\n\nA thread pool keeps a fixed number of worker threads waiting for jobs. \
                        The number of worker threads is set when the pool is created.\n";

    /// A name the question asks about that no source mentions is what the
    /// sources do not cover, however much else they share with it.
    #[test]
    fn a_name_no_source_mentions_makes_the_question_unanswered() {
        let q = "How do I set the number of worker threads that the Tokio runtime uses?";
        let j = judged(
            q,
            &[("Thread pools", POOL)],
            "A thread pool keeps a fixed number of worker threads waiting for jobs.",
        );
        assert_eq!(j.foreign, ["tokio"], "{j:?}");
        assert!(j.unanswered);
        // The same question about what the source covers is answered.
        let q = "How do I set the number of worker threads that a thread pool uses?";
        let j = judged(q, &[("Thread pools", POOL)], "The number of worker threads is set when the pool is created.");
        assert!(j.foreign.is_empty() && !j.unanswered, "{j:?}");
    }

    /// In a big corpus a capitalised name is looked for as a name: the verb
    /// "go" the page uses is not the language Go. In a small folder the
    /// capital of a common noun is taken for the asker's emphasis.
    #[test]
    fn a_capitalised_name_counts_only_where_it_is_written_as_a_name() {
        let select = "# Waiting on channels\n\nWhen several channels are ready at the same time, select picks one \
                      of the ready cases at random. Go back to the loop after each case.\n";
        let q = "In Go, which case runs when several channels are ready at the same time?";
        let quote = "When several channels are ready at the same time, select picks one of the ready cases at random.";
        let big = || Some(Arc::new(Common(50_000)) as Arc<dyn crate::builtin::Rarity>);
        let j = judged_in(big(), q, &[("Waiting on channels", select)], quote);
        assert_eq!(j.foreign, ["go"], "{j:?}");
        let named = select.replace("select picks", "Go's select picks");
        let j = judged_in(big(), q, &[("Waiting on channels", &named)], quote);
        assert!(j.foreign.is_empty(), "{j:?}");
        // A capitalised common noun: a name to a big corpus, emphasis to a small folder.
        let rules = "# Leave\n\nThe handbook grants twelve holidays a year to every employee.\n";
        let q = "How many holidays does the Handbook grant?";
        let quote = "The handbook grants twelve holidays a year to every employee.";
        let j = judged_in(big(), q, &[("Leave", rules)], quote);
        assert_eq!(j.foreign, ["handbook"], "{j:?}");
        let small = Some(Arc::new(Common(40)) as Arc<dyn crate::builtin::Rarity>);
        let j = judged_in(small, q, &[("Leave", rules)], quote);
        assert!(j.foreign.is_empty() && !j.unanswered, "{j:?}");
        assert!(written_as_name("Bindings exist for Python and Ruby.", "Python"));
        assert!(!written_as_name("Go back to the loop.", "Go"));
        assert!(!written_as_name("## Go\n\nText.", "Go"));
        assert!(!written_as_name("Gopher is a mascot.", "Go"));
    }

    /// A lower-case word a big corpus never uses is a name (a crate); in a
    /// corpus too small for absence to mean much it is not.
    #[test]
    fn a_word_a_big_corpus_never_uses_is_a_name_only_there() {
        let q = "How do I set the number of worker threads that mockall's runtime uses?";
        let quote = "A thread pool keeps a fixed number of worker threads waiting for jobs.";
        let stem: String = Stemmer::default().tokens("mockall", true).into_iter().map(|t| t.stem).collect();
        let corpus = |n| Some(Arc::new(Without(n, stem.clone(), 10)) as Arc<dyn crate::builtin::Rarity>);
        let j = judged_in(corpus(10_000), q, &[("Thread pools", POOL)], quote);
        assert_eq!(j.foreign, ["mockall"], "{j:?}");
        let j = judged_in(corpus(9_999), q, &[("Thread pools", POOL)], quote);
        assert!(j.foreign.is_empty(), "{j:?}");
    }

    /// A part of a rare name's thing that no sentence holds whole is not
    /// answered by sentences about that part of something else; a common
    /// owner is the asker's own, and a sentence holding the part answers.
    #[test]
    fn a_part_of_a_rare_names_thing_that_no_sentence_holds_leaves_the_question_unanswered() {
        let q = "How do I set the number of worker threads that tokio's multi-threaded runtime uses?";
        let named = format!("{POOL}\nTokio is an async runtime.\n");
        let quote = "The number of worker threads is set when the pool is created.";
        let stem: String = Stemmer::default().tokens("tokio", true).into_iter().map(|t| t.stem).collect();
        let rare = || Some(Arc::new(Without(10_000, stem.clone(), 1000)) as Arc<dyn crate::builtin::Rarity>);
        let j = judged_in(rare(), q, &[("Thread pools", &named)], quote);
        assert!(j.foreign.is_empty(), "{j:?}");
        assert_eq!(j.unheld, ["tokio's multi-threaded runtime"], "{j:?}");
        assert!(j.unanswered);
        let common = Some(Arc::new(Common(10_000)) as Arc<dyn crate::builtin::Rarity>);
        let j = judged_in(common, q, &[("Thread pools", &named)], quote);
        assert!(j.unheld.is_empty() && !j.unanswered, "{j:?}");
        let held = format!("{POOL}\nTokio's multi-threaded runtime starts one worker thread per core.\n");
        let j = judged_in(rare(), q, &[("Thread pools", &held)], quote);
        assert!(j.unheld.is_empty() && !j.unanswered, "{j:?}");
    }

    /// When most of what is asked is held by no sentence found, the
    /// sources are about something else that shares a word with the
    /// question; when most of it is held, they answer in part.
    #[test]
    fn most_of_the_question_held_nowhere_leaves_it_unanswered() {
        let big = || Some(Arc::new(Common(50_000)) as Arc<dyn crate::builtin::Rarity>);
        let q = "Which linker flags shrink a swap file?";
        let linker =
            "# Linking\n\nThe linker combines object files into one binary. A big binary makes the linker slow.\n";
        let quote = "The linker combines object files into one binary.";
        // The linker is held, but neither its flags nor a swap file: most
        // of the question is held nowhere, though its best passage holds
        // enough of its words to pass the coverage rule.
        let j = judged_in(big(), q, &[("Linking", linker)], quote);
        assert!(j.best >= j.needs && j.unanswered && j.nowhere.len() == 2, "{j:?}");
        let swap = format!(
            "{linker}\nWhen the linker runs out of memory, add swap. A swap file size of twice the memory is common.\n"
        );
        let j = judged_in(big(), q, &[("Linking", &swap)], quote);
        assert!(j.nowhere.is_empty() && !j.unanswered, "{j:?}");
    }

    /// A capital where a sentence or clause of the question starts, or in a
    /// question written in Title Case, names nothing.
    #[test]
    fn capitals_at_a_sentence_start_or_in_title_case_name_nothing() {
        let big = || Some(Arc::new(Common(50_000)) as Arc<dyn crate::builtin::Rarity>);
        let quote = "A thread pool keeps a fixed number of worker threads waiting for jobs.";
        for q in [
            "My server is slow. Worker threads: how many does a thread pool keep?",
            "Context: Worker threads wait for jobs. How many does a thread pool keep?",
            "How Many Worker Threads Does A Thread Pool Keep?",
        ] {
            let j = judged_in(big(), q, &[("Thread pools", POOL)], quote);
            assert!(j.foreign.is_empty(), "{q}: {j:?}");
        }
    }

    /// The asker's own type names, written as code, are not looked up: a
    /// source that answers the rest answers the question.
    #[test]
    fn the_askers_own_names_in_code_do_not_make_a_question_unanswered() {
        let text = "# Sorting\n\nThe sort_by_key method sorts a slice by the key a closure extracts from each \
                    element. Use sort_by to compare two elements with a closure.\n";
        let quote = "The sort_by_key method sorts a slice by the key a closure extracts from each element.";
        let q = "How do I sort a `Vec<GadgetRecord>` by one field with a closure?";
        let j = judged(q, &[("Sorting", text)], quote);
        assert!(j.foreign.is_empty() && !j.unanswered, "{j:?}");
        // Written in prose and capitalised, the same name is asked about.
        let q = "How do I sort GadgetRecord entries by one field with a closure?";
        let j = judged(q, &[("Sorting", text)], quote);
        assert_eq!(j.foreign, ["gadgetrecord"], "{j:?}");
    }
}
