//! An answer to a clarifying question, and the one reading of what a user
//! typed for it. `sleuth run --ask stdin`, `POST /jobs/{id}/answer`, the
//! MCP `answer` tool and the TUI all call `Clarification::read_answer`, so
//! the same words narrow the research the same way everywhere.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::Clarification;
use crate::text::content_terms;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    Choice { index: usize, label: String },
    Text { text: String },
}

impl Answer {
    /// The answer as the constraint text the next iterations work under.
    pub fn as_text(&self) -> &str {
        match self {
            Answer::Choice { label, .. } => label,
            Answer::Text { text } => text,
        }
    }
}

/// A typed answer that cannot be taken; the message shows the options again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("the answer is empty; {}", choices(.options))]
    Empty { options: Vec<String> },
    #[error("{given} is not an option's number; {}", choices(.options))]
    NoSuchOption { given: String, options: Vec<String> },
}

/// "choose 1–2 (1. the planet, 2. the metal), or type your own answer".
fn choices(options: &[String]) -> String {
    if options.is_empty() {
        return "type your answer".into();
    }
    let listed: Vec<String> = options.iter().enumerate().map(|(i, o)| format!("{}. {o}", i + 1)).collect();
    format!("choose 1–{} ({}), or type your own answer in words", options.len(), listed.join(", "))
}

impl Clarification {
    /// Reads what a user typed: an option's number (from 1) or its text
    /// picks it; words found in exactly one option (and no other) pick that
    /// one; other words are a free answer. A number that is no option's, or
    /// nothing at all, is refused with the options shown again.
    pub fn read_answer(&self, typed: &str) -> Result<Answer, AnswerError> {
        let text = typed.trim();
        let options = || self.options.clone();
        if text.is_empty() {
            return Err(AnswerError::Empty { options: options() });
        }
        let pick = |index: usize| Answer::Choice { index, label: self.options[index].clone() };
        if text.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ')') && text.chars().any(|c| c.is_ascii_digit())
        {
            let digits = text.trim_end_matches(['.', ')']);
            return match digits.parse::<usize>() {
                Ok(n) if (1..=self.options.len()).contains(&n) => Ok(pick(n - 1)),
                _ => Err(AnswerError::NoSuchOption { given: text.to_string(), options: options() }),
            };
        }
        let plain = |s: &str| s.trim().trim_end_matches(['.', '!', '?']).to_lowercase();
        if let Some(i) = self.options.iter().position(|o| plain(o) == plain(text)) {
            return Ok(pick(i));
        }
        let words: HashSet<String> = content_terms(text).into_iter().collect();
        if !words.is_empty() {
            let holding: Vec<usize> = (0..self.options.len())
                .filter(|&i| {
                    let option: HashSet<String> = content_terms(&self.options[i]).into_iter().collect();
                    words.iter().all(|w| option.contains(w))
                })
                .collect();
            if let [only] = holding[..] {
                return Ok(pick(only));
            }
        }
        Ok(Answer::Text { text: text.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mercury() -> Clarification {
        Clarification {
            question: "Which mercury do you mean?".into(),
            options: vec!["Mercury, the planet".into(), "Mercury, the liquid metal".into()],
        }
    }

    #[test]
    fn a_number_or_an_options_text_picks_it() {
        let c = mercury();
        let metal = Answer::Choice { index: 1, label: "Mercury, the liquid metal".into() };
        assert_eq!(c.read_answer("2"), Ok(metal.clone()));
        assert_eq!(c.read_answer(" 2. "), Ok(metal.clone()));
        assert_eq!(c.read_answer("mercury, the LIQUID metal."), Ok(metal.clone()));
        assert_eq!(c.read_answer("the metal"), Ok(metal), "words only one option has");
    }

    #[test]
    fn a_number_that_is_no_option_or_nothing_is_refused_with_the_options() {
        let c = mercury();
        let e = c.read_answer("7").expect_err("no option 7");
        assert!(e.to_string().contains("1. Mercury, the planet, 2. Mercury, the liquid metal"), "{e}");
        assert!(matches!(c.read_answer("0"), Err(AnswerError::NoSuchOption { .. })));
        assert!(matches!(c.read_answer("  "), Err(AnswerError::Empty { .. })));
    }

    #[test]
    fn other_words_are_a_free_answer() {
        let c = mercury();
        assert_eq!(c.read_answer("the Roman god"), Ok(Answer::Text { text: "the Roman god".into() }));
        assert_eq!(c.read_answer("mercury"), Ok(Answer::Text { text: "mercury".into() }), "in both options");
    }
}
