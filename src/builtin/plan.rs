//! PLAN and REFINE. The first plan searches the whole question and each
//! aspect with the question's rarest term for context. A refinement does
//! what its strategy says: EXPAND adds terms that co-occur with the
//! aspects in the best passages; NARROW drops aspects already covered;
//! PIVOT rewrites the queries with the best sources' own distinctive terms;
//! DEEPEN queries each weak aspect alone.

use std::collections::{HashMap, HashSet};

use super::Src;
use super::analysis::{Stemmer, is_stopword};
use super::aspects::{Aspect, question_words};
use super::avoided::avoided;
use super::rarity::Weights;
use crate::engine::imported::is_imported_constraint;
use crate::engine::model::{AspectKind, PlannedQuery, Reflection, Strategy};
use crate::engine::reasoner::{PlanContext, PlanOutput};
use crate::text::normalize_for_match;

/// Collects distinct queries up to a budget, skipping ones already run.
struct Queries {
    out: Vec<PlannedQuery>,
    seen: HashSet<String>,
    max: usize,
    suffix: String,
}

impl Queries {
    fn new(max: usize, already_run: &[String], suffix: String) -> Self {
        let seen = already_run.iter().map(|q| normalize_for_match(q)).collect();
        Self { out: Vec::new(), seen, max: max.max(1), suffix }
    }

    fn push(&mut self, text: &str, intent: String, aspect: Option<&Aspect>) {
        if self.out.len() >= self.max {
            return;
        }
        // "vs" joins a comparison's label: it is no search term. A word is
        // searched once.
        let mut words: Vec<&str> = Vec::new();
        for w in text.split_whitespace().filter(|w| *w != "vs") {
            if !words.iter().any(|x| x.eq_ignore_ascii_case(w)) {
                words.push(w);
            }
        }
        let mut text = words.join(" ");
        if !self.suffix.is_empty() {
            text = format!("{text} {}", self.suffix);
        }
        if text.trim().is_empty() || !self.seen.insert(normalize_for_match(&text)) {
            return;
        }
        let mut q = PlannedQuery::new(text, intent);
        q.aspect = aspect.map(|a| a.label.clone());
        if aspect.is_some_and(|a| a.related) {
            q.aspect_kind = AspectKind::Related;
        }
        self.out.push(q);
    }

    fn full(&self) -> bool {
        self.out.len() >= self.max
    }
}

/// The most words one constraint adds: every query carries them, so a long
/// note must not turn each query into a paragraph.
pub const MAX_WORDS_PER_CONSTRAINT: usize = 4;
/// The most words all constraints add together.
pub const MAX_CONSTRAINT_WORDS: usize = 8;

/// Content words the user added (answers to ASKs, notes), not already in
/// the question, a few from each. A follow-up's imported findings are
/// context for the phases, not words the user asked to search for.
pub fn constraint_words(constraints: &[String], question: &str) -> Vec<String> {
    let q: HashSet<String> = question.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect();
    let mut out: Vec<String> = Vec::new();
    for c in constraints.iter().filter(|c| !is_imported_constraint(c)) {
        let said = c.rsplit_once("answered:").or_else(|| c.rsplit_once("user:")).map_or(c.as_str(), |(_, a)| a);
        let mut added = 0;
        for w in said.split(|ch: char| !ch.is_alphanumeric() && ch != '_') {
            if added >= MAX_WORDS_PER_CONSTRAINT || out.len() >= MAX_CONSTRAINT_WORDS {
                break;
            }
            let lw = w.to_lowercase();
            if w.len() > 1 && !is_stopword(w) && !q.contains(&lw) && !out.contains(&lw) {
                out.push(lw);
                added += 1;
            }
        }
    }
    out
}

/// The key term of the weightiest aspect other than `a`: context that keeps
/// an aspect's query about this question.
fn context_word(a: &Aspect, aspects: &[Aspect], question: &str, stemmer: &mut Stemmer) -> Option<String> {
    let other =
        aspects.iter().filter(|o| o.label != a.label && !o.related).max_by(|x, y| x.weight.total_cmp(&y.weight))?;
    let key = other.key.first()?;
    question
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .find(|w| stemmer.stem(w).as_deref() == Some(key.as_str()))
        .map(str::to_string)
}

/// The words of aspects, without a comparison's own "A vs B" label.
fn words_of(of: &[Aspect]) -> Vec<&str> {
    of.iter().filter(|a| !a.label.contains(" vs ")).map(|a| a.label.as_str()).collect()
}

