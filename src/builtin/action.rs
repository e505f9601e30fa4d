//! The question's actions: the verbs that say what the asker wants done to
//! a topic ("how do I **turn** an integer into a String", "can I **write** a
//! function", "without **wrapping** everything in Arc"). An action is asked
//! about, so it stays an aspect (searched, weighed, checked for support);
//! but it is no topic of its own: a report section titled "## Turn" says
//! nothing. Its sentences join the section of the topic it acts on, whose
//! heading then reads as the question put it ("## Turn an integer").
//!
//! Found by the verb's place, not by listing verbs: the same word is an
//! action in "how do I sort a Vec" and a topic in "is sort stable?".

use super::analysis::{Stemmer, is_stopword};
use super::aspects::{Aspect, trim_word, unpunctuated};
use super::frame::{FrameWord, is_function_word, is_ing};
use super::phrase::in_its_phrase;

/// Who does the action: a verb follows them ("how do I turn", "can we
/// spawn", "should you take"), or follows them after a modal or an adverb
/// ("where I can ask for", "should I still use").
pub(super) const SUBJECTS: &[&str] = &["i", "you", "we", "they"];

/// Words between a subject and its verb: modals and adverbs of focus and time.
pub(super) const BEFORE_VERB: &[&str] = &[
    "can", "could", "should", "must", "will", "would", "may", "might", "still", "only", "just", "also", "ever",
    "never", "always", "really", "actually",
];

/// Words a verb's object (or its particle) starts with: determiners,
/// quantifiers, object pronouns and the particles of phrasal verbs ("turn
/// off", "write out"). After "to", "it", "and" or "or" they tell the verb
/// ("to move a module", "and parse a String") from the noun ("from i32 to
/// u64", "Rc and Arc").
const OBJECT_STARTS: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "your",
    "our",
    "their",
    "its",
    "this",
    "that",
    "these",
    "those",
    "one",
    "some",
    "any",
    "each",
    "every",
    "all",
    "both",
    "it",
    "them",
    "everything",
    "something",
    "only",
    "off",
    "on",
    "out",
    "up",
    "down",
    "over",
    "back",
    "away",
];

/// Adverbial particles of phrasal verbs ("send messages back", "build them
/// together"): where the action goes. Searched with the words before them
/// (they find the page that says "back" or "together"), but a heading ends
/// before them: "## Worker threads", not "## Worker threads back".
pub const PARTICLES: &[&str] = &["back", "together", "apart", "away", "aside", "forth"];

/// Subordinators, and the auxiliaries that open a question: a clause's
/// subject follows them, then its verb ("whose keys come out", "even
/// though the test passes", "must a trait follow").
pub(super) const CLAUSE_OPENERS: &[&str] = &[
    "when", "whenever", "whose", "though", "if", "once", "until", "unless", "because", "while", "so", "which", "what",
    "do", "does", "did", "can", "could", "should", "must", "will", "would", "may", "might",
];

/// Determiners between a clause opener and its subject ("though the test").
pub(super) const DETERMINERS: &[&str] =
    &["a", "an", "the", "my", "our", "your", "their", "its", "this", "that", "these", "those", "every", "each"];

/// After a clause's subject, these are its verb ("when the pool is full"):
/// the subject's last word is then no verb.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "can", "could", "should",
    "must", "will", "would", "may", "might",
];

/// Whether the question's words `first..=last` (a run of content words) are
/// a clause's subject and then its verb: "when users turn on", "does the
/// compiler refuse to", "even though the test passes?". The heading is
/// then the subject; the verb stays a search term.
pub(super) fn ends_on_its_verb(all: &[String], first: usize, last: usize) -> bool {
    let lower = |i: usize| all.get(i).map(|w| trim_word(w).to_lowercase());
    let Some(raw) = all.get(last).filter(|_| last > first) else { return false };
    let verb = trim_word(raw);
    if verb.is_empty() || !verb.chars().all(|c| c.is_ascii_lowercase()) {
        return false;
    }
    let mut before = first.checked_sub(1);
    let determined = before.and_then(lower).is_some_and(|w| DETERMINERS.contains(&w.as_str()));
    if determined {
        before = before.and_then(|b| b.checked_sub(1));
    }
    let opens = match before {
        Some(b) => {
            let w = &all[b];
            let ends = !unpunctuated(w);
            (!ends && CLAUSE_OPENERS.contains(&w.to_lowercase().as_str())) || (determined && ends)
        }
        // "My debug builds run too slowly": a sentence opening on its subject.
        None => determined,
    };
    // The clause ends with the verb, or a function word that is no verb follows it.
    let closes = verb.len() != raw.len()
        || lower(last + 1).is_none_or(|n| is_function_word(&n) && !AUXILIARIES.contains(&n.as_str()));
    opens && closes
}

