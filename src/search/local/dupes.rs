//! Near-identical pages: corpora repeat themselves (re-exported API pages,
//! old editions left as stubs, mirrors). Pages whose prose fingerprints
//! nearly match and that have the same name form a group, as does a short
//! stub with the same-titled page it links to. Each group is searched and
//! cited as one document: its canonical copy.
//!
//! The canonical copy is chosen by a general rule, in this order: a
//! configured path preference; a real page over a stub; the copy in the
//! top-level folder that the most other folders of the corpus link into
//! (the part of the documentation the rest points readers to); the copy
//! itself linked from the most folders, then by the most links; the
//! shallowest path; the shortest; the first in order.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::manifest::{FileRecord, FileState};

/// SimHash (64 bits) of a text's word 3-shingles.
#[cfg(test)]
pub fn simhash(text: &str) -> u64 {
    let mut h = SimHasher::default();
    h.write(text);
    h.finish()
}

/// `simhash` over a text given in pieces (paragraphs, one after another),
/// without joining them: a large page is fingerprinted in constant memory.
/// Pieces are separate words, as if joined by a line break.
#[derive(Debug, Clone)]
pub struct SimHasher {
    weights: [i32; 64],
    /// The last three words' hashes, the newest last.
    window: [u64; 3],
    words: usize,
}

impl Default for SimHasher {
    fn default() -> Self {
        Self { weights: [0; 64], window: [0; 3], words: 0 }
    }
}

impl SimHasher {
    pub fn write(&mut self, text: &str) {
        for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let h = fnv1a(w.as_bytes().iter().map(|b| b.to_ascii_lowercase()));
            self.window = [self.window[1], self.window[2], h];
            self.words += 1;
            if self.words >= 3 {
                let [a, b, c] = self.window;
                self.add(mix(a ^ b.rotate_left(21) ^ c.rotate_left(42)));
            }
        }
    }

    fn add(&mut self, h: u64) {
        for (bit, w) in self.weights.iter_mut().enumerate() {
            if h >> bit & 1 == 1 {
                *w += 1;
            } else {
                *w -= 1;
            }
        }
    }

    pub fn finish(&self) -> u64 {
        let mut weights = self.clone();
        if self.words < 3 {
            // Too short for a shingle: each word counts alone.
            for h in &self.window[3 - self.words..] {
                weights.add(mix(*h));
            }
        }
        if self.words == 0 {
            return 0;
        }
        weights.weights.iter().enumerate().fold(0u64, |acc, (bit, w)| if *w > 0 { acc | 1 << bit } else { acc })
    }
}

fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// splitmix64's finaliser: spreads shingle hashes over all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The folder a path starts with (`""` for files at the root).
pub fn top_folder(path: &str) -> &str {
    path.split_once('/').map_or("", |(top, _)| top)
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub struct GroupRules<'a> {
    pub max_bits: u32,
    pub stub_max_words: usize,
    /// Pages with fewer words are not compared by fingerprint.
    pub min_words: usize,
    pub prefer: &'a [String],
}

