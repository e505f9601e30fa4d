//! READ: link following. Documentation pages link the items and chapters
//! they mention, so the sections whose passages best answer the question
//! point at the pages the rest of the answer needs, pages whose words a
//! query built from the question may never reach. REFINE plans a read per
//! chosen link: a query that is the target's corpus path, which the local
//! corpus answers with that page, so each step is recorded, shown and
//! deduplicated like any search.

use std::collections::HashSet;

use super::Src;
use super::analysis::Stemmer;
use super::answer;
use super::aspects::Aspect;
use super::rarity::Weights;
use crate::engine::model::{PlannedQuery, SourceVerdict};
use crate::engine::reasoner::PlanOutput;
use crate::search::local::LocalCorpus;
use crate::text::normalize_for_match;

/// The links of a corpus's pages, per section.
pub trait Links: Send + Sync {
    /// Per section of the page at `path`: its heading and link targets
    /// (corpus paths). Empty when the page is unknown.
    fn section_links(&self, path: &str) -> Vec<(Option<String>, Vec<String>)>;
    /// The canonical path of the indexed page at `path`; `None` when no
    /// page is indexed there (an image, a skipped or redirecting file).
    fn page_path(&self, path: &str) -> Option<String>;
}

impl Links for LocalCorpus {
    fn section_links(&self, path: &str) -> Vec<(Option<String>, Vec<String>)> {
        LocalCorpus::section_links(self, path)
            .map(|v| v.into_iter().map(|s| (s.heading, s.links)).collect())
            .unwrap_or_default()
    }

    fn page_path(&self, path: &str) -> Option<String> {
        self.read_page(path).ok().flatten().map(|hit| hit.path)
    }
}

/// Passages whose sections' links are considered.
const FOLLOWED_PASSAGES: usize = 3;
/// A name shorter than this (squashed) says too little to match on.
const MIN_NAME_CHARS: usize = 3;

/// A link worth reading, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The target's corpus path: the query that reads it.
    pub path: String,
    pub intent: String,
}

/// The words a link target's file name says: `kinds/struct.Thing.html` →
/// "Thing", `guide/ch15-06-reference-cycles.html` → "reference cycles",
/// `policies/travel_expenses.md` → "travel expenses", an `index.html` →
/// its folder's name.
pub fn target_words(path: &str) -> String {
    let mut parts = path.trim_end_matches('/').rsplit('/');
    let file = parts.next().unwrap_or_default();
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let stem = if stem == "index" { parts.next().unwrap_or_default() } else { stem };
    // Generated docs name pages `kind.Name`: the name is what is said.
    let name = stem.rsplit_once('.').map_or(stem, |(_, n)| n);
    name.split(['-', '_']).filter(|w| !w.is_empty() && !is_numbering(w)).collect::<Vec<_>>().join(" ")
}

/// A chapter or section number (`15`, `ch15`, `06`, `s2`): not a word.
fn is_numbering(w: &str) -> bool {
    let letters = w.chars().take_while(char::is_ascii_alphabetic).count();
    letters <= 2 && w.len() > letters && w[letters..].chars().all(|c| c.is_ascii_digit())
}

