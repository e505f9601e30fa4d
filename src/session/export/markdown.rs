//! The Markdown export: the report with its numbered citations, every
//! source (URL or path, title, access date, what became of it), the
//! session's particulars, and an appendix with each iteration's
//! reflection, queries, review, critique, scores and decision.

use std::fmt::Write;

use super::dates::{iso_date, iso_datetime};
use super::is_cited;
use crate::engine::model::SourceKind;
use crate::engine::state::{IterationRecord, QueryResult, SessionState, SourceEntry};
use crate::session::summary::SessionSummary;
use crate::text::{sanitize, sanitize_inline};

pub fn markdown(state: &SessionState, summary: &SessionSummary) -> String {
    let mut out = String::new();
    report(&mut out, state);
    sources(&mut out, state);
    particulars(&mut out, state, summary);
    if !state.iterations.is_empty() {
        out.push_str("\n## Appendix: iterations\n");
        for it in &state.iterations {
            iteration(&mut out, state, it);
        }
    }
    out
}

fn report(out: &mut String, state: &SessionState) {
    match &state.report {
        Some(r) => {
            // The engine ends the report with its cited sources; the full
            // list with access dates follows below instead.
            let body = match r.markdown.rfind("\n## Sources\n") {
                Some(i) => &r.markdown[..i],
                None => r.markdown.as_str(),
            };
            out.push_str(sanitize(body).trim_end());
            out.push('\n');
        }
        None => {
            let _ = writeln!(out, "# {}\n", cell(state.question()));
            match state.best_iteration().and_then(|it| it.draft.as_ref().map(|d| (it.iteration, d))) {
                Some((n, d)) => {
                    let _ = writeln!(
                        out,
                        "> This session has not finished: no report was written. Below is the best draft so far (iteration {n}).\n"
                    );
                    out.push_str(sanitize(&d.markdown).trim_end());
                    out.push('\n');
                }
                None => out.push_str("> This session has not finished, and nothing was drafted yet.\n"),
            }
        }
    }
}

fn sources(out: &mut String, state: &SessionState) {
    if state.sources.is_empty() {
        return;
    }
    out.push_str("\n## Sources\n\n");
    for s in &state.sources {
        let m = &s.meta;
        let heading =
            source_heading(&m.title, m.heading.as_deref()).map(|h| format!(" — {}", cell(h))).unwrap_or_default();
        // A local file's date is when it was last modified, not published.
        let dated = match m.kind {
            SourceKind::Web => "published",
            SourceKind::Local => "modified",
        };
        let published = m.published.as_deref().map(|p| format!(", {dated} {}", cell(p))).unwrap_or_default();
        // The list is numbered by the citation ids themselves, once.
        let _ = writeln!(
            out,
            "- [{}] {}{} — <{}> — accessed {}{} — {}",
            m.id.0,
            cell(&m.title),
            heading,
            cell(&m.locator),
            iso_date(m.accessed_at_ms),
            published,
            fate(state, s)
        );
    }
}

/// A passage's heading, unless it only repeats the page's title.
pub(crate) fn source_heading<'a>(title: &str, heading: Option<&'a str>) -> Option<&'a str> {
    heading.filter(|h| !h.trim().eq_ignore_ascii_case(title.trim()))
}

/// What became of a source: cited, kept, rejected (why), banned, pinned.
fn fate(state: &SessionState, s: &SourceEntry) -> String {
    let id = s.meta.id;
    let mut words = Vec::new();
    if is_cited(state, id) {
        words.push("cited".to_string());
    }
    if state.banned.contains(&id) {
        words.push("banned by the user".into());
    } else if state.pinned.contains(&id) {
        words.push("pinned by the user".into());
    } else {
        match &s.verdict {
            Some(v) if v.kept => words.push("kept".into()),
            Some(v) => words.push(format!("rejected ({})", v.reason.as_deref().map_or("no reason".into(), cell))),
            None => words.push("not reviewed".into()),
        }
    }
    if s.meta.iteration == 0 {
        words.push("from the earlier session".into());
    } else {
        words.push(format!("found in iteration {}", s.meta.iteration));
    }
    words.join(", ")
}

