//! Near-duplicate detection over source texts: an inverted index from
//! shingle hash to the sources containing it, so a new text is compared
//! only with sources it shares shingles with, not with every source.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::model::SourceId;
use crate::text::normalize_for_match;

/// The shingle keys are already FNV hashes; hashing them again is waste.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type ShingleMap<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

#[derive(Default)]
pub struct NearDuplicates {
    postings: ShingleMap<Vec<SourceId>>,
    /// Shingle count per source, indexed by `SourceId::index()`.
    sizes: Vec<usize>,
    /// Normalised title per source, same index.
    titles: Vec<String>,
}

impl NearDuplicates {
    /// Registers a source's shingle set (as from `text::fingerprint`) and title.
    pub fn insert(&mut self, id: SourceId, shingles: &[u64], title: &str) {
        if self.sizes.len() <= id.index() {
            self.sizes.resize(id.index() + 1, 0);
            self.titles.resize(id.index() + 1, String::new());
        }
        self.sizes[id.index()] = shingles.len();
        self.titles[id.index()] = normalize_for_match(title);
        for s in shingles {
            self.postings.entry(*s).or_default().push(id);
        }
    }

    /// The known source most similar to a text (`shingles`, `title`), if
    /// they are the same document. Near-identical texts are (Jaccard
    /// similarity at least `threshold`), and so is a text that holds almost
    /// all of the other (a share of at least `threshold` of the smaller one,
    /// when it is long enough to judge). The same page read by two extractors
    /// (the local corpus's and a web page's Readability) differs in what each
    /// keeps around the content and how code is laid out: under the same
    /// title, a share of [`SAME_TITLE_SHARE`] is enough.
    pub fn find(&self, shingles: &[u64], title: &str, threshold: f64) -> Option<SourceId> {
        // Ids are dense, so shared-shingle counts live in a plain vector.
        let mut shared = vec![0usize; self.sizes.len()];
        for s in shingles {
            for id in self.postings.get(s).into_iter().flatten() {
                shared[id.index()] += 1;
            }
        }
        let title = normalize_for_match(title);
        shared
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .filter_map(|(i, n)| {
                let (jaccard, contained) = similarity(*n, shingles.len(), self.sizes[i]);
                let same_title = !title.is_empty() && self.titles[i] == title;
                let same = jaccard >= threshold
                    || contained >= threshold
                    || (same_title && contained >= SAME_TITLE_SHARE.min(threshold));
                same.then_some((SourceId(i as u32 + 1), jaccard.max(contained)))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(id, _)| id)
    }
}

/// Below this many shingles (about a paragraph) a text is too short for
/// containment to mean it is the same page: a short note is contained in
/// many long pages that quote it.
const MIN_CONTAINED_SHINGLES: usize = 60;

/// The share of the smaller text found in the larger that makes two texts
/// under one title the same page. Measured on the Rust documentation: one
/// page read from the corpus and from the web shares 0.87 of its 4-word
/// shingles; two different pages as alike as `sync::Weak` and `rc::Weak`
/// (different titles) share 0.84, so a title must agree too.
pub const SAME_TITLE_SHARE: f64 = 0.8;

/// Jaccard similarity and containment (share of the smaller set found in
/// the larger, 0 when the smaller is too short) of two shingle sets of
/// sizes `a` and `b` sharing `shared`.
fn similarity(shared: usize, a: usize, b: usize) -> (f64, f64) {
    let union = a + b - shared;
    let jaccard = if union == 0 { 0.0 } else { shared as f64 / union as f64 };
    let smaller = a.min(b);
    let contained = if smaller >= MIN_CONTAINED_SHINGLES { shared as f64 / smaller as f64 } else { 0.0 };
    (jaccard, contained)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{fingerprint, sorted_jaccard};

    fn print(text: &str) -> Vec<u64> {
        fingerprint(text)
    }

    #[test]
    fn finds_the_near_identical_text_only() {
        let mut d = NearDuplicates::default();
        let a = "Shared ownership across threads requires an atomically reference counted pointer which Arc provides";
        d.insert(SourceId(1), &print(a), "Arc");
        d.insert(SourceId(2), &print("The question mark operator converts errors with From and returns early"), "?");
        let near = format!("{a} today");
        assert_eq!(d.find(&print(&near), "", 0.8), Some(SourceId(1)));
        assert_eq!(d.find(&print("Completely different words about lifetimes and borrowing rules"), "Arc", 0.5), None);
    }

    #[test]
    fn a_page_held_almost_whole_by_a_longer_extraction_of_it_is_the_same_source() {
        let words = |from: usize, to: usize| (from..to).map(|i| format!("word{i}")).collect::<Vec<_>>().join(" ");
        let mut d = NearDuplicates::default();
        // The corpus's extraction: navigation and a long list around the content.
        let local = format!("{} {} {}", words(0, 80), words(100, 300), words(400, 600));
        d.insert(SourceId(1), &print(&local), "Wiring guide");
        // The web page's Readability kept the content only, and a line of its own.
        let web = format!("{} extra line kept by the page", words(100, 300));
        assert!(sorted_jaccard(&print(&local), &print(&web)) < 0.5, "not near-identical as a whole");
        assert_eq!(d.find(&print(&web), "Another title", 0.9), Some(SourceId(1)));
        // A short text that a long page happens to hold is not that page.
        assert_eq!(d.find(&print(&words(100, 140)), "Wiring guide", 0.9), None);
        // Under the same title, most of it is enough; under another, not.
        let most = format!("{} {}", words(100, 270), words(700, 730));
        assert_eq!(d.find(&print(&most), "Wiring  GUIDE", 0.9), Some(SourceId(1)));
        assert_eq!(d.find(&print(&most), "Rewiring guide", 0.9), None);
    }
}
