//! Normalisation used to check that a quoted span really occurs in a source:
//! case, whitespace runs and typographic quote/dash variants do not matter.

/// Lowercases, maps typographic variants to ASCII and collapses every run of
/// whitespace to one space; the result has no leading or trailing space.
pub fn normalize_for_match(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut pending_space = false;
    for c in input.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{2033}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{a0}' | '\u{2009}' | '\u{202f}' => ' ',
            c => c,
        };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        for lower in c.to_lowercase() {
            out.push(lower);
        }
    }
    out
}

/// Whether `needle` occurs in `haystack` once both are normalised.
/// An empty needle never counts as found: an empty quote supports nothing.
pub fn contains_normalized(haystack: &str, needle: &str) -> bool {
    let needle = normalize_for_match(needle);
    if needle.is_empty() {
        return false;
    }
    normalize_for_match(haystack).contains(&needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_case_do_not_matter() {
        assert!(contains_normalized("The  `?` operator\n   calls From::from", "the `?` OPERATOR calls from::from"));
    }

    #[test]
    fn typographic_quotes_match_ascii() {
        assert!(contains_normalized("it\u{2019}s \u{201c}fine\u{201d}", "it's \"fine\""));
    }

    #[test]
    fn fabricated_quote_is_not_found() {
        assert!(!contains_normalized("Arc is atomically reference counted", "Arc is garbage collected"));
    }

    #[test]
    fn empty_quote_supports_nothing() {
        assert!(!contains_normalized("anything", "   "));
    }
}
