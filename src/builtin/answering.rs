//! Which sentence of a kept page answers the question. Not the one that
//! repeats the most of the question's words (that one restates it), but a
//! sentence of the part whose heading, opening or body is about the
//! question's focus, that reads as the kind of answer asked for and adds
//! what the question does not say. Each sentence gets signals of that, and
//! a logistic model of named weights (`[builtin.answer]`, fitted on the
//! tuning questions: see `docs/builtin.md`) turns them into the chance
//! that the sentence holds a fact of the answer.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::Src;
use super::analysis::{code_spans, refers_back};
use super::aspects::Aspect;
use super::parts::{Part, parts};
use super::question::{Kind, answers_kind};
use super::rarity::Weights;
use super::score::{heading_coverage, sentence_support};

/// What is known about one sentence as an answer, each in `[0, 1]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Signals {
    /// Share of the question (aspects by weight) the sentence holds itself.
    pub literal: f64,
    /// Share its section's heading holds.
    pub heading: f64,
    /// Share its page's title holds.
    pub title: f64,
    /// Share its whole part (heading and every sentence) holds: the
    /// section is about the question.
    pub part: f64,
    /// The review's relevance of its source.
    pub relevance: f64,
    /// `1 / (1 + rank)` of its source among the kept ones.
    pub rank: f64,
    /// It opens its part.
    pub opening: f64,
    /// It is its part's second sentence.
    pub second: f64,
    /// It stands in the page's opening part (what the page says it is).
    pub page_opening: f64,
    /// Share of its weight in words the question does not use: what it adds.
    pub new_info: f64,
    /// It names in code something the question does not.
    pub code_new: f64,
    /// It reads as the kind of answer asked for (a reason, a condition, a way).
    pub cue: f64,
    /// 8 to 40 words.
    pub length: f64,
    /// A list item.
    pub item: f64,
    /// It opens by referring back to a sentence before it.
    pub dangling: f64,
    /// Within two sentences of its part's sentence holding the most of the question.
    pub near: f64,
    /// Its page is the item the question names (`direct::names_subject`).
    pub subject: f64,
}

/// `[builtin.answer]`: the weights of the answer model, one per signal,
/// and its intercept: `p = 1 / (1 + e^-(intercept + Σ weight × signal))`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AnswerWeights {
    pub intercept: f64,
    pub literal: f64,
    pub heading: f64,
    pub title: f64,
    pub part: f64,
    pub relevance: f64,
    pub rank: f64,
    pub opening: f64,
    pub second: f64,
    pub page_opening: f64,
    pub new_info: f64,
    pub code_new: f64,
    pub cue: f64,
    pub length: f64,
    pub item: f64,
    pub dangling: f64,
    pub near: f64,
}

impl Default for AnswerWeights {
    fn default() -> Self {
        Self {
            intercept: -4.0,
            literal: 2.0,
            heading: 0.5,
            title: 1.0,
            part: 1.5,
            relevance: 1.0,
            rank: 0.5,
            opening: 0.3,
            second: 0.1,
            page_opening: 0.3,
            new_info: 0.5,
            code_new: 0.5,
            cue: 0.2,
            length: 0.2,
            item: 0.0,
            dangling: -0.5,
            near: 0.3,
        }
    }
}

impl AnswerWeights {
    /// The chance that a sentence with these signals holds a fact of the answer.
    pub fn chance(&self, s: &Signals) -> f64 {
        let z = self.intercept
            + self.literal * s.literal
            + self.heading * s.heading
            + self.title * s.title
            + self.part * s.part
            + self.relevance * s.relevance
            + self.rank * s.rank
            + self.opening * s.opening
            + self.second * s.second
            + self.page_opening * s.page_opening
            + self.new_info * s.new_info
            + self.code_new * s.code_new
            + self.cue * s.cue
            + self.length * s.length
            + self.item * s.item
            + self.dangling * s.dangling
            + self.near * s.near;
        1.0 / (1.0 + (-z).exp())
    }
}

/// A sentence of a kept source with its part and signals.
#[derive(Debug, Clone)]
pub struct Scored {
    pub source: usize,
    pub sentence: usize,
    /// Index into the source's parts.
    pub part: usize,
    pub signals: Signals,
    pub chance: f64,
}

/// The question's side: its asked aspects and the kinds of answer it asks for.
pub struct Focus<'a> {
    pub aspects: Vec<&'a Aspect>,
    pub total: f64,
    pub kinds: Vec<Kind>,
    pub stems: HashSet<&'a str>,
}

impl<'a> Focus<'a> {
    pub fn new(question: &str, aspects: &'a [Aspect]) -> Self {
        let asked: Vec<&Aspect> = aspects.iter().filter(|a| !a.related).collect();
        let total = asked.iter().map(|a| a.weight).sum::<f64>();
        let stems = aspects.iter().flat_map(|a| a.stems.iter().map(String::as_str)).collect();
        Focus { aspects: asked, total, kinds: super::question::kinds(question), stems }
    }

