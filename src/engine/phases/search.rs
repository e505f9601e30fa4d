//! SEARCH: run the iteration's queries in parallel (bounded), reformulate
//! those that find nothing, then fetch the best new hits, dedupe them by
//! canonical locator and near-identical text, and give each new source the
//! next id.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use std::future::Future;

use futures::StreamExt;
use tokio::time::Instant;

use crate::engine::dedupe::NearDuplicates;
use crate::engine::model::{Degradation, SourceId, SourceKind, SourceMeta};
use crate::engine::phases::call::Share;
use crate::engine::ports::{FetchedDoc, ProviderError, RoutedSearch, SearchHit, SearchQuery, Searcher};
use crate::engine::protocol::Event;
use crate::engine::refine::broaden;
use crate::engine::run::{Engine, EngineError, now_ms};
use crate::engine::tiers::scholarly_tier;
use crate::text::canonical::{canonical_locator, site_of};
use crate::text::{fingerprint, sanitize_inline, text_hash};

/// One query's result, as the search tasks hand it back.
struct QueryDone {
    index: usize,
    text: String,
    routed: RoutedSearch,
    reformulated_from: Option<String>,
}

/// A finished fetch: canonical locator, candidate, outcome.
type Fetched = (String, Candidate, Result<FetchedDoc, ProviderError>);

struct Candidate {
    provider: String,
    hit: SearchHit,
    query: String,
    rank: usize,
}

impl Engine {
    pub(crate) async fn search_phase(&mut self, n: u32) -> Result<(), EngineError> {
        let Some(it) = self.state.iteration_record(n) else { return Ok(()) };
        // A phase cut short by a crash is redone whole: its hits were not logged.
        let queries: Vec<(usize, String, Vec<String>)> =
            it.queries.iter().enumerate().map(|(i, q)| (i, q.query.text.clone(), q.query.exclude.clone())).collect();
        self.search.begin_iteration(queries.len());
        let limit = self.settings.search.results_per_query.max(1);
        let router = self.search.clone();
        let mut stream = futures::stream::iter(
            queries
                .into_iter()
                .map(move |(index, text, exclude)| run_query(router.clone(), index, text, exclude, limit)),
        )
        .buffer_unordered(self.settings.search.concurrency.max(1));

        // Searches and fetches end where research's share of the time limit
        // does: a politeness queue (arXiv's three seconds, a slow host) must
        // not carry the session past its limit.
        let deadline = self.time_left(Share::Research).map(|left| Instant::now() + left);
        let mut done: Vec<QueryDone> = Vec::new();
        let mut failed = 0usize;
        loop {
            let Some(next) = self.await_work(before(deadline, stream.next())).await? else { return Ok(()) };
            match next {
                Some(Some(q)) => {
                    failed += usize::from(self.record_query(n, &q)?);
                    done.push(q);
                }
                Some(None) => break,
                None => {
                    // Not a provider's failure: no degraded mode for these.
                    drop(stream);
                    self.record_unsearched(n, &done)?;
                    break;
                }
            }
        }
        let total = done.len();
        if total > 0 && failed as f64 / total as f64 >= self.settings.search.degraded_failure_ratio {
            self.degrade(n, Degradation::QueriesFailed { iteration: n, failed, total })?;
        }
        done.sort_by_key(|q| q.index);
        let candidates = rank_round_robin(done);
        let Some(added) = self.fetch_candidates(n, candidates, deadline).await? else { return Ok(()) };
        self.emit(Event::SearchCompleted { iteration: n, new_sources: added })
    }

