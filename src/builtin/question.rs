//! What kind of answer a question asks for, from its opening words: a way
//! to do something (how), a reason (why), a yes or no with its condition,
//! a choice between named things, or what something is. English function
//! words only: the kind says which sentences read as an answer (a "why"
//! is answered by "because …", a "can I" by "… cannot …"), never which
//! topic.

/// The kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// "How do I …", "what do I have to write", "is there a way to …".
    How,
    /// "Why …", "what could cause …".
    Why,
    /// "Can I …", "does …", "is it OK to …", "should I …".
    YesNo,
    /// "What is …", "which …": a thing or a choice.
    What,
}

/// Words opening a clause that asks for a reason.
const WHY: &[&str] = &["why", "cause", "causes", "reason"];
/// Auxiliaries that open a yes/no question.
const YES_NO: &[&str] =
    &["can", "could", "does", "do", "is", "are", "should", "must", "will", "would", "did", "has", "have", "may"];

/// The kinds of answer a question asks for, in the order its clauses ask
/// them ("Why …, and how do I …?" asks for a reason, then a way).
pub fn kinds(question: &str) -> Vec<Kind> {
    let mut out = Vec::new();
    for clause in question.split(['?', '.', ';', ',']).map(str::trim).filter(|c| !c.is_empty()) {
        let words: Vec<String> = clause
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase().replace('’', "'"))
            .filter(|w| !w.is_empty())
            .collect();
        let first = words.iter().map(String::as_str).find(|w| !["and", "but", "so", "or", "then", "also"].contains(w));
        let Some(first) = first else { continue };
        let kind = if WHY.contains(&first) || words.iter().take(4).any(|w| WHY.contains(&w.as_str())) {
            Some(Kind::Why)
        } else if first == "how"
            || words
                .windows(2)
                .any(|p| p[0] == "how" && ["do", "can", "to", "should", "would"].contains(&p[1].as_str()))
        {
            Some(Kind::How)
        } else if YES_NO.contains(&first) {
            // "Is there a shorter way to …" asks for the way.
            if words.iter().any(|w| w == "way") { Some(Kind::How) } else { Some(Kind::YesNo) }
        } else if ["what", "what's", "which", "who", "where", "when"].contains(&first) {
            // "What do I have to write", "what should I do instead", "what's
            // the easiest way to" ask for a way.
            let asks_way = words.windows(2).any(|p| p[0] == "have" && p[1] == "to")
                || words.iter().any(|w| w == "way" || w == "ways")
                || (["what", "what's"].contains(&first)
                    && words.windows(3).any(|p| {
                        ["do", "should", "can", "could", "must"].contains(&p[0].as_str())
                            && ["i", "we", "you"].contains(&p[1].as_str())
                            && p[2] == "do"
                    }));
            Some(if asks_way { Kind::How } else { Kind::What })
        } else {
            None
        };
        if let Some(k) = kind
            && !out.contains(&k)
        {
            out.push(k);
        }
    }
    if out.is_empty() {
        out.push(Kind::What);
    }
    out
}

/// Words by which a sentence gives a reason.
const REASON_CUES: &[&str] =
    &["because", "since", "therefore", "thus", "means", "reason", "so", "otherwise", "due", "hence", "result"];
/// Words by which a sentence says what may or may not be done.
const CONDITION_CUES: &[&str] = &[
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "only",
    "must",
    "always",
    "unless",
    "guaranteed",
    "guarantee",
    "allowed",
    "safe",
    "unsafe",
    "undefined",
    "instead",
    "however",
];
/// Words by which a sentence tells a way.
const WAY_CUES: &[&str] = &[
    "use", "using", "call", "calling", "can", "run", "set", "add", "write", "create", "pass", "instead", "via", "with",
    "by",
];

/// Whether a sentence reads as the kind of answer `kind` asks for.
pub fn answers_kind(sentence: &str, kind: Kind) -> bool {
    let cues = match kind {
        Kind::Why => REASON_CUES,
        Kind::YesNo => CONDITION_CUES,
        Kind::How => WAY_CUES,
        Kind::What => return sentence.contains(" is ") || sentence.contains(" are "),
    };
    sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| !w.is_empty() && cues.iter().any(|c| c.eq_ignore_ascii_case(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kinds_follow_the_clauses() {
        assert_eq!(kinds("How do I listen on a TCP port?"), vec![Kind::How]);
        assert_eq!(kinds("Why can't I derive Display, and what do I have to write?"), vec![Kind::Why, Kind::How]);
        assert_eq!(kinds("Can I delete it, and what happens to projects?"), vec![Kind::YesNo, Kind::What]);
        assert_eq!(kinds("Is there a shorter way to bind the value?"), vec![Kind::How]);
        assert_eq!(kinds("What could cause that?"), vec![Kind::Why]);
        assert_eq!(kinds("Why can't I index it, and what should I do instead?"), vec![Kind::Why, Kind::How]);
        assert_eq!(kinds("What's the easiest way to count words?"), vec![Kind::How]);
        assert_eq!(kinds("What’s the way in?"), vec![Kind::How]);
        assert_eq!(kinds("What does this lint do?"), vec![Kind::What]);
        assert_eq!(kinds("Rust advertises fearless concurrency."), vec![Kind::What]);
    }

    #[test]
    fn a_sentence_answers_the_kind_its_words_give() {
        assert!(answers_kind("Data races are prevented because of the type system.", Kind::Why));
        assert!(answers_kind("Rust does not prevent general race conditions.", Kind::YesNo));
        assert!(!answers_kind("Rust prevents data races.", Kind::YesNo));
    }
}
