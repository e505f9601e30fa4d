//! The user message of each role, built from the engine's contexts. Lists
//! are bounded (older material is counted, not shown); sources fill what is
//! left of the budget.

use super::compaction::Spread;
use super::render::{Prompt, Renderer, Sections, bullets, clip, draft_block, titles};
use super::usage::count_tokens;
use crate::engine::model::{Role, StopReason};
use crate::engine::reasoner::{
    ClarifyContext, CritiqueContext, DraftContext, PlanContext, PriorIteration, ReviewContext, SourceDoc, WriteContext,
};

impl Renderer<'_> {
    pub fn plan(&self, ctx: &PlanContext) -> Prompt {
        let system = self.system(Role::Plan, &[("max_queries", ctx.max_queries.to_string())]);
        let mut s = Sections::default();
        s.question(&ctx.question, &ctx.constraints, self.cap(0.08));
        s.lessons(&ctx.memories, self.cap(0.06));
        s.later("ITERATION:", &format!("{}. Write at most {} queries.", ctx.iteration, ctx.max_queries));
        if let Some(strategy) = ctx.strategy {
            s.later("REFINEMENT STRATEGY:", &format!("{strategy}: {}", ctx.strategy_rationale));
        }
        if let Some(prior) = &ctx.prior {
            s.later(&format!("WHAT ITERATION {} FOUND:", prior.iteration), &prior_summary(prior, self.cap(0.15)));
        }
        // The most recent queries matter most; older ones are counted.
        let mut run = ctx.already_run.clone();
        run.reverse();
        s.later("QUERIES ALREADY RUN (do not repeat them):", &bullets(&run, self.cap(0.10), 200));
        // PIVOT draws new terms from what was found: a short look suffices.
        self.assemble(Role::Plan, system, s, "SOURCES FOUND SO FAR:", &ctx.sources, &ctx.question, Spread::Ranked, 0.5)
    }

    /// How many candidates one REVIEW call can judge with a useful excerpt each.
    pub fn review_capacity(&self) -> usize {
        ((self.budget / 2) / MIN_REVIEW_TOKENS).max(1) as usize
    }

    pub fn review(&self, ctx: &ReviewContext, candidates: &[SourceDoc]) -> Prompt {
        let system = self.system(Role::Review, &[]);
        let mut s = Sections::default();
        s.question(&ctx.question, &ctx.constraints, self.cap(0.08));
        s.add("SOURCES ALREADY KEPT (to spot duplicates):", &titles(&ctx.kept, self.cap(0.08)));
        let ids: Vec<String> = candidates.iter().map(|c| c.meta.id.0.to_string()).collect();
        let title = format!("CANDIDATES TO JUDGE (one verdict for each id: {}):", ids.join(", "));
        self.assemble(Role::Review, system, s, &title, candidates, &ctx.question, Spread::Even, 1.0)
    }

    pub fn draft(&self, ctx: &DraftContext) -> Prompt {
        let system = self.system(Role::Draft, &[]);
        let mut s = Sections::default();
        s.question(&ctx.question, &ctx.constraints, self.cap(0.08));
        s.lessons(&ctx.memories, self.cap(0.06));
        let mut query = ctx.question.clone();
        if let Some(d) = &ctx.previous_draft {
            let share = self.budget.saturating_sub(count_tokens(&system)) * 3 / 10;
            s.later("PREVIOUS DRAFT (revise it):", &draft_block(&d.markdown, &d.claims, share));
        }
        if let Some(c) = &ctx.previous_critique {
            let issues: Vec<String> = c
                .issues
                .iter()
                .map(|i| format!("[{}] {}", format!("{:?}", i.severity).to_lowercase(), i.description))
                .collect();
            s.later("CRITIQUE OF THE PREVIOUS DRAFT — issues:", &bullets(&issues, self.cap(0.06), 300));
            s.later("CRITIQUE OF THE PREVIOUS DRAFT — gaps to fill:", &bullets(&c.gaps, self.cap(0.04), 200));
            query.push(' ');
            query.push_str(&c.gaps.join(" "));
        }
        s.later("ITERATION:", &ctx.iteration.to_string());
        self.assemble(
            Role::Draft,
            system,
            s,
            "SOURCES (cite these ids only):",
            &ctx.sources,
            &query,
            Spread::Ranked,
            1.0,
        )
    }

    pub fn critique(&self, ctx: &CritiqueContext) -> Prompt {
        let system = self.system(Role::Critique, &[]);
        let mut s = Sections::default();
        s.question(&ctx.question, &ctx.constraints, self.cap(0.08));
        s.add("PLANNED ASPECTS:", &bullets(&ctx.planned_aspects, self.cap(0.04), 200));
        s.add("ALREADY ASKED AND ANSWERED (do not ask again):", &bullets(&ctx.answered_asks, self.cap(0.04), 300));
        let share = self.budget.saturating_sub(count_tokens(&system)) * 4 / 10;
        s.later("DRAFT TO JUDGE:", &draft_block(&ctx.draft.markdown, &ctx.draft.claims, share));
        let query = format!("{} {}", ctx.question, ctx.planned_aspects.join(" "));
        self.assemble(Role::Critique, system, s, "SOURCES:", &ctx.sources, &query, Spread::Ranked, 1.0)
    }

    pub fn write(&self, ctx: &WriteContext) -> Prompt {
        let system = self.system(Role::Write, &[]);
        let mut s = Sections::default();
        s.question(&ctx.question, &ctx.constraints, self.cap(0.08));
        s.later("WHY RESEARCH STOPPED:", &stop_label(ctx.stop));
        if let Some(e) = &ctx.evaluation {
            s.later(
                "QUALITY OF THE DRAFT:",
                &format!(
                    "confidence {:.2}, coverage {:.2} ({} of {} aspects); gaps: {}",
                    e.confidence,
                    e.coverage,
                    e.aspects_addressed,
                    e.aspects_required,
                    if e.gaps.is_empty() { "none".into() } else { clip(&e.gaps.join("; "), 600) }
                ),
            );
        }
        s.later("CAVEATS (added after your report; do not repeat them):", &bullets(&ctx.caveats, self.cap(0.05), 300));
        let share = self.budget.saturating_sub(count_tokens(&system)) * 4 / 10;
        let from = ctx.based_on_iteration.map_or(String::new(), |n| format!(" (from iteration {n})"));
        s.later(&format!("DRAFT{from}:"), &draft_block(&ctx.draft.markdown, &ctx.draft.claims, share));
        self.assemble(
            Role::Write,
            system,
            s,
            "SOURCES (cite these ids only):",
            &ctx.sources,
            &ctx.question,
            Spread::Ranked,
            1.0,
        )
    }

    pub fn clarify(&self, ctx: &ClarifyContext) -> Prompt {
        let system = self.system(Role::Clarify, &[]);
        let mut s = Sections::default();
        s.question(&ctx.question, &[], 0);
        if let Some(c) = &ctx.critique {
            if let Some(n) = &c.needs_clarification {
                let mut hint = n.question.clone();
                if !n.options.is_empty() {
                    hint.push_str(&format!(" (options: {})", n.options.join(" | ")));
                }
                s.add("WHAT THE CRITIC FOUND AMBIGUOUS:", &bullets(&[hint], self.cap(0.1), 500));
            }
            s.add("GAPS:", &bullets(&c.gaps, self.cap(0.1), 200));
        }
        s.add("SOURCES FOUND (titles only):", &titles(&ctx.sources, self.cap(0.3)));
        Prompt { system, user: s.text.trim_end().to_string(), known: ctx.sources.iter().map(|d| d.meta.id).collect() }
    }
}

