//! What a phase produces when the reasoner fails for good (a model that
//! keeps answering garbage, an endpoint that went away): something simple
//! and honest, so the loop degrades instead of crashing (ARCHITECTURE.md, "How a
//! session runs").

use super::model::{Citation, Claim, Critique, Draft, PlannedQuery, Reflection, SourceVerdict, Verdict};
use super::reasoner::SourceDoc;
use crate::text::content_terms;

/// A constraint's query is its first few content terms: a long note must
/// not become a paragraph-long search.
const MAX_CONSTRAINT_TERMS: usize = 6;

/// `said` are the user's constraints (answers and notes); a follow-up's
/// imported findings are context, not something to search for, and are
/// left out by the caller (`SessionState::said_constraints`).
pub fn plan(question: &str, said: &[String], max_queries: usize) -> (Reflection, Vec<PlannedQuery>) {
    let mut queries = vec![PlannedQuery::new(question, "the question as asked (planner unavailable)")];
    let terms = content_terms(question);
    if terms.len() > 1 {
        queries.push(PlannedQuery::new(terms.join(" "), "content terms of the question"));
    }
    for c in said.iter().take(max_queries.saturating_sub(queries.len())) {
        let mut t = content_terms(c);
        t.truncate(MAX_CONSTRAINT_TERMS);
        if !t.is_empty() {
            queries.push(PlannedQuery::new(t.join(" "), "a constraint from the user"));
        }
    }
    queries.truncate(max_queries.max(1));
    let reflection = Reflection {
        plan: "Search the question directly; the planner failed, so no decomposition was made.".into(),
        assumptions: vec!["The question's own words find relevant sources.".into()],
        risks: vec!["Without a plan, aspects of the question may be missed.".into()],
        success_criteria: vec!["Sources that mention the question's terms.".into()],
    };
    (reflection, queries)
}

/// Keep everything, scored by the provider's own rank.
pub fn review(candidates: &[SourceDoc]) -> Vec<SourceVerdict> {
    let max = candidates.iter().map(|c| c.meta.score).fold(0.0f32, f32::max);
    candidates
        .iter()
        .map(|c| SourceVerdict {
            id: c.meta.id,
            kept: true,
            reason: None,
            relevance: if max > 0.0 { c.meta.score / max } else { 0.5 },
            signals: Vec::new(),
        })
        .collect()
}

/// The first sentence of each of the best sources, quoted verbatim.
pub fn draft(sources: &[SourceDoc], previous: Option<&Draft>) -> Draft {
    if let Some(p) = previous {
        return p.clone();
    }
    let mut claims = Vec::new();
    let mut markdown = String::new();
    for s in sources.iter().take(5) {
        let Some(sentence) = first_sentence(&s.text) else { continue };
        markdown.push_str(&format!("- {} [{}]\n", sentence, s.meta.id.0));
        claims.push(Claim {
            text: sentence.to_string(),
            citations: vec![Citation { source: s.meta.id, quote: sentence.to_string() }],
            aspect: None,
        });
    }
    Draft { markdown, claims }
}

/// A cautious verdict: aspects are the question's content terms.
pub fn critique(question: &str, draft: &Draft) -> Critique {
    let required = content_terms(question);
    let text = draft.markdown.to_lowercase();
    let addressed: Vec<String> = required.iter().filter(|t| text.contains(t.as_str())).cloned().collect();
    let gaps: Vec<String> = required.iter().filter(|t| !addressed.contains(t)).cloned().collect();
    Critique {
        verdict: Verdict::Warn,
        issues: Vec::new(),
        aspects_required: required,
        aspects_addressed: addressed,
        weak_aspects: Vec::new(),
        gaps,
        related_aspects: Vec::new(),
        contradictions: Vec::new(),
        needs_clarification: None,
        dimensions: None,
        answer_relevance: None,
        unanswered: false,
    }
}

fn first_sentence(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let end = t.find(". ").map(|i| i + 1).unwrap_or(t.len().min(240));
    let end = (0..=end).rev().find(|i| t.is_char_boundary(*i)).unwrap_or(0);
    let s = t[..end].trim();
    (s.len() >= 20).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::imported::ImportedContext;

    #[test]
    fn the_plan_searches_no_imported_findings_and_keeps_notes_short() {
        let imported = ImportedContext {
            session_id: "s".into(),
            question: "How does the ? operator convert errors?".into(),
            findings: (1..=10).map(|i| format!("finding {i} about conversion traits and boxing [{i}]")).collect(),
            sources: Vec::new(),
        };
        let note = "prefer tokio examples with thiserror derive macros and anyhow context chains";
        // The fold keeps the imported findings apart from what the user said.
        let state = crate::engine::state::SessionState {
            imported_constraints: 1,
            constraints: vec![imported.as_constraint(), format!("Note from the user: {note}")],
            ..Default::default()
        };
        let (_, queries) = plan("How do I write a From impl for my error?", state.said_constraints(), 10);
        let texts: Vec<&str> = queries.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts.iter().all(|t| !t.contains("boxing") && !t.contains("follows")), "{texts:?}");
        assert!(texts[2].contains("tokio"), "the note is still searched: {texts:?}");
        assert!(texts[2].split_whitespace().count() <= MAX_CONSTRAINT_TERMS, "{texts:?}");
    }
}
