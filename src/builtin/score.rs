//! How well text supports the question's aspects: per sentence (for the
//! draft and the critique) and per source (for review).

use super::analysis::{AnalyzedDoc, holds_in};
use super::aspects::{Aspect, coverage};
use super::rarity::Weights;

/// How much of an aspect a sentence holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Support {
    /// Weighted share of the aspect's key terms in the sentence itself.
    pub literal: f64,
    /// The same once its heading and page title count too.
    pub context: f64,
    /// The same in its heading and page title alone: the section is about it.
    pub section: f64,
}

impl Support {
    /// Literal support with the context counting for half.
    pub fn blended(&self) -> f64 {
        self.literal + 0.5 * (self.context - self.literal)
    }

    /// Whether the sentence is on the aspect: it holds half its key terms,
    /// or some of them inside a section about it.
    pub fn on(&self) -> bool {
        self.literal >= 0.5 || (self.literal > 0.0 && self.section >= 0.5)
    }

    /// Full support: the sentence holds all the key terms, or some of them
    /// with its heading or title holding the rest. A related aspect also
    /// needs a section about it: mentioning a concept is not explaining it.
    pub fn full(&self, a: &Aspect) -> bool {
        let holds = self.literal >= 1.0 - 1e-9 || (self.literal > 0.0 && self.context >= 1.0 - 1e-9);
        holds && (!a.related || self.section >= 0.5)
    }
}

/// A stem counts for a sentence, heading or title only as the question asked
/// it: in prose, or in code as the same word (`analysis::holds_in`).
pub fn sentence_support(a: &Aspect, d: &AnalyzedDoc, i: usize, w: &Weights) -> Support {
    let s = &d.sentences[i];
    let in_heading = |k: &str| {
        s.heading.is_some_and(|h| {
            let (asked, compound) = a.form(k);
            d.headings[h].1.iter().any(|x| x == k) && holds_in(&d.heading_code[h], k, asked, compound)
        })
    };
    let in_section = |k: &str| in_heading(k) || d.title_stems.iter().any(|x| x == k);
    let holds = |k: &str| {
        let (asked, compound) = a.form(k);
        s.holds(k, asked, compound)
    };
    Support {
        literal: coverage(a, holds, w),
        context: coverage(a, |k| holds(k) || in_section(k), w),
        section: coverage(a, in_section, w),
    }
}

/// How much of an aspect heading `h` of a source holds, as the question asked it.
pub fn heading_coverage(a: &Aspect, d: &AnalyzedDoc, h: usize, w: &Weights) -> f64 {
    coverage(
        a,
        |k| {
            let (asked, compound) = a.form(k);
            d.headings[h].1.iter().any(|x| x == k) && holds_in(&d.heading_code[h], k, asked, compound)
        },
        w,
    )
}

/// A source's relevance to the aspects in `[0, 1]`: for each aspect its
/// best-supported sentence (the title alone counting for 80%), discounted
/// when few sentences mention it, weighted by aspect weight. Sources
/// lacking the user's added terms (`constraint_stems`) lose up to 60%.
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
            let support = sentence_support(a, d, i, w);
            best = f64::max(best, support.blended());
            mentions += usize::from(support.literal >= 0.5);
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