/// Each non-canonical member of a group, mapped to its group's canonical page.
pub fn group(files: &BTreeMap<String, FileRecord>, rules: &GroupRules<'_>) -> BTreeMap<String, String> {
    let pages: Vec<(&str, &FileRecord)> =
        files.iter().filter(|(_, r)| r.state == FileState::Indexed).map(|(p, r)| (p.as_str(), r)).collect();
    let index: HashMap<&str, usize> = pages.iter().enumerate().map(|(i, (p, _))| (*p, i)).collect();
    let mut uf = UnionFind::new(pages.len());

    // Near-identical prose: 4 bands of 16 bits; pages within `max_bits`
    // (≤ 3) share at least one band exactly.
    let mut buckets: HashMap<(u8, u16), Vec<usize>> = HashMap::new();
    for (i, (_, r)) in pages.iter().enumerate() {
        if (r.words as usize) < rules.min_words {
            continue;
        }
        for band in 0..4u8 {
            buckets.entry((band, (r.simhash >> (16 * band)) as u16)).or_default().push(i);
        }
    }
    for members in buckets.values().filter(|m| m.len() > 1 && m.len() <= 4096) {
        for (k, &a) in members.iter().enumerate() {
            for &b in &members[k + 1..] {
                if uf.find(a) != uf.find(b) && near_identical(pages[a], pages[b], rules.max_bits) {
                    uf.union(a, b);
                }
            }
        }
    }
    // Stubs: a short page that links to a page with its own title.
    for (i, (_, r)) in pages.iter().enumerate() {
        if !is_stub(r, rules) {
            continue;
        }
        let title = r.title.trim().to_lowercase();
        for target in &r.stub_links {
            if let Some(&j) = index.get(target.as_str())
                && j != i
                && pages[j].1.title.trim().to_lowercase() == title
            {
                uf.union(i, j);
                break;
            }
        }
    }

    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..pages.len() {
        members.entry(uf.find(i)).or_default().push(i);
    }
    let inbound = inbound_links(&pages);
    let authority = folder_authority(&pages);
    let mut out = BTreeMap::new();
    for group in members.values().filter(|g| g.len() > 1) {
        let key = |i: usize| {
            let (path, r) = pages[i];
            let pref = rules.prefer.iter().position(|p| path.starts_with(p.as_str())).unwrap_or(rules.prefer.len());
            let (sites, links) = inbound.get(path).map_or((0, 0), |(s, n)| (s.len(), *n));
            let folder = authority.get(top_folder(path)).map_or(0, HashSet::len);
            (
                pref,
                is_stub(r, rules),
                std::cmp::Reverse(folder),
                std::cmp::Reverse(sites),
                std::cmp::Reverse(links),
                path.matches('/').count(),
                path.len(),
                path,
            )
        };
        let Some(&best) = group.iter().min_by_key(|&&i| key(i)) else { continue };
        for &i in group {
            if i != best {
                out.insert(pages[i].0.to_string(), pages[best].0.to_string());
            }
        }
    }
    out
}

fn is_stub(r: &FileRecord, rules: &GroupRules<'_>) -> bool {
    (r.words as usize) <= rules.stub_max_words && !r.stub_links.is_empty()
}

fn near_identical(a: (&str, &FileRecord), b: (&str, &FileRecord), max_bits: u32) -> bool {
    let same_name = file_name(a.0) == file_name(b.0) || a.1.title.trim() == b.1.title.trim();
    let (wa, wb) = (a.1.words.max(1) as f64, b.1.words.max(1) as f64);
    same_name && (a.1.simhash ^ b.1.simhash).count_ones() <= max_bits && wa.min(wb) / wa.max(wb) >= 0.8
}

/// Per top-level folder: the other top-level folders whose pages link into it.
fn folder_authority<'a>(pages: &[(&'a str, &'a FileRecord)]) -> HashMap<&'a str, HashSet<&'a str>> {
    let mut out: HashMap<&str, HashSet<&str>> = HashMap::new();
    for (path, r) in pages {
        for target in &r.links {
            out.entry(top_folder(target)).or_default().insert(top_folder(path));
        }
    }
    out
}

