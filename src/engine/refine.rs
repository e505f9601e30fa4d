//! REFINE's mechanics: choosing a strategy (EXPAND, NARROW, PIVOT,
//! DEEPEN), reformulating queries that found too little, and applying a
//! quality report's suggested keywords. The planner writes the new
//! queries for the strategy; these functions post-process them.

use std::collections::HashSet;

use super::model::{Evaluation, PlannedQuery, Reformulation, Strategy, SuggestedRefinement};
use super::settings::RefineSettings;
use crate::text::{STOPWORDS, normalize_for_match};

/// Seed 004's strategy selection, in its order.
pub fn select_strategy(e: &Evaluation, trend: &[f64], s: &RefineSettings) -> (Strategy, String) {
    if e.coverage < s.expand_below_coverage {
        return (
            Strategy::Expand,
            format!("coverage {:.2} < {:.2}: broaden the search", e.coverage, s.expand_below_coverage),
        );
    }
    if e.confidence < s.narrow_below_confidence && e.coverage > s.narrow_above_coverage {
        return (
            Strategy::Narrow,
            format!(
                "coverage {:.2} is high but confidence {:.2} is low: focus on weak areas",
                e.coverage, e.confidence
            ),
        );
    }
    if is_stuck(trend, s.pivot_after_iterations) {
        return (
            Strategy::Pivot,
            format!("no improvement in {} iterations: try another angle", s.pivot_after_iterations),
        );
    }
    if !e.gaps.is_empty() || e.coverage < 1.0 {
        let thin = crate::text::counted(e.gaps.len().max(1), "aspect is", "aspects are");
        return (Strategy::Deepen, format!("{thin} still thin: go deeper on them"));
    }
    (Strategy::Expand, "no specific weakness: broaden for corroboration".into())
}

/// No gain above a hair in the last `n` evaluated iterations.
pub fn is_stuck(trend: &[f64], n: usize) -> bool {
    n > 0 && trend.len() >= n && trend[trend.len() - n..].iter().all(|g| *g <= 0.01)
}

/// A broader form of a query: search syntax removed, stopwords dropped and,
/// if still long, its last term dropped. `None` when nothing would change.
pub fn broaden(query: &str) -> Option<String> {
    let terms: Vec<&str> = query
        .split_whitespace()
        .filter(|t| !t.starts_with('-'))
        .map(|t| t.trim_matches(|c: char| c == '"' || c == '+' || c == '(' || c == ')'))
        .filter(|t| !t.is_empty() && !STOPWORDS.contains(&t.to_lowercase().as_str()))
        .collect();
    let mut terms = terms;
    if terms.len() > 2 {
        terms.pop();
    }
    let broader = terms.join(" ");
    (!broader.is_empty() && normalize_for_match(&broader) != normalize_for_match(query)).then_some(broader)
}

/// What the previous iteration's queries returned.
pub struct QueryYield<'a> {
    pub text: &'a str,
    /// `None` when the query failed.
    pub hits: Option<usize>,
}

pub struct Mechanics {
    pub queries: Vec<PlannedQuery>,
    pub reformulations: Vec<Reformulation>,
    pub negative_keywords: Vec<String>,
    pub positive_keywords: Vec<String>,
}

