//! `sleuth diff A B`: what changed between two sessions of one question (a
//! fork, a re-run, a follow-up), claim by claim. Claims are the report's
//! (or, before it, the best draft's); sources are compared by their
//! canonical address, since two sessions number them independently.

use std::collections::HashSet;

use serde::Serialize;

use crate::engine::check::numbers_of;
use crate::engine::model::{Claim, ConfidenceComponents, Evaluation};
use crate::engine::state::SessionState;
use crate::session::export::cited_sources;
use crate::text::{content_terms, jaccard, normalize_for_match};

/// Two claims whose content words overlap at least this much (Jaccard),
/// and that state the same numbers, are one claim reworded; otherwise one
/// was removed and another added (a changed figure is a changed claim).
pub const REWORDED_SIMILARITY: f64 = 0.5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionDiff {
    pub a: Side,
    pub b: Side,
    /// How B relates to A, when its header says.
    pub relation: String,
    pub claims: Vec<ClaimChange>,
    pub sources_gained: Vec<SourceRef>,
    pub sources_lost: Vec<SourceRef>,
    pub sources_kept: usize,
    /// Confidence, coverage and each confidence component, before → after.
    pub scores: Vec<ScoreChange>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    pub id: String,
    pub question: String,
    /// "report" or "draft of iteration n" (what the claims come from).
    pub claims_from: String,
    pub claims: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Same,
    Reworded,
    Added,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimChange {
    pub change: Change,
    /// In A (none when added).
    pub before: Option<String>,
    /// In B (none when removed).
    pub after: Option<String>,
    /// Jaccard similarity of the content words (1 for the same text).
    pub similarity: f64,
    /// The addresses the claim cites, before and after.
    pub sources_before: Vec<String>,
    pub sources_after: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceRef {
    pub id: u32,
    pub title: String,
    pub locator: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreChange {
    pub name: &'static str,
    pub before: Option<f64>,
    pub after: Option<f64>,
}

/// The claims a session stands on and what they come from.
fn claims_of(state: &SessionState) -> (Vec<Claim>, String, Option<&Evaluation>) {
    if let Some(r) = &state.report {
        let eval = r.based_on_iteration.and_then(|n| state.iteration_record(n)?.evaluation.as_ref());
        return (r.claims.clone(), "report".into(), eval);
    }
    match state.best_iteration() {
        Some(it) => (
            it.draft.as_ref().map(|d| d.claims.clone()).unwrap_or_default(),
            format!("draft of iteration {}", it.iteration),
            it.evaluation.as_ref(),
        ),
        None => (Vec::new(), "nothing drafted".into(), None),
    }
}

fn addresses(state: &SessionState, claim: &Claim) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in &claim.citations {
        if let Some(s) = state.source(c.source)
            && !out.contains(&s.meta.canonical)
        {
            out.push(s.meta.canonical.clone());
        }
    }
    out
}

/// The difference from session `a` to session `b`.
pub fn diff(a_id: &str, a: &SessionState, b_id: &str, b: &SessionState) -> SessionDiff {
    let (ca, from_a, ea) = claims_of(a);
    let (cb, from_b, eb) = claims_of(b);
    let terms = |c: &Claim| content_terms(&c.text).into_iter().collect::<HashSet<String>>();
    let ta: Vec<HashSet<String>> = ca.iter().map(terms).collect();
    let tb: Vec<HashSet<String>> = cb.iter().map(terms).collect();
    let mut used_a = vec![false; ca.len()];
    let mut used_b = vec![false; cb.len()];
    let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
    // The same text first, then the closest rewording, greedily.
    for (i, x) in ca.iter().enumerate() {
        if let Some(j) =
            (0..cb.len()).find(|j| !used_b[*j] && normalize_for_match(&cb[*j].text) == normalize_for_match(&x.text))
        {
            used_a[i] = true;
            used_b[j] = true;
            pairs.push((i, j, 1.0));
        }
    }
    let mut candidates: Vec<(usize, usize, f64)> = Vec::new();
    let numbers = |c: &Claim| {
        let mut n = numbers_of(&c.text);
        n.sort();
        n
    };
    for i in (0..ca.len()).filter(|i| !used_a[*i]) {
        for j in (0..cb.len()).filter(|j| !used_b[*j]) {
            let s = jaccard(&ta[i], &tb[j]);
            if s >= REWORDED_SIMILARITY && numbers(&ca[i]) == numbers(&cb[j]) {
                candidates.push((i, j, s));
            }
        }
    }
    candidates.sort_by(|x, y| y.2.total_cmp(&x.2));
    for (i, j, s) in candidates {
        if !used_a[i] && !used_b[j] {
            used_a[i] = true;
            used_b[j] = true;
            pairs.push((i, j, s));
        }
    }
    let mut claims: Vec<ClaimChange> = pairs
        .iter()
        .map(|(i, j, s)| ClaimChange {
            change: if *s >= 1.0 { Change::Same } else { Change::Reworded },
            before: Some(ca[*i].text.clone()),
            after: Some(cb[*j].text.clone()),
            similarity: *s,
            sources_before: addresses(a, &ca[*i]),
            sources_after: addresses(b, &cb[*j]),
        })
        .collect();
    claims.sort_by_key(|c| cb.iter().position(|x| Some(&x.text) == c.after.as_ref()));
    for c in ca.iter().enumerate().filter(|(i, _)| !used_a[*i]).map(|(_, c)| c) {
        claims.push(ClaimChange {
            change: Change::Removed,
            before: Some(c.text.clone()),
            after: None,
            similarity: 0.0,
            sources_before: addresses(a, c),
            sources_after: Vec::new(),
        });
    }
    for c in cb.iter().enumerate().filter(|(j, _)| !used_b[*j]).map(|(_, c)| c) {
        claims.push(ClaimChange {
            change: Change::Added,
            before: None,
            after: Some(c.text.clone()),
            similarity: 0.0,
            sources_before: Vec::new(),
            sources_after: addresses(b, c),
        });
    }
    let cited = |s: &SessionState| -> Vec<SourceRef> {
        cited_sources(s)
            .into_iter()
            .map(|e| SourceRef { id: e.meta.id.0, title: e.meta.title.clone(), locator: e.meta.canonical.clone() })
            .collect()
    };
    let (sa, sb) = (cited(a), cited(b));
    let in_list = |list: &[SourceRef], s: &SourceRef| list.iter().any(|x| x.locator == s.locator);
    let sources_gained: Vec<SourceRef> = sb.iter().filter(|s| !in_list(&sa, s)).cloned().collect();
    let sources_lost: Vec<SourceRef> = sa.iter().filter(|s| !in_list(&sb, s)).cloned().collect();
    let sources_kept = sb.len() - sources_gained.len();
    SessionDiff {
        a: Side { id: a_id.into(), question: a.question().into(), claims_from: from_a, claims: ca.len() },
        b: Side { id: b_id.into(), question: b.question().into(), claims_from: from_b, claims: cb.len() },
        relation: relation(a_id, b),
        claims,
        sources_gained,
        sources_lost,
        sources_kept,
        scores: scores(ea, eb),
    }
}

fn relation(a_id: &str, b: &SessionState) -> String {
    let h = b.header.as_ref();
    if h.is_some_and(|h| h.session_id == a_id) {
        return "A and B are the same session".into();
    }
    match (h.and_then(|h| h.forked_from.as_ref()), h.and_then(|h| h.follow_up_of.as_ref())) {
        (Some(f), _) if f.session_id == a_id => format!("B is a fork of A from iteration {}", f.iteration),
        (_, Some(p)) if p == a_id => "B is a follow-up of A".into(),
        (Some(f), _) => format!("B is a fork of session {} (not A)", f.session_id),
        _ => "independent sessions".into(),
    }
}

/// Reads one confidence component.
type ComponentOf = fn(&ConfidenceComponents) -> f64;

fn scores(a: Option<&Evaluation>, b: Option<&Evaluation>) -> Vec<ScoreChange> {
    let part = |e: Option<&Evaluation>, f: fn(&ConfidenceComponents) -> f64| e.map(|e| f(&e.components));
    let mut out = vec![
        ScoreChange { name: "confidence", before: a.map(|e| e.confidence), after: b.map(|e| e.confidence) },
        ScoreChange { name: "coverage (aspects)", before: a.map(|e| e.coverage), after: b.map(|e| e.coverage) },
    ];
    let components: [(&'static str, ComponentOf); 6] = [
        ("answer relevance", |c| c.answer_relevance),
        ("source quality", |c| c.source_quality),
        ("coverage", |c| c.coverage),
        ("citation density", |c| c.citation_density),
        ("consistency", |c| c.consistency),
        ("recency", |c| c.recency),
    ];
    for (name, f) in components {
        out.push(ScoreChange { name, before: part(a, f), after: part(b, f) });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Report, StopReason};

    fn with_claims(texts: &[&str]) -> SessionState {
        let claims = texts.iter().map(|t| Claim { text: t.to_string(), citations: vec![], aspect: None }).collect();
        SessionState {
            report: Some(Report {
                markdown: String::new(),
                claims,
                based_on_iteration: None,
                caveats: vec![],
                stop: StopReason::ForcedByUser,
                answer: Default::default(),
            }),
            ..SessionState::default()
        }
    }

    #[test]
    fn claims_are_same_reworded_added_or_removed() {
        let a = with_claims(&[
            "Watering is allowed only before 8 am and after 7 pm.",
            "A first breach costs a fine of 50 euros.",
            "Hoses need a trigger nozzle.",
        ]);
        let b = with_claims(&[
            "watering is allowed only before 8 am and after 7 pm.",
            "A first breach costs a fine of 60 euros.",
            "Hoses must have a trigger nozzle fitted.",
        ]);
        let d = diff("a", &a, "b", &b);
        let kinds: Vec<(Change, Option<&str>)> = d.claims.iter().map(|c| (c.change, c.after.as_deref())).collect();
        assert_eq!(
            kinds,
            vec![
                (Change::Same, Some("watering is allowed only before 8 am and after 7 pm.")),
                (Change::Reworded, Some("Hoses must have a trigger nozzle fitted.")),
                (Change::Removed, None),
                (Change::Added, Some("A first breach costs a fine of 60 euros.")),
            ]
        );
        assert_eq!(d.relation, "independent sessions");
    }
}