    /// Joint share of the question held, per aspect its best `of`.
    fn joint(&self, of: impl Fn(&Aspect) -> f64) -> f64 {
        if self.total <= 0.0 {
            return 0.0;
        }
        self.aspects.iter().map(|a| a.weight * of(a).clamp(0.0, 1.0)).sum::<f64>() / self.total
    }
}

/// Every quotable sentence of the first `max_sources` sources that stands
/// in a part touching the question, with its signals and chance.
pub fn score(
    sources: &[Src<'_>],
    focus: &Focus<'_>,
    w: &Weights,
    model: &AnswerWeights,
    max_sources: usize,
) -> (Vec<Scored>, Vec<Vec<Part>>) {
    let mut out = Vec::new();
    let mut all_parts = Vec::new();
    for (si, src) in sources.iter().enumerate().take(max_sources) {
        let an = &src.an;
        let ps = parts(an);
        let rel = f64::from(src.doc.relevance.unwrap_or(0.5));
        let title = focus.joint(|a| super::aspects::coverage(a, |k| an.title_stems.iter().any(|t| t == k), w));
        let subject = f64::from(u8::from(super::direct::names_subject(&src.doc.meta.title, &focus.aspects, w)));
        for (pi, part) in ps.iter().enumerate() {
            // Per sentence, per aspect: literal support; the heading's share.
            let rows: Vec<Vec<f64>> = part
                .sentences
                .clone()
                .map(|i| focus.aspects.iter().map(|a| sentence_support(a, an, i, w).literal).collect())
                .collect();
            let heads: Vec<f64> =
                focus.aspects.iter().map(|a| part.heading.map_or(0.0, |h| heading_coverage(a, an, h, w))).collect();
            let heading = focus.share(&heads);
            let best: Vec<f64> =
                (0..focus.aspects.len()).map(|k| rows.iter().map(|r| r[k]).fold(heads[k], f64::max)).collect();
            let part_share = focus.share(&best);
            if part_share <= 0.0 {
                continue;
            }
            let literal: Vec<f64> = rows.iter().map(|r| focus.share(r)).collect();
            let peak = (0..literal.len()).max_by(|&a, &b| literal[a].total_cmp(&literal[b])).unwrap_or(0);
            for (k, i) in part.sentences.clone().enumerate() {
                let sent = &an.sentences[i];
                if !sent.quotable {
                    continue;
                }
                let text = an.sentence_text(&src.doc.text, i);
                let signals = Signals {
                    literal: literal[k],
                    heading,
                    title,
                    part: part_share,
                    relevance: rel,
                    rank: 1.0 / (1.0 + si as f64),
                    opening: f64::from(u8::from(k == 0)),
                    second: f64::from(u8::from(k == 1)),
                    page_opening: f64::from(u8::from(part.opening)),
                    new_info: new_info(&sent.stems, focus, w),
                    code_new: f64::from(u8::from(names_new_code(text, &focus.stems))),
                    cue: f64::from(u8::from(focus.kinds.iter().any(|&kind| answers_kind(text, kind)))),
                    length: f64::from(u8::from((8..=40).contains(&sent.words))),
                    item: f64::from(u8::from(sent.item)),
                    dangling: f64::from(u8::from(refers_back(text))),
                    near: f64::from(u8::from(k.abs_diff(peak) <= 2)),
                    subject,
                };
                let chance = model.chance(&signals);
                out.push(Scored { source: si, sentence: i, part: pi, signals, chance });
            }
        }
        all_parts.push(ps);
    }
    (out, all_parts)
}

impl Focus<'_> {
    /// Joint share of the question given per asked aspect its share `row`.
    pub fn share(&self, row: &[f64]) -> f64 {
        if self.total <= 0.0 {
            return 0.0;
        }
        self.aspects.iter().zip(row).map(|(a, v)| a.weight * v).sum::<f64>() / self.total
    }
}

/// Share of a sentence's term weight in terms the question does not use.
fn new_info(stems: &[String], focus: &Focus<'_>, w: &Weights) -> f64 {
    let total: f64 = stems.iter().map(|s| w.of(s)).sum();
    if total <= 0.0 {
        return 0.0;
    }
    stems.iter().filter(|s| !focus.stems.contains(s.as_str())).map(|s| w.of(s)).sum::<f64>() / total
}

/// Whether a code span of the sentence holds a word the question does not.
fn names_new_code(text: &str, asked: &HashSet<&str>) -> bool {
    code_spans(text).into_iter().any(|(s, e)| {
        text[s..e]
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 1)
            .any(|w| !asked.iter().any(|a| w.to_lowercase().starts_with(a)))
    })
}

/// One sentence as the answer model sees it, for fitting its weights.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerUnit {
    /// The source's canonical locator.
    pub source: String,
    /// The section heading it stands under.
    pub heading: String,
    pub text: String,
    /// Its part's place in its page.
    pub part: usize,
    /// A code block of the part (its `literal`: the share of the question its words hold).
    pub code: bool,
    pub signals: Signals,
    pub chance: f64,
}
