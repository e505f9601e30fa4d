//! The reflection log of the shown iteration: the plan's reflection,
//! queries and their results, the quality report, the critique, the
//! evaluation, the decision and the refinement.

use ratatui::text::{Line, Span};

use crate::engine::model::Severity;
use crate::engine::state::{IterationRecord, QueryResult};
use crate::tui::app::App;
use crate::tui::text::{inline, truncate, wrap};
use crate::tui::theme::{Theme, heading};

fn bullets(t: &Theme, out: &mut Vec<Line<'static>>, title: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    out.push(heading(t, title));
    for i in items {
        out.push(Line::from(Span::styled(format!("  • {}", inline(i)), t.text)));
    }
}

fn severity_style(t: &Theme, s: Severity) -> ratatui::style::Style {
    match s {
        Severity::Low => t.severity_low,
        Severity::Medium => t.severity_medium,
        Severity::High => t.severity_high,
        Severity::Critical => t.severity_critical,
    }
}

/// `n thing` or `n things`.
pub fn count(n: usize, thing: &str) -> String {
    if n == 1 { format!("1 {thing}") } else { format!("{n} {thing}s") }
}

/// Which of a session's providers answered this iteration's queries and
/// which never did; `None` when the session searches one provider only.
fn providers_summary(chains: &[Vec<String>], it: &IterationRecord) -> Option<(Vec<String>, Vec<String>)> {
    let configured: Vec<&String> = chains.iter().flatten().collect();
    if configured.len() < 2 {
        return None;
    }
    let mut answered: Vec<String> = Vec::new();
    for q in &it.queries {
        if let Some(QueryResult::Searched { provider, .. }) = &q.result {
            for p in provider.split('+').filter(|p| !p.is_empty()) {
                if !answered.iter().any(|a| a == p) {
                    answered.push(inline(p));
                }
            }
        }
    }
    let silent = configured.iter().filter(|c| !answered.iter().any(|a| a == c.as_str())).map(|c| inline(c)).collect();
    Some((answered, silent))
}

/// "exclude a, b" and "add c", leaving out an empty list.
fn keyword_parts(exclude: &[String], add: &[String]) -> Vec<String> {
    let mut parts = Vec::new();
    if !exclude.is_empty() {
        parts.push(format!("exclude {}", inline(&exclude.join(", "))));
    }
    if !add.is_empty() {
        parts.push(format!("add {}", inline(&add.join(", "))));
    }
    parts
}

/// A quality report's suggested refinement: its reason, then only the
/// keyword lists that have something in them.
fn suggestion(s: &crate::engine::model::SuggestedRefinement) -> String {
    let mut parts = vec![inline(&s.reason)];
    parts.extend(keyword_parts(&s.add_negative_keywords, &s.add_positive_keywords));
    parts.retain(|p| !p.is_empty());
    parts.join("; ")
}

/// Whether the user forced the output during `it` (the last iteration of
/// a session that got `o`): its CONTINUE was overruled.
pub fn forced_here(app: &App, it: &IterationRecord) -> bool {
    app.state.force_output && app.state.current().is_some_and(|c| c.iteration == it.iteration)
}