    /// Emits a query's events; true when it failed.
    fn record_query(&mut self, n: u32, q: &QueryDone) -> Result<bool, EngineError> {
        for f in &q.routed.failures {
            if let Some(rule) = f.circuit_opened {
                self.emit(Event::CircuitOpened {
                    iteration: n,
                    provider: f.provider.clone(),
                    reason: format!("{rule}: {}", f.error),
                })?;
                self.degrade(n, Degradation::ProviderFailing { provider: f.provider.clone() })?;
            }
            if let Some(to) = &f.fallback_to {
                self.emit(Event::ProviderFallback {
                    iteration: n,
                    from: f.provider.clone(),
                    to: to.clone(),
                    error: f.error.clone(),
                })?;
            }
        }
        for provider in &q.routed.circuits_closed {
            self.emit(Event::CircuitClosed { iteration: n, provider: provider.clone() })?;
        }
        match &q.routed.error {
            Some(error) => {
                self.emit(Event::QueryFailed {
                    iteration: n,
                    query_index: q.index,
                    query: q.text.clone(),
                    error: error.clone(),
                    attempts: q.routed.attempts,
                })?;
                Ok(true)
            }
            None => {
                self.emit(Event::QuerySearched {
                    iteration: n,
                    query_index: q.index,
                    query: q.text.clone(),
                    provider: q.routed.providers_used.join("+"),
                    hits: q.routed.hits.len(),
                    reformulated_from: q.reformulated_from.clone(),
                })?;
                Ok(false)
            }
        }
    }

