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

/// `label` (a question's words) as Markdown prose: a word holding a
/// bracket (`my_string[0]`, `v[i]`) written as code, so that no reader and
/// no citation check takes its `[0]` for a citation marker. Words already
/// in a code span stay as they are.
pub fn label_as_prose(label: &str) -> String {
    let mut in_code = false;
    label
        .split(' ')
        .map(|w| {
            // A word in a code span, or opening or closing one, is code already.
            let code = in_code || w.contains('`');
            if w.matches('`').count() % 2 == 1 {
                in_code = !in_code;
            }
            if code || !w.contains(['[', ']']) {
                return w.to_string();
            }
            // Trailing punctuation stays outside the span.
            let end = w.trim_end_matches([',', '.', ';', ':', '?', '!']).len();
            format!("`{}`{}", &w[..end], &w[end..])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod label_tests {
    use super::label_as_prose;

    #[test]
    fn a_word_with_brackets_is_written_as_code_and_other_words_stay() {
        assert_eq!(label_as_prose("write my_string[0]"), "write `my_string[0]`");
        assert_eq!(label_as_prose("index v[i], then"), "index `v[i]`, then");
        assert_eq!(label_as_prose("swap file"), "swap file");
        assert_eq!(label_as_prose("`a[0] = b` here"), "`a[0] = b` here");
        assert_eq!(label_as_prose("`x = v[1]` and w[2]"), "`x = v[1]` and `w[2]`");
        assert!(crate::engine::citations::citation_markers(&label_as_prose("write my_string[0]")).is_empty());
    }
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
