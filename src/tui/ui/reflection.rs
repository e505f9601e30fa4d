//! The reflection log of the shown iteration: the plan's reflection,
//! queries and their results, the quality report, the critique, the
//! evaluation, the decision and the refinement.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::timeline::action_style;
use super::widgets::{heading, scrolled};
use crate::engine::model::Severity;
use crate::engine::state::{IterationRecord, QueryResult};
use crate::tui::app::{App, Pane, SearchTarget};
use crate::tui::text::{inline, mark, truncate, wrap};
use crate::tui::theme::Theme;

pub struct ReflectionPane<'a>(pub &'a App);

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
        match &q.result {
            Some(QueryResult::Searched { provider, hits, reformulated_from }) => {
                spans.push(Span::styled(format!("→ {hits} hits"), t.kept));
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
    if it.search_completed {
        out.push(Line::from(muted(format!(
            "  {} new sources · {} duplicates · {} skipped",
            it.new_sources.len(),
            it.duplicates,
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
            out.push(Line::from(muted(format!(
                "  suggested refinement: {}; exclude [{}]; add [{}]",
                inline(&s.reason),
                inline(&s.add_negative_keywords.join(", ")),
                inline(&s.add_positive_keywords.join(", "))
            ))));
        }
    }
    if let Some(reason) = &it.no_valid_sources {
        out.push(Line::from(Span::styled(format!("  no usable sources: {}", inline(reason)), t.rejected)));
    }
    if let Some(c) = &it.critique {
        out.push(Line::from(vec![
            Span::styled("Critique ", t.heading),
            Span::styled(format!("{:?}", c.verdict).to_uppercase(), t.text),
            muted(format!(" · {} issues", c.issues.len())),
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
            out.push(Line::from(Span::styled(format!("  {} contradictions", c.contradictions.len()), t.severity_high)));
        }
    }
    if let Some(e) = &it.evaluation {
        out.push(heading(t, "Evaluation"));
        out.push(Line::from(text(format!(
            "  confidence {:.2} ({:+.2}) · coverage {:.2} ({} of {} aspects)",
            e.confidence, e.gain, e.coverage, e.aspects_addressed, e.aspects_required
        ))));
        out.push(Line::from(muted(format!(
            "  {} of {} claims supported · {} sources cited · quality {:.2}",
            e.supported_claims, e.claims, e.cited_sources, e.quality
        ))));
    }
    if let Some(d) = &it.decision {
        out.push(Line::from(vec![
            Span::styled("Decision ", t.heading),
            Span::styled(d.action.to_string(), action_style(t, d.action)),
            text(format!(" — {}", d.reason.label())),
        ]));
        out.push(Line::from(muted(format!("  {}", inline(&d.detail)))));
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
        if !r.negative_keywords.is_empty() || !r.positive_keywords.is_empty() {
            out.push(Line::from(muted(format!(
                "  exclude [{}] · add [{}]",
                inline(&r.negative_keywords.join(", ")),
                inline(&r.positive_keywords.join(", "))
            ))));
        }
    }
    for e in app.state.errors.iter().filter(|e| e.iteration == it.iteration) {
        out.push(Line::from(Span::styled(
            format!("error in {}: {}", inline(&e.phase), inline(&e.message)),
            t.rejected,
        )));
    }
    out
}

/// The pane's lines wrapped to `width`, search matches marked.
pub fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let Some(it) = app.shown_iteration() else {
        return vec![Line::from(Span::styled("no iteration yet", app.theme.muted))];
    };
    let term = app.search_term(SearchTarget::Pane(Pane::Reflection));
    let marked = logical(app, it, width).into_iter().map(|l| mark(l, term, app.theme.search_match)).collect();
    wrap(marked, width)
}

impl Widget for ReflectionPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let focused = app.focus == Pane::Reflection;
        super::detail_block(app, focused).render(area, buf);
        let (text_area, mark_col) = super::text_and_mark(area);
        let lines = lines(app, text_area.width as usize);
        scrolled(&lines, app.cursors.reflection, text_area, buf, Some((mark_col, app.theme.muted)));
    }
}
