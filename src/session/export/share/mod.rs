//! Reports to share (`export --format html | pdf`): one document model
//! built from the session — the report's blocks with every cited sentence
//! marked as a claim, each claim's verdict, rule and quote (or passage),
//! and each cited source with its address, retrieval time and SHA-256 —
//! rendered by `html` and `pdf`.

pub mod html;
pub mod markdown;
pub mod pdf;

use super::cited_sources;
use super::dates::iso_datetime;
use crate::engine::check::{MARKS, SourceDoc, cited_statements};
use crate::engine::citations::check_statements;
use crate::engine::model::{CheckOutcome, CheckRule, SourceId, StatementCheck};
use crate::engine::state::SessionState;
use crate::session::summary::SessionSummary;
use crate::text::{sanitize, sanitize_inline, sha256_hex};
use markdown::{CLAIM_CLOSE, CLAIM_NUM_END, CLAIM_OPEN, DocBlock, blocks};

/// A report ready to render.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareDoc {
    pub title: String,
    pub session_id: String,
    /// "finished · confidence 0.68 · …".
    pub status: String,
    pub exported_at: String,
    pub blocks: Vec<DocBlock>,
    pub claims: Vec<ShareClaim>,
    pub sources: Vec<ShareSource>,
    /// "5 of 6 cited sentences are backed by their sources (…)".
    pub summary: String,
    /// Where the verdicts come from.
    pub verdicts_from: String,
    /// `sleuth recheck` results, oldest first: "2026-… UTC: 3 of 4 claims still stand; …".
    pub rechecks: Vec<String>,
}

/// A cited sentence of the report and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareClaim {
    /// 1-based, in reading order.
    pub number: usize,
    pub text: String,
    pub cites: Vec<u32>,
    pub outcome: CheckOutcome,
    pub rule: CheckRule,
    pub source: Option<u32>,
    /// The quote found, or the passage compared.
    pub evidence: String,
    pub why: String,
}

impl ShareClaim {
    pub fn supported(&self) -> bool {
        self.outcome == CheckOutcome::Supported
    }