    /// The queries the time limit cut short, recorded as failed with that reason.
    fn record_unsearched(&mut self, n: u32, done: &[QueryDone]) -> Result<(), EngineError> {
        let cut: Vec<(usize, String)> = self
            .state
            .iteration_record(n)
            .map(|it| {
                it.queries
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !done.iter().any(|d| d.index == *i))
                    .map(|(i, q)| (i, q.query.text.clone()))
                    .collect()
            })
            .unwrap_or_default();
        for (query_index, query) in &cut {
            self.emit(Event::QueryFailed {
                iteration: n,
                query_index: *query_index,
                query: query.clone(),
                error: TIME_LIMIT_REACHED.to_string(),
                attempts: 0,
            })?;
        }
        Ok(())
    }

    fn degrade(&mut self, n: u32, cause: Degradation) -> Result<(), EngineError> {
        if !self.state.degraded.contains(&cause) {
            self.emit(Event::DegradedMode { iteration: n, cause })?;
        }
        Ok(())
    }

    /// Fetches new candidates until `max_sources` are added or none are left.
    /// Returns how many sources were added, `None` if interrupted.
    async fn fetch_candidates(
        &mut self,
        n: u32,
        candidates: Vec<Candidate>,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, EngineError> {
        let max_new = self.settings.limits.max_sources.max(1) as usize;
        let known: HashMap<String, (SourceId, u32)> =
            self.state.sources.iter().map(|s| (s.meta.canonical.clone(), (s.meta.id, s.meta.iteration))).collect();
        // A page an earlier iteration could not use (a PDF, a redirect loop,
        // a fetch that failed after its retries) is not fetched again.
        let skipped_before: HashSet<String> = self
            .state
            .iterations
            .iter()
            .filter(|it| it.iteration != n)
            .flat_map(|it| it.skipped.iter().map(|s| canonical_locator(&s.locator)))
            .collect();
        let mut seen_canonical: HashSet<String> = HashSet::new();
        let mut queue: Vec<(String, Candidate)> = Vec::new();
        for c in candidates {
            let canonical = c.hit.canonical.clone().unwrap_or_else(|| canonical_locator(&c.hit.locator));
            if !seen_canonical.insert(canonical.clone())
                || skipped_before.contains(&canonical)
                || skipped_before.contains(&canonical_locator(&c.hit.locator))
            {
                continue;
            }
            match known.get(&canonical) {
                // Found again in a later iteration: worth knowing, not re-adding.
                Some((of, it)) if *it != n => {
                    self.emit(Event::SourceDuplicate { iteration: n, of: *of, locator: c.hit.locator.clone() })?
                }
                // Added by this iteration before a crash cut it short.
                Some(_) => {}
                None => queue.push((canonical, c)),
            }
        }
        let mut added = self.state.iteration_record(n).map_or(0, |it| it.new_sources.len());
        let window = self.settings.search.fetch_concurrency.max(1);
        let mut queue = queue.into_iter().enumerate();
        // A sliding window: a fetch starts as soon as another finishes (not
        // in rounds that wait for their slowest page), and never more are
        // started than sources still wanted. Results are recorded in queue
        // order, so source ids do not depend on which page answered first.
        let mut running = futures::stream::FuturesUnordered::new();
        let mut finished: BTreeMap<usize, Fetched> = BTreeMap::new();
        let mut next_to_record = 0;
        loop {
            while let Some((canonical, c, result)) = finished.remove(&next_to_record) {
                next_to_record += 1;
                if self.record_fetch(n, canonical, c, result)? {
                    added += 1;
                }
            }
            while running.len() < window && added + running.len() + finished.len() < max_new {
                let Some((index, (canonical, c))) = queue.next() else { break };
                let router = self.search.clone();
                running.push(async move {
                    let r = router.fetch(&c.provider, &c.hit).await;
                    (index, (canonical, c, r))
                });
            }
            let Some(next) = self.await_work(before(deadline, running.next())).await? else { return Ok(None) };
            match next {
                Some(Some((index, fetched))) => {
                    finished.insert(index, fetched);
                }
                Some(None) => break,
                // The time limit: fetches still waiting or running are dropped
                // (their requests with them); those done are kept, in order.
                None => {
                    drop(running);
                    for (_, (canonical, c, result)) in std::mem::take(&mut finished) {
                        if self.record_fetch(n, canonical, c, result)? {
                            added += 1;
                        }
                    }
                    break;
                }
            }
        }
        Ok(Some(added))
    }

    /// Records one fetch: skipped (with the reason) or added; true if added.
    fn record_fetch(
        &mut self,
        n: u32,
        canonical: String,
        c: Candidate,
        result: Result<FetchedDoc, ProviderError>,
    ) -> Result<bool, EngineError> {
        match result {
            Err(e) => {
                self.emit(Event::SourceSkipped {
                    iteration: n,
                    locator: c.hit.locator.clone(),
                    reason: e.to_string(),
                })?;
                Ok(false)
            }
            Ok(doc) if doc.text.trim().is_empty() => {
                let reason = crate::engine::quality::NO_TEXT.to_string();
                self.emit(Event::SourceSkipped { iteration: n, locator: c.hit.locator.clone(), reason })?;
                Ok(false)
            }
            Ok(doc) => self.add_source(n, canonical, c, doc),
        }
    }

    /// Adds a fetched source unless its text nearly equals a known one.
    fn add_source(&mut self, n: u32, canonical: String, c: Candidate, doc: FetchedDoc) -> Result<bool, EngineError> {
        let print = dedupe_print(&doc.text);
        let threshold = self.settings.search.dedupe_similarity;
        let title = doc.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| c.hit.title.clone());
        let title = sanitize_inline(&title).trim().to_string();
        self.ensure_fingerprints();
        let dup = self.fingerprints.as_ref().and_then(|index| index.find(&print, &title, threshold));
        if let Some(of) = dup {
            self.emit(Event::SourceDuplicate { iteration: n, of, locator: c.hit.locator })?;
            return Ok(false);
        }
        let id = SourceId(self.state.sources.len() as u32 + 1);
        // A page may quote a key: what is stored, and read from here on
        // (drafts, quote checks), is the text with secrets blanked.
        let text: Arc<str> = Arc::from(self.settings.redactor.redact(&doc.text));
        self.texts.put(id, &text)?;
        self.cache_text(id, text.clone());
        let locator = doc.final_locator.clone().unwrap_or_else(|| c.hit.locator.clone());
        let site = doc.site.or(c.hit.site.clone()).unwrap_or_else(|| site_of(&locator));
        let scholarly = c.hit.scholarly.map(|s| *s);
        // The tier table first (the user's word on a site), then what a
        // scholarly index says of the work (published or preprint).
        let (tier, source_type) = match c.hit.tier {
            Some(t) => (Some(t), None),
            None if c.hit.kind == SourceKind::Web => match self.settings.tiers.lookup(&site) {
                Some(e) => (Some(e.tier), e.source_type.clone()),
                None => scholarly.as_ref().map(scholarly_tier).map_or((None, None), |e| (Some(e.tier), e.source_type)),
            },
            None => (None, None),
        };
        let meta = SourceMeta {
            id,
            locator,
            canonical,
            title: title.clone(),
            site,
            provider: c.provider,
            kind: c.hit.kind,
            tier,
            source_type,
            heading: c.hit.heading.map(|h| sanitize_inline(&h)),
            published: doc.published.or(c.hit.published),
            accessed_at_ms: now_ms(),
            iteration: n,
            query: c.query,
            score: c.hit.score,
            text_len: text.len(),
            text_hash: text_hash(&text),
            scholarly,
        };
        if let Some(index) = self.fingerprints.as_mut() {
            index.insert(id, &print, &title);
        }
        self.emit(Event::SourceAdded { source: meta })?;
        Ok(true)
    }

    fn ensure_fingerprints(&mut self) {
        if self.fingerprints.is_some() {
            return;
        }
        let known: Vec<(SourceId, String)> =
            self.state.sources.iter().map(|s| (s.meta.id, s.meta.title.clone())).collect();
        let mut index = NearDuplicates::default();
        for (id, title) in known {
            if let Some(text) = self.text_of(id) {
                index.insert(id, &dedupe_print(&text), &title);
            }
        }
        self.fingerprints = Some(index);
    }
}

