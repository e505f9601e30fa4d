//! The sentences worth quoting: every quotable sentence of the kept
//! sources scored by how much of each aspect it holds (key terms weighted by
//! rarity, the section heading and page title counting for half) and by its
//! source's relevance; MMR picks among them so the draft covers the aspects
//! from several sources without repeating itself; a sentence that leans on
//! its neighbour is quoted with it.

use std::collections::{HashMap, HashSet};

use super::Src;
use super::analysis::refers_back;
use super::aspects::Aspect;
use super::rarity::Weights;
use super::score::{Support, sentence_support};

/// Candidate sentences kept per source.
const PER_SOURCE: usize = 60;

/// A quotable sentence and what it supports.
pub struct Candidate {
    pub source: usize,
    pub sentence: usize,
    /// The sentence with its whitespace collapsed: the quote and the claim.
    pub text: String,
    pub stems: Vec<String>,
    /// Per aspect: key terms present in the sentence itself.
    pub literal: Vec<f64>,
    /// Per aspect: with heading and title counting for half.
    pub context: Vec<f64>,
    /// Per aspect: whether the sentence is on it at all.
    pub on: Vec<bool>,
    /// Per aspect: whether its section (heading, title) is about it.
    pub section: Vec<f64>,
    /// Per aspect, in `[0, 1]`: how much the sentence shares the vocabulary
    /// of all sentences on the aspect (centroid similarity): consensus
    /// content rather than an aside.
    pub central: Vec<f64>,
    /// Opens by referring back ("This is known as …") to a sentence it
    /// cannot be quoted with: it reads as a fragment out of its place.
    pub dangling: bool,
    /// Overall worth, before diversity.
    pub score: f64,
}

/// Every quotable sentence of the first `max_sources` sources that holds a
/// key term of some aspect.
pub fn candidates(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    w: &Weights,
    constraint_stems: &[String],
    max_sources: usize,
) -> Vec<Candidate> {
    let total: f64 = aspects.iter().map(|a| a.weight).sum::<f64>().max(1e-9);
    let mut out = Vec::new();
    for (si, s) in sources.iter().enumerate().take(max_sources) {
        let first = out.len();
        let rel = f64::from(s.doc.relevance.unwrap_or(0.5));
        for (i, sent) in s.an.sentences.iter().enumerate() {
            if !sent.quotable {
                continue;
            }
            let supports: Vec<Support> = aspects.iter().map(|a| sentence_support(a, &s.an, i, w)).collect();
            if supports.iter().all(|s| s.literal <= 0.0) {
                continue;
            }
            let base: f64 = aspects.iter().zip(&supports).map(|(a, s)| a.weight * s.blended()).sum::<f64>() / total;
            // Sections open with what they are about.
            let position = (1.0 / (1.0 + 0.05 * sent.in_section as f64)).max(0.7);
            let length = if (8..=40).contains(&sent.words) { 1.0 } else { 0.85 };
            let constraint = if constraint_stems.is_empty() {
                1.0
            } else {
                let present = constraint_stems.iter().filter(|c| s.an.contains(c)).count() as f64;
                0.3 + 0.7 * present / constraint_stems.len() as f64
            };
            let text = s.doc.text[sent.start..sent.end].split_whitespace().collect::<Vec<_>>().join(" ");
            let dangling = refers_back(&text) && !leans_on_joinable(s, i);
            out.push(Candidate {
                source: si,
                sentence: i,
                text,
                stems: sent.stems.clone(),
                literal: supports.iter().map(|s| s.literal).collect(),
                context: supports.iter().map(Support::blended).collect(),
                on: supports.iter().map(Support::on).collect(),
                section: supports.iter().map(|s| s.section).collect(),
                central: vec![0.0; aspects.len()],
                dangling,
                score: base * (0.55 + 0.45 * rel) * position * length * constraint,
            });
        }
        // A huge page offers thousands of sentences; its best few are enough.
        if out.len() - first > PER_SOURCE {
            out[first..].sort_by(|a, b| b.score.total_cmp(&a.score));
            out.truncate(first + PER_SOURCE);
        }
    }
    centrality(&mut out, aspects, w);
    out
}

