use serde::{Deserialize, Serialize};

use super::SourceId;

/// `sleuth recheck`: the report's cited sources fetched again, and whether
/// each cited sentence still stands. Recorded in the session's log (after
/// its end) so every view of the session shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recheck {
    /// When the sources were fetched again (Unix milliseconds).
    pub at_ms: u64,
    pub sources: Vec<RecheckedSource>,
    pub claims: Vec<RecheckedClaim>,
}

impl Recheck {
    pub fn standing(&self) -> usize {
        self.claims.iter().filter(|c| c.status == ClaimStatus::Stands).count()
    }

    /// Claims that no longer stand (or never did).
    pub fn fallen(&self) -> usize {
        self.claims.iter().filter(|c| c.status.fallen()).count()
    }

    /// One line for a reader: "3 of 4 claims still stand; 1 quote gone".
    pub fn headline(&self) -> String {
        let count = |s: ClaimStatus| self.claims.iter().filter(|c| c.status == s).count();
        let mut parts = Vec::new();
        for (s, label) in [
            (ClaimStatus::QuoteGone, "quote gone"),
            (ClaimStatus::PageGone, "page gone"),
            (ClaimStatus::Unsupported, "unsupported as written"),
            (ClaimStatus::Unreachable, "source unreachable now"),
        ] {
            let n = count(s);
            if n > 0 {
                parts.push(format!("{n} {label}"));
            }
        }
        let changed = self.sources.iter().filter(|s| s.status == PageStatus::Changed).count();
        if changed > 0 {
            parts.push(format!("{} changed", crate::text::counted(changed, "page", "pages")));
        }
        let head = format!("{} of {} claims still stand", self.standing(), self.claims.len());
        if parts.is_empty() { head } else { format!("{head}; {}", parts.join(", ")) }
    }
}

/// What became of a cited page since the session fetched it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageStatus {
    /// The text read now is the stored text, byte for byte.
    Unchanged,
    Changed,
    /// 404, 410, or the file is no longer there.
    Gone,
    /// Could not be fetched now (timeout, 5xx, network): nothing is known.
    Unreachable,
}

impl PageStatus {
    pub fn label(self) -> &'static str {
        match self {
            PageStatus::Unchanged => "unchanged",
            PageStatus::Changed => "changed",
            PageStatus::Gone => "gone",
            PageStatus::Unreachable => "unreachable",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecheckedSource {
    pub id: SourceId,
    pub locator: String,
    pub status: PageStatus,
    /// SHA-256 of the text read now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Why it could not be read.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

/// Whether a cited sentence of the report still stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimStatus {
    /// Its sources still back it (its quote is still there).
    Stands,
    /// It was backed, and the changed page no longer backs it.
    QuoteGone,
    /// Every source it cites is gone.
    PageGone,
    /// Not backed when the report was written either.
    Unsupported,
    /// Its sources could not be fetched now.
    Unreachable,
}

impl ClaimStatus {
    pub fn label(self) -> &'static str {
        match self {
            ClaimStatus::Stands => "stands",
            ClaimStatus::QuoteGone => "quote gone",
            ClaimStatus::PageGone => "page gone",
            ClaimStatus::Unsupported => "unsupported",
            ClaimStatus::Unreachable => "unreachable",
        }
    }

    /// The claim does not stand now.
    pub fn fallen(self) -> bool {
        matches!(self, ClaimStatus::QuoteGone | ClaimStatus::PageGone | ClaimStatus::Unsupported)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecheckedClaim {
    pub text: String,
    pub cites: Vec<u32>,
    pub status: ClaimStatus,
    /// Whether a page it cites changed (a claim can stand on a changed page).
    #[serde(default)]
    pub page_changed: bool,
    pub why: String,
}
