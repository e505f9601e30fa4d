//! The question's frame: the words that say *how* it asks, as opposed to
//! what it asks about. "When am I allowed to water during a drought?" asks
//! about watering in a drought; "am I allowed to" is its frame, as "how
//! long" in "How long does the program last?" names the kind of answer
//! wanted (a duration), not a topic. A frame word never becomes an aspect:
//! no section, no search of its own, no caveat that the sources miss it.
//!
//! The frame is found by word class and by the word's place in the
//! question, not by listing words that once leaked:
//! - **function words** (closed classes: auxiliaries, pronouns,
//!   prepositions, conjunctions, question words, with the question filler of
//!   `analysis`), in any inflection (`doing` is `do`) and contracted
//!   (`what's`, `I'm`, `doesn't`);
//! - **the degree after "how"** (`how long`, `how often`, `how big`): the
//!   kind of answer, never its topic; and in such a question the verbs of
//!   measure that restate it (`how long does it last`, `how much does it
//!   cost`);
//! - **verbs of the frame**: catenative, aspectual and copular verbs
//!   (`allow`, `try`, `keep`, `get`, `become` …) where they take another verb
//!   (`allowed to water`, `keep getting`) or stand in a progressive copula
//!   (`is getting huge`, whose lone complement `huge` goes with it), and any
//!   plain verb whose object is the asker (`gives me`, `lets us`);
//! - **words of judgement** (`okay`, `better`, `idiomatic`, `possible` …):
//!   the question asks for a verdict, the kind of answer wanted; and the
//!   abbreviations that open an aside (`e.g.`, `i.e.`, `etc.`).

use super::analysis::{Stemmer, is_identifier, is_stopword};

/// Verbs that frame another verb or a state: catenative (`try to`, `want
/// to`, `allowed to`), aspectual (`keep`, `start`, `stop` + `-ing`) and
/// copular (`get`, `become`, `seem`, `stay` + a state). In those uses they
/// carry no topic; followed by an object (`stop a thread`) they are topics.
const FRAME_VERBS: &[&str] = &[
    "allow", "permit", "get", "keep", "become", "seem", "stay", "remain", "try", "want", "need", "like", "let", "help",
    "start", "stop", "begin", "continue", "manage", "suppose", "mean", "plan", "expect", "prefer", "tend", "grow",
];

/// The closed word classes of English beyond the shared stopwords and
/// question filler (`analysis::is_stopword`): prepositions, conjunctions,
/// determiners, pronouns, auxiliaries and modals. A closed class can be
/// listed whole; every word of it is frame, never a topic.
const CLOSED_CLASSES: &[&str] = &[
    // prepositions
    "above",
    "across",
    "after",
    "against",
    "along",
    "amid",
    "among",
    "around",
    "before",
    "behind",
    "below",
    "beneath",
    "beside",
    "besides",
    "beyond",
    "despite",
    "down",
    "during",
    "except",
    "inside",
    "near",
    "off",
    "onto",
    "out",
    "outside",
    "over",
    "past",
    "per",
    "since",
    "through",
    "throughout",
    "till",
    "toward",
    "towards",
    "under",
    "underneath",
    "unlike",
    "until",
    "up",
    "upon",
    "via",
    "within",
    "without",
    // conjunctions and subordinators
    "although",
    "because",
    "either",
    "nor",
    "though",
    "unless",
    "whereas",
    "whether",
    "yet",
    "whenever",
    "wherever",
    "however",
    // determiners and quantifiers
    "both",
    "few",
    "fewer",
    "less",
    "more",
    "most",
    "neither",
    "such",
    "whose",
    "whom",
    "whatever",
    "whichever",
    "whoever",
    "enough",
    "every",
    "either",
    // pronouns
    "he",
    "him",
    "his",
    "she",
    "her",
    "hers",
    "herself",
    "himself",
    "itself",
    "mine",
    "myself",
    "ours",
    "ourselves",
    "theirs",
    "themselves",
    "us",
    "yours",
    "yourself",
    "yourselves",
    "anyone",
    "anybody",
    "everyone",
    "everybody",
    "everything",
    "nobody",
    "nothing",
    "someone",
    "somebody",
    "oneself",
    // adverbs of degree, focus, frequency and time (closed, unlike the
    // adverbs made from adjectives)
    "only",
    "ever",
    "even",
    "too",
    "very",
    "quite",
    "rather",
    "almost",
    "already",
    "again",
    "always",
    "never",
    "often",
    "sometimes",
    "usually",
    "seldom",
    "afterwards",
    "anyway",
    "perhaps",
    "maybe",
    "later",
    "now",
    "soon",
    "once",
    "twice",
    "else",
    "otherwise",
    "therefore",
    "thus",
    "hence",
    "somewhere",
    "anywhere",
    "everywhere",
    "nowhere",
    "ago",
    // auxiliaries and modals
    "being",
    "having",
    "doing",
    "may",
    "might",
    "must",
    "shall",
    "ought",
    "cannot",
    "here",
];