/// Words after which a verb is joined to another ("to", "and", "or"),
/// follows a subject that is no asker ("does it turn off"), a modal
/// ("every thread can modify the counter") or a relative pronoun ("a macro
/// that accepts any number"), or is let ("let me move an Rc"): a verb when
/// its object follows.
const JOINERS: &[&str] = &[
    "to", "it", "and", "or", "me", "us", "can", "could", "should", "must", "will", "would", "may", "might", "that",
    "which", "who",
];

/// Prepositions that open an adverbial clause with a verb's `-ing` form
/// ("without wrapping everything", "after switching to", "stop me from
/// holding a reference"): how or when the asker acts, not what about. "The
/// cost of cloning" asks about cloning.
const CLAUSE_PREPOSITIONS: &[&str] = &["without", "after", "before", "while", "when", "by", "from"];

/// The clause prepositions of a circumstance ("while keeping my code
/// unoptimized", "after switching to the 2021 edition"): the verb says
/// under what condition the asker acts, not what they want done ("stop me
/// from holding" is what is asked).
const CIRCUMSTANCES: &[&str] = &["without", "after", "before", "while", "when", "by"];

/// Whether the action at `position` of the question's words is a
/// circumstance: among the aspects it is the first to give way when there
/// are too many, so that it does not crowd out the verb of the question
/// ("can I optimize the dependencies while keeping …").
pub(super) fn circumstance(all: &[String], position: usize) -> bool {
    let prev = position.checked_sub(1).and_then(|p| all.get(p));
    prev.is_some_and(|p| unpunctuated(p) && CIRCUMSTANCES.contains(&p.to_lowercase().as_str()))
}

/// Which of `words` are actions (same length as `words`); `framed` marks the
/// question's frame (`frame::frame`), which is never an action.
pub fn actions(words: &[FrameWord], framed: &[bool], stemmer: &mut Stemmer) -> Vec<bool> {
    let n = words.len();
    let mut out = vec![false; n];
    for i in 1..n {
        let w = &words[i];
        let plain = !w.lower.is_empty() && w.lower.chars().all(|c| c.is_ascii_lowercase());
        let prev = &words[i - 1];
        if w.name || framed.get(i).copied().unwrap_or(true) || !plain || prev.ends_clause {
            continue;
        }
        let object_follows =
            !w.ends_clause && words.get(i + 1).is_some_and(|x| !x.name && OBJECT_STARTS.contains(&x.lower.as_str()));
        let p = prev.lower.as_str();
        let ing = is_ing(&w.lower, stemmer);
        let after_subject = SUBJECTS.contains(&p)
            || (i >= 2
                && BEFORE_VERB.contains(&p)
                && !words[i - 2].ends_clause
                && SUBJECTS.contains(&words[i - 2].lower.as_str()));
        out[i] = after_subject
            || (JOINERS.contains(&p) && object_follows)
            || (CLAUSE_PREPOSITIONS.contains(&p) && ing)
            // "The difference between looping over v.iter() and …": the
            // activity the things are compared in, not one of them.
            || (p == "between" && ing && object_follows)
            // After a verb of the frame: "stop running out of memory".
            || (framed[i - 1] && !is_function_word(p) && ing && object_follows)
            || (!is_function_word(&w.lower) && verb_without_object(words, i, &out));
    }
    out
}

/// Negated auxiliaries: the word after one is its verb ("values that don't fit").
const NEGATED: &[&str] =
    &["don't", "doesn't", "didn't", "won't", "can't", "cannot", "couldn't", "shouldn't", "wouldn't", "mustn't"];

/// Modals: after one that follows its subject, a word is the verb ("my
/// function can fail with …").
const MODALS: &[&str] = &["can", "could", "should", "must", "will", "would", "may", "might"];

