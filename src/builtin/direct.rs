//! The direct answer from the answering parts of the kept pages. Each part
//! (a section under its heading, or the page's opening) is weighed as a
//! whole: how much of the question its heading and sentences hold
//! together, whether its page is the item the question names, and how well
//! the review stands behind its page. From the best parts the answer
//! quotes the opening, the sentences that hold the question (with the list
//! a sentence introduces) and the shortest code example that shows it.
//! A sentence that shares few words with the question is quoted when it
//! opens the part that does.

use super::Src;
use super::analysis::{AnalyzedDoc, refers_back};
use super::answering::Focus;
use super::aspects::Aspect;
use super::candidates::repeats;
use super::parts::{Part, SHORT_EXAMPLE_LINES, block_holds, examples, parts};
use super::question::{Kind, answers_kind};
use super::rarity::Weights;
use super::score::{heading_coverage, sentence_support};

/// A piece of the direct answer: a verbatim span of sentences, or a code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Sentences `first..=last` of a source, contiguous in its text.
    Span { source: usize, first: usize, last: usize },
    /// A code block of a source.
    Code { source: usize, block: usize },
}

/// The direct answer: its pieces in reading order.
#[derive(Debug, Clone, Default)]
pub struct DirectAnswer {
    pub pieces: Vec<Piece>,
}

/// `[builtin]` settings of the direct answer.
#[derive(Debug, Clone, Copy)]
pub struct DirectSettings {
    /// Sentences quoted at most.
    pub max_sentences: usize,
    /// Sentences quoted from one part at most.
    pub per_part: usize,
    /// Words the quoted sentences hold at most (about).
    pub max_words: usize,
    /// Parts that show a code example, at most (the first may show two).
    pub max_examples: usize,
    /// Score gained per unit of heading share.
    pub heading_gain: f64,
    /// Score gained by the opening of the page the question names.
    pub subject_gain: f64,
    /// Sources weighed, at most.
    pub max_sources: usize,
    /// Only the first this many sources may open the answer as the page
    /// the question names; 0 turns that off.
    pub opening_sources: usize,
    /// How a sentence's worth as an answer is made.
    pub weights: AnswerPartWeights,
}

/// `[builtin.answer_weights]`: a sentence's worth in the direct answer is
/// `(literal + part × its part's score relative to the best part + cue +
/// opening + heading × its heading's share + subject_opening) × (1 -
/// relevance + relevance × its source's review relevance)`, where `literal`
/// is the share of the question the sentence holds itself, `cue` counts
/// when it reads as the kind of answer asked for, `opening` and `heading`
/// when it opens its part, `subject_opening` when that part opens the page
/// the question names. A sentence holding none of the question is quoted
/// only as the opening of a part whose heading holds at least
/// `heading_alone` of the question, or of the page the question names.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnswerPartWeights {
    pub part: f64,
    pub cue: f64,
    pub opening: f64,
    pub heading: f64,
    pub heading_alone: f64,
    pub subject_opening: f64,
    pub relevance: f64,
}

impl Default for AnswerPartWeights {
    fn default() -> Self {
        Self {
            part: 0.2,
            cue: 0.1,
            opening: 0.2,
            heading: 0.5,
            heading_alone: 0.5,
            subject_opening: 0.5,
            relevance: 0.45,
        }
    }
}

/// A part with its score.
struct Weighed {
    source: usize,
    part: Part,
    /// Share of the question its heading (or, for a page's opening, its title) holds.
    heading: f64,
    subject: bool,
    /// 1, or [`UNNAMED_ITEM`] for one API item's part the question does not name.
    item: f64,
    score: f64,
}