pub fn first_plan(
    ctx: &PlanContext,
    aspects: &[Aspect],
    uncapped: &[Aspect],
    weights: &Weights,
    stemmer: &mut Stemmer,
    corpus_note: &str,
) -> PlanOutput {
    let extra = constraint_words(&ctx.constraints, &ctx.question).join(" ");
    let mut qs = Queries::new(ctx.max_queries, &ctx.already_run, extra.clone());
    let labels: Vec<&str> = aspects.iter().map(|a| a.label.as_str()).collect();
    let parts = words_of(aspects);
    qs.push(&parts.join(" "), "the whole question".into(), None);
    // The aspects are the question's heaviest few: a word common in the
    // corpus but central to the question ("In a match, …") falls outside
    // them. The question with every aspect is searched too.
    let every = words_of(uncapped);
    if every.len() > parts.len() {
        qs.push(&every.join(" "), "the whole question, every word".into(), None);
    }
    // What the asker wants to do without names what the answer replaces:
    // the question without it is searched too, when two things are left.
    let avoided = avoided(&question_words(&ctx.question));
    let wanted: Vec<&Aspect> = aspects
        .iter()
        .filter(|a| !a.label.contains(" vs ") && !avoided.get(a.position).copied().unwrap_or(false))
        .collect();
    if wanted.len() < parts.len() && wanted.iter().filter(|a| !a.action).count() >= 2 {
        let labels: Vec<&str> = wanted.iter().map(|a| a.label.as_str()).collect();
        qs.push(&labels.join(" "), "the question without what the asker would do without".into(), None);
    }
    // The question less one of its lighter words at a time: each variant
    // reorders the results, so together they reach deeper than one query.
    let words: Vec<&str> = parts.iter().flat_map(|p| p.split_whitespace()).collect();
    let mut weighted: Vec<(usize, f64)> = words
        .iter()
        .enumerate()
        .filter_map(|(i, w)| stemmer.stem(w.trim_matches('`')).map(|s| (i, weights.of(&s))))
        .collect();
    if weighted.len() >= 3 {
        weighted.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        for (drop, _) in weighted.iter().take(3) {
            let variant: Vec<&str> = words.iter().enumerate().filter(|(i, _)| i != drop).map(|(_, w)| *w).collect();
            qs.push(&variant.join(" "), format!("the question without “{}”", words[*drop]), None);
        }
    }
    let mut by_weight: Vec<&Aspect> = aspects.iter().collect();
    by_weight.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    for a in &by_weight {
        let ctx_word = context_word(a, aspects, &ctx.question, stemmer).unwrap_or_default();
        qs.push(&format!("{} {ctx_word}", a.label), format!("aspect “{}” in the question's context", a.label), Some(a));
    }
    for a in &by_weight {
        qs.push(&a.label, format!("aspect “{}” on its own", a.label), Some(a));
    }
    for (i, a) in by_weight.iter().enumerate() {
        for b in by_weight.iter().skip(i + 1) {
            if qs.full() {
                break;
            }
            qs.push(
                &format!("{} {}", a.label, b.label),
                format!("how “{}” relates to “{}”", a.label, b.label),
                Some(a),
            );
        }
    }
    let reflection = Reflection {
        plan: format!(
            "Split the question into {} aspect(s) ({}), weighted by how rare their terms are ({corpus_note}); \
             search the whole question, then each aspect with the question's rarest other term for context.",
            aspects.len(),
            aspects.iter().map(|a| format!("{} {:.2}", a.label, a.weight)).collect::<Vec<_>>().join("; ")
        ),
        assumptions: assumptions(ctx, &extra, weights),
        risks: risks(aspects, weights),
        success_criteria: vec![
            format!("Every aspect ({}) is supported by at least one quoted sentence.", labels.join("; ")),
            "At least three distinct sources are cited.".into(),
            "No two sources left disagreeing without a note.".into(),
        ],
    };
    PlanOutput { reflection, queries: qs.out }
}

fn assumptions(ctx: &PlanContext, extra: &str, weights: &Weights) -> Vec<String> {
    let mut v = vec!["The sources name the question's aspects with the question's own words.".to_string()];
    if !weights.has_corpus() {
        v.push("No corpus statistics: term weights come from the sources found so far.".into());
    }
    if !extra.is_empty() {
        v.push(format!("The user's answers narrow the question: queries add “{extra}”."));
    }
    if !ctx.memories.is_empty() {
        v.push(format!("{} lesson(s) from earlier sessions apply.", ctx.memories.len()));
    }
    v
}

fn risks(aspects: &[Aspect], weights: &Weights) -> Vec<String> {
    let mut v = Vec::new();
    for a in aspects {
        if a.weight < 0.25 {
            v.push(format!(
                "“{}” uses common words (weight {:.2}): its results may drift off topic.",
                a.label, a.weight
            ));
        }
        for k in &a.key {
            if weights.absent_from_corpus(k) {
                v.push(format!("“{k}” does not occur in the corpus: “{}” may stay a gap.", a.label));
            }
        }
    }
    if aspects.len() <= 1 {
        v.push("A one-aspect question is easy to answer too narrowly.".into());
    }
    v
}

