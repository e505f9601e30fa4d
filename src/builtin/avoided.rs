//! What the asker wants to do without: "borrow local variables from my
//! function without wrapping everything in Arc", "count words without a
//! separate lookup and insert". The clause names what the answer replaces,
//! not what it is about: searched, it leads to the pages of the thing the
//! asker is trying to leave (`Arc`, `HashMap::get`).

use super::aspects::{ends_clause, trim_word};

/// Which of the question's words (`aspects::question_words`) stand in a
/// clause opened by "without": from the word after it to the clause's end
/// (a comma, a semicolon, a colon or the sentence's end). Same length as
/// `all`.
pub(super) fn avoided(all: &[String]) -> Vec<bool> {
    let mut out = vec![false; all.len()];
    let mut inside = false;
    for (i, raw) in all.iter().enumerate() {
        out[i] = inside;
        let ends = ends_clause(raw);
        if inside && ends {
            inside = false;
        } else if trim_word(raw).eq_ignore_ascii_case("without") && !ends {
            inside = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::aspects::question_words;

    fn marked(q: &str) -> Vec<String> {
        let all = question_words(q);
        let a = avoided(&all);
        all.iter().zip(a).filter(|(_, x)| *x).map(|(w, _)| trim_word(w).to_string()).collect()
    }

    #[test]
    fn the_clause_after_without_to_its_end_is_avoided() {
        assert_eq!(
            marked("Can I spawn threads that borrow locals without wrapping everything in Arc?"),
            vec!["wrapping", "everything", "in", "Arc"]
        );
        assert_eq!(marked("Without a lookup, how do I count words?"), vec!["a", "lookup"]);
        assert!(marked("How do I count words with a single lookup?").is_empty());
    }
}