fn particulars(out: &mut String, state: &SessionState, summary: &SessionSummary) {
    out.push_str("\n## Session\n\n");
    let _ = writeln!(out, "- id: {}", summary.id);
    let _ = writeln!(out, "- question: {}", cell(state.question()));
    let _ = writeln!(out, "- started: {}", iso_datetime(state.started_at_ms));
    let _ = writeln!(out, "- status: {}", status_text(summary));
    let _ = writeln!(out, "- preset: {} · reasoner: {}", cell(&summary.preset), cell(&summary.reasoner));
    let _ = writeln!(
        out,
        "- iterations: {} of {} · confidence {:.2} · coverage {:.2}",
        summary.iterations, summary.max_iterations, summary.confidence, summary.coverage
    );
    let _ = writeln!(
        out,
        "- cost: ${:.4}{} · {} tokens · {:.1} s of research",
        summary.cost_usd,
        if summary.cost_estimated { " (estimated)" } else { "" },
        summary.tokens,
        summary.elapsed_ms as f64 / 1000.0
    );
    if let Some(f) = &summary.forked_from {
        let _ = writeln!(out, "- forked from session {} at iteration {}", f.session_id, f.iteration);
    }
    if let Some(prev) = &summary.follow_up_of {
        let _ = writeln!(out, "- follow-up of session {prev}");
    }
    for c in &state.constraints {
        let _ = writeln!(out, "- constraint: {}", cell(c));
    }
    for r in &state.rechecks {
        let _ = writeln!(out, "- rechecked {}: {}", iso_datetime(r.at_ms), cell(&r.headline()));
        for c in r.claims.iter().filter(|c| c.status.fallen()) {
            let _ = writeln!(out, "  - {}: {} — {}", c.status.label(), cell(&c.text), cell(&c.why));
        }
    }
}

fn status_text(summary: &SessionSummary) -> String {
    use crate::engine::status::SessionStatus as S;
    match summary.status {
        S::WaitingOnAsk => {
            format!("waiting for an answer to: {}", cell(summary.waiting_on.as_deref().unwrap_or_default()))
        }
        S::Finished => "finished".into(),
        S::Unanswered => "finished: the sources found do not answer the question".into(),
        S::NotSearched => "finished: no source could be searched".into(),
        S::Degraded => "finished, degraded: phases the model was to do fell back to built-in results".into(),
        S::Cancelled => "cancelled (partial report)".into(),
        S::Failed => format!("failed: {}", cell(summary.error.as_deref().unwrap_or_default())),
        S::Forked => "forked, not yet continued".into(),
        S::Queued | S::Running | S::Interrupted | S::Damaged => "not finished".into(),
    }
}

