//! `sleuth verify BUNDLE`: an evidence bundle checked offline. First its
//! integrity — the SHA-256 of the content's exact bytes, then of the
//! report, the log and every source text, so a changed byte is found and
//! named — then its report re-checked against the texts it carries, by the
//! checker VERIFY ran, and compared with the verification it recorded.
//!
//! The digests detect change, not a forger who recomputes them all: to
//! prove a bundle is the one exported, compare its first line's digest
//! with the one the sender printed (or sign the file).

use std::collections::BTreeMap;

use serde::Serialize;

use super::report::parse_report;
use super::sources::SourceText;
use super::{Verified, check_report, verified};
use crate::session::export::bundle::{BUNDLE_CONTENT, BUNDLE_END, BUNDLE_PREFIX, Bundle};
use crate::text::sha256_hex;

/// Whether `bytes` are an evidence bundle (by their first bytes).
pub fn is_bundle(bytes: &[u8]) -> bool {
    bytes.starts_with(BUNDLE_PREFIX.as_bytes())
}

#[derive(Debug, Clone, Serialize)]
pub struct BundleCheck {
    pub session_id: Option<String>,
    /// The SHA-256 the bundle's first line records.
    pub digest: Option<String>,
    /// What changed since export (empty: nothing).
    pub changed: Vec<String>,
    /// The re-check of its report against its texts, when it could be read.
    pub verified: Option<Verified>,
    /// Whether each sentence came out as the recorded verification says.
    pub same_as_recorded: Option<bool>,
}

/// Checks a bundle's bytes.
pub fn verify_bundle(bytes: &[u8], require_quote: bool) -> BundleCheck {
    let mut check =
        BundleCheck { session_id: None, digest: None, changed: Vec::new(), verified: None, same_as_recorded: None };
    let Some((digest, content)) = split(bytes) else {
        check.changed.push(
            "its frame is damaged: it must read {\"sleuth_bundle\":1,\"sha256\":\"<64 hex>\",\"content\":{…}} and end with a line end"
                .into(),
        );
        return check;
    };
    check.digest = Some(String::from_utf8_lossy(digest).into_owned());
    let actual = sha256_hex(content);
    if actual.as_bytes() != digest {
        check.changed.push(format!(
            "the content's SHA-256 is {actual}, not the {} recorded at export",
            String::from_utf8_lossy(digest)
        ));
    }
    let bundle: Bundle = match serde_json::from_slice(content) {
        Ok(b) => b,
        Err(e) => {
            check.changed.push(format!("its content is no longer a readable bundle: {e}"));
            return check;
        }
    };
    check.session_id = Some(bundle.session_id.clone());
    parts_changed(&bundle, &mut check.changed);
    let parsed = parse_report(&bundle.report.markdown);
    let texts: BTreeMap<u32, SourceText> = bundle
        .sources
        .iter()
        .map(|s| {
            let text = match &s.text {
                Some(t) => SourceText::read(s.id, &s.url, "bundle".into(), t.clone(), s.retrieved_at_ms),
                None => {
                    SourceText::failed(s.id, &s.url, "bundle".into(), "the session had lost its text".into(), false)
                }
            };
            (s.id, text)
        })
        .collect();
    let statements = check_report(&parsed, &texts, &bundle.report.claims, require_quote);
    if let Some(recorded) = bundle.verification.as_ref().filter(|v| !v.statements.is_empty()) {
        let now: Vec<_> = statements.iter().map(|s| (&s.text, s.outcome)).collect();
        let then: Vec<_> = recorded.statements.iter().map(|s| (&s.text, s.outcome)).collect();
        check.same_as_recorded = Some(require_quote || now == then);
    }
    check.verified = Some(verified(
        format!("bundle of session {}", bundle.session_id),
        parsed.style,
        require_quote,
        statements,
        texts,
    ));
    check
}

/// `(digest, content)` of a well-framed bundle.
fn split(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = bytes.strip_prefix(BUNDLE_PREFIX.as_bytes())?;
    let (digest, rest) = rest.split_at_checked(64)?;
    if !digest.iter().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let content = rest.strip_prefix(BUNDLE_CONTENT.as_bytes())?.strip_suffix(BUNDLE_END.as_bytes())?;
    Some((digest, content))
}

/// Each recorded part whose text no longer has its recorded SHA-256.
fn parts_changed(b: &Bundle, changed: &mut Vec<String>) {
    if sha256_hex(b.report.markdown.as_bytes()) != b.report.sha256 {
        changed.push("the report's text does not match its SHA-256".into());
    }
    if sha256_hex(b.log.jsonl.as_bytes()) != b.log.sha256 {
        changed.push("the session log does not match its SHA-256".into());
    }
    for s in &b.sources {
        let actual = s.text.as_deref().map(|t| sha256_hex(t.as_bytes())).unwrap_or_default();
        if actual != s.sha256 {
            changed.push(format!("source [{}] ({}) does not match its SHA-256", s.id, s.url));
        }
    }
}