    /// ✓ or ✗ and the verdict, as a reader sees it.
    pub fn mark(&self) -> String {
        format!("{} {}", if self.supported() { "✓" } else { "✗" }, self.outcome.label())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ShareSource {
    pub id: u32,
    pub title: String,
    pub url: String,
    pub retrieved_at: String,
    /// SHA-256 of the stored text; `None` when the session lost it.
    pub sha256: Option<String>,
}

/// The shared document of a session. `text_of` reads a stored source text;
/// `redact` blanks secrets out of every text the document holds.
pub fn share_doc(
    state: &SessionState,
    summary: &SessionSummary,
    text_of: &dyn Fn(SourceId) -> Option<String>,
    redact: &dyn Fn(&str) -> String,
    now_ms: u64,
) -> ShareDoc {
    let (body, claims, verdicts_from) = match &state.report {
        Some(r) => {
            let body = strip_marks(report_body(&r.markdown));
            let (checks, from) = checks(state, &body, text_of);
            (body, checks, from)
        }
        None => (
            "_This session has not finished: no report was written yet._".to_string(),
            Vec::new(),
            "no report".to_string(),
        ),
    };
    let body = redact(&sanitize(&with_claim_marks(&body, claims.len())));
    let claims: Vec<ShareClaim> = claims
        .into_iter()
        .enumerate()
        .map(|(i, c)| ShareClaim {
            number: i + 1,
            text: redact(&sanitize_inline(&c.text)),
            cites: c.cites,
            outcome: c.outcome,
            rule: c.rule,
            source: c.source,
            evidence: redact(&sanitize_inline(&c.evidence)),
            why: redact(&sanitize_inline(&c.why)),
        })
        .collect();
    let sources = cited_sources(state)
        .into_iter()
        .map(|s| {
            let m = &s.meta;
            let title = match super::markdown::source_heading(&m.title, m.heading.as_deref()) {
                Some(h) => format!("{} — {}", m.title, h),
                None => m.title.clone(),
            };
            ShareSource {
                id: m.id.0,
                title: redact(&sanitize_inline(&title)),
                url: redact(&sanitize_inline(&m.locator)),
                retrieved_at: iso_datetime(m.accessed_at_ms),
                sha256: text_of(m.id).map(|t| sha256_hex(redact(&t).as_bytes())),
            }
        })
        .collect();
    let backed = claims.iter().filter(|c| c.supported()).count();
    ShareDoc {
        title: redact(&sanitize_inline(state.question())),
        session_id: summary.id.clone(),
        status: format!(
            "{} · confidence {:.2} · coverage {:.2} · {} iteration(s) · {} reasoner",
            status_word(summary),
            summary.confidence,
            summary.coverage,
            summary.iterations,
            sanitize_inline(&summary.reasoner)
        ),
        exported_at: iso_datetime(now_ms),
        blocks: blocks(&body),
        summary: format!("{backed} of {} cited sentences are backed by their sources.", claims.len()),
        claims,
        sources,
        verdicts_from,
        rechecks: state
            .rechecks
            .iter()
            .map(|r| redact(&format!("rechecked {}: {}", iso_datetime(r.at_ms), sanitize_inline(&r.headline()))))
            .collect(),
    }
}

/// The report without the sources list the engine appends (the document
/// lists the sources itself, with their hashes).
fn report_body(markdown: &str) -> &str {
    match markdown.rfind("\n## Sources\n") {
        Some(i) => &markdown[..i],
        None => markdown,
    }
}

/// The report without sleuth's inline marks: each claim carries its own.
fn strip_marks(body: &str) -> String {
    let mut out = body.to_string();
    for m in MARKS {
        out = out.replace(&format!(" {m}"), "").replace(m, "");
    }
    // The claim boundaries are private-use characters; the report's own are dropped.
    out.retain(|c| !matches!(c, CLAIM_OPEN | CLAIM_NUM_END | CLAIM_CLOSE));
    out
}

/// Each cited sentence's verdict: as VERIFY recorded it, or (a session
/// from before every sentence was checked) checked now against the
/// stored texts by the same checker.
fn checks(
    state: &SessionState,
    body: &str,
    text_of: &dyn Fn(SourceId) -> Option<String>,
) -> (Vec<StatementCheck>, String) {
    let statements: Vec<_> = cited_statements(body).into_iter().filter(|s| !s.cites.is_empty()).collect();
    if let Some(v) = &state.verification {
        let recorded: Vec<&StatementCheck> = v.statements.iter().take(statements.len()).collect();
        if recorded.len() == statements.len() && recorded.iter().zip(&statements).all(|(c, s)| c.text == s.text) {
            return (recorded.into_iter().cloned().collect(), "the session's verification".into());
        }
    }
    let claims = state.report.as_ref().map(|r| r.claims.clone()).unwrap_or_default();
    let ids: Vec<u32> = statements.iter().flat_map(|s| s.cites.iter().copied()).collect();
    let docs: Vec<(SourceId, SourceDoc)> =
        ids.into_iter().filter_map(|n| text_of(SourceId(n)).map(|t| (SourceId(n), SourceDoc::new(&t)))).collect();
    let doc_of = |id: SourceId| docs.iter().find(|(i, _)| *i == id).map(|(_, d)| d);
    (check_statements(body, &claims, &doc_of), "checked at export against the stored sources".into())
}

/// `body` with claim k's sentence between `CLAIM_OPEN k CLAIM_NUM_END` and
/// `CLAIM_CLOSE` (the first `count` cited sentences).
fn with_claim_marks(body: &str, count: usize) -> String {
    let statements: Vec<_> = cited_statements(body).into_iter().filter(|s| !s.cites.is_empty()).take(count).collect();
    let mut out = body.to_string();
    for (k, s) in statements.iter().enumerate().rev() {
        out.insert(s.end, CLAIM_CLOSE);
        out.insert_str(s.start, &format!("{CLAIM_OPEN}{}{CLAIM_NUM_END}", k + 1));
    }
    out
}

fn status_word(summary: &SessionSummary) -> String {
    use crate::engine::SessionStatus as S;
    match summary.status {
        S::Queued | S::Running | S::Interrupted | S::Forked | S::Damaged => "not finished".into(),
        S::WaitingOnAsk => "waiting for an answer".into(),
        S::Finished => "finished".into(),
        S::Unanswered => "finished: the sources found do not answer the question".into(),
        S::NotSearched => "finished: no source could be searched".into(),
        S::Degraded => "finished, with built-in results where the model failed".into(),
        S::Cancelled => "cancelled (partial report)".into(),
        S::Failed => "failed".into(),
    }
}
