//! Checking citations outside a session: `sleuth verify` on any Markdown
//! report (its sources fetched again, or taken from a folder, a session or
//! an evidence bundle), `sleuth recheck` of a session's sources now, and
//! `sleuth diff` of two sessions. The decision itself is the engine's
//! checker (`engine::check`), the one VERIFY runs.

pub mod bundle;
pub mod diff;
pub mod recheck;
pub mod report;
pub mod sources;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::engine::check::{SourceDoc, SourceState, check_all};
use crate::engine::model::{CheckOutcome, CheckRule, Claim, StatementCheck};
use report::{CiteStyle, ParsedReport};
use sources::SourceText;

/// The rules, as the output states them.
pub const QUOTE_RULE: &str = "quote: a quote given for the sentence (a claim's quote, or words it puts in quotation \
     marks) is in a cited source's text (case, spacing and typographic quotes aside) and holds at least half of the \
     sentence's content words and every number it states; a quote given that is not in the source makes the \
     sentence unsupported";
pub const PASSAGE_RULE: &str = "passage: no quote decided it, so the best window of up to 3 consecutive sentences of a \
     cited source must hold at least half of the sentence's content words, every number it states, and a negation \
     when it negates";

/// `sleuth verify`'s result: each cited sentence, each source, and how
/// the sentences were decided.
#[derive(Debug, Clone, Serialize)]
pub struct Verified {
    /// What was checked: a file, a session, a bundle.
    pub report: String,
    pub cites: &'static str,
    /// Whether a sentence without a quote counted as "no quote given".
    pub quotes_required: bool,
    pub rules: Vec<&'static str>,
    pub statements: Vec<StatementCheck>,
    pub sources: Vec<SourceText>,
    pub summary: Summary,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub statements: usize,
    pub supported: usize,
    pub supported_by_quote: usize,
    pub supported_by_passage: usize,
    pub unsupported: usize,
    pub unreachable: usize,
    pub no_quote: usize,
}

impl Summary {
    pub fn of(statements: &[StatementCheck]) -> Self {
        let count = |o: CheckOutcome| statements.iter().filter(|s| s.outcome == o).count();
        let by = |r: CheckRule| statements.iter().filter(|s| s.supported() && s.rule == r).count();
        Self {
            statements: statements.len(),
            supported: count(CheckOutcome::Supported),
            supported_by_quote: by(CheckRule::Quote),
            supported_by_passage: by(CheckRule::Passage),
            unsupported: count(CheckOutcome::Unsupported),
            unreachable: count(CheckOutcome::Unreachable),
            no_quote: count(CheckOutcome::NoQuote),
        }
    }

    /// Every sentence is backed by its sources.
    pub fn all_supported(&self) -> bool {
        self.statements > 0 && self.supported == self.statements
    }

    /// Some sentence is not backed (unsupported, or no quote where quotes
    /// were required): the report does not stand as it is.
    pub fn any_failed(&self) -> bool {
        self.unsupported + self.no_quote > 0
    }
}

/// Checks a parsed report against the source texts at hand; `claims` are
/// the structured claims with quotes, when the report is a session's.
pub fn check_report(
    parsed: &ParsedReport,
    texts: &BTreeMap<u32, SourceText>,
    claims: &[Claim],
    require_quote: bool,
) -> Vec<StatementCheck> {
    let docs: BTreeMap<u32, SourceDoc> =
        texts.iter().filter_map(|(n, t)| t.text.as_ref().ok().map(|text| (*n, SourceDoc::new(text)))).collect();
    let source = |n: u32| match (docs.get(&n), texts.get(&n)) {
        (Some(d), _) => SourceState::Read(d),
        (None, Some(t)) => SourceState::Unreachable(t.error.as_deref().unwrap_or("no text")),
        (None, None) => SourceState::Unknown,
    };
    check_all(&parsed.statements, claims, &source, require_quote)
}

/// The numbers the report's sentences cite that it lists (the ones to fetch).
pub fn wanted(parsed: &ParsedReport) -> BTreeSet<u32> {
    parsed.statements.iter().flat_map(|s| s.cites.iter().copied()).filter(|n| parsed.source(*n).is_some()).collect()
}

/// Assembles the result.
pub fn verified(
    report: String,
    style: CiteStyle,
    require_quote: bool,
    statements: Vec<StatementCheck>,
    texts: BTreeMap<u32, SourceText>,
) -> Verified {
    let summary = Summary::of(&statements);
    Verified {
        report,
        cites: style.label(),
        quotes_required: require_quote,
        rules: vec![QUOTE_RULE, PASSAGE_RULE],
        statements,
        sources: texts.into_values().collect(),
        summary,
    }
}
