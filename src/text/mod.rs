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
