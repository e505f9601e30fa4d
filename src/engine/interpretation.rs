//! What an answer to an ASK rules out. The user picked one meaning of the
//! question; the words that only the other options used are that other
//! meaning, and everything after the answer keeps away from them: later
//! queries, the sources drafted from, and the drafts the report may use.

use std::collections::HashSet;

use serde::Serialize;

use super::model::{Clarification, Draft, PlannedQuery};
use super::protocol::Answer;
use crate::text::{content_terms, word_tokens};

/// The interpretation an answered ASK fixed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Interpretation {
    /// The iteration whose ASK it answered: drafts up to it were written
    /// before the answer.
    pub answered_in: u32,
    /// The meaning chosen, in the user's words (or the option's label).
    pub chosen: String,
    /// Words only the rejected options used.
    pub excluded: Vec<String>,
    /// Words of the chosen meaning that the question itself does not use.
    pub distinctive: Vec<String>,
}

impl Interpretation {
    /// From an answered ASK: the chosen option's words (and the question's)
    /// are kept; every other option's remaining words are excluded. A free
    /// text answer rejects the options that share none of its words, when
    /// it shares words with some: one that names no option ("the Roman
    /// god", a stray "7") is a constraint of its own and rules nothing out,
    /// or it would leave no source standing.
    pub fn from_answer(question: &str, iteration: u32, c: &Clarification, answer: &Answer) -> Self {
        let chosen_terms: HashSet<String> = content_terms(answer.as_text()).into_iter().collect();
        let keep: HashSet<String> = chosen_terms.iter().cloned().chain(content_terms(question)).collect();
        let shares = |option: &String| content_terms(option).iter().any(|t| chosen_terms.contains(t));
        let names_an_option = c.options.iter().any(shares);
        let rejected = c.options.iter().enumerate().filter(|(i, option)| match answer {
            Answer::Choice { index, .. } => i != index,
            Answer::Text { .. } => names_an_option && !shares(option),
        });
        let mut excluded: Vec<String> = Vec::new();
        for (_, option) in rejected {
            for t in content_terms(option) {
                if !keep.contains(&t) && !excluded.contains(&t) {
                    excluded.push(t);
                }
            }
        }
        let question_terms: HashSet<String> = content_terms(question).into_iter().collect();
        let distinctive = content_terms(answer.as_text())
            .into_iter()
            .filter(|t| !question_terms.contains(t) && !excluded.contains(t))
            .collect();
        Self { answered_in: iteration, chosen: answer.as_text().to_string(), excluded, distinctive }
    }

    /// Whether a source keeps to the chosen meaning: it uses the rejected
    /// meaning's words no more often than the chosen one's.
    pub fn keeps_source(&self, text: &str) -> bool {
        let telling: Vec<&String> = self.excluded.iter().collect();
        keeps(&word_tokens(text), &telling, &self.distinctive)
    }

    /// Which of `texts` (the sources found) keep to the chosen meaning.
    /// Only the rejected meaning's words that at most half of the texts use
    /// tell the meanings apart: a word most sources use ("value", "type",
    /// "using" in a set of programming pages) is the subject's, not the
    /// other meaning's, and judging by it would rule out every source,
    /// those of the meaning chosen included.
    pub fn keeps_sources(&self, texts: &[&str]) -> Vec<bool> {
        let words: Vec<Vec<String>> = texts.iter().map(|t| word_tokens(t)).collect();
        let used_by = |w: &String| words.iter().filter(|ws| ws.contains(w)).count();
        let telling: Vec<&String> = self.excluded.iter().filter(|w| used_by(w) * 2 <= words.len()).collect();
        words.iter().map(|ws| keeps(ws, &telling, &self.distinctive)).collect()
    }

    /// Whether a text uses a word of a rejected meaning.
    pub fn mentions_excluded(&self, text: &str) -> bool {
        !self.excluded.is_empty() && word_tokens(text).iter().any(|w| self.excluded.contains(w))
    }

    /// A draft written before the answer may still be used when none of
    /// its claims uses a rejected meaning's words.
    pub fn admits_draft(&self, iteration: u32, draft: &Draft) -> bool {
        iteration > self.answered_in || !draft.claims.iter().any(|c| self.mentions_excluded(&c.text))
    }

    /// Drops the rejected meaning's words from queries and lists them as
    /// exclusions, so a search cannot bring that meaning back.
    pub fn constrain(&self, queries: &mut Vec<PlannedQuery>) {
        if self.excluded.is_empty() {
            return;
        }
        for q in queries.iter_mut() {
            let kept: Vec<&str> = q
                .text
                .split_whitespace()
                .filter(|w| !word_tokens(w).iter().any(|t| self.excluded.contains(t)))
                .collect();
            q.text = kept.join(" ");
            for t in &self.excluded {
                if !q.exclude.contains(t) {
                    q.exclude.push(t.clone());
                }
            }
        }
        queries.retain(|q| !q.text.trim().is_empty());
    }
}