/// Every line of the pane for `it`, before wrapping.
fn logical(app: &App, it: &IterationRecord, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let text = |s: String| Span::styled(s, t.text);
    let muted = |s: String| Span::styled(s, t.muted);
    let mut out = Vec::new();
    let mut head = vec![Span::styled(format!("Iteration {}", it.iteration), t.heading)];
    if let Some(s) = it.strategy {
        head.push(muted(format!(" · {s} (from the previous refinement)")));
    }
    out.push(Line::from(head));
    match &it.reflection {
        Some(r) => {
            out.push(heading(t, "Plan"));
            out.push(Line::from(text(format!("  {}", inline(&r.plan)))));
            // The plan is the reasoner's text; what the user asked for is
            // shown beside it, as the constraints the engine planned under.
            if !app.state.constraints.is_empty() {
                out.push(Line::from(Span::styled("  your answers and notes (constraints in force):", t.decision_ask)));
                for c in &app.state.constraints {
                    out.push(Line::from(text(format!("  • {}", inline(c)))));
                }
            }
            bullets(t, &mut out, "Assumptions", &r.assumptions);
            bullets(t, &mut out, "Risks", &r.risks);
            bullets(t, &mut out, "Success criteria", &r.success_criteria);
        }
        None => out.push(Line::from(muted("  planning…".into()))),
    }
    if !it.memories_used.is_empty() {
        out.push(Line::from(muted(format!("  lessons from memory: {}", it.memories_used.len()))));
        // One line each, cut to the pane: a reminder, not the whole lesson.
        for lesson in &it.lessons_used {
            let room = width.saturating_sub(4).max(1);
            out.push(Line::from(muted(format!("  • {}", truncate(&inline(lesson), room)))));
        }
    }
    out.push(heading(t, "Queries"));
    for (i, q) in it.queries.iter().enumerate() {
        let mut spans = vec![text(format!("  {}. \"{}\" ", i + 1, inline(&q.query.text)))];
        if q.query.intent.ends_with("by the user") {
            spans.push(Span::styled(format!("({}) ", inline(&q.query.intent)), t.decision_ask));
        }
        match &q.result {
            Some(QueryResult::Searched { provider, hits, reformulated_from }) => {
                spans.push(Span::styled(format!("→ {}", crate::text::counted(*hits, "hit", "hits")), t.kept));
                spans.push(muted(format!(" ({})", inline(provider))));
                if let Some(f) = reformulated_from {
                    spans.push(muted(format!(" reformulated from \"{}\"", inline(f))));
                }
            }
            Some(QueryResult::Failed { error, attempts }) => {
                spans.push(Span::styled(format!("✗ failed after {attempts} attempts: {}", inline(error)), t.rejected));
            }
            None => spans.push(muted("…".into())),
        }
        out.push(Line::from(spans));
    }
    for f in &it.fallbacks {
        out.push(Line::from(Span::styled(format!("  ↪ {}", inline(f)), t.severity_medium)));
    }
    if it.search_completed
        && let Some(header) = &app.state.header
        && let Some((answered, silent)) = providers_summary(&header.providers, it)
    {
        let mut spans = vec![text("  answered: ".into()), Span::styled(answered.join(", "), t.kept)];
        if !silent.is_empty() {
            spans.push(text(" · no answer: ".into()));
            spans.push(Span::styled(silent.join(", "), t.rejected));
        }
        out.push(Line::from(spans));
    }
    if it.search_completed {
        out.push(Line::from(muted(format!(
            "  {} · {} · {} skipped",
            count(it.new_sources.len(), "new source"),
            count(it.duplicates, "duplicate"),
            it.skipped.len()
        ))));
    }
    if let Some((_, q)) = &it.review {
        out.push(heading(t, "Review (quality report)"));
        let meets = if q.meets_threshold { "meets the threshold" } else { "below the threshold" };
        out.push(Line::from(vec![
            text(format!("  fetched {} · ", q.total_fetched)),
            Span::styled(format!("kept {}", q.verified), t.kept),
            text(" · ".into()),
            Span::styled(format!("rejected {}", q.rejected), t.rejected),
            muted(format!(" · quality {:.2} ({meets})", q.quality_score)),
        ]));
        if !q.rejection_breakdown.is_empty() {
            let parts: Vec<String> = q.rejection_breakdown.iter().map(|(k, v)| format!("{} {v}", inline(k))).collect();
            out.push(Line::from(muted(format!("  rejections: {}", parts.join(", ")))));
        }
        if let Some(s) = &q.suggested_refinement {
            out.push(Line::from(muted(format!("  suggested refinement: {}", suggestion(s)))));
        }
    }
    if let Some(reason) = &it.no_valid_sources {
        out.push(Line::from(Span::styled(format!("  no usable sources: {}", inline(reason)), t.rejected)));
    }
    if let Some(c) = &it.critique {
        out.push(Line::from(vec![
            Span::styled("Critique ", t.heading),
            Span::styled(format!("{:?}", c.verdict).to_uppercase(), t.text),
            muted(format!(" · {}", count(c.issues.len(), "issue"))),
        ]));
        let mut issues: Vec<_> = c.issues.iter().collect();
        issues.sort_by_key(|i| std::cmp::Reverse(i.severity));
        for i in issues {
            out.push(Line::from(vec![
                Span::styled(format!("  [{:?}]", i.severity).to_lowercase(), severity_style(t, i.severity)),
                text(format!(" {}", inline(&i.description))),
            ]));
        }
        if !c.gaps.is_empty() {
            out.push(Line::from(muted(format!("  gaps: {}", inline(&c.gaps.join("; "))))));
        }
        if !c.contradictions.is_empty() {
            out.push(Line::from(Span::styled(
                format!("  {}", count(c.contradictions.len(), "contradiction")),
                t.severity_high,
            )));
        }
    }
    if let Some(e) = &it.evaluation {
        out.push(heading(t, "Evaluation"));
        out.push(Line::from(text(format!(
            "  confidence {:.2} ({:+.2}) · coverage {:.2} ({} of {} aspects)",
            e.confidence, e.gain, e.coverage, e.aspects_addressed, e.aspects_required
        ))));
        out.push(Line::from(muted(format!(
            "  {} · {} sources cited · quality {:.2}",
            e.claims_line(),
            e.cited_sources,
            e.quality
        ))));
    }
    if let Some(d) = &it.decision {
        out.push(Line::from(vec![
            Span::styled("Decision ", t.heading),
            Span::styled(d.action.to_string(), t.action(d.action)),
            text(format!(" — {}", d.reason.label())),
        ]));
        out.push(Line::from(muted(format!("  {}", inline(&d.detail)))));
    }
    if forced_here(app, it) {
        out.push(Line::from(vec![
            Span::styled("Output forced ", t.heading),
            Span::styled("OUTPUT", t.action(crate::engine::model::Action::Output)),
            text(" — you asked for the report now".into()),
        ]));
    }
    if let Some(ask) = it.ask_id.as_ref().and_then(|id| app.state.asks.iter().find(|a| &a.ask_id == id)) {
        out.push(Line::from(vec![Span::styled("Asked ", t.heading), text(inline(&ask.clarification.question))]));
        let answer = ask.answer.as_ref().map_or("(waiting for the answer)".to_string(), |a| inline(a.as_text()));
        out.push(Line::from(Span::styled(format!("  answer: {answer}"), t.decision_ask)));
    }
    if let Some(r) = &it.refinement {
        out.push(Line::from(vec![Span::styled("Refinement ", t.heading), text(r.strategy.to_string())]));
        out.push(Line::from(text(format!("  {}", inline(&r.rationale)))));
        for (i, q) in r.queries.iter().enumerate() {
            out.push(Line::from(muted(format!("  next {}. \"{}\"", i + 1, inline(&q.text)))));
        }
        let keywords = keyword_parts(&r.negative_keywords, &r.positive_keywords);
        if !keywords.is_empty() {
            out.push(Line::from(muted(format!("  {}", keywords.join(" · ")))));
        }
    }
    for e in app.state.errors.iter().filter(|e| e.iteration == it.iteration) {
        out.push(Line::from(Span::styled(
            format!("error in {}: {}", inline(e.phase.as_str()), inline(&e.message)),
            t.rejected,
        )));
    }
    out
}