/// Prepositions a verb with no object goes on with ("pop from the other").
pub(super) const PREPOSITIONS: &[&str] =
    &["from", "to", "into", "onto", "with", "at", "on", "in", "for", "over", "by", "through", "across", "without"];

/// Whether word `i` is a verb by its place though no object follows it:
/// after a negated auxiliary ("don't fit"); after a modal, followed by a
/// preposition or the clause's end ("can fail with"); after "not" at the
/// clause's end ("should compile but not run?"); or joined by "and"/"or"
/// and an adverb to an action earlier in its clause, its object after it
/// ("test that … and also bind it"). `found` holds the actions before `i`.
fn verb_without_object(words: &[FrameWord], i: usize, found: &[bool]) -> bool {
    let lower = |k: usize| words[k].lower.replace('’', "'");
    let w = &words[i];
    if PARTICLES.contains(&w.lower.as_str()) || OBJECT_STARTS.contains(&w.lower.as_str()) {
        return false;
    }
    let p = lower(i - 1);
    let goes_on = w.ends_clause
        || i + 1 == words.len()
        || words.get(i + 1).is_some_and(|x| PREPOSITIONS.contains(&x.lower.as_str()));
    if NEGATED.contains(&p.as_str()) {
        return true;
    }
    if MODALS.contains(&p.as_str()) {
        // "Can I …" opens a question: the modal's subject follows it.
        return i >= 2 && !words[i - 2].ends_clause && goes_on;
    }
    if p == "not" {
        return w.ends_clause || i + 1 == words.len();
    }
    let joined = ["and", "or"].contains(&p.as_str())
        || (i >= 2 && BEFORE_VERB.contains(&p.as_str()) && ["and", "or"].contains(&lower(i - 2).as_str()));
    let object = words.get(i + 1).is_some_and(|x| !x.name && OBJECT_STARTS.contains(&x.lower.as_str()));
    // An action earlier in the same clause.
    let clause_action = (0..i).rev().take_while(|&k| !words[k].ends_clause).any(|k| found[k]);
    // Without an object, a word after "and" is as likely a noun ("another
    // type or method from …").
    joined && object && clause_action
}

/// At most this many words stand between an action and the topic it acts
/// on ("turn an integer", "link to another type"); further away, the verb
/// acts on something the question does not name, and keeps its section.
const ACTION_REACH: usize = 3;

/// Gives each topic an action acts on its heading, the question's words
/// from the first such action through the topic. An action with no topic
/// in reach (the question's own word for it weighed too little to be an
/// aspect: "turn an integer") keeps its section, headed by the verb with
/// its object as the question writes it.
pub(super) fn head_actions(all: &[String], out: &mut [Aspect]) {
    // The topics headed by an action already: the first action heads them.
    let mut headed = vec![false; out.len()];
    for i in 0..out.len() {
        if !out[i].action {
            continue;
        }
        let host = acted_on(out, i);
        let from = out[i].position;
        let host = host.filter(|&h| {
            let to = out[h].position;
            to > from && to - from <= ACTION_REACH + 1 && all[from..to].iter().all(|w| unpunctuated(w))
        });
        let Some(h) = host else {
            out[i].action = false;
            out[i].heading = verb_phrase(all, from).or_else(|| negated(all, from)).or_else(|| in_its_phrase(all, from));
            continue;
        };
        if !headed[h] {
            headed[h] = true;
            let lead: Vec<&str> = all[from..out[h].position].iter().map(String::as_str).collect();
            let topic = out[h].heading.as_ref().unwrap_or(&out[h].label);
            out[h].heading = Some(format!("{} {topic}", lead.join(" ")));
        }
    }
}

/// The verb at `from` with its object as the question writes it ("turn an
/// integer", "print a float"): the determiners and particles after the
/// verb, then its content words up to the next function word or the end
/// of the clause. `None` when no content word follows.
fn verb_phrase(all: &[String], from: usize) -> Option<String> {
    let verb = trim_word(&all[from]);
    if verb.len() != all[from].len() {
        return None;
    }
    let mut words = vec![verb.to_string()];
    let mut content = false;
    for raw in all.iter().skip(from + 1).take(ACTION_REACH + 1) {
        let word = trim_word(raw);
        let lower = word.to_lowercase();
        let function = is_function_word(&lower) || is_stopword(&lower);
        if word.is_empty() || (function && content) {
            break;
        }
        content |= !function;
        words.push(word.to_string());
        if word.len() != raw.len() {
            break;
        }
    }
    content.then(|| words.join(" "))
}