/// REVIEW wants at least this many tokens of each candidate.
const MIN_REVIEW_TOKENS: u64 = 350;

fn prior_summary(p: &PriorIteration, cap: u64) -> String {
    let mut lines: Vec<String> = p
        .queries
        .iter()
        .map(|(q, hits)| match hits {
            Some(h) => format!("query \"{}\": {h} results", q.text),
            None => format!("query \"{}\": failed", q.text),
        })
        .collect();
    if let Some(e) = &p.evaluation {
        lines.push(format!(
            "confidence {:.2}, coverage {:.2} ({} of {} aspects addressed)",
            e.confidence, e.coverage, e.aspects_addressed, e.aspects_required
        ));
    }
    if let Some(q) = &p.quality {
        let mut l = format!("review kept {} of {} sources", q.verified, q.total_fetched);
        if let Some(r) = &q.suggested_refinement {
            l.push_str(&format!(
                "; suggested: {} (exclude {}; add {})",
                r.reason,
                r.add_negative_keywords.join(", "),
                r.add_positive_keywords.join(", ")
            ));
        }
        lines.push(l);
    }
    if let Some(c) = &p.critique {
        lines.extend(c.gaps.iter().take(8).map(|g| format!("gap: {g}")));
        lines.extend(c.weak_aspects.iter().take(5).map(|w| format!("weak aspect: {w}")));
        lines.extend(c.issues.iter().take(6).map(|i| format!("issue: {}", i.description)));
    }
    bullets(&lines, cap, 300)
}

fn stop_label(stop: StopReason) -> String {
    match stop {
        StopReason::Decision(r) => r.label().to_string(),
        StopReason::ForcedByUser => "the user asked for the report now".into(),
        StopReason::Cancelled => "the session was cancelled".into(),
    }
}
