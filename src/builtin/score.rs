//! How well text supports the question's aspects: per sentence (for the
//! draft) and per source (for review).

use super::analysis::AnalyzedDoc;
use super::aspects::{Aspect, coverage};
use super::rarity::Weights;

/// Support for `a` in sentence `i`: the weighted share of the aspect's key
/// terms the sentence holds (literal), and the same when its heading and the
/// page title count for half (context).
pub fn sentence_support(a: &Aspect, d: &AnalyzedDoc, i: usize, w: &Weights) -> (f64, f64) {
    let s = &d.sentences[i];
    let literal = coverage(a, |k| s.has(k), w);
    let heading = s.heading.map(|h| &d.headings[h].1);
    let in_context =
        |k: &str| heading.is_some_and(|h| h.iter().any(|x| x == k)) || d.title_stems.iter().any(|x| x == k);
    let context = coverage(a, |k| s.has(k) || in_context(k), w);
    (literal, literal + 0.5 * (context - literal))
}

/// A source's relevance to the aspects in `[0, 1]`: for each aspect its
/// best-supported sentence, discounted when only one sentence mentions it,
/// weighted by aspect weight. Sources lacking the user's added terms
/// (`constraint_stems`) lose up to 60%.
pub fn relevance(aspects: &[Aspect], d: &AnalyzedDoc, w: &Weights, constraint_stems: &[String]) -> f64 {
    let total: f64 = aspects.iter().map(|a| a.weight).sum();
    if total <= 0.0 || d.sentences.is_empty() {
        return 0.0;
    }
    let mut score = 0.0;
    for a in aspects {
        let title = coverage(a, |k| d.title_stems.iter().any(|x| x == k), w);
        let mut best = 0.8 * title;
        let mut mentions = 0usize;
        for i in 0..d.sentences.len() {
            let (lit, ctx) = sentence_support(a, d, i, w);
            best = f64::max(best, ctx);
            mentions += usize::from(lit >= 0.5);
        }
        let density = 0.6 + 0.4 * (mentions as f64 / 3.0).min(1.0);
        score += a.weight * best * density;
    }
    let mut rel = score / total;
    if !constraint_stems.is_empty() {
        let present = constraint_stems.iter().filter(|c| d.contains(c)).count() as f64 / constraint_stems.len() as f64;
        rel *= 0.4 + 0.6 * present;
    }
    rel.clamp(0.0, 1.0)
}