/// A text's words use the `telling` rejected words no more often than the
/// chosen meaning's own.
fn keeps(words: &[String], telling: &[&String], distinctive: &[String]) -> bool {
    let (mut rejected, mut chosen) = (0usize, 0usize);
    for w in words {
        if telling.contains(&w) {
            rejected += 1;
        } else if distinctive.contains(w) {
            chosen += 1;
        }
    }
    rejected == 0 || chosen >= rejected
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Citation, Claim, SourceId};

    fn clarification() -> Clarification {
        Clarification {
            question: "Which Atlas do you mean?".into(),
            options: vec!["Atlas, the staff cafeteria lunch menu".into(), "Atlas, the deploy pipeline".into()],
        }
    }

    fn draft(texts: &[&str]) -> Draft {
        Draft {
            markdown: texts.join("\n"),
            claims: texts
                .iter()
                .map(|t| Claim {
                    text: t.to_string(),
                    citations: vec![Citation { source: SourceId(1), quote: t.to_string() }],
                    aspect: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_choice_excludes_only_the_other_options_own_words() {
        let answer = Answer::Choice { index: 1, label: "Atlas, the deploy pipeline".into() };
        let i = Interpretation::from_answer("What is Atlas?", 2, &clarification(), &answer);
        assert_eq!(i.excluded, vec!["staff", "cafeteria", "lunch", "menu"]);
        assert_eq!(i.chosen, "Atlas, the deploy pipeline");
        assert!(i.mentions_excluded("The Cafeteria opens at noon."));
        assert!(!i.mentions_excluded("Atlas deploys every commit."));
        assert_eq!(i.distinctive, vec!["deploy", "pipeline"]);
        assert!(!i.keeps_source("Atlas, the cafeteria, has a lunch menu. The deploy queue is elsewhere."));
        assert!(i.keeps_source("The Atlas pipeline can deploy; the cafeteria staff use it."));
        assert!(i.keeps_source("Unrelated text."));
    }

    #[test]
    fn a_free_answer_rejects_the_options_it_shares_no_word_with() {
        let answer = Answer::Text { text: "the pipeline".into() };
        let i = Interpretation::from_answer("What is Atlas?", 1, &clarification(), &answer);
        assert!(i.excluded.contains(&"cafeteria".to_string()), "{:?}", i.excluded);
        assert!(!i.excluded.contains(&"deploy".to_string()), "{:?}", i.excluded);
    }

    #[test]
    fn a_free_answer_naming_no_option_rules_nothing_out() {
        for text in ["7", "the Greek myth"] {
            let answer = Answer::Text { text: text.into() };
            let i = Interpretation::from_answer("What is Atlas?", 1, &clarification(), &answer);
            assert!(i.excluded.is_empty(), "{text}: {:?}", i.excluded);
            assert!(i.keeps_source("Atlas, the deploy pipeline, ships the cafeteria menu app."));
        }
    }

    #[test]
    fn words_most_sources_use_do_not_rule_the_chosen_meaning_out() {
        // The rejected reading is worded with the subject's everyday words.
        let c = Clarification {
            question: "Which kind of error handling do you mean?".into(),
            options: vec!["recoverable errors with Result".into(), "using a value or function that may panic".into()],
        };
        let answer = Answer::Choice { index: 0, label: "recoverable errors with Result".into() };
        let i = Interpretation::from_answer("How do I handle errors?", 2, &c, &answer);
        assert!(
            i.excluded.contains(&"value".to_string()) && i.excluded.contains(&"panic".to_string()),
            "{:?}",
            i.excluded
        );
        let texts = [
            "Most errors are recoverable: a function returns a Result value, using match on the value and the function's Err.",
            "The ? operator returns the Err value early from a function, using From to convert the value.",
            "A function can return a value of type Result; using unwrap on that value calls panic! on Err.",
            "Unrecoverable errors: panic! unwinds the stack; a panic in a function aborts the thread. Call panic when a value is invalid.",
        ];
        // Judged word by word, every source about Result is ruled out.
        assert!(texts[..2].iter().all(|t| !i.keeps_source(t)), "the old rule empties the set");
        let kept = i.keeps_sources(&texts);
        assert_eq!(kept, vec![true, true, true, false], "only `panic` tells the readings apart");
    }

    #[test]
    fn drafts_before_the_answer_count_only_when_they_keep_to_it() {
        let answer = Answer::Choice { index: 1, label: "Atlas, the deploy pipeline".into() };
        let i = Interpretation::from_answer("What is Atlas?", 2, &clarification(), &answer);
        let mixed = draft(&["Atlas serves lunch in the cafeteria.", "Atlas deploys builds."]);
        let clean = draft(&["Atlas deploys builds."]);
        assert!(!i.admits_draft(1, &mixed));
        assert!(i.admits_draft(2, &clean));
        assert!(i.admits_draft(3, &mixed), "after the answer the draft is judged by the critic, not here");
    }

    #[test]
    fn queries_lose_the_rejected_words_and_exclude_them() {
        let answer = Answer::Choice { index: 1, label: "Atlas, the deploy pipeline".into() };
        let i = Interpretation::from_answer("What is Atlas?", 1, &clarification(), &answer);
        let mut q = vec![PlannedQuery::new("Atlas cafeteria menu hours", "x"), PlannedQuery::new("lunch menu", "y")];
        i.constrain(&mut q);
        assert_eq!(q.len(), 1, "a query of only rejected words is dropped: {q:?}");
        assert_eq!(q[0].text, "Atlas hours");
        assert!(q[0].exclude.contains(&"cafeteria".to_string()));
    }
}
