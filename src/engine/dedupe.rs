//! Near-duplicate detection over source texts: an inverted index from
//! shingle hash to the sources containing it, so a new text is compared
//! only with sources it shares shingles with, not with every source.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::model::SourceId;

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
}

impl NearDuplicates {
    /// Registers a source's shingle set (as from `text::fingerprint`).
    pub fn insert(&mut self, id: SourceId, shingles: &[u64]) {
        if self.sizes.len() <= id.index() {
            self.sizes.resize(id.index() + 1, 0);
        }
        self.sizes[id.index()] = shingles.len();
        for s in shingles {
            self.postings.entry(*s).or_default().push(id);
        }
    }

    /// The known source most similar to `shingles`, if its Jaccard
    /// similarity reaches `threshold`.
    pub fn find(&self, shingles: &[u64], threshold: f64) -> Option<SourceId> {
        // Ids are dense, so shared-shingle counts live in a plain vector.
        let mut shared = vec![0usize; self.sizes.len()];
        for s in shingles {
            for id in self.postings.get(s).into_iter().flatten() {
                shared[id.index()] += 1;
            }
        }
        shared
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| {
                let union = shingles.len() + self.sizes[i] - n;
                (SourceId(i as u32 + 1), if union == 0 { 0.0 } else { *n as f64 / union as f64 })
            })
            .filter(|(_, sim)| *sim >= threshold)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::fingerprint;

    fn print(text: &str) -> Vec<u64> {
        fingerprint(text)
    }

    #[test]
    fn finds_the_near_identical_text_only() {
        let mut d = NearDuplicates::default();
        let a = "Shared ownership across threads requires an atomically reference counted pointer which Arc provides";
        d.insert(SourceId(1), &print(a));
        d.insert(SourceId(2), &print("The question mark operator converts errors with From and returns early"));
        let near = format!("{a} today");
        assert_eq!(d.find(&print(&near), 0.8), Some(SourceId(1)));
        assert_eq!(d.find(&print("Completely different words about lifetimes and borrowing rules"), 0.5), None);
    }
}