/// Words of judgement: the question asks for a verdict on a way or a
/// choice ("is a Vec okay", "the idiomatic way", "something better"), the
/// kind of answer wanted, as "how long" asks for a duration. A page that
/// uses them ("it's idiomatic to specify the full path") judges something
/// else. Properties that can be measured or checked (`fast`, `efficient`,
/// `safe`) are topics, not verdicts, as are the adjectives that usually
/// describe a thing rather than judge a way (`bad arguments`, `wrong type`,
/// `good error messages`).
const JUDGEMENTS: &[&str] = &[
    "better",
    "best",
    "fine",
    "okay",
    "ok",
    "proper",
    "properly",
    "correct",
    "correctly",
    "idiomatic",
    "idiomatically",
    "recommended",
    "preferred",
    "preferable",
    "advisable",
    "appropriate",
    "acceptable",
    "reasonable",
    "sensible",
    "ideal",
    "nice",
    "nicer",
    "easy",
    "easier",
    "easiest",
    "simplest",
    "possible",
];

/// The abbreviations that open an example or an aside (`e.g.`, `i.e.`,
/// `etc.`), as the question writes them without their last full stop.
const ASIDES: &[&str] = &["e.g", "i.e", "etc"];

/// Verbs of measure: their complement is a quantity ("lasts eight weeks",
/// "costs forty euros", "takes two days"). In a question about a degree
/// ("how long does it last") they restate what is asked, not its topic.
const MEASURE_VERBS: &[&str] = &["last", "take", "cost", "weigh", "measure", "span"];

/// Forms of "be", before a progressive copula (`is getting`).
const BE: &[&str] = &["am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re", "'s"];

/// Clitics of a contraction (`what's`, `I'm`, `we've`, `I'd`, `you'll`).
const CLITICS: &[&str] = &["s", "m", "re", "ve", "d", "ll"];

/// One word of the question as the frame sees it.
#[derive(Debug, Clone)]
pub struct FrameWord {
    /// Lowercase, without surrounding punctuation or backticks.
    pub lower: String,
    /// Written with a capital (or inside code): a name, never frame.
    pub name: bool,
    /// Punctuation after it ends a clause.
    pub ends_clause: bool,
}

/// Which of `words` belong to the frame (same length as `words`).
pub fn frame(words: &[FrameWord], stemmer: &mut Stemmer) -> Vec<bool> {
    let verbs: Vec<String> = FRAME_VERBS.iter().filter_map(|v| stemmer.stem(v)).collect();
    let measures: Vec<String> = MEASURE_VERBS.iter().filter_map(|v| stemmer.stem(v)).collect();
    // "how long", "how much": a question about a degree.
    let degree = words.windows(2).any(|p| {
        let next = p[1].lower.as_str();
        p[0].lower == "how"
            && !p[0].ends_clause
            && !p[1].name
            && (!is_stopword(next) || ["much", "many"].contains(&next))
    });
    let stem = |w: &str, stemmer: &mut Stemmer| stemmer.stem(w).unwrap_or_else(|| w.to_string());
    let n = words.len();
    let mut out = vec![false; n];
    // A frame verb in a frame use, for its complement after it.
    let mut frame_verb = vec![false; n];
    for i in 0..n {
        let w = &words[i];
        if w.name || w.lower.is_empty() {
            continue;
        }
        let lemma = stem(&w.lower, stemmer);
        let next = words.get(i + 1).filter(|_| !w.ends_clause);
        let prev = i.checked_sub(1).map(|p| &words[p]).filter(|p| !p.ends_clause);
        if verbs.contains(&lemma) {
            let takes_verb = next.is_some_and(|x| x.lower == "to" || (!x.name && is_ing(&x.lower, stemmer)));
            let progressive = prev.is_some_and(|p| BE.contains(&p.lower.as_str()) || p.lower.ends_with("'s"))
                && (is_ing(&w.lower, stemmer) || w.lower.ends_with("ed"));
            if takes_verb || progressive {
                out[i] = true;
                frame_verb[i] = progressive;
                continue;
            }
        }
        if function_word(&w.lower, &lemma)
            || JUDGEMENTS.contains(&w.lower.as_str())
            || ASIDES.contains(&w.lower.as_str())
            || (degree && measures.contains(&lemma))
        {
            out[i] = true;
            continue;
        }
        // "how long", "how often", "how big": the answer's kind.
        if prev.is_some_and(|p| p.lower == "how") {
            out[i] = true;
            continue;
        }
        // "gives me", "lets us": how the asker relates to the topic.
        if next.is_some_and(|x| x.lower == "me" || x.lower == "us") {
            out[i] = true;
            continue;
        }
        // "is getting huge;": the state a progressive copula ends on.
        if i > 0 && frame_verb[i - 1] && w.ends_clause {
            out[i] = true;
        }
    }
    out
}

