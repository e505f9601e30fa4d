use serde::{Deserialize, Serialize};

/// What the checker decided for one cited sentence of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    /// A quote or passage of a cited source says what the sentence says.
    Supported,
    /// The cited sources were read and do not say it (or a quote given is
    /// not in them, or the sentence cites a number no source has).
    Unsupported,
    /// No cited source could be read (fetch failed, file missing).
    Unreachable,
    /// Quotes were required and the sentence came with none.
    NoQuote,
}

impl CheckOutcome {
    pub fn label(self) -> &'static str {
        match self {
            CheckOutcome::Supported => "supported",
            CheckOutcome::Unsupported => "unsupported",
            CheckOutcome::Unreachable => "source unreachable",
            CheckOutcome::NoQuote => "no quote given",
        }
    }
}

/// Which rule decided (see `engine::check`): the output says it, so a
/// reader knows how strong each "supported" is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckRule {
    /// A quote given with the citation is in the source's text (normalised)
    /// and carries at least half of the sentence's content words.
    Quote,
    /// No quote decided it: the best window of up to three consecutive
    /// sentences of a cited source carries at least half of the sentence's
    /// content words and every number it states.
    Passage,
    /// Nothing could be compared (the source was not read, or no quote).
    None,
}

impl CheckRule {
    pub fn label(self) -> &'static str {
        match self {
            CheckRule::Quote => "quote",
            CheckRule::Passage => "passage",
            CheckRule::None => "-",
        }
    }
}

/// One cited sentence of a report and what its sources say about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatementCheck {
    /// The sentence as a reader sees it, citation markers removed.
    pub text: String,
    /// The source numbers it cites, in order.
    pub cites: Vec<u32>,
    pub outcome: CheckOutcome,
    pub rule: CheckRule,
    /// The source whose text decided: the supporting one, or the closest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<u32>,
    /// The quote found, or the best passage (shortened), or empty.
    #[serde(default)]
    pub evidence: String,
    /// Content words of the sentence found in the evidence, of `terms`.
    #[serde(default)]
    pub matched: usize,
    #[serde(default)]
    pub terms: usize,
    /// Why, in words ("the quote is not in [2]", "3 of 8 content words").
    pub why: String,
}

impl StatementCheck {
    pub fn supported(&self) -> bool {
        self.outcome == CheckOutcome::Supported
    }
}