/// The pane's lines wrapped to `width`.
pub fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let Some(it) = app.shown_iteration() else {
        return vec![Line::from(Span::styled("no iteration yet", app.theme.muted))];
    };
    wrap(logical(app, it, width), width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{PlannedQuery, SuggestedRefinement};
    use crate::engine::state::QueryRecord;

    #[test]
    fn the_providers_that_answered_and_those_that_did_not_are_named() {
        let searched = |provider: &str| QueryRecord {
            query: PlannedQuery::new("q", ""),
            result: Some(QueryResult::Searched { provider: provider.into(), hits: 3, reformulated_from: None }),
        };
        let it = IterationRecord {
            queries: vec![searched("arxiv+openalex"), searched("openalex+europepmc")],
            ..IterationRecord::default()
        };
        let chains: Vec<Vec<String>> =
            ["arxiv", "openalex", "semanticscholar", "europepmc"].iter().map(|p| vec![p.to_string()]).collect();
        let (answered, silent) = providers_summary(&chains, &it).expect("several providers");
        assert_eq!(answered, ["arxiv", "openalex", "europepmc"]);
        assert_eq!(silent, ["semanticscholar"]);
        assert_eq!(providers_summary(&[vec!["local".into()]], &it), None, "one provider: nothing to say");
    }

    #[test]
    fn a_suggestion_leaves_out_empty_keyword_lists() {
        let s = |neg: &[&str], pos: &[&str]| SuggestedRefinement {
            reason: "off-topic pages".into(),
            add_negative_keywords: neg.iter().map(|k| k.to_string()).collect(),
            add_positive_keywords: pos.iter().map(|k| k.to_string()).collect(),
        };
        assert_eq!(suggestion(&s(&[], &[])), "off-topic pages");
        assert_eq!(suggestion(&s(&["forum"], &[])), "off-topic pages; exclude forum");
        assert_eq!(suggestion(&s(&[], &["From", "Into"])), "off-topic pages; add From, Into");
        assert_eq!(count(1, "issue"), "1 issue");
        assert_eq!(count(0, "issue"), "0 issues");
    }
}