/// Whether a word (lowercase) is a function word, whatever its place: a
/// closed class, the question filler, a contraction of them. Labels made
/// of a text's words leave these out.
pub fn is_function_word(lower: &str) -> bool {
    function_word(lower, lower)
}

/// A function word: one of the closed classes (or the question filler),
/// in this form, as its stem (`doing`, `getting`), or contracted.
fn function_word(lower: &str, lemma: &str) -> bool {
    if is_stopword(lower)
        || is_stopword(lemma)
        || CLOSED_CLASSES.contains(&lower)
        || lower.ends_with("n't")
        || lower.ends_with("n’t")
    {
        return true;
    }
    let lower = lower.replace('’', "'");
    match lower.split_once('\'') {
        Some((base, clitic)) => CLITICS.contains(&clitic) && !base.is_empty() && is_stopword(base),
        None => false,
    }
}

/// A verb's `-ing` form (`getting`, `using`), not a word that merely ends
/// so (`string`, `thing`): the stemmer takes the ending off.
pub(super) fn is_ing(lower: &str, stemmer: &mut Stemmer) -> bool {
    lower.len() > 4
        && lower.ends_with("ing")
        && lower.chars().all(|c| c.is_ascii_lowercase())
        && stemmer.stem(lower).is_some_and(|s| !s.ends_with("ing"))
}

/// Whether a word as written is a name rather than a frame candidate:
/// capitalised after the sentence's first word, or code.
pub fn is_name(bare: &str, position: usize, code: bool) -> bool {
    // "I" is written capitalised, contracted too ("I'm", "I've").
    let asker = bare.starts_with("I'") || bare.starts_with("I’");
    code || (!asker && is_identifier(bare, position))
}

/// `q`'s words as the frame sees them (split at white space, no code
/// spans), for the tests of the frame and of the actions.
#[cfg(test)]
pub(super) fn frame_words(q: &str) -> Vec<FrameWord> {
    q.split_whitespace()
        .enumerate()
        .map(|(i, r)| {
            let bare = r.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
            FrameWord {
                lower: bare.to_lowercase(),
                name: is_name(bare, i, false),
                ends_clause: r.ends_with([',', ';', ':', '.', '?', '!']),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(q: &str) -> Vec<String> {
        let mut st = Stemmer::default();
        let raw: Vec<&str> = q.split_whitespace().collect();
        let marks = frame(&frame_words(q), &mut st);
        raw.iter().zip(marks).filter(|(_, m)| *m).map(|(r, _)| r.to_string()).collect()
    }

    /// `q`'s frame holds every word of `frame` and none of `topics` (as
    /// written, punctuation and all).
    fn assert_frame(q: &str, frame: &[&str], topics: &[&str]) {
        let f = framed(q);
        assert!(frame.iter().all(|w| f.iter().any(|x| x == w)), "{q}: {f:?}");
        assert!(!topics.iter().any(|w| f.iter().any(|x| x == w)), "{q}: {f:?}");
    }

    #[test]
    fn the_frame_is_found_by_class_and_place() {
        assert_frame("When am I allowed to water during a drought?", &["allowed", "during"], &["water", "drought?"]);
        assert_frame("How long does the buddy program last?", &["long", "last?"], &["buddy", "program"]);
        // Not a question about a degree: "last" is a topic.
        assert_frame("What is the last step of a build?", &[], &["last"]);
        assert_frame(
            "What's the difference, and I'm trying to read a file.",
            &["What's", "I'm", "trying"],
            &["read", "file."],
        );
        assert_frame(
            "My main.rs is getting huge; how do I move a module?",
            &["getting", "huge;"],
            &["move", "module?"],
        );
        assert_frame(
            "Which collection gives me the smallest item without doing a lookup?",
            &["gives", "doing"],
            &["collection", "smallest"],
        );
    }

    #[test]
    fn a_word_of_judgement_asks_for_a_verdict_and_is_no_topic() {
        assert_frame(
            "Is a Vec okay for a queue, or is there something better?",
            &["okay", "better?"],
            &["Vec", "queue,"],
        );
        assert_frame(
            "What's the idiomatic way to count words in a file (e.g. a log)?",
            &["idiomatic", "(e.g."],
            &["count", "log)?"],
        );
        // A property that can be checked is what is asked about.
        assert_frame("What's the efficient way to read a file, and is it safe?", &[], &["efficient", "safe?"]);
    }

    #[test]
    fn a_frame_verb_with_an_object_or_a_name_is_a_topic() {
        // "stop" with an object, "keep getting" + a noun, a capitalised `Get`.
        let f = framed("How do I stop a thread, and why do I keep getting errors?");
        assert!(!f.contains(&"stop".into()) && !f.contains(&"errors?".into()), "{f:?}");
        assert!(f.contains(&"keep".into()), "{f:?}");
        assert!(framed("Is Rust's Get trait like Index?").iter().all(|w| w != "Get"));
        // Not a question word's degree: "How" opening a title-like phrase with a name.
        assert!(!framed("How Rust handles errors").contains(&"Rust".into()));
    }
}
