//! Source tiers and modes (docs/sources.md#source-tiers-and-modes): a table maps domains, with subdomain
//! matching, to a tier (1 official … 5 social) and a type; the mode decides
//! what REVIEW may keep.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::Scholarly;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceMode {
    /// Drop tiers above 2 and unknown domains.
    Strict,
    /// Keep all; tiers 3–5 are marked.
    #[default]
    Discovery,
    /// Keep all; the critique compares tier 1 with tier 5.
    Monitor,
}

impl SourceMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceMode::Strict => "strict",
            SourceMode::Discovery => "discovery",
            SourceMode::Monitor => "monitor",
        }
    }
}

/// The start of every `no_valid_sources` reason strict mode gives (the
/// event says whether strict mode was the cause; nothing reads this back).
pub const STRICT_REASON_PREFIX: &str = "strict mode";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierEntry {
    pub tier: u8,
    #[serde(rename = "type", default)]
    pub source_type: Option<String>,
}

/// `domain → tier` with subdomain matching: `docs.rust-lang.org` matches
/// an entry for `rust-lang.org`; the longest matching entry wins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TierTable {
    entries: BTreeMap<String, TierEntry>,
}

impl TierTable {
    pub fn new(entries: BTreeMap<String, TierEntry>) -> Self {
        let entries =
            entries.into_iter().map(|(k, v)| (k.trim().trim_start_matches("www.").to_lowercase(), v)).collect();
        Self { entries }
    }

    pub fn lookup(&self, host: &str) -> Option<&TierEntry> {
        let mut host = host.trim().trim_start_matches("www.").to_lowercase();
        loop {
            if let Some(e) = self.entries.get(&host) {
                return Some(e);
            }
            match host.find('.') {
                Some(i) => host = host[i + 1..].to_string(),
                None => return None,
            }
        }
    }
}

/// The tier of a scholarly work no `[source_tiers]` entry covers: a
/// published work is tier 2 (peer reviewed), a preprint tier 3, marked
/// `[Tier 3 | preprint]` wherever the source is listed.
pub fn scholarly_tier(s: &Scholarly) -> TierEntry {
    if s.preprint {
        TierEntry { tier: 3, source_type: Some(PREPRINT.into()) }
    } else {
        TierEntry { tier: 2, source_type: Some("peer-reviewed".into()) }
    }
}

/// The type name of a preprint, and its mark in a source list.
pub const PREPRINT: &str = "preprint";

/// REVIEW's reason for a work its index says was retracted.
pub const RETRACTED: &str = "retracted";

/// `[preprint]` for a preprint whose tier mark does not already say so
/// (the `[source_tiers]` table may rank its server like any site).
pub fn preprint_mark(s: Option<&Scholarly>, tier_mark: Option<&str>) -> Option<&'static str> {
    let preprint = s.is_some_and(|s| s.preprint);
    (preprint && !tier_mark.is_some_and(|m| m.contains(PREPRINT))).then_some("[preprint]")
}

/// Whether a source of this tier survives the mode's filter.
pub fn admits(mode: SourceMode, tier: Option<u8>) -> bool {
    match mode {
        SourceMode::Strict => tier.is_some_and(|t| t <= 2),
        SourceMode::Discovery | SourceMode::Monitor => true,
    }
}

/// Seed 002's `[Tier X | type]` mark for a source of tier 3 to 5, which
/// discovery and monitor modes keep but a reader should weigh with care.
pub fn tier_mark(tier: Option<u8>, source_type: Option<&str>) -> Option<String> {
    let t = tier.filter(|t| (3..=5).contains(t))?;
    Some(match source_type.map(str::trim).filter(|s| !s.is_empty()) {
        Some(ty) => format!("[Tier {t} | {ty}]"),
        None => format!("[Tier {t}]"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TierTable {
        let mut m = BTreeMap::new();
        m.insert("rust-lang.org".into(), TierEntry { tier: 1, source_type: Some("official".into()) });
        m.insert("users.rust-lang.org".into(), TierEntry { tier: 4, source_type: Some("forum".into()) });
        m.insert("reddit.com".into(), TierEntry { tier: 5, source_type: None });
        TierTable::new(m)
    }

    #[test]
    fn subdomains_match_and_longest_wins() {
        let t = table();
        assert_eq!(t.lookup("doc.rust-lang.org").map(|e| e.tier), Some(1));
        assert_eq!(t.lookup("users.rust-lang.org").map(|e| e.tier), Some(4));
        assert_eq!(t.lookup("www.reddit.com").map(|e| e.tier), Some(5));
        assert_eq!(t.lookup("notrust-lang.org"), None);
        assert_eq!(t.lookup("example.com"), None);
    }

    #[test]
    fn only_tiers_three_to_five_are_marked() {
        assert_eq!(tier_mark(Some(5), Some("social")).as_deref(), Some("[Tier 5 | social]"));
        assert_eq!(tier_mark(Some(3), None).as_deref(), Some("[Tier 3]"));
        assert_eq!(tier_mark(Some(2), Some("news")), None);
        assert_eq!(tier_mark(None, None), None);
    }

    #[test]
    fn scholarly_works_are_tiered_by_review_status_and_preprints_marked_once() {
        let published = Scholarly { venue: Some("Nature".into()), ..Scholarly::default() };
        let preprint = Scholarly { preprint: true, ..Scholarly::default() };
        assert_eq!(scholarly_tier(&published).tier, 2);
        let entry = scholarly_tier(&preprint);
        assert_eq!(entry.tier, 3);
        let mark = tier_mark(Some(entry.tier), entry.source_type.as_deref());
        assert_eq!(mark.as_deref(), Some("[Tier 3 | preprint]"));
        assert_eq!(preprint_mark(Some(&preprint), mark.as_deref()), None, "said once");
        assert_eq!(preprint_mark(Some(&preprint), Some("[Tier 2 | archive]")), Some("[preprint]"));
        assert_eq!(preprint_mark(Some(&published), None), None);
        assert_eq!(preprint_mark(None, None), None);
    }

    #[test]
    fn strict_admits_tiers_one_and_two_only() {
        assert!(admits(SourceMode::Strict, Some(2)));
        assert!(!admits(SourceMode::Strict, Some(3)));
        assert!(!admits(SourceMode::Strict, None));
        assert!(admits(SourceMode::Discovery, None));
    }
}
