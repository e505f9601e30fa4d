//! Text helpers shared by every layer: making untrusted text safe to draw,
//! normalising it for quote matching, cheap similarity measures, and
//! canonical locators (one source id for one page).

pub mod canonical;
mod digest;
mod normalize;
pub mod pages;
mod sanitize;
mod similarity;

pub use digest::sha256_hex;
pub use normalize::{contains_normalized, normalize_for_match};
pub use sanitize::{sanitize, sanitize_inline};
pub use similarity::{
    STOPWORDS, content_terms, fingerprint, jaccard, shingle_similarity, sorted_jaccard, text_hash, word_tokens,
};

/// `n` and the noun in the number it takes: "1 query", "3 queries".
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

#[cfg(test)]
mod counted_tests {
    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(super::counted(1, "query", "queries"), "1 query");
        assert_eq!(super::counted(0, "query", "queries"), "0 queries");
        assert_eq!(super::counted(3, "hit", "hits"), "3 hits");
    }
}