/// Lowercase letters and digits only: `into_thing()` and `IntoThing` agree.
fn squash(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Up to `max` links to read: from the sections of the best passages,
/// targets not among the sources yet whose names the passage itself says
/// or the question asks about, the better passage's and the rarer name's
/// first.
pub fn reads(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    w: &Weights,
    links: &dyn Links,
    stemmer: &mut Stemmer,
    max: usize,
) -> Vec<Read> {
    let known: HashSet<&str> = sources.iter().map(|s| s.doc.meta.canonical.as_str()).collect();
    let question: HashSet<&str> =
        aspects.iter().filter(|a| !a.related).flat_map(|a| a.stems.iter().map(String::as_str)).collect();
    let ranked = answer::best_passages(sources, aspects, w, sources.len());
    let mut scored: Vec<(f64, Read)> = Vec::new();
    for (rank, p) in ranked.iter().take(FOLLOWED_PASSAGES).enumerate() {
        let src = &sources[p.source];
        let an = &src.an;
        let heading = an.sentences[p.first].heading.map(|h| an.headings[h].0.trim().to_string());
        let page = src.doc.meta.canonical.as_str();
        let sections = links.section_links(page);
        let Some((_, targets)) = sections.iter().find(|(h, _)| h.as_deref().map(str::trim) == heading.as_deref())
        else {
            continue;
        };
        let span = p.first..=p.last;
        // The heading names what its section is about ("Use a `Thing`
        // when:"), so the passage says what its heading says.
        let titled = an.sentences[p.first].heading.map(|h| &an.headings[h]);
        let said: HashSet<&str> = span
            .clone()
            .flat_map(|i| an.sentences[i].stems.iter().map(String::as_str))
            .chain(titled.into_iter().flat_map(|(_, stems)| stems.iter().map(String::as_str)))
            .collect();
        let squashed: String = titled
            .map(|(text, _)| squash(text))
            .into_iter()
            .chain(span.map(|i| squash(an.sentence_text(&src.doc.text, i))))
            .collect();
        for target in targets {
            if known.contains(target.as_str()) || target == page {
                continue;
            }
            let name = target_words(target);
            let stems = stemmer.stems(&name);
            let whole = squash(&name);
            if stems.is_empty() || whole.chars().count() < MIN_NAME_CHARS {
                continue;
            }
            let weight = (stems.iter().map(|s| w.of(s)).sum::<f64>() / stems.len() as f64).max(0.3);
            let share = |set: &HashSet<&str>| {
                stems.iter().filter(|s| set.contains(s.as_str())).count() as f64 / stems.len() as f64
            };
            // The passage names the target (`into_thing()` names
            // `IntoThing`), or the question asks about it.
            let in_passage = if squashed.contains(&whole) { 1.0 } else { share(&said) };
            let value = weight * (in_passage + 0.5 * share(&question));
            if value <= 0.0 {
                continue;
            }
            // Only a page the index holds can be read (its canonical copy).
            let Some(target) = links.page_path(target) else { continue };
            if known.contains(target.as_str()) || target == page {
                continue;
            }
            let from = heading.as_deref().map_or(String::new(), |h| format!(" “{h}”"));
            let read = Read {
                path: target.clone(),
                intent: format!("read: follow the link from {}{from} to “{name}” ({target})", src.doc.meta.id),
            };
            let score = value / (1.0 + rank as f64);
            match scored.iter_mut().find(|(_, r)| r.path == read.path) {
                Some(existing) => existing.0 += score,
                None => scored.push((score, read)),
            }
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.path.cmp(&b.1.path)));
    scored.into_iter().take(max).map(|(_, r)| r).collect()
}

/// Puts the reads first in a refinement's queries (each page once per
/// session, the budget kept) and says so in its reflection.
pub fn add_reads(out: &mut PlanOutput, reads: &[Read], already_run: &[String], max_queries: usize) {
    let run: HashSet<String> = already_run.iter().map(|q| normalize_for_match(q)).collect();
    let planned: Vec<PlannedQuery> = reads
        .iter()
        .filter(|r| !run.contains(&normalize_for_match(&r.path)))
        .take(max_queries.max(1))
        .map(|r| PlannedQuery::new(r.path.clone(), r.intent.clone()))
        .collect();
    if planned.is_empty() {
        return;
    }
    out.reflection.assumptions.push(format!(
        "READ: {} link(s) of the best passages' sections followed: {}.",
        planned.len(),
        planned.iter().map(|q| q.text.as_str()).collect::<Vec<_>>().join(", ")
    ));
    let rest = std::mem::take(&mut out.queries);
    let mut seen: HashSet<String> = planned.iter().map(|q| normalize_for_match(&q.text)).collect();
    out.queries = planned;
    for q in rest {
        if out.queries.len() >= max_queries.max(1) {
            break;
        }
        if seen.insert(normalize_for_match(&q.text)) {
            out.queries.push(q);
        }
    }
}

/// REVIEW of read pages: a page reached by following a link of a kept
/// source's section is vouched for by the passage that named it, although
/// it rarely repeats the question's words (an item's page describes the
/// item, not the question). An off-topic verdict on such a page is lifted
/// when it shares any of the question's terms; its own relevance stays as
/// measured, and the verdict says which source linked it.
pub fn vouch(verdicts: &mut [SourceVerdict], candidates: &[Src<'_>], kept: &[Src<'_>], links: &dyn Links) {
    for v in verdicts.iter_mut().filter(|v| !v.kept && v.reason.as_deref() == Some("off_topic") && v.relevance > 0.0) {
        let Some(c) = candidates.iter().find(|c| c.doc.meta.id == v.id) else { continue };
        let target = c.doc.meta.canonical.as_str();
        // Found by a read: the query that found it is its path.
        if c.doc.meta.query != target {
            continue;
        }
        let linked_from = kept.iter().find(|k| {
            links.section_links(&k.doc.meta.canonical).iter().any(|(_, targets)| targets.iter().any(|t| t == target))
        });
        if let Some(from) = linked_from {
            v.kept = true;
            v.reason = None;
            v.signals = vec![format!("read: linked from {}", from.doc.meta.id)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::target_words;

    #[test]
    fn a_targets_name_is_its_file_name_in_words() {
        assert_eq!(target_words("lib/kinds/struct.Thing.html"), "Thing");
        assert_eq!(target_words("guide/ch15-06-reference-cycles.html"), "reference cycles");
        assert_eq!(target_words("lib/parts/index.html"), "parts");
        assert_eq!(target_words("policies/travel_expenses.md"), "travel expenses");
        assert_eq!(target_words("notes/2024-review.md"), "review");
    }
}