/// Terms that co-occur with `a` in the sources' sentences, weightiest
/// first, leaving out `exclude`.
pub fn neighbours(
    a: &Aspect,
    sources: &[Src<'_>],
    weights: &Weights,
    exclude: &HashSet<String>,
    n: usize,
) -> Vec<String> {
    let mut score: HashMap<&str, f64> = HashMap::new();
    let mut surface: HashMap<&str, &str> = HashMap::new();
    for s in sources.iter().take(8) {
        for sent in &s.an.sentences {
            if !a.key.iter().any(|k| sent.has(k)) {
                continue;
            }
            for stem in &sent.stems {
                if exclude.contains(stem) || a.stems.contains(stem) {
                    continue;
                }
                *score.entry(stem).or_default() += weights.of(stem);
                if let Some(w) = s.an.surface.get(stem) {
                    surface.entry(stem).or_insert(w);
                }
            }
        }
    }
    let mut v: Vec<(&str, f64)> = score.into_iter().filter(|(s, _)| weights.of(s) >= 0.3 && is_word(s)).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    v.into_iter().take(n).map(|(s, _)| surface.get(s).map_or(s, |w| *w).to_string()).collect()
}

/// A term worth searching: letters, not a number or a fragment.
fn is_word(stem: &str) -> bool {
    stem.chars().count() >= 3 && stem.chars().any(char::is_alphabetic) && !stem.chars().any(|c| c.is_ascii_digit())
}

/// The most distinctive terms of the best sources (term frequency × weight).
fn distinctive_terms(sources: &[Src<'_>], weights: &Weights, exclude: &HashSet<String>, n: usize) -> Vec<String> {
    let mut score: HashMap<&str, f64> = HashMap::new();
    let mut surface: HashMap<&str, &str> = HashMap::new();
    for s in sources.iter().take(3) {
        for (stem, tf) in &s.an.tf {
            // Terms used once are as likely noise (a number, a name) as topic.
            if exclude.contains(stem) || *tf < 2 || !is_word(stem) {
                continue;
            }
            *score.entry(stem).or_default() += (1.0 + f64::from(*tf).ln()) * weights.of(stem);
            if let Some(w) = s.an.surface.get(stem) {
                surface.entry(stem).or_insert(w);
            }
        }
    }
    let mut v: Vec<(&str, f64)> = score.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    v.into_iter().take(n).map(|(s, _)| surface.get(s).map_or(s, |w| *w).to_string()).collect()
}

/// REFINE: new queries for the strategy the engine chose.
pub fn refine_plan(
    ctx: &PlanContext,
    strategy: Strategy,
    aspects: &[Aspect],
    weights: &Weights,
    sources: &[Src<'_>],
    stemmer: &mut Stemmer,
) -> PlanOutput {
    let critique = ctx.prior.as_ref().and_then(|p| p.critique.as_ref());
    let gaps: Vec<&Aspect> = aspects.iter().filter(|a| critique.is_some_and(|c| c.gaps.contains(&a.label))).collect();
    let weak: Vec<&Aspect> =
        aspects.iter().filter(|a| critique.is_some_and(|c| c.weak_aspects.contains(&a.label))).collect();
    let covered: Vec<&Aspect> = aspects
        .iter()
        .filter(|a| {
            critique.is_some_and(|c| c.aspects_addressed.contains(&a.label) && !c.weak_aspects.contains(&a.label))
        })
        .collect();
    let extra = constraint_words(&ctx.constraints, &ctx.question).join(" ");
    let mut qs = Queries::new(ctx.max_queries, &ctx.already_run, extra.clone());
    let question_stems: HashSet<String> = aspects.iter().flat_map(|a| a.stems.iter().cloned()).collect();
    let thin: Vec<&Aspect> = gaps.iter().chain(weak.iter()).copied().collect();
    let focus: Vec<&Aspect> = if thin.is_empty() { aspects.iter().collect() } else { thin.clone() };
    let (what, dropped): (String, Vec<String>) = match strategy {
        Strategy::Expand => {
            for a in focus.iter().copied().chain(aspects.iter().filter(|a| !focus.iter().any(|f| f.label == a.label))) {
                let near = neighbours(a, sources, weights, &question_stems, 2);
                if !near.is_empty() {
                    qs.push(
                        &format!("{} {}", a.label, near.join(" ")),
                        format!("“{}” with neighbouring terms {}", a.label, near.join(", ")),
                        Some(a),
                    );
                }
                let anchor = if a.related {
                    context_word(a, aspects, &ctx.question, stemmer).unwrap_or_default()
                } else {
                    String::new()
                };
                qs.push(&format!("{} {anchor}", a.label), format!("“{}” on its own", a.label), Some(a));
            }
            (
                "EXPAND: each aspect searched with the terms that co-occur with it in the best passages".into(),
                Vec::new(),
            )
        }
        Strategy::Narrow => {
            let targets: Vec<&Aspect> = if thin.is_empty() {
                let mut v: Vec<&Aspect> = aspects.iter().collect();
                v.sort_by(|a, b| a.weight.total_cmp(&b.weight));
                v.into_iter().take(2).collect()
            } else {
                thin.clone()
            };
            for a in &targets {
                let ctx_word = context_word(a, aspects, &ctx.question, stemmer).unwrap_or_default();
                qs.push(
                    &format!("{} {ctx_word}", a.label),
                    format!("only the weak aspect “{}”, in context", a.label),
                    Some(a),
                );
                let near = neighbours(a, sources, weights, &question_stems, 1);
                qs.push(&format!("{} {}", a.label, near.join(" ")), format!("“{}” made specific", a.label), Some(a));
            }
            let dropped: Vec<String> = covered.iter().map(|a| a.label.clone()).collect();
            ("NARROW: covered aspects dropped; only the weak ones searched".into(), dropped)
        }
        Strategy::Pivot => {
            let fresh = distinctive_terms(sources, weights, &question_stems, 6);
            for (i, a) in focus.iter().enumerate() {
                let pair: Vec<&str> = fresh.iter().skip(i * 2).take(2).map(String::as_str).collect();
                if !pair.is_empty() {
                    qs.push(
                        &format!("{} {}", a.label, pair.join(" ")),
                        format!("“{}” in the best sources' own terms", a.label),
                        Some(a),
                    );
                }
            }
            if fresh.len() >= 2 {
                qs.push(&fresh[..fresh.len().min(3)].join(" "), "the best sources' vocabulary alone".into(), None);
            }
            ("PIVOT: queries rewritten with the distinctive terms of the best passages".into(), Vec::new())
        }
        Strategy::Deepen => {
            for a in &focus {
                if a.related {
                    // A related concept alone may mean anything: keep the question's anchor.
                    let anchor = context_word(a, aspects, &ctx.question, stemmer).unwrap_or_default();
                    qs.push(&format!("{} {anchor}", a.label), format!("the related concept “{}”", a.label), Some(a));
                    continue;
                }
                qs.push(&a.label, format!("the weak aspect “{}” alone", a.label), Some(a));
                for k in a.key.iter().filter(|_| a.key.len() > 1) {
                    let word = a.label.split_whitespace().find(|w| stemmer.stem(w).as_deref() == Some(k.as_str()));
                    if let Some(w) = word {
                        qs.push(w, format!("the key term of “{}”", a.label), Some(a));
                    }
                }
                let near = neighbours(a, sources, weights, &question_stems, 1);
                qs.push(&format!("{} {}", a.label, near.join(" ")), format!("“{}” in more detail", a.label), Some(a));
            }
            ("DEEPEN: each weak aspect queried alone".into(), Vec::new())
        }
    };
    if qs.out.is_empty() {
        // Everything above already ran: fall back on the aspects' labels
        // with the best sources' terms, so the iteration still learns.
        let fresh = distinctive_terms(sources, weights, &question_stems, 4);
        for a in aspects {
            qs.push(&format!("{} {}", a.label, fresh.join(" ")), format!("“{}” with new terms", a.label), Some(a));
        }
    }
    let focus_labels: Vec<&str> = focus.iter().map(|a| a.label.as_str()).collect();
    let mut assumptions = vec![format!("Why: {}.", ctx.strategy_rationale)];
    if !dropped.is_empty() {
        assumptions.push(format!("Already covered, no longer searched: {}.", dropped.join("; ")));
    }
    if !extra.is_empty() {
        assumptions.push(format!("The user's answers narrow the question: queries add “{extra}”."));
    }
    let reflection = Reflection {
        plan: format!("{what}; focus: {}.", focus_labels.join("; ")),
        assumptions,
        risks: vec![match strategy {
            Strategy::Expand | Strategy::Pivot => {
                "New terms can pull in sources about something else; review filters them.".into()
            }
            Strategy::Narrow | Strategy::Deepen => "A narrow query may find only what was found already.".into(),
        }],
        success_criteria: vec![format!("Support for: {}.", focus_labels.join("; "))],
    };
    PlanOutput { reflection, queries: qs.out }
}