/// Whether the page's title names an item the question names: the title's
/// item ("var" of "var in std::env - Rust", "cargo tree" of "cargo tree -
/// The Cargo Book") is written in the question as an identifier or is a
/// rare word of it.
pub fn names_subject(title: &str, aspects: &[&Aspect], w: &Weights) -> bool {
    let item = title.split(" - ").next().unwrap_or_default();
    let item = item.split(" in ").next().unwrap_or_default().trim();
    let words: Vec<String> = item
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|x| !x.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() || words.len() > 3 || words.iter().all(|x| x.len() < 3) {
        return false;
    }
    words.iter().all(|word| {
        aspects.iter().any(|a| {
            a.forms.iter().any(|(stem, surface, compound)| {
                let same = surface == word || surface.trim_end_matches('s') == word.trim_end_matches('s');
                let named = *compound
                    || a.label.split_whitespace().any(|l| {
                        l.trim_matches('`').eq_ignore_ascii_case(word)
                            && l.chars().next().is_some_and(|c| c.is_uppercase() || c == '`')
                    });
                same && (named || w.of(stem) >= RARE_NAME)
            })
        })
    })
}

/// Weight from which a plain word of the question names an item by itself.
const RARE_NAME: f64 = 0.5;

/// The item a heading declares when it is an API signature (`pub fn
/// sort(&mut self)`, `fn hash_one<T: Hash>(&self, x: T) -> u64`,
/// `pub const MAX: u32`): the documentation of one method or constant.
pub fn declared_item(heading: &str) -> Option<&str> {
    let mut words = heading.split_whitespace().peekable();
    let mut qualified = false;
    while let Some(w) = words.next() {
        let qualifier =
            w == "const" && words.peek().is_some_and(|n| matches!(*n, "fn" | "unsafe" | "async" | "extern"));
        if !qualifier && matches!(w, "fn" | "const" | "type" | "static") {
            let name = words.peek()?;
            let end = name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len());
            // A signature goes on after the name (`sort(`, `MAX:`,
            // `Result<T> =`); "type inference" or "static dispatch" is prose.
            let rest = heading[heading.find(*name)? + end..].trim_start();
            let signature = w == "fn" || qualified || rest.starts_with(['(', '<', ':', '=']);
            return (end > 0 && signature).then_some(&name[..end]);
        }
        // A signature opens with its qualifiers; prose does not.
        if !qualifier && !matches!(w, "pub" | "unsafe" | "async" | "extern" | "default") && !w.starts_with("pub(") {
            return None;
        }
        qualified = true;
    }
    None
}

/// The question's words, lower case, split as identifiers are: read once
/// per draft, asked for every API item's part.
struct Written(Vec<String>);

impl Written {
    fn new(question: &str) -> Self {
        Written(question.split(|c: char| !(c.is_alphanumeric() || c == '_')).map(str::to_lowercase).collect())
    }

    /// Whether the question writes `name`: as a word (`v.iter_mut()` writes
    /// `iter_mut`), or its parts in order ("sort a vec by key" for `sort_by_key`).
    fn names(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        let parts: Vec<&str> = name.split('_').filter(|p| !p.is_empty()).collect();
        let mut rest = self.0.iter();
        let in_order = parts.len() > 1 && parts.iter().all(|p| rest.any(|w| w == p));
        in_order || self.0.contains(&name)
    }
}

/// The share of its score a part keeps when it documents one API item
/// (its heading is that item's signature) the question does not name: a
/// method's description repeats the question's words ("pops the first n
/// items and pushes them to the end") without answering what was asked
/// about the type.
const UNNAMED_ITEM: f64 = 0.35;

