//! Term weights: how rare a term is says how much it tells. The local
//! corpus's index gives inverse document frequencies over its passages.
//! When the session also searches other providers, or only them, corpus
//! rarity is blended with (or replaced by) rarity among the session's own
//! sources, so the weights degrade instead of misleading.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::analysis::AnalyzedDoc;
use crate::search::local::LocalCorpus;

/// Document statistics of a collection, per analysed term.
pub trait Rarity: Send + Sync {
    /// Documents (passages) counted.
    fn documents(&self) -> u64;
    /// Documents containing `stem`.
    fn frequency(&self, stem: &str) -> u64;
}

impl Rarity for LocalCorpus {
    fn documents(&self) -> u64 {
        self.passage_count()
    }

    fn frequency(&self, stem: &str) -> u64 {
        self.passage_frequency(stem)
    }
}

impl Rarity for crate::search::opensearch::stats::CorpusStats {
    fn documents(&self) -> u64 {
        self.passages
    }

    fn frequency(&self, stem: &str) -> u64 {
        crate::search::opensearch::stats::CorpusStats::frequency(self, stem)
    }
}

/// BM25's inverse document frequency, scaled to `[0, 1]` by its maximum.
pub fn scaled_idf(n: u64, df: u64) -> f64 {
    if n == 0 {
        return 0.5;
    }
    let (n, df) = (n as f64, (df as f64).min(n as f64));
    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
    let max = ((n + 0.5) / 0.5 + 1.0).ln();
    (idf / max).clamp(0.0, 1.0)
}

/// Passages from which a corpus is big enough for a word's absence to
/// mean the corpus is about something else.
pub const BIG_CORPUS: f64 = 10_000.0;

/// How much a word's absence from a corpus of `n` passages says, in
/// `[0.3, 1]`: grows with the log of the corpus's size.
fn absence_says(n: u64) -> f64 {
    ((n.max(2) as f64).ln() / BIG_CORPUS.ln()).clamp(0.3, 1.0)
}

/// Weights for one reasoner call: corpus rarity, session rarity, or both.
pub struct Weights {
    corpus: Option<Arc<dyn Rarity>>,
    /// Share of corpus rarity in the blend (1: local corpus only).
    corpus_share: f64,
    session: Option<(u64, HashMap<String, u64>)>,
    memo: Mutex<HashMap<String, f64>>,
}

impl Weights {
    pub fn new(corpus: Option<Arc<dyn Rarity>>, corpus_share: f64, docs: &[&AnalyzedDoc]) -> Self {
        let session = (docs.len() >= 3).then(|| {
            let mut df: HashMap<String, u64> = HashMap::new();
            for d in docs {
                for stem in d.tf.keys() {
                    *df.entry(stem.clone()).or_default() += 1;
                }
            }
            (docs.len() as u64, df)
        });
        Self { corpus, corpus_share: corpus_share.clamp(0.0, 1.0), session, memo: Mutex::new(HashMap::new()) }
    }

    /// Whether the corpus is big enough for a word's absence to say
    /// something ([`BIG_CORPUS`] passages or more).
    pub fn big_corpus(&self) -> bool {
        self.corpus.as_ref().is_some_and(|c| c.documents() as f64 >= BIG_CORPUS)
    }

    /// The share of the corpus's passages that hold `stem`, and how many
    /// passages there are, when there is a corpus to ask.
    pub fn corpus_share(&self, stem: &str) -> Option<(f64, u64)> {
        let c = self.corpus.as_ref()?;
        let n = c.documents();
        (n > 0).then(|| (c.frequency(stem) as f64 / n as f64, n))
    }

    /// The weight of an analysed term, in `(0, 1]`.
    pub fn of(&self, stem: &str) -> f64 {
        if let Some(w) = self.memo.lock().unwrap_or_else(|p| p.into_inner()).get(stem) {
            return *w;
        }
        let corpus = self.corpus.as_ref().map(|c| {
            let (n, df) = (c.documents(), c.frequency(stem));
            // A word the corpus never uses is as rare as can be, but how much
            // its absence says depends on the corpus: in a big one, that it is
            // about something else; in three or ten short documents, little
            // (most words are absent from them): less than a word they use
            // once, which is what a question's other words are there.
            if df == 0 {
                let absence = absence_says(n);
                absence * (absence + (1.0 - absence) * scaled_idf(n, 1))
            } else {
                scaled_idf(n, df)
            }
        });
        // Among a handful of sources, a term in all of them is common; in
        // one of them, rare: a rougher idf over the same scale.
        let session = self.session.as_ref().map(|(n, df)| {
            let d = df.get(stem).copied().unwrap_or(0);
            0.3 + 0.7 * (1.0 - d as f64 / (*n as f64 + 1.0))
        });
        let w = match (corpus, session) {
            (Some(c), Some(s)) => self.corpus_share * c + (1.0 - self.corpus_share) * s,
            (Some(c), None) => c,
            (None, Some(s)) => s,
            // Nothing to go by: longer words tend to be the specific ones.
            (None, None) => (0.3 + 0.07 * stem.chars().count() as f64).min(1.0),
        };
        let w = w.max(0.02);
        self.memo.lock().unwrap_or_else(|p| p.into_inner()).insert(stem.to_string(), w);
        w
    }

    /// Whether `stem` never occurs in the corpus (known only with one).
    pub fn absent_from_corpus(&self, stem: &str) -> bool {
        self.corpus.as_ref().is_some_and(|c| c.frequency(stem) == 0)
    }

    pub fn has_corpus(&self) -> bool {
        self.corpus.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(HashMap<&'static str, u64>);

    impl Rarity for Fixed {
        fn documents(&self) -> u64 {
            1000
        }
        fn frequency(&self, stem: &str) -> u64 {
            self.0.get(stem).copied().unwrap_or(0)
        }
    }

    #[test]
    fn rare_terms_weigh_more_and_blending_degrades_gracefully() {
        let corpus: Arc<dyn Rarity> = Arc::new(Fixed([("arc", 5), ("type", 600)].into()));
        let w = Weights::new(Some(corpus.clone()), 1.0, &[]);
        assert!(w.of("arc") > 0.6 && w.of("type") < 0.2, "{} {}", w.of("arc"), w.of("type"));
        // Absent from a big corpus: as telling as can be; from three short
        // documents: less than a word one of them uses.
        /// `n` documents, one of which says "buddy".
        struct Sized(u64);
        impl Rarity for Sized {
            fn documents(&self) -> u64 {
                self.0
            }
            fn frequency(&self, stem: &str) -> u64 {
                u64::from(stem == "buddy")
            }
        }
        assert!(Weights::new(Some(Arc::new(Sized(83_000))), 1.0, &[]).of("program") > 0.95);
        let small = Weights::new(Some(Arc::new(Sized(3))), 1.0, &[]);
        assert!(small.of("program") < 0.5 * small.of("buddy"), "{} {}", small.of("program"), small.of("buddy"));
        // Without statistics of any kind, weights stay usable.
        let none = Weights::new(None, 0.0, &[]);
        assert!(none.of("elision") > none.of("use"));
        assert!(none.of("x") > 0.0);
    }
}