/// The verb at `from` with the negation before it ("don't fit", "not
/// run"): a negated verb with no object says what it is about only so.
fn negated(all: &[String], from: usize) -> Option<String> {
    let before = all.get(from.checked_sub(1)?)?;
    let lower = before.to_lowercase().replace('’', "'");
    (unpunctuated(before) && (lower == "not" || NEGATED.contains(&lower.as_str())))
        .then(|| format!("{before} {}", trim_word(&all[from])))
}

/// The topic the action `ai` acts on: the next asked aspect that is no
/// action ("read and write a file": both act on "file").
pub fn acted_on(aspects: &[Aspect], ai: usize) -> Option<usize> {
    aspects[ai].action.then_some(())?;
    aspects[ai + 1..].iter().position(|a| !a.action && !a.related).map(|k| ai + 1 + k)
}

#[cfg(test)]
mod tests {
    use super::super::aspects::aspects;
    use super::super::frame::{frame, frame_words};
    use super::super::rarity::Weights;
    use super::*;

    /// The words of `q` that are actions, as written.
    fn acting(q: &str) -> Vec<String> {
        let mut st = Stemmer::default();
        let raw: Vec<&str> = q.split_whitespace().collect();
        let words = frame_words(q);
        let framed = frame(&words, &mut st);
        let marks = actions(&words, &framed, &mut st);
        raw.iter().zip(marks).filter(|(_, m)| *m).map(|(r, _)| r.to_string()).collect()
    }

    #[test]
    fn a_verb_after_its_subject_or_before_its_object_is_an_action() {
        assert_eq!(acting("How do I turn an integer into a String and parse a String back?"), ["turn", "parse"]);
        assert_eq!(acting("Does it turn off the borrow checker?"), ["turn"]);
        assert_eq!(acting("Is there a macro that accepts any number of arguments?"), ["accepts"]);
        assert_eq!(acting("A map where I can ask for all entries; should I still sort it?"), ["ask", "sort"]);
        assert_eq!(acting("Can I spawn threads without wrapping everything in Arc?"), ["spawn", "wrapping"]);
        assert_eq!(acting("What is the best way to move a module into its own file?"), ["move"]);
        assert_eq!(acting("Why won't the compiler let me move an Rc into a thread?"), ["move"]);
        assert_eq!(
            acting("After switching to the new edition, every thread can modify the counter?"),
            ["switching", "modify"]
        );
        assert_eq!(acting("Why do my builds stop running out of memory?"), ["running"]);
        assert_eq!(acting("What's the difference between looping over v.iter() and v.into_iter()?"), ["looping"]);
    }

    #[test]
    fn a_verb_with_no_object_is_known_by_its_place() {
        assert_eq!(acting("How can I detect values that don't fit?"), ["detect", "fit?"]);
        assert_eq!(acting("My function can fail with an io::Error; what now?"), ["fail"]);
        assert_eq!(acting("How do I mark an example that should compile but not run?"), ["mark", "run?"]);
        // Joined to an action: a verb when its object follows.
        assert_eq!(acting("I push at one end and pop from the other"), ["push"]);
        assert_eq!(acting("How do I link to another type or method from my docs?"), ["link"]);
        assert_eq!(
            acting("How do I test that a number falls in a range and also bind it to a name?"),
            ["test", "bind"]
        );
        // A noun joined to a noun, a modal opening a question, "not" before a noun.
        assert!(acting("Which is faster, a channel or a mutex and condvar in threads?").is_empty());
        assert_eq!(acting("Can Rust sort in place?"), Vec::<String>::new());
        assert!(!acting("How do I keep a function public but not part of my API?").iter().any(|w| w == "part"));
    }