/// Per linked page: the top-level folders linking to it, and the link count.
fn inbound_links<'a>(pages: &[(&'a str, &'a FileRecord)]) -> HashMap<&'a str, (HashSet<&'a str>, u32)> {
    let mut out: HashMap<&str, (HashSet<&str>, u32)> = HashMap::new();
    for (path, r) in pages {
        for target in &r.links {
            let e = out.entry(target.as_str()).or_default();
            e.0.insert(top_folder(path));
            e.1 += 1;
        }
    }
    out
}

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        Self { parent: (0..n).collect() }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(title: &str, text: &str, links: &[&str]) -> FileRecord {
        let mut r = FileRecord::bare(1, 1, FileState::Indexed);
        r.title = title.into();
        r.words = text.split_whitespace().count() as u32;
        r.simhash = simhash(text);
        r.links = links.iter().map(|s| s.to_string()).collect();
        r
    }

    fn long_text(seed: &str) -> String {
        (0..80).map(|i| format!("{seed} word{i} means thing{} ", i * 7)).collect()
    }

    fn rules(prefer: &[String]) -> GroupRules<'_> {
        GroupRules { max_bits: 3, stub_max_words: 60, min_words: 20, prefer }
    }

    #[test]
    fn a_text_in_pieces_has_the_fingerprint_of_the_whole() {
        let text = long_text("alpha");
        let mut h = SimHasher::default();
        for line in text.lines() {
            h.write(line);
        }
        assert_eq!(h.finish(), simhash(&text));
        for short in ["", "one", "one two", "one two three"] {
            let mut h = SimHasher::default();
            h.write(short);
            assert_eq!(h.finish(), simhash_joined(short), "{short:?}");
        }
    }

    /// The fingerprint as first defined: every word collected, then shingled.
    fn simhash_joined(text: &str) -> u64 {
        let words: Vec<u64> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| fnv1a(w.as_bytes().iter().map(|b| b.to_ascii_lowercase())))
            .collect();
        let mut h = SimHasher::default();
        if words.is_empty() {
            return 0;
        }
        if words.len() < 3 {
            words.iter().for_each(|w| h.add(mix(*w)));
        } else {
            for s in words.windows(3) {
                h.add(mix(s[0] ^ s[1].rotate_left(21) ^ s[2].rotate_left(42)));
            }
        }
        h.weights.iter().enumerate().fold(0u64, |acc, (bit, w)| if *w > 0 { acc | 1 << bit } else { acc })
    }

    #[test]
    fn simhash_is_close_for_near_copies_and_far_for_others() {
        let a = long_text("alpha");
        let b = format!("{a} one extra line");
        let c = long_text("beta");
        assert!((simhash(&a) ^ simhash(&b)).count_ones() <= 3);
        assert!((simhash(&a) ^ simhash(&c)).count_ones() > 10);
    }

    #[test]
    fn the_copy_linked_from_most_folders_is_canonical() {
        let text = long_text("shared");
        let mut files = BTreeMap::new();
        files.insert("core/x/page.html".to_string(), page("Page", &text, &[]));
        files.insert("std/x/page.html".to_string(), page("Page", &text, &[]));
        // Two folders link into std/, one into core/ (twice, to the page itself).
        files.insert("alloc/a.html".to_string(), page("A", &long_text("a"), &["core/x/page.html", "core/x/page.html"]));
        files.insert("book/b.html".to_string(), page("B", &long_text("b"), &["std/y/other.html"]));
        files.insert("guide/c.html".to_string(), page("C", &long_text("c"), &["std/z/more.html"]));
        let g = group(&files, &rules(&[]));
        assert_eq!(g.get("core/x/page.html").map(String::as_str), Some("std/x/page.html"));
        assert_eq!(g.len(), 1);
        // A configured preference wins over links.
        let prefer = vec!["core/".to_string()];
        let g = group(&files, &rules(&prefer));
        assert_eq!(g.get("std/x/page.html").map(String::as_str), Some("core/x/page.html"));
    }

    #[test]
    fn stubs_join_the_same_titled_page_and_never_lead() {
        let mut files = BTreeMap::new();
        files.insert("book/ch09.html".to_string(), page("Errors", &long_text("errors"), &[]));
        let mut stub = page("Errors", "This edition is no longer distributed; see the current version.", &[]);
        stub.stub_links = vec!["book/ch09.html".into()];
        files.insert("book/old/ch09.html".to_string(), stub);
        let mut other = page("Other", "Short page linking elsewhere.", &[]);
        other.stub_links = vec!["book/ch09.html".into()];
        files.insert("book/old/other.html".to_string(), other);
        let g = group(&files, &rules(&[]));
        assert_eq!(g.get("book/old/ch09.html").map(String::as_str), Some("book/ch09.html"));
        assert!(!g.contains_key("book/old/other.html"));
    }

    #[test]
    fn similar_text_under_different_names_stays_apart() {
        let text = long_text("shared");
        let mut files = BTreeMap::new();
        files.insert("a/one.html".to_string(), page("One", &text, &[]));
        files.insert("b/two.html".to_string(), page("Two", &text, &[]));
        assert!(group(&files, &rules(&[])).is_empty());
    }
}