fn iteration(out: &mut String, state: &SessionState, it: &IterationRecord) {
    let decision = it.decision.as_ref().map(|d| format!(" — {} ({})", d.action, d.reason.label())).unwrap_or_default();
    let _ = writeln!(out, "\n### Iteration {}{decision}\n", it.iteration);
    if let (Some(strategy), Some(prev)) = (it.strategy, state.iteration_record(it.iteration.saturating_sub(1))) {
        let why = prev.refinement.as_ref().map(|r| cell(&r.rationale)).unwrap_or_default();
        let _ = writeln!(out, "**Strategy:** {strategy} — {why}\n");
    }
    if let Some(r) = &it.reflection {
        out.push_str("**Reflection**\n\n");
        let _ = writeln!(out, "- plan: {}", cell(&r.plan));
        for (label, items) in
            [("assumption", &r.assumptions), ("risk", &r.risks), ("success criterion", &r.success_criteria)]
        {
            for item in items {
                let _ = writeln!(out, "- {label}: {}", cell(item));
            }
        }
        out.push('\n');
    }
    if !it.memories_used.is_empty() {
        let _ = writeln!(out, "**Memories used:** {}\n", it.memories_used.join(", "));
    }
    if !it.queries.is_empty() {
        out.push_str("| # | query | result |\n|---|---|---|\n");
        for (i, q) in it.queries.iter().enumerate() {
            let result = match &q.result {
                Some(QueryResult::Searched { provider, hits, reformulated_from }) => {
                    let re = reformulated_from.as_deref().map(|f| format!(", reformulated from “{}”", cell(f)));
                    format!(
                        "{} ({}){}",
                        crate::text::counted(*hits, "hit", "hits"),
                        cell(provider),
                        re.unwrap_or_default()
                    )
                }
                Some(QueryResult::Failed { error, attempts }) => {
                    format!(
                        "failed after {}: {}",
                        crate::text::counted(*attempts as usize, "attempt", "attempts"),
                        cell(error)
                    )
                }
                None => "not run".into(),
            };
            let _ = writeln!(out, "| {} | {} | {} |", i + 1, cell(&q.query.text), result);
        }
        out.push('\n');
    }
    let ids: Vec<String> = it.new_sources.iter().map(|id| format!("[{}]", id.0)).collect();
    let _ = writeln!(
        out,
        "**Sources:** {} new {}· {} duplicate(s) · {} skipped\n",
        it.new_sources.len(),
        if ids.is_empty() { String::new() } else { format!("({}) ", ids.join(" ")) },
        it.duplicates,
        it.skipped.len()
    );
    if let Some((_, q)) = &it.review {
        let _ = writeln!(
            out,
            "**Review:** kept {} of {} (quality {:.2}{})\n",
            q.verified,
            q.total_fetched,
            q.quality_score,
            if q.meets_threshold { "" } else { ", below threshold" }
        );
    }
    if let Some(reason) = &it.no_valid_sources {
        let _ = writeln!(out, "**No usable sources:** {}\n", cell(reason));
    }
    if let Some(c) = &it.critique {
        let _ = writeln!(
            out,
            "**Critique:** {:?} · {} · gaps: {}\n",
            c.verdict,
            crate::text::counted(c.issues.len(), "issue", "issues"),
            list(&c.gaps)
        );
        for issue in &c.issues {
            let _ = writeln!(out, "- {:?}: {}", issue.severity, cell(&issue.description));
        }
        if !c.issues.is_empty() {
            out.push('\n');
        }
    }
    if let Some(e) = &it.evaluation {
        let k = &e.components;
        let d = &e.dimensions;
        let _ = writeln!(
            out,
            "**Scores:** confidence {:.2} (gain {:+.2}) · coverage {:.2} ({} of {} aspects) · quality {:.2} · {} of {} claims supported\n",
            e.confidence,
            e.gain,
            e.coverage,
            e.aspects_addressed,
            e.aspects_required,
            e.quality,
            e.supported_claims,
            e.claims
        );
        let _ = writeln!(
            out,
            "- confidence parts: answer relevance {:.2}, source quality {:.2}, coverage {:.2}, citation density {:.2}, consistency {:.2}, recency {:.2}",
            k.answer_relevance, k.source_quality, k.coverage, k.citation_density, k.consistency, k.recency
        );
        let _ = writeln!(
            out,
            "- dimensions: completeness {:.2}, accuracy {:.2}, relevance {:.2}, freshness {:.2}, coherence {:.2}\n",
            d.completeness, d.accuracy, d.relevance, d.freshness, d.coherence
        );
    }
    if let Some(d) = &it.decision {
        let _ = writeln!(out, "**Decision:** {} — {} — {}\n", d.action, d.reason.label(), cell(&d.detail));
    }
    if let Some(ask) = it.ask_id.as_ref().and_then(|id| state.asks.iter().find(|a| &a.ask_id == id)) {
        let answer = ask.answer.as_ref().map_or("not answered yet".to_string(), |a| cell(a.as_text()));
        let _ = writeln!(out, "**Asked:** {} → {}\n", cell(&ask.clarification.question), answer);
    }
    if let Some(r) = &it.refinement {
        let queries: Vec<String> = r.queries.iter().map(|q| format!("“{}”", cell(&q.text))).collect();
        let _ = writeln!(out, "**Refinement:** {} — next queries: {}\n", r.strategy, queries.join(", "));
    }
    let _ = writeln!(
        out,
        "*{:.1} s · ${:.4} · {} tokens*",
        it.last_elapsed_ms.saturating_sub(it.started_elapsed_ms) as f64 / 1000.0,
        it.cost_usd,
        it.tokens
    );
}

/// One line of untrusted text, safe inside a Markdown table or list.
fn cell(text: &str) -> String {
    sanitize_inline(text).replace('|', "\\|").trim().to_string()
}

fn list(items: &[String]) -> String {
    if items.is_empty() { "none".into() } else { items.iter().map(|i| cell(i)).collect::<Vec<_>>().join(", ") }
}