    #[test]
    fn a_run_that_ends_on_its_subjects_verb_is_headed_by_the_subject() {
        let ends = |q: &str, first: usize, last: usize| {
            let all: Vec<String> = q.split_whitespace().map(String::from).collect();
            ends_on_its_verb(&all, first, last)
        };
        assert!(ends("Why does the compiler refuse to build it?", 3, 4));
        assert!(ends("How do I see the output even though the test passes?", 9, 10));
        assert!(ends("A map whose keys come out sorted", 3, 4));
        // A subject followed by its verb: the run is the subject alone.
        assert!(!ends("What happens when the thread pool is full?", 4, 5));
        assert!(!ends("Why does the borrow checker stop me?", 3, 4));
        assert!(ends("Where do the worker threads go?", 3, 5));
        assert!(ends("My debug builds run too slowly; what can I do?", 1, 3));
        // No clause opens before it: a noun phrase.
        assert!(!ends("How do I sort the worker threads by id?", 5, 6));
    }

    #[test]
    fn a_circumstance_gives_way_first_when_there_are_too_many_aspects() {
        let w = Weights::new(None, 0.0, &[]);
        // The circumstance weighs the most (its word is the rarest), the rest the same.
        let q = "While transforming the data, can I sort the list?";
        let labels = |max| -> Vec<String> {
            aspects(q, &mut Stemmer::default(), &w, max).into_iter().map(|a| a.label).collect()
        };
        assert_eq!(labels(4), ["transforming", "data", "sort", "list"]);
        // One must go: the circumstance, not the verb of the question or a topic.
        assert_eq!(labels(3), ["data", "sort", "list"]);
    }

    #[test]
    fn the_same_word_as_a_noun_is_no_action() {
        // A noun after "to", "and" or a preposition, with no object after it.
        assert_eq!(acting("How do I convert from i32 to bytes and back?"), ["convert"]);
        assert!(acting("Is sort stable, and what does the cost of cloning a Vec depend on?").is_empty());
        assert!(acting("Which is faster, a channel or a mutex and condvar?").is_empty());
        assert!(acting("What is the difference between borrowing and moving?").is_empty());
        // A name is never an action.
        assert!(acting("Can I Write to a buffer?").is_empty());
    }

    #[test]
    fn an_action_heads_the_topic_it_acts_on() {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        let mut asked = |q: &str| -> Vec<(String, bool, Option<String>)> {
            aspects(q, &mut st, &w, 6).into_iter().map(|a| (a.label, a.action, a.heading)).collect()
        };
        let turn = asked("How do I turn an integer into a String?");
        assert_eq!(turn[0], ("turn".into(), true, None), "{turn:?}");
        assert_eq!(turn[1], ("integer".into(), false, Some("turn an integer".into())), "{turn:?}");
        // Two actions on one topic: the heading starts at the first.
        let file = asked("Can I read and write a file?");
        assert_eq!(file.last(), Some(&("file".into(), false, Some("read and write a file".into()))), "{file:?}");
        // The object weighs too little to be an aspect: the verb keeps its
        // section, headed by the verb and its object.
        let q = "How do I print a float with exactly two digits after the decimal point?";
        let three = aspects(q, &mut Stemmer::default(), &w, 3);
        assert_eq!(
            three.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(),
            ["print", "two digits", "decimal point"]
        );
        assert!(!three[0].action && three[0].heading.as_deref() == Some("print a float"), "{three:?}");
        // A heading ends before a particle; the aspect is searched with it.
        let back = asked("How do I send messages from worker threads back to the main thread?");
        let threads = back.iter().find(|a| a.0 == "worker threads back").unwrap_or_else(|| panic!("{back:?}"));
        assert_eq!(threads.2.as_deref(), Some("worker threads"), "{back:?}");
        // The activity things are compared in acts on the first of them,
        // and the comparison is of the things.
        let looping = asked("What's the difference between looping over v.iter() and v.into_iter()?");
        assert_eq!(looping[0].0, "v.iter() vs v.into_iter()", "{looping:?}");
        assert_eq!(looping[1], ("looping".into(), true, None), "{looping:?}");
        assert_eq!(looping[2].2.as_deref(), Some("looping over v.iter()"), "{looping:?}");
        // A negated verb with no object is headed with its negation.
        let fit = asked("How can I detect values that don't fit?");
        assert!(fit.iter().any(|a| a.2.as_deref() == Some("don't fit")), "{fit:?}");
        // A verb that ends the question keeps its section as it is.
        let save = asked("Should the crate compile again every time I save?");
        assert!(save.iter().all(|a| !a.1), "{save:?}");
    }
}
