//! The evidence bundle: one file holding what a reader needs to check a
//! report without sleuth's session folder or the network — the report and
//! its claims, every cited source's stored text with its SHA-256, address
//! and retrieval time, the verification, and the session log verbatim.
//!
//! One JSON document (not an archive): any JSON tool reads it, the texts
//! are text, and no archive crate is needed. It opens with the SHA-256 of
//! the exact bytes of its `content`, so a changed byte anywhere — in a
//! text, a hash, the JSON's spacing — is detected:
//!
//! ```text
//! {"sleuth_bundle":1,"sha256":"<64 hex>","content":{…}}
//! ```

use serde::{Deserialize, Serialize};

use super::cited_sources;
use super::dates::iso_datetime;
use crate::engine::model::{Claim, SourceId, Verification};
use crate::engine::state::SessionState;
use crate::text::sha256_hex;

/// How every bundle begins, up to its digest.
pub const BUNDLE_PREFIX: &str = "{\"sleuth_bundle\":1,\"sha256\":\"";
/// Between the digest and the content.
pub const BUNDLE_CONTENT: &str = "\",\"content\":";
/// After the content.
pub const BUNDLE_END: &str = "}\n";

pub const BUNDLE_FORMAT: &str = "sleuth evidence bundle";
pub const BUNDLE_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    pub format: String,
    pub version: u32,
    pub sleuth_version: String,
    /// UTC, `YYYY-MM-DD HH:MM UTC`.
    pub exported_at: String,
    pub session_id: String,
    pub question: String,
    pub report: BundleReport,
    /// VERIFY's result as recorded in the session.
    pub verification: Option<Verification>,
    pub sources: Vec<BundleSource>,
    pub log: BundleLog,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleReport {
    /// SHA-256 of `markdown`.
    pub sha256: String,
    pub markdown: String,
    /// The claims with their quotes, as VERIFY checked them.
    pub claims: Vec<Claim>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleSource {
    /// The `[n]` the report cites it by.
    pub id: u32,
    pub url: String,
    pub title: String,
    /// When sleuth fetched it (UTC), and as Unix milliseconds.
    pub retrieved_at: String,
    pub retrieved_at_ms: u64,
    /// SHA-256 of `text` (empty when the text was missing at export).
    pub sha256: String,
    /// The stored text VERIFY read; `None` when the session had lost it.
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleLog {
    /// SHA-256 of `jsonl`.
    pub sha256: String,
    pub events: usize,
    /// The session log (`events.jsonl`) as it is on disk, redacted.
    pub jsonl: String,
}

/// What a bundle is made of; `redact` blanks secrets out of every text
/// before it is hashed.
pub struct BundleParts<'a> {
    pub state: &'a SessionState,
    pub session_id: &'a str,
    pub log_jsonl: &'a str,
    pub text_of: &'a dyn Fn(SourceId) -> Option<String>,
    pub redact: &'a dyn Fn(&str) -> String,
    pub now_ms: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error(
        "session {0} has no report yet: a bundle holds a report and its evidence (finish it with `sleuth resume {0}`)"
    )]
    NoReport(String),
    #[error("the bundle could not be written as JSON: {0}")]
    Json(String),
}

/// The bundle of a finished session.
pub fn bundle(p: &BundleParts<'_>) -> Result<Bundle, BundleError> {
    let report = p.state.report.as_ref().ok_or_else(|| BundleError::NoReport(p.session_id.to_string()))?;
    let markdown = (p.redact)(&report.markdown);
    let sources = cited_sources(p.state)
        .into_iter()
        .map(|s| {
            let text = (p.text_of)(s.meta.id).map(|t| (p.redact)(&t));
            BundleSource {
                id: s.meta.id.0,
                url: (p.redact)(&s.meta.locator),
                title: (p.redact)(&s.meta.title),
                retrieved_at: iso_datetime(s.meta.accessed_at_ms),
                retrieved_at_ms: s.meta.accessed_at_ms,
                sha256: text.as_deref().map(|t| sha256_hex(t.as_bytes())).unwrap_or_default(),
                text,
            }
        })
        .collect();
    let jsonl = (p.redact)(p.log_jsonl);
    Ok(Bundle {
        format: BUNDLE_FORMAT.into(),
        version: BUNDLE_VERSION,
        sleuth_version: env!("CARGO_PKG_VERSION").into(),
        exported_at: iso_datetime(p.now_ms),
        session_id: p.session_id.to_string(),
        question: (p.redact)(p.state.question()),
        report: BundleReport { sha256: sha256_hex(markdown.as_bytes()), markdown, claims: report.claims.clone() },
        verification: p.state.verification.clone(),
        sources,
        log: BundleLog { sha256: sha256_hex(jsonl.as_bytes()), events: jsonl.lines().count(), jsonl },
    })
}

/// The bundle's bytes: the prefix, the SHA-256 of the content's exact
/// bytes, the content. `redact` runs over the content once more (the
/// claims and the verification), before the digest is taken.
pub fn bundle_bytes(b: &Bundle, redact: &dyn Fn(&str) -> String) -> Result<Vec<u8>, BundleError> {
    let content = serde_json::to_string(b).map_err(|e| BundleError::Json(e.to_string()))?;
    let content = redact(&content);
    let digest = sha256_hex(content.as_bytes());
    let mut out = String::with_capacity(content.len() + 128);
    out.push_str(BUNDLE_PREFIX);
    out.push_str(&digest);
    out.push_str(BUNDLE_CONTENT);
    out.push_str(&content);
    out.push_str(BUNDLE_END);
    Ok(out.into_bytes())
}
