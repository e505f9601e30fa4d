//! Seed 003's convergence signals: the draft barely changed, or the
//! critique's issues stopped getting better.

use std::collections::HashSet;

use super::model::Critique;
use crate::text::{normalize_for_match, shingle_similarity};

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Convergence {
    /// Similarity of the last two drafts, when there are two.
    pub draft_similarity: Option<f64>,
    pub severity_plateau: bool,
    pub threshold: f64,
}

impl Convergence {
    pub fn reason(&self) -> Option<String> {
        if let Some(sim) = self.draft_similarity.filter(|s| *s >= self.threshold) {
            return Some(format!("draft changed little (similarity {sim:.2} ≥ {:.2})", self.threshold));
        }
        self.severity_plateau.then(|| "critique severity plateaued with no new issues".to_string())
    }
}

/// Similarity of two drafts' text in `[0, 1]`.
pub fn draft_similarity(previous: &str, current: &str) -> f64 {
    if previous.trim().is_empty() && current.trim().is_empty() {
        return 1.0;
    }
    shingle_similarity(previous, current)
}

/// True when over the last `window` + 1 critiques the severity total never
/// went down and no critique raised an issue the one before it lacked.
pub fn severity_plateau(critiques: &[&Critique], window: usize) -> bool {
    if window == 0 || critiques.len() < window + 1 {
        return false;
    }
    let recent = &critiques[critiques.len() - window - 1..];
    recent.windows(2).all(|pair| {
        let (before, after) = (pair[0], pair[1]);
        let known: HashSet<String> = before.issues.iter().map(|i| normalize_for_match(&i.description)).collect();
        let no_new = after.issues.iter().all(|i| known.contains(&normalize_for_match(&i.description)));
        no_new && after.severity_total() >= before.severity_total() && !after.issues.is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Issue, Severity, Verdict};

    fn critique(issues: &[(&str, Severity)]) -> Critique {
        Critique {
            verdict: Verdict::Warn,
            issues: issues
                .iter()
                .map(|(d, s)| Issue { severity: *s, description: d.to_string(), aspect: None })
                .collect(),
            aspects_required: vec![],
            aspects_addressed: vec![],
            weak_aspects: vec![],
            gaps: vec![],
            related_aspects: vec![],
            contradictions: vec![],
            needs_clarification: None,
            dimensions: None,
            answer_relevance: None,
            unanswered: false,
        }
    }

    #[test]
    fn same_issues_twice_is_a_plateau() {
        let a = critique(&[("no source for X", Severity::High)]);
        let b = critique(&[("No source for  x", Severity::High)]);
        let c = critique(&[("no source for X", Severity::High)]);
        assert!(severity_plateau(&[&a, &b, &c], 2));
        assert!(!severity_plateau(&[&a, &b], 2), "needs window + 1 critiques");
    }

    #[test]
    fn improving_or_new_issues_is_not_a_plateau() {
        let a = critique(&[("gap one", Severity::High), ("gap two", Severity::Low)]);
        let b = critique(&[("gap one", Severity::High)]);
        let c = critique(&[("gap one", Severity::High), ("gap three", Severity::Low)]);
        assert!(!severity_plateau(&[&a, &b, &b], 2), "severity went down");
        assert!(!severity_plateau(&[&b, &b, &c], 2), "a new issue appeared");
    }

    #[test]
    fn no_issues_is_not_a_plateau() {
        let a = critique(&[]);
        assert!(!severity_plateau(&[&a, &a, &a], 2));
    }

    #[test]
    fn reason_prefers_draft_similarity() {
        let c = Convergence { draft_similarity: Some(0.97), severity_plateau: true, threshold: 0.95 };
        assert!(c.reason().is_some_and(|r| r.contains("similarity")));
        let c = Convergence { draft_similarity: Some(0.5), severity_plateau: false, threshold: 0.95 };
        assert_eq!(c.reason(), None);
    }
}
