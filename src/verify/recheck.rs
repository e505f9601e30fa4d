//! `sleuth recheck`: a finished session's cited sources fetched again now,
//! and each cited sentence of its report decided twice by the checker —
//! against the texts stored when it was written and against the texts
//! read now — so a reader learns which claims still stand, which stood on
//! a page that changed, and which lost their page.

use std::collections::BTreeMap;

use super::sources::{SourceText, fetch_one, now_ms};
use crate::engine::check::{SourceDoc, SourceState, check_all, cited_statements};
use crate::engine::model::{
    CheckOutcome, ClaimStatus, PageStatus, Recheck, RecheckedClaim, RecheckedSource, SourceId, StatementCheck,
};
use crate::engine::state::SessionState;
use crate::search::web::{WebClient, WebConfig};
use crate::text::{sanitize, sha256_hex};

#[derive(Debug, thiserror::Error)]
pub enum RecheckError {
    #[error("session {0} has no report yet: there is nothing to recheck (finish it with `sleuth resume {0}`)")]
    NoReport(String),
    #[error("the web client could not be built: {0}")]
    Client(String),
}

/// Fetches the cited sources of `state`'s report again and decides each
/// cited sentence; `stored` reads the text the session stored for a source.
pub async fn recheck(
    session_id: &str,
    state: &SessionState,
    stored: &dyn Fn(SourceId) -> Option<String>,
    web: &WebConfig,
) -> Result<Recheck, RecheckError> {
    let report = state.report.as_ref().ok_or_else(|| RecheckError::NoReport(session_id.to_string()))?;
    let statements: Vec<_> = cited_statements(&report.markdown).into_iter().filter(|s| !s.cites.is_empty()).collect();
    let mut ids: Vec<u32> = statements.iter().flat_map(|s| s.cites.iter().copied()).collect();
    ids.sort_unstable();
    ids.dedup();
    let client = WebClient::new(web).map_err(RecheckError::Client)?;
    let mut now: BTreeMap<u32, SourceText> = BTreeMap::new();
    let mut sources = Vec::new();
    for id in &ids {
        let Some(entry) = state.source(SourceId(*id)) else { continue };
        let fetched = fetch_one(&client, *id, &entry.meta.locator, web.max_page_bytes).await;
        let before = stored(SourceId(*id));
        let status = match (&fetched.text, &before) {
            (Ok(t), Some(b)) if *t == sanitize(b) => PageStatus::Unchanged,
            (Ok(_), _) => PageStatus::Changed,
            (Err(_), _) if fetched.gone => PageStatus::Gone,
            (Err(_), _) => PageStatus::Unreachable,
        };
        sources.push(RecheckedSource {
            id: SourceId(*id),
            locator: entry.meta.locator.clone(),
            status,
            sha256: fetched.text.as_ref().ok().map(|t| sha256_hex(t.as_bytes())),
            error: fetched.error.clone().unwrap_or_default(),
        });
        now.insert(*id, fetched);
    }
    let then_docs: BTreeMap<u32, SourceDoc> =
        ids.iter().filter_map(|id| stored(SourceId(*id)).map(|t| (*id, SourceDoc::new(&t)))).collect();
    let now_docs: BTreeMap<u32, SourceDoc> =
        now.iter().filter_map(|(id, t)| t.text.as_ref().ok().map(|t| (*id, SourceDoc::new(t)))).collect();
    let then_state = |n: u32| then_docs.get(&n).map_or(SourceState::Unknown, SourceState::Read);
    let now_state = |n: u32| match (now_docs.get(&n), now.get(&n)) {
        (Some(d), _) => SourceState::Read(d),
        (None, Some(t)) => SourceState::Unreachable(t.error.as_deref().unwrap_or("no text")),
        (None, None) => SourceState::Unknown,
    };
    let then = check_all(&statements, &report.claims, &then_state, false);
    let now_checks = check_all(&statements, &report.claims, &now_state, false);
    let status_of = |n: &u32| sources.iter().find(|s| s.id.0 == *n).map(|s| s.status);
    let claims = then
        .iter()
        .zip(&now_checks)
        .map(|(before, after)| {
            let pages: Vec<PageStatus> = after.cites.iter().filter_map(status_of).collect();
            claim(before, after, &pages)
        })
        .collect();
    Ok(Recheck { at_ms: now_ms(), sources, claims })
}

/// What became of one cited sentence, from its verdicts then and now and
/// the status of the pages it cites.
fn claim(before: &StatementCheck, after: &StatementCheck, pages: &[PageStatus]) -> RecheckedClaim {
    let page_changed = pages.contains(&PageStatus::Changed);
    let all_gone = !pages.is_empty() && pages.iter().all(|p| *p == PageStatus::Gone);
    let (status, why) = match after.outcome {
        CheckOutcome::Supported if page_changed => {
            (ClaimStatus::Stands, format!("the page changed and still backs it: {}", after.why))
        }
        CheckOutcome::Supported => (ClaimStatus::Stands, format!("page unchanged: {}", after.why)),
        _ if all_gone => (ClaimStatus::PageGone, format!("every page it cites is gone: {}", after.why)),
        CheckOutcome::Unreachable => (ClaimStatus::Unreachable, after.why.clone()),
        _ if before.supported() => (ClaimStatus::QuoteGone, format!("the page changed: {}", after.why)),
        _ => (ClaimStatus::Unsupported, format!("not backed when written either: {}", after.why)),
    };
    RecheckedClaim { text: after.text.clone(), cites: after.cites.clone(), status, page_changed, why }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::CheckRule;

    fn check(outcome: CheckOutcome) -> StatementCheck {
        StatementCheck {
            text: "x".into(),
            cites: vec![1],
            outcome,
            rule: CheckRule::Passage,
            source: Some(1),
            evidence: String::new(),
            matched: 0,
            terms: 1,
            why: "why".into(),
        }
    }

    #[test]
    fn each_claim_gets_the_status_its_verdicts_and_pages_say() {
        use CheckOutcome::{Supported, Unsupported};
        use PageStatus::{Changed, Gone, Unchanged};
        let cases = [
            (Supported, Supported, vec![Unchanged], ClaimStatus::Stands),
            (Supported, Supported, vec![Changed], ClaimStatus::Stands),
            (Supported, Unsupported, vec![Changed], ClaimStatus::QuoteGone),
            (Supported, CheckOutcome::Unreachable, vec![Gone], ClaimStatus::PageGone),
            (Supported, CheckOutcome::Unreachable, vec![PageStatus::Unreachable], ClaimStatus::Unreachable),
            (Unsupported, Unsupported, vec![Unchanged], ClaimStatus::Unsupported),
        ];
        for (then, now, pages, want) in cases {
            let c = claim(&check(then), &check(now), &pages);
            assert_eq!(c.status, want, "{then:?} → {now:?} on {pages:?}");
            assert_eq!(c.page_changed, pages.contains(&Changed));
        }
    }
}
