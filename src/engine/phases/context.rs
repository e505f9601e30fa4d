//! Building the reasoner's owned contexts from the session state.

use std::collections::HashSet;

use crate::engine::model::SourceId;
use crate::engine::reasoner::{PriorIteration, SourceDoc};
use crate::engine::run::Engine;
use crate::text::normalize_for_match;

impl Engine {
    pub(super) fn doc(&mut self, id: SourceId) -> Option<SourceDoc> {
        let entry = self.state.source(id)?;
        let relevance = entry.verdict.as_ref().map(|v| v.relevance);
        // Source metadata never changes once added: share one copy.
        let meta = match self.meta_cache.get(&id) {
            Some(m) => m.clone(),
            None => {
                let m = std::sync::Arc::new(entry.meta.clone());
                self.meta_cache.insert(id, m.clone());
                m
            }
        };
        let text = self.text_of(id)?;
        Some(SourceDoc { meta, text, relevance })
    }

    /// Kept (or pinned) and not banned sources, most relevant first. Once
    /// the user chose a meaning, sources of the other meaning are left out.
    pub(super) fn usable_docs(&mut self) -> Vec<SourceDoc> {
        let ids: Vec<SourceId> = self.state.usable_sources().map(|s| s.meta.id).collect();
        let mut docs: Vec<SourceDoc> = ids.into_iter().filter_map(|id| self.doc(id)).collect();
        if let Some(i) = &self.state.interpretation {
            let texts: Vec<&str> = docs.iter().map(|d| &*d.text).collect();
            let keeps = i.keeps_sources(&texts);
            let mut keeps = keeps.into_iter();
            docs.retain(|d| keeps.next().unwrap_or(true) || self.state.pinned.contains(&d.meta.id));
        }
        docs.sort_by(|a, b| {
            let (ra, rb) = (a.relevance.unwrap_or(0.0), b.relevance.unwrap_or(0.0));
            rb.total_cmp(&ra).then(a.meta.id.cmp(&b.meta.id))
        });
        docs
    }

    /// Every query run so far, normalised.
    pub(super) fn already_run(&self) -> HashSet<String> {
        self.state
            .iterations
            .iter()
            .flat_map(|it| &it.queries)
            .filter(|q| q.result.is_some())
            .map(|q| normalize_for_match(&q.query.text))
            .collect()
    }

    pub(super) fn prior(&self, n: u32) -> Option<PriorIteration> {
        let it = self.state.iteration_record(n)?;
        Some(PriorIteration {
            iteration: n,
            queries: it
                .queries
                .iter()
                .map(|q| {
                    let hits = match &q.result {
                        Some(crate::engine::state::QueryResult::Searched { hits, .. }) => Some(*hits),
                        _ => None,
                    };
                    (q.query.clone(), hits)
                })
                .collect(),
            reflection: it.reflection.clone(),
            quality: it.review.as_ref().map(|(_, r)| r.clone()),
            critique: it.critique.clone(),
            evaluation: it.evaluation.clone(),
        })
    }

    pub(super) fn constraints(&self) -> Vec<String> {
        self.state.constraints.clone()
    }

    pub(super) fn question(&self) -> String {
        self.state.question().to_string()
    }
}