/// Post-processes the planner's queries for the next iteration:
/// reformulations of queries that found fewer than `min_results`, the
/// suggested keywords (see [`apply_keywords`]; `stale` are earlier
/// refinements' exclusions), no query that already ran, at most `max_queries`.
pub fn apply_mechanics(
    planned: Vec<PlannedQuery>,
    previous: &[QueryYield<'_>],
    already_run: &HashSet<String>,
    suggestion: Option<&SuggestedRefinement>,
    max_queries: usize,
    stale: &HashSet<String>,
    s: &RefineSettings,
) -> Mechanics {
    let mut reformulations = Vec::new();
    let mut queries: Vec<PlannedQuery> = Vec::new();
    let mut seen: HashSet<String> = already_run.iter().map(|q| normalize_for_match(q)).collect();
    let mut reformulated_queries = 0;

    for y in previous {
        let thin = y.hits.is_none_or(|h| h < s.min_results);
        if !thin {
            continue;
        }
        if let Some(to) = broaden(y.text) {
            let why = match y.hits {
                None => "the query failed".to_string(),
                Some(h) => format!("{h} result(s) < {}", s.min_results),
            };
            reformulations.push(Reformulation { from: y.text.to_string(), to: to.clone(), why });
            if seen.insert(normalize_for_match(&to)) {
                queries.push(PlannedQuery::new(to, "reformulated: broader terms"));
                reformulated_queries += 1;
            }
        }
    }
    for q in planned {
        if seen.insert(normalize_for_match(&q.text)) {
            queries.push(q);
        }
    }
    // Reformulations first, but the planner's own queries must not be
    // crowded out entirely when the budget is small.
    if queries.len() > max_queries && max_queries > 1 {
        let keep_reformulated = reformulated_queries.min(max_queries / 2);
        let (ref_part, rest): (Vec<_>, Vec<_>) =
            queries.into_iter().enumerate().partition(|(i, _)| *i < reformulated_queries);
        queries = ref_part.into_iter().take(keep_reformulated).chain(rest).map(|(_, q)| q).take(max_queries).collect();
    }
    queries.truncate(max_queries.max(1));

    let (negative, positive) = suggestion
        .map_or((Vec::new(), Vec::new()), |sug| (sug.add_negative_keywords.clone(), sug.add_positive_keywords.clone()));
    let applied = apply_keywords(&mut queries, &negative, &positive, stale);
    Mechanics { queries, reformulations, negative_keywords: applied, positive_keywords: positive }
}

/// Placeholder words: what code samples and templates are full of, never
/// what a page is about.
const PLACEHOLDERS: &[&str] =
    &["foo", "bar", "baz", "qux", "quux", "xyz", "xxx", "tbd", "todo", "lorem", "ipsum", "dummy", "placeholder"];

/// Whether `term` may be excluded from a query whose words are `words`:
/// never a word (or phrase) the query itself searches for, never a word of
/// one or two characters (`-t` excludes half the web) or a placeholder.
/// `site:host` exclusions are judged by their host alone.
pub fn excludable(term: &str, words: &[String]) -> bool {
    let term = term.trim();
    if let Some(host) = term.strip_prefix("site:") {
        return host.trim().chars().filter(|c| c.is_alphanumeric()).count() >= 3;
    }
    let parts = words_of(term);
    if parts.is_empty() || parts.iter().all(|w| w.chars().count() <= 2 || PLACEHOLDERS.contains(&w.as_str())) {
        return false;
    }
    // A phrase the query contains, word for word, is what it searches for.
    !words.windows(parts.len()).any(|win| win.iter().zip(&parts).all(|(a, b)| a == b))
}

/// The lowercased words of a query or term, punctuation and quotes left out.
pub(crate) fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Adds the refinement's keywords to every query: `positive` terms to the
/// text, then `negative` ones as exclusions where [`excludable`] allows. A
/// query's own exclusions (the planner's) pass the same test, and one that
/// an earlier refinement computed (`stale`) is dropped: exclusions belong to
/// the refinement that computed them, they do not stick to later queries.
/// Returns the exclusions applied to at least one query.
pub fn apply_keywords(
    queries: &mut [PlannedQuery],
    negative: &[String],
    positive: &[String],
    stale: &HashSet<String>,
) -> Vec<String> {
    let mut applied: Vec<String> = Vec::new();
    for q in queries.iter_mut() {
        for p in positive {
            if !normalize_for_match(&q.text).split(' ').any(|w| w == normalize_for_match(p)) {
                q.text.push(' ');
                q.text.push_str(p);
            }
        }
        let words = words_of(&q.text);
        let own = std::mem::take(&mut q.exclude);
        let own = own.into_iter().filter(|t| !stale.contains(t) || negative.contains(t));
        for n in own.chain(negative.iter().cloned()) {
            if !q.exclude.contains(&n) && excludable(&n, &words) {
                if negative.contains(&n) && !applied.contains(&n) {
                    applied.push(n.clone());
                }
                q.exclude.push(n);
            }
        }
    }
    applied
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{ConfidenceComponents, ConfidenceWeights, DimensionScores, Verdict};

    fn eval(confidence: f64, coverage: f64, gaps: &[&str]) -> Evaluation {
        Evaluation {
            confidence,
            components: ConfidenceComponents::default(),
            weights: ConfidenceWeights::default(),
            coverage,
            aspects_required: 0,
            aspects_addressed: 0,
            dimensions: DimensionScores::default(),
            quality: 0.0,
            verdict: Verdict::Warn,
            severity_total: 0.0,
            gaps: gaps.iter().map(|s| s.to_string()).collect(),
            contradictions: 0,
            claims: 0,
            supported_claims: 0,
            cited_sources: 0,
            needs_clarification: false,
            gain: 0.0,
            draft_similarity: None,
            failed_phases: vec![],
            unanswered: false,
            time_sensitive: false,
            held_back: None,
            calibration: None,
        }
    }

    #[test]
    fn strategy_follows_seed_004_order() {
        let s = RefineSettings::default();
        assert_eq!(select_strategy(&eval(0.9, 0.3, &[]), &[0.5], &s).0, Strategy::Expand);
        assert_eq!(select_strategy(&eval(0.4, 0.8, &[]), &[0.4], &s).0, Strategy::Narrow);
        assert_eq!(select_strategy(&eval(0.6, 0.6, &["x"]), &[0.6, 0.0, 0.0, 0.0], &s).0, Strategy::Pivot);
        assert_eq!(select_strategy(&eval(0.6, 0.6, &["x"]), &[0.6, 0.1], &s).0, Strategy::Deepen);
        assert_eq!(select_strategy(&eval(0.8, 1.0, &[]), &[0.8], &s).0, Strategy::Expand);
    }

    #[test]
    fn broaden_strips_syntax_and_drops_a_term() {
        assert_eq!(broaden("\"lifetime elision\" rules -nightly").as_deref(), Some("lifetime elision"));
        assert_eq!(broaden("how does the orphan rule work").as_deref(), Some("orphan rule"));
        assert_eq!(broaden("arc"), None);
    }

    #[test]
    fn thin_queries_are_reformulated_and_repeats_dropped() {
        let already: HashSet<String> = ["rc arc threads".to_string()].into();
        let previous = [
            QueryYield { text: "rc arc threads", hits: Some(1) },
            QueryYield { text: "arc atomic", hits: Some(8) },
            QueryYield { text: "send sync bounds", hits: None },
        ];
        let planned = vec![PlannedQuery::new("RC arc threads", "repeat"), PlannedQuery::new("arc clone cost", "new")];
        let m = apply_mechanics(planned, &previous, &already, None, 10, &HashSet::new(), &RefineSettings::default());
        let texts: Vec<&str> = m.queries.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts, vec!["rc arc", "send sync", "arc clone cost"]);
        assert_eq!(m.reformulations.len(), 2);
        assert_eq!(m.reformulations[1].why, "the query failed");
    }

    #[test]
    fn suggested_keywords_are_applied_to_every_query() {
        let sug = SuggestedRefinement {
            reason: "r".into(),
            add_negative_keywords: vec!["cage".into()],
            add_positive_keywords: vec!["breeder".into()],
        };
        let planned = vec![PlannedQuery::new("syrian hamster", "x"), PlannedQuery::new("hamster breeder", "y")];
        let m =
            apply_mechanics(planned, &[], &HashSet::new(), Some(&sug), 10, &HashSet::new(), &RefineSettings::default());
        assert_eq!(m.queries[0].text, "syrian hamster breeder");
        assert_eq!(m.queries[1].text, "hamster breeder");
        assert!(m.queries.iter().all(|q| q.exclude == vec!["cage".to_string()]));
    }

    #[test]
    fn capped_at_max_queries_keeping_planner_queries() {
        let previous: Vec<QueryYield> = ["alpha beta gamma", "delta epsilon zeta", "eta theta iota"]
            .iter()
            .map(|t| QueryYield { text: t, hits: Some(0) })
            .collect();
        let planned = vec![PlannedQuery::new("new one", ""), PlannedQuery::new("new two", "")];
        let m =
            apply_mechanics(planned, &previous, &HashSet::new(), None, 3, &HashSet::new(), &RefineSettings::default());
        let texts: Vec<&str> = m.queries.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts, vec!["alpha beta", "new one", "new two"]);
    }

    #[test]
    fn a_query_never_excludes_its_own_terms_short_words_or_placeholders() {
        let sug = SuggestedRefinement {
            reason: "r".into(),
            add_negative_keywords: ["raw", "weak", "t", "foo", "casino", "Pointer", "site:spam.example", "site:x"]
                .map(String::from)
                .to_vec(),
            add_positive_keywords: vec!["weak".into()],
        };
        let planned = vec![
            PlannedQuery::new("broken references", "x"),
            PlannedQuery::new("pointer type data", "y"),
            PlannedQuery::new("\"raw pointer\" casts", "z"),
        ];
        let m =
            apply_mechanics(planned, &[], &HashSet::new(), Some(&sug), 10, &HashSet::new(), &RefineSettings::default());
        let excluded: Vec<Vec<&str>> =
            m.queries.iter().map(|q| q.exclude.iter().map(String::as_str).collect()).collect();
        assert_eq!(m.queries[0].text, "broken references weak", "the positive keyword is searched for");
        assert_eq!(excluded[0], vec!["raw", "casino", "Pointer", "site:spam.example"]);
        assert_eq!(excluded[1], vec!["raw", "casino", "site:spam.example"]);
        assert_eq!(excluded[2], vec!["casino", "site:spam.example"]);
        assert_eq!(m.negative_keywords, vec!["raw", "casino", "Pointer", "site:spam.example"]);
        assert!(excludable("toy store", &words_of("pet store prices")), "a phrase, not its words");
        assert!(!excludable("pet store", &words_of("pet store prices")));
    }

    #[test]
    fn exclusions_belong_to_the_refinement_that_computed_them() {
        // The planner repeats last refinement's exclusion and adds one of its own.
        let mut planned = PlannedQuery::new("arc clone cost", "x");
        planned.exclude = vec!["casino".into(), "tutorial".into(), "cost".into()];
        let stale: HashSet<String> = ["casino".to_string()].into();
        let m =
            apply_mechanics(vec![planned.clone()], &[], &HashSet::new(), None, 10, &stale, &RefineSettings::default());
        assert_eq!(m.queries[0].exclude, vec!["tutorial".to_string()]);
        assert!(m.negative_keywords.is_empty());
        // Suggested again by this refinement, it applies again.
        let sug = SuggestedRefinement {
            reason: "r".into(),
            add_negative_keywords: vec!["casino".into()],
            add_positive_keywords: Vec::new(),
        };
        let m =
            apply_mechanics(vec![planned], &[], &HashSet::new(), Some(&sug), 10, &stale, &RefineSettings::default());
        assert_eq!(m.queries[0].exclude, vec!["casino".to_string(), "tutorial".to_string()]);
    }
}