/// Fills `central`: per aspect, the similarity of each sentence to the
/// centroid of the sentences that hold the aspect (question terms left
/// out), scaled so the most central is 1.
fn centrality(cands: &mut [Candidate], aspects: &[Aspect], w: &Weights) {
    let asked: HashSet<&str> = aspects.iter().flat_map(|a| a.stems.iter().map(String::as_str)).collect();
    for ai in 0..aspects.len() {
        let mut centroid: HashMap<String, f64> = HashMap::new();
        let members: Vec<usize> = (0..cands.len()).filter(|&i| cands[i].on[ai]).collect();
        for &i in &members {
            for stem in cands[i].stems.iter().filter(|s| !asked.contains(s.as_str())) {
                *centroid.entry(stem.clone()).or_default() += w.of(stem);
            }
        }
        let mut best: f64 = 0.0;
        let raw: Vec<f64> = cands
            .iter()
            .map(|c| {
                let sum: f64 = c.stems.iter().filter_map(|s| centroid.get(s)).sum();
                let v = sum / ((c.stems.len() + 1) as f64).sqrt();
                best = best.max(v);
                v
            })
            .collect();
        for (c, v) in cands.iter_mut().zip(raw) {
            c.central[ai] = if best > 0.0 { v / best } else { 0.0 };
        }
    }
}

pub fn similarity(a: &[String], b: &[String]) -> f64 {
    let inter = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
    let union = a.len() + b.len() - inter;
    if union == 0 { 0.0 } else { inter as f64 / union as f64 }
}

/// Stem overlap (Jaccard) from which two sentences say the same thing.
pub const NEAR_IDENTICAL: f64 = 0.85;

/// The shortest text that can be said to repeat another inside it, or to
/// stand on another page (`copies`): a shorter one is a common phrase
/// ("See below."), not a sentence said twice.
pub const MIN_REPEATED_CHARS: usize = 24;

/// Whether two texts say the same sentence: equal, or one holds the other
/// whole. Compare texts normalised the same way.
pub fn repeats(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= MIN_REPEATED_CHARS && long.contains(short))
}

/// Picks up to `k` candidates by MMR over `worth`, skipping `taken` and
/// sentences nearly identical to a taken one.
pub fn pick(
    cands: &[Candidate],
    worth: impl Fn(&Candidate) -> f64,
    k: usize,
    lambda: f64,
    taken: &mut Vec<usize>,
    source_uses: &mut [usize],
) -> Vec<usize> {
    let mut chosen = Vec::new();
    for _ in 0..k {
        let mut best: Option<(usize, f64)> = None;
        for (i, c) in cands.iter().enumerate() {
            let value = worth(c);
            if value <= 0.0 || taken.contains(&i) {
                continue;
            }
            let redundancy = taken.iter().map(|&j| similarity(&c.stems, &cands[j].stems)).fold(0.0, f64::max);
            // The same sentence in another copy or wording adds nothing,
            // nor does one a taken sentence holds whole (a page can repeat
            // a clause after a colon) or one holding a taken sentence whole.
            if redundancy >= NEAR_IDENTICAL || taken.iter().any(|&j| repeats(&cands[j].text, &c.text)) {
                continue;
            }
            let reuse = 0.08 * source_uses[c.source] as f64;
            let mmr = lambda * value - (1.0 - lambda) * redundancy - reuse;
            if best.is_none_or(|(_, b)| mmr > b) {
                best = Some((i, mmr));
            }
        }
        let Some((i, _)) = best else { break };
        taken.push(i);
        source_uses[cands[i].source] += 1;
        chosen.push(i);
    }
    chosen
}

/// Most words a quote grows to with its neighbours.
const MAX_QUOTE_WORDS: usize = 70;

/// Whether sentence `i` can be quoted with the sentence before it.
pub fn leans_on_joinable(src: &Src<'_>, i: usize) -> bool {
    let sents = &src.an.sentences;
    i > 0
        && sents[i - 1].paragraph == sents[i].paragraph
        && sents[i - 1].quotable
        && sents[i].words + sents[i - 1].words <= MAX_QUOTE_WORDS
}

/// Sentence `i` with the sentence before it when it opens by referring
/// back, and the one after it when that one continues it ("Instead, …"):
/// one verbatim span of the source, with its first and last sentence.
/// `None` when it stands alone.
pub fn with_context(src: &Src<'_>, i: usize) -> Option<(String, usize, usize)> {
    let sents = &src.an.sentences;
    let text = &src.doc.text;
    let s = &sents[i];
    let joinable = |j: usize| sents[j].paragraph == s.paragraph && sents[j].quotable;
    let mut start = i;
    let mut end = i;
    let mut words = s.words;
    if refers_back(&text[s.start..s.end]) && leans_on_joinable(src, i) {
        start = i - 1;
        words += sents[i - 1].words;
    }
    if i + 1 < sents.len()
        && joinable(i + 1)
        && refers_back(&text[sents[i + 1].start..sents[i + 1].end])
        && words + sents[i + 1].words <= MAX_QUOTE_WORDS
    {
        end = i + 1;
    }
    (start != i || end != i).then(|| {
        (text[sents[start].start..sents[end].end].split_whitespace().collect::<Vec<_>>().join(" "), start, end)
    })
}