fn weigh(sources: &[Src<'_>], focus: &Focus<'_>, question: &str, w: &Weights, s: &DirectSettings) -> Vec<Weighed> {
    let written = Written::new(question);
    let mut out = Vec::new();
    for (si, src) in sources.iter().enumerate().take(s.max_sources) {
        let an = &src.an;
        let rel = f64::from(src.doc.relevance.unwrap_or(0.5));
        let subject = names_subject(&src.doc.meta.title, &focus.aspects, w);
        let title: Vec<f64> = focus
            .aspects
            .iter()
            .map(|a| super::aspects::coverage(a, |k| an.title_stems.iter().any(|t| t == k), w))
            .collect();
        for part in parts(an) {
            let heads: Vec<f64> = focus
                .aspects
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    let h = part.heading.map_or(0.0, |h| heading_coverage(a, an, h, w));
                    if part.opening { h.max(title[k]) } else { h }
                })
                .collect();
            let shares: Vec<f64> = focus
                .aspects
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    part.sentences.clone().map(|i| sentence_support(a, an, i, w).literal).fold(heads[k], f64::max)
                })
                .collect();
            let topic = focus.share(&shares);
            if topic <= 0.0 {
                continue;
            }
            let heading = focus.share(&heads);
            let named = subject && part.opening && si < s.opening_sources;
            let item = part
                .heading
                .and_then(|h| declared_item(&an.headings[h].0))
                .filter(|name| !written.names(name))
                .map_or(1.0, |_| UNNAMED_ITEM);
            let score = item
                * topic
                * (0.55 + 0.45 * rel)
                * (1.0 + s.heading_gain * heading)
                * (1.0 + if named { s.subject_gain } else { 0.0 });
            out.push(Weighed { source: si, part, heading, subject: named, item, score });
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}

/// Items of a list quoted with the sentence introducing it, at most.
const LIST_ITEMS: usize = 5;

/// How many sentences after a quoted one may introduce the list quoted
/// with it: the next, or the one after within its paragraph. Further on,
/// the paragraph says something else before it lists.
const INTRODUCTION_REACH: usize = 2;

/// The list a chosen item belongs to, with the sentence introducing it
/// ("… these families of methods:"), as one span: the items alone do not
/// say what they list.
fn list_span(an: &AnalyzedDoc, text: &str, part: &Part, i: usize) -> Option<(usize, usize)> {
    let sents = &an.sentences;
    if !sents[i].item {
        return None;
    }
    let mut first = i;
    while first > part.sentences.start && sents[first - 1].item {
        first -= 1;
    }
    let intro = first.checked_sub(1).filter(|&k| k >= part.sentences.start)?;
    if !an.sentence_text(text, intro).trim_end().ends_with(':') {
        return None;
    }
    Some((intro, list_end(an, part, first).max(i)))
}

/// The last item quoted of the list whose first item is `first`: at most
/// `LIST_ITEMS` items, within the part.
fn list_end(an: &AnalyzedDoc, part: &Part, first: usize) -> usize {
    let mut last = first;
    while last + 1 < part.sentences.end && an.sentences[last + 1].item && last + 1 - first < LIST_ITEMS {
        last += 1;
    }
    last
}

/// The list a chosen sentence introduces ("In method signatures there is
/// another rule:", with or without its colon), or the list a sentence
/// after it introduces, with the sentences up to it ("A dyn-compatible
/// trait can be … A trait is dyn compatible if it has the following
/// qualities:"; "Rust includes tooling to … It will update your source
/// code … Briefly, the steps to update to the next edition are:"): an
/// introduction says what is listed, the list says it.
fn list_introduced(an: &AnalyzedDoc, text: &str, part: &Part, i: usize) -> Option<(usize, usize)> {
    let introduces = |k: usize| {
        k + 1 < part.sentences.end
            && !an.sentences[k].item
            && an.sentences[k + 1].item
            && !an.sentence_text(text, k).trim_end().ends_with(['.', '!', '?'])
    };
    // The next sentence may start a paragraph of its own (a heading's
    // introduction); the one after that belongs to the quoted sentence's
    // paragraph, as its ending.
    let leads = |k: usize| k <= i + 1 || an.sentences[k].paragraph == an.sentences[i].paragraph;
    let intro =
        (i..=i + INTRODUCTION_REACH).take_while(|&k| k < part.sentences.end && leads(k)).find(|&k| introduces(k))?;
    Some((intro, list_end(an, part, intro + 1)))
}

/// A sentence of a weighed part, with its worth as an answer.
struct Pick {
    part: usize,
    sentence: usize,
    worth: f64,
}

