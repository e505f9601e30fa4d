//! DRAFT: an extractive answer. Sentences of the kept sources are scored
//! by how much of each aspect they hold (key terms weighted by rarity, the
//! section heading and page title counting for half) and by their source's
//! relevance, then picked by maximal marginal relevance (MMR) so the answer
//! covers the aspects from several sources without repeating itself. Every
//! sentence is quoted verbatim and cited.

use std::collections::HashSet;

use super::Src;
use super::aspects::Aspect;
use super::config::BuiltinConfig;
use super::rarity::Weights;
use super::score::sentence_support;
use crate::engine::model::{Citation, Claim, Draft};

/// A quotable sentence and what it supports.
pub struct Candidate {
    pub source: usize,
    /// The sentence with its whitespace collapsed: the quote and the claim.
    pub text: String,
    pub stems: Vec<String>,
    /// Per aspect: key terms present in the sentence itself.
    pub literal: Vec<f64>,
    /// Per aspect: with heading and title counting for half.
    pub context: Vec<f64>,
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
        let rel = f64::from(s.doc.relevance.unwrap_or(0.5));
        for (i, sent) in s.an.sentences.iter().enumerate() {
            if !sent.quotable {
                continue;
            }
            let supports: Vec<(f64, f64)> = aspects.iter().map(|a| sentence_support(a, &s.an, i, w)).collect();
            if supports.iter().all(|(lit, _)| *lit <= 0.0) {
                continue;
            }
            let base: f64 = aspects.iter().zip(&supports).map(|(a, (_, ctx))| a.weight * ctx).sum::<f64>() / total;
            let position = (1.0 / (1.0 + 0.01 * i as f64)).max(0.7);
            let length = if (8..=40).contains(&sent.words) { 1.0 } else { 0.85 };
            let constraint = if constraint_stems.is_empty() {
                1.0
            } else {
                let present = constraint_stems.iter().filter(|c| s.an.contains(c)).count() as f64;
                0.3 + 0.7 * present / constraint_stems.len() as f64
            };
            let text = s.doc.text[sent.start..sent.end].split_whitespace().collect::<Vec<_>>().join(" ");
            out.push(Candidate {
                source: si,
                text,
                stems: sent.stems.clone(),
                literal: supports.iter().map(|s| s.0).collect(),
                context: supports.iter().map(|s| s.1).collect(),
                score: base * (0.55 + 0.45 * rel) * position * length * constraint,
            });
        }
    }
    out
}

fn similarity(a: &[String], b: &[String]) -> f64 {
    let inter = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
    let union = a.len() + b.len() - inter;
    if union == 0 { 0.0 } else { inter as f64 / union as f64 }
}

/// Picks up to `k` candidates by MMR over `worth`, skipping `taken`.
fn pick(
    cands: &[Candidate],
    worth: impl Fn(&Candidate) -> f64,
    k: usize,
    lambda: f64,
    taken: &mut Vec<usize>,
    source_uses: &mut [usize],
) -> Vec<usize> {
    let mut chosen = Vec::new();
    let texts: HashSet<&str> = taken.iter().map(|&i| cands[i].text.as_str()).collect();
    for _ in 0..k {
        let mut best: Option<(usize, f64)> = None;
        for (i, c) in cands.iter().enumerate() {
            let value = worth(c);
            if value <= 0.0 || taken.contains(&i) || texts.contains(c.text.as_str()) {
                continue;
            }
            let redundancy = taken.iter().map(|&j| similarity(&c.stems, &cands[j].stems)).fold(0.0, f64::max);
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

/// The draft: a direct answer, then one section per aspect.
pub fn draft(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    w: &Weights,
    constraint_stems: &[String],
    cfg: &BuiltinConfig,
) -> Draft {
    let cands = candidates(sources, aspects, w, constraint_stems, cfg.draft_sources);
    let mut taken = Vec::new();
    let mut uses = vec![0usize; sources.len()];
    let n = aspects.len().max(1) as f64;
    let answer = pick(
        &cands,
        |c| {
            let covered = c.literal.iter().filter(|l| **l >= 0.5).count() as f64;
            c.score * (covered / n).sqrt()
        },
        cfg.answer_sentences,
        cfg.mmr_lambda,
        &mut taken,
        &mut uses,
    );
    let mut claims = Vec::new();
    let mut md = String::new();
    let cite = |c: &Candidate, aspect: Option<&Aspect>| {
        let s = &sources[c.source];
        Claim {
            text: c.text.clone(),
            citations: vec![Citation { source: s.doc.meta.id, quote: c.text.clone() }],
            aspect: aspect.map(|a| a.label.clone()),
        }
    };
    let best_aspect = |c: &Candidate| {
        c.literal.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).and_then(|(i, _)| aspects.get(i))
    };
    let answer_line: Vec<String> =
        answer.iter().map(|&i| format!("{} [{}]", cands[i].text, sources[cands[i].source].doc.meta.id.0)).collect();
    for &i in &answer {
        claims.push(cite(&cands[i], best_aspect(&cands[i])));
    }
    if answer_line.is_empty() {
        md.push_str("The sources found do not answer this question directly.\n");
    } else {
        md.push_str(&answer_line.join(" "));
        md.push('\n');
    }
    for (ai, a) in aspects.iter().enumerate() {
        md.push_str(&format!("\n## {}\n\n", heading_label(&a.label)));
        let chosen = pick(
            &cands,
            |c| if c.literal[ai] >= 0.5 { c.score * (0.7 * c.literal[ai] + 0.3 * c.context[ai]) } else { 0.0 },
            cfg.sentences_per_aspect,
            cfg.mmr_lambda,
            &mut taken,
            &mut uses,
        );
        // Answer sentences that already cover this aspect count for it too.
        let from_answer: Vec<usize> = answer.iter().copied().filter(|&i| cands[i].literal[ai] >= 0.5).collect();
        if chosen.is_empty() && from_answer.is_empty() {
            md.push_str("_None of the sources found addresses this._\n");
            continue;
        }
        if chosen.is_empty() {
            md.push_str("_Covered by the answer above._\n");
        }
        for &i in &chosen {
            md.push_str(&format!("- {} [{}]\n", cands[i].text, sources[cands[i].source].doc.meta.id.0));
            claims.push(cite(&cands[i], Some(a)));
        }
    }
    Draft { markdown: md, claims }
}

/// Section headings in sentence case, with a lone symbol in code (`?`).
pub fn heading_label(label: &str) -> String {
    let words: Vec<String> =
        label
            .split_whitespace()
            .map(|w| {
                if w.chars().any(char::is_alphanumeric) || w.starts_with('`') {
                    w.to_string()
                } else {
                    format!("`{w}`")
                }
            })
            .collect();
    let mut s = words.join(" ");
    if let Some(first) = s.chars().next().filter(|c| c.is_lowercase()) {
        s.replace_range(..first.len_utf8(), &first.to_uppercase().to_string());
    }
    s
}