/// Why a query the time limit cut short has no result.
pub(crate) const TIME_LIMIT_REACHED: &str = "not searched: the time limit was reached";

/// `work`'s output, or `None` once `deadline` has passed.
async fn before<T>(deadline: Option<Instant>, work: impl Future<Output = T>) -> Option<T> {
    match deadline {
        None => Some(work.await),
        Some(d) => tokio::time::timeout_at(d, work).await.ok(),
    }
}

/// Near-identical texts are told apart by their opening: the fingerprint of
/// at most the first 64 KiB keeps memory and comparison time per source
/// small however large its page (copies and mirrors share their opening).
fn dedupe_print(text: &str) -> Vec<u64> {
    const PREFIX: usize = 64 * 1024;
    let mut end = text.len().min(PREFIX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    fingerprint(&text[..end])
}

/// Searches one query; a query with no hits is retried once, broadened
/// (no quotes, exclusions or stop words, one term fewer).
async fn run_query(
    router: Arc<dyn Searcher>,
    index: usize,
    text: String,
    exclude: Vec<String>,
    limit: usize,
) -> QueryDone {
    let query = SearchQuery { text: text.clone(), exclude: exclude.clone(), limit };
    let routed = router.search(&query).await;
    if routed.error.is_none()
        && routed.hits.is_empty()
        && let Some(broader) = broaden(&text)
    {
        let retry = router.search(&SearchQuery { text: broader.clone(), exclude, limit }).await;
        if !retry.hits.is_empty() {
            let mut retry = retry;
            retry.failures.splice(0..0, routed.failures);
            retry.attempts += routed.attempts;
            return QueryDone { index, text: broader, routed: retry, reformulated_from: Some(text) };
        }
    }
    QueryDone { index, text, routed, reformulated_from: None }
}

/// Interleaves the queries' hits by rank (every query's best first), so a
/// small source budget is spread over all aspects of the plan.
fn rank_round_robin(done: Vec<QueryDone>) -> Vec<Candidate> {
    let mut per_query: Vec<Vec<Candidate>> = done
        .into_iter()
        .map(|q| {
            let text = q.text;
            q.routed
                .hits
                .into_iter()
                .enumerate()
                .map(|(rank, (provider, hit))| Candidate { provider, hit, query: text.clone(), rank })
                .collect()
        })
        .collect();
    let depth = per_query.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for rank in 0..depth {
        for q in per_query.iter_mut() {
            if let Some(pos) = q.iter().position(|c| c.rank == rank) {
                out.push(q.swap_remove(pos));
            }
        }
    }
    out
}
