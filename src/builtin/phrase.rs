//! The heading of a one-word aspect that is a verb by its place: the word
//! alone ("## Pop", "## Save", "## Mark") reads as filler, though the
//! question asks about it. Headed by its phrase as the question writes it,
//! it says what it is about: "pop from the other", "mark an example",
//! "every time I save", "it's only compiled". A noun (after a determiner
//! or a preposition: "my function", "of an array") keeps its label.

use super::action::{BEFORE_VERB, CLAUSE_OPENERS, DETERMINERS, PREPOSITIONS, SUBJECTS};
use super::aspects::{trim_word, unpunctuated};

/// At most this many words follow the word in its phrase.
const FORWARD: usize = 4;

/// At most this many words before the subject join a clause-final verb's
/// phrase ("every time I save").
const BEFORE_SUBJECT: usize = 2;

/// Words that start another phrase: a clause or a coordinated part.
const PHRASE_ENDS: &[&str] = &[
    "that", "which", "who", "whose", "so", "when", "whenever", "if", "but", "because", "while", "instead", "and", "or",
    "than", "where", "is", "are", "was", "were",
];

/// The heading of the one-word aspect at `at` of the question's words
/// `all`, or `None` when the word is no verb by its place or has no phrase.
pub(super) fn in_its_phrase(all: &[String], at: usize) -> Option<String> {
    let word = trim_word(all.get(at)?);
    if word.is_empty() || !word.chars().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let lower = |k: usize| trim_word(&all[k]).to_lowercase().replace('’', "'");
    // A noun by its place: "my function", "the length of", "in a match".
    let prev = at.checked_sub(1).filter(|&p| unpunctuated(&all[p])).map(lower);
    if prev.as_deref().is_some_and(|p| DETERMINERS.contains(&p) || PREPOSITIONS.contains(&p) || p == "of") {
        return None;
    }
    forward(all, at, &lower).or_else(|| backward(all, at, &lower))
}

/// The word and what follows it when a preposition or a determiner does
/// ("pop from the other", "mark an example"), up to another phrase or the
/// clause's end, without a trailing preposition or determiner.
fn forward(all: &[String], at: usize, lower: &dyn Fn(usize) -> String) -> Option<String> {
    let opens = |w: &str| PREPOSITIONS.contains(&w) || DETERMINERS.contains(&w) || w == "of";
    if !(unpunctuated(&all[at]) && at + 1 < all.len() && opens(&lower(at + 1))) {
        return None;
    }
    let mut end = at;
    for (k, raw) in all.iter().enumerate().skip(at + 1).take(FORWARD) {
        if PHRASE_ENDS.contains(&lower(k).as_str()) {
            break;
        }
        end = k;
        if !unpunctuated(raw) {
            break;
        }
    }
    while end > at && opens(&lower(end)) {
        end -= 1;
    }
    (end > at + 1).then(|| joined(all, at, end))
}

/// A verb right after its subject (and the adverb or auxiliary between),
/// at its clause's end or before another phrase: the subject with the
/// words before it in the clause ("every time I save", "it's only compiled").
fn backward(all: &[String], at: usize, lower: &dyn Fn(usize) -> String) -> Option<String> {
    let ends = !unpunctuated(&all[at]) || at + 1 == all.len() || PHRASE_ENDS.contains(&lower(at + 1).as_str());
    if !ends {
        return None;
    }
    let subject = |w: &str| SUBJECTS.contains(&w) || w == "it" || w.starts_with("it'");
    let mut k = at.checked_sub(1)?;
    if BEFORE_VERB.contains(&lower(k).as_str()) && !subject(&lower(k)) {
        k = k.checked_sub(1)?;
    }
    if !unpunctuated(&all[k]) || !subject(&lower(k)) {
        return None;
    }
    let mut from = k;
    while from > 0 && k - (from - 1) <= BEFORE_SUBJECT {
        let w = lower(from - 1);
        if !unpunctuated(&all[from - 1]) || CLAUSE_OPENERS.contains(&w.as_str()) || PHRASE_ENDS.contains(&w.as_str()) {
            break;
        }
        from -= 1;
    }
    Some(joined(all, from, at))
}

fn joined(all: &[String], from: usize, to: usize) -> String {
    all[from..=to].iter().map(|w| trim_word(w)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::aspects::question_words;
    use super::*;

    fn heading(q: &str, word: &str) -> Option<String> {
        let all = question_words(q);
        let at = all.iter().position(|w| trim_word(w) == word).unwrap_or_else(|| panic!("{word} in {q}"));
        in_its_phrase(&all, at)
    }

    #[test]
    fn a_verb_by_its_place_is_headed_by_its_phrase() {
        let fifo = "I need a FIFO queue where I push at one end and pop from the other; is a Vec okay?";
        assert_eq!(heading(fifo, "pop").as_deref(), Some("pop from the other"));
        let docs = "How do I hide setup boilerplate, and mark an example that should compile but not run?";
        assert_eq!(heading(docs, "mark").as_deref(), Some("mark an example"));
        let save = "How do I make rust-analyzer run clippy instead of cargo check every time I save?";
        assert_eq!(heading(save, "save").as_deref(), Some("every time I save"));
        let compiled = "How do I make a dependency optional so it's only compiled when users turn on a feature?";
        assert_eq!(heading(compiled, "compiled").as_deref(), Some("it's only compiled"));
    }

    #[test]
    fn a_noun_or_a_word_with_no_phrase_keeps_its_label() {
        // After a determiner or a preposition, a word is a noun.
        let noun = "Why can my function fail with both an io::Error and a ParseIntError?";
        assert_eq!(heading(noun, "function"), None);
        assert_eq!(heading("How generic over the length of an array can a struct be?", "length"), None);
        // A capitalised word is a name; a word with only a preposition after it has no phrase.
        assert_eq!(heading("Should I pick Axum for a new API?", "Axum"), None);
        assert_eq!(heading("Which case runs when several cases are ready at once?", "runs"), None);
        assert_eq!(heading("What do I read from?", "read"), None);
    }
}