/// The direct answer from the best parts of the first sources: the
/// sentences worth most as an answer (how much of the question each holds,
/// plus what its part holds, whether it opens its part or the page the
/// question names, whether it reads as the kind of answer asked for), at
/// most `per_part` from a part; grouped by part, in page order, with the
/// neighbour a sentence leans on and the list it belongs to; then the
/// shortest code example of the leading parts.
pub fn direct_answer(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    question: &str,
    w: &Weights,
    s: &DirectSettings,
) -> DirectAnswer {
    let focus = Focus::new(question, aspects);
    let weighed = weigh(sources, &focus, question, w, s);
    let Some(best) = weighed.first() else { return DirectAnswer::default() };
    let top = best.score.max(1e-9);
    let mut picks: Vec<Pick> = Vec::new();
    let asks_way = focus.kinds.contains(&Kind::How);
    for (pi, p) in weighed.iter().enumerate() {
        let src = &sources[p.source];
        let an = &src.an;
        let rel = f64::from(src.doc.relevance.unwrap_or(0.5));
        let opening = p.part.sentences.clone().find(|&i| an.sentences[i].quotable);
        for i in p.part.sentences.clone().filter(|&i| an.sentences[i].quotable) {
            let text = an.sentence_text(&src.doc.text, i);
            let literal =
                focus.share(&focus.aspects.iter().map(|a| sentence_support(a, an, i, w).literal).collect::<Vec<_>>());
            let cue = focus.kinds.iter().any(|&k| answers_kind(text, k));
            let opens = opening == Some(i) && !refers_back(text);
            // A sentence of a part about the question that tells a way in
            // code ("use the `chars` method") answers a "how" without
            // repeating the question's words.
            let tells_way = asks_way && answers_kind(text, Kind::How) && !an.sentences[i].code.is_empty();
            if literal <= 0.0 && !(opens && (p.subject || p.heading >= s.weights.heading_alone)) && !tells_way {
                continue;
            }
            let worth = (literal
                + s.weights.part * p.score / top
                + if cue { s.weights.cue } else { 0.0 }
                + if opens { s.weights.opening + s.weights.heading * p.heading } else { 0.0 }
                + if opens && p.subject { s.weights.subject_opening } else { 0.0 })
                * (1.0 - s.weights.relevance + s.weights.relevance * rel)
                * p.item;
            picks.push(Pick { part: pi, sentence: i, worth });
        }
    }
    picks.sort_by(|a, b| b.worth.total_cmp(&a.worth).then(a.part.cmp(&b.part)).then(a.sentence.cmp(&b.sentence)));
    // The best sentences, few per part, no words said twice.
    let mut chosen: Vec<&Pick> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    let mut words = 0;
    for pick in &picks {
        if chosen.len() >= s.max_sentences || words >= s.max_words {
            break;
        }
        let p = &weighed[pick.part];
        if chosen.iter().filter(|c| c.part == pick.part).count() >= s.per_part {
            continue;
        }
        let src = &sources[p.source];
        let key = crate::text::normalize_for_match(src.an.sentence_text(&src.doc.text, pick.sentence));
        if said.iter().any(|s| repeats(s, &key)) {
            continue;
        }
        said.push(key);
        words += src.an.sentences[pick.sentence].words;
        chosen.push(pick);
    }
    // Parts in the order of their score (the part about the question
    // first, even when another part repeats more of its words); sentences
    // in page order.
    let mut order: Vec<usize> = chosen.iter().map(|c| c.part).collect();
    order.sort_unstable();
    order.dedup();
    let wants_code = focus.kinds.contains(&Kind::How) || focus.aspects.iter().any(|a| a.forms.iter().any(|f| f.2));
    let wanted: Vec<&str> = focus.aspects.iter().flat_map(|a| a.key.iter().map(String::as_str)).collect();
    let mut pieces = Vec::new();
    // Parts that showed an example.
    let mut shown = 0;
    // Every sentence the answer quotes so far, by its words: a page can
    // say one sentence in two places, and a sentence quoted with the one
    // it leans on must not bring that one a second time.
    let mut quoted: Vec<String> = Vec::new();
    for (n, &pi) in order.iter().enumerate() {
        let p = &weighed[pi];
        let src = &sources[p.source];
        let an = &src.an;
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut mine: Vec<usize> = chosen.iter().filter(|c| c.part == pi).map(|c| c.sentence).collect();
        mine.sort_unstable();
        for i in mine {
            let (mut first, mut last) = (i, i);
            if let Some((a, b)) = list_span(an, &src.doc.text, &p.part, i) {
                (first, last) = (a, b);
            } else if let Some((_, b)) = list_introduced(an, &src.doc.text, &p.part, i) {
                last = b;
            } else if refers_back(an.sentence_text(&src.doc.text, i))
                && i > p.part.sentences.start
                && an.sentences[i - 1].paragraph == an.sentences[i].paragraph
                && an.sentences[i - 1].quotable
            {
                first = i - 1;
            }
            let key = |k: usize| crate::text::normalize_for_match(an.sentence_text(&src.doc.text, k));
            let in_spans = |k: usize| spans.iter().any(|&(a, b)| (a..=b).contains(&k));
            // Each new sentence's words, normalised once.
            let new: Vec<String> = (first..=last).filter(|&k| !in_spans(k)).map(key).collect();
            if new.iter().any(|n| quoted.iter().any(|q| repeats(q, n))) {
                continue;
            }
            quoted.extend(new);
            match spans.last_mut() {
                Some(prev) if first <= prev.1 + 1 => prev.1 = prev.1.max(last),
                _ => spans.push((first, last)),
            }
        }
        // An example is relevant when it holds a term of the question or of
        // the sentences quoted from its part.
        let mut relevant = wanted.clone();
        for &(first, last) in &spans {
            relevant.extend((first..=last).flat_map(|k| an.sentences[k].stems.iter().map(String::as_str)));
        }
        pieces.extend(spans.into_iter().map(|(first, last)| Piece::Span { source: p.source, first, last }));
        if !wants_code || shown >= s.max_examples || n >= 2 {
            continue;
        }
        let found = examples(an, &p.part, &relevant);
        let Some(&block) = found.first() else { continue };
        let mut blocks = vec![block];
        // The part the answer opens with may show a second short example
        // that holds a term of the question, beside the first.
        let short = |c: usize| an.code[c].lines <= SHORT_EXAMPLE_LINES;
        if n == 0
            && short(block)
            && let Some(&second) = found.iter().skip(1).find(|&&c| short(c) && block_holds(an, c, &wanted))
        {
            blocks.push(second);
            blocks.sort_unstable();
        }
        pieces.extend(blocks.into_iter().map(|block| Piece::Code { source: p.source, block }));
        shown += 1;
    }
    DirectAnswer { pieces }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_heading_declares_its_item_and_prose_does_not() {
        assert_eq!(declared_item("pub fn sort(&mut self)where T: Ord,"), Some("sort"));
        assert_eq!(declared_item("pub const fn len(&self) -> usize"), Some("len"));
        assert_eq!(declared_item("fn hash_one<T: Hash>(&self, x: T) -> u64"), Some("hash_one"));
        assert_eq!(declared_item("pub const MAX: u32"), Some("MAX"));
        assert_eq!(declared_item("pub(crate) unsafe fn raw_parts(&self)"), Some("raw_parts"));
        assert_eq!(declared_item("Updating a Value Based on the Old Value"), None);
        assert_eq!(declared_item("The fn keyword"), None);
        assert_eq!(declared_item("type inference"), None);
        assert_eq!(declared_item("static dispatch"), None);
        assert_eq!(declared_item("const generics"), None);
        assert_eq!(declared_item("pub type Result<T> = result::Result<T, Error>;"), Some("Result"));
        assert!(Written::new("How do I sort a vec by key?").names("sort_by_key"));
        assert!(Written::new("When should I call `shrink_to_fit`?").names("shrink_to_fit"));
        assert!(Written::new("What does v.iter_mut() give me?").names("iter_mut"));
        assert!(!Written::new("How do I keep a queue sorted?").names("sort"));
    }
}
