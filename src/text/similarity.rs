//! Cheap lexical similarity: word tokens, content terms, Jaccard over term
//! sets and over word shingles (for near-duplicate pages and draft change).

use std::collections::HashSet;

/// English function words that carry no topic. Kept short on purpose: a
/// longer list starts eating technical terms ("use", "type", "match").
pub const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "been",
    "but",
    "by",
    "can",
    "could",
    "do",
    "does",
    "did",
    "for",
    "from",
    "had",
    "has",
    "have",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "should",
    "so",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "between",
    "difference",
    "need",
    "happens",
    "work",
    "works",
    "get",
    "also",
    "other",
    "one",
    "some",
    "any",
    "all",
    "not",
    "no",
];

/// Lowercased alphanumeric words (keeping `_` so identifiers stay whole).
pub fn word_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Word tokens minus stopwords and one-character words, order kept,
/// duplicates removed.
pub fn content_terms(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    word_tokens(text)
        .into_iter()
        .filter(|w| w.chars().count() > 1 && !STOPWORDS.contains(&w.as_str()))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Jaccard similarity of two term sets; 0 when both are empty.
pub fn jaccard<T: Eq + std::hash::Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    inter as f64 / union as f64
}

/// Hashes of overlapping 4-word shingles, sorted and without repeats: a
/// text fingerprint whose Jaccard similarity tells near-identical texts
/// apart from merely related ones. Words are hashed as they are read
/// (lowercased, no allocation per word): this runs on every fetched page.
pub fn fingerprint(text: &str) -> Vec<u64> {
    const WIDTH: usize = 4;
    let mut window = [0u64; WIDTH];
    let mut seen = 0usize;
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()) {
        let mut h = FNV_OFFSET;
        for c in word.chars().flat_map(char::to_lowercase) {
            let mut buf = [0u8; 4];
            h = fnv1a_continue(h, c.encode_utf8(&mut buf).as_bytes());
        }
        window[seen % WIDTH] = h;
        seen += 1;
        if seen >= WIDTH {
            // Combine in reading order, oldest first.
            let mut s = FNV_OFFSET;
            for k in 0..WIDTH {
                s = fnv1a_continue(s, &window[(seen + k) % WIDTH].to_le_bytes());
            }
            out.push(s);
        }
    }
    if seen < WIDTH {
        out.extend_from_slice(&window[..seen]);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Jaccard similarity of two sorted, repeat-free lists.
pub fn sorted_jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Shingle Jaccard of two texts in `[0, 1]`.
pub fn shingle_similarity(a: &str, b: &str) -> f64 {
    sorted_jaccard(&fingerprint(a), &fingerprint(b))
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_continue(FNV_OFFSET, bytes)
}

fn fnv1a_continue(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// A stable 64-bit hash of a text, printed as hex in source metadata.
pub fn text_hash(text: &str) -> String {
    format!("{:016x}", fnv1a(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_terms_drop_stopwords_and_duplicates() {
        assert_eq!(content_terms("What is the difference between Rc and Arc, and Arc?"), vec!["rc", "arc"]);
    }

    #[test]
    fn identical_texts_are_fully_similar_and_unrelated_are_not() {
        let a = "The question mark operator returns early with the error converted by From";
        assert!((shingle_similarity(a, a) - 1.0).abs() < 1e-9);
        assert!(shingle_similarity(a, "Arc is an atomically reference counted pointer for threads") < 0.1);
    }

    #[test]
    fn near_duplicates_score_high() {
        let a = "Shared ownership across threads requires an atomically reference counted pointer, which is what Arc provides for values of any type";
        let b = "Shared ownership across threads requires an atomically reference counted pointer, which is what Arc provides for values of any type T";
        assert!(shingle_similarity(a, b) > 0.85);
    }

    #[test]
    fn fingerprint_ignores_case_and_punctuation_but_not_order() {
        assert_eq!(fingerprint("One two, THREE four five"), fingerprint("one two three four five"));
        assert_ne!(fingerprint("one two three four five"), fingerprint("five four three two one"));
        assert_eq!(fingerprint("two words").len(), 2);
        assert!(fingerprint("").is_empty());
    }

    #[test]
    fn text_hash_is_stable() {
        assert_eq!(text_hash("abc"), text_hash("abc"));
        assert_ne!(text_hash("abc"), text_hash("abd"));
    }
}
