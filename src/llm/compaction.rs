//! Context compaction: every prompt fits the model's context
//! window. Sources are cut into passages at paragraph and sentence
//! boundaries; the passages most relevant to the question go in first, one
//! per source before a second from any; a source shown in part says so
//! (`excerpt="3 of 9 passages"`, `[…]` where passages were left out), and
//! sources left out entirely are named. Nothing is cut silently.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::usage::count_tokens;
use crate::engine::model::SourceId;
use crate::engine::reasoner::SourceDoc;
use crate::text::{content_terms, sanitize, sanitize_inline};

/// Passages aim for this many characters (about 200 tokens).
const PASSAGE_CHARS: usize = 800;
/// A paragraph longer than this is cut at sentence boundaries.
const MAX_PASSAGE_CHARS: usize = 1600;
/// The share of the window kept free for tokenizer differences between
/// tiktoken and the model's own tokenizer.
const MARGIN: f64 = 0.10;
/// Tokens written where passages were left out.
const GAP: &str = "[…]";

/// Tokens the prompt of one call may use: the window minus the margin, the
/// reply and a repair turn.
pub fn prompt_budget(context_window: u32, max_output: u32) -> u64 {
    let window = f64::from(context_window);
    let usable = (window * (1.0 - MARGIN)) as u64;
    usable.saturating_sub(u64::from(max_output)).saturating_sub(repair_reserve(context_window))
}

/// Room kept for a repair turn (the error and an excerpt of the bad reply).
pub fn repair_reserve(context_window: u32) -> u64 {
    (u64::from(context_window) / 16).min(512)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub index: usize,
    pub text: String,
    pub tokens: u64,
    /// Its content terms, sorted: ranking looks them up on every prompt.
    pub terms: Vec<String>,
}

/// Untrusted text made safe to put between our delimiters.
pub fn neutralise(text: &str) -> String {
    let mut out = sanitize(text);
    for tag in ["</source", "<source", "</sources", "<sources"] {
        while let Some(i) = super::structured::find_ascii_ci(&out, tag) {
            // `‹` cannot close or open a tag; the word stays readable.
            out.replace_range(i..i + 1, "‹");
        }
    }
    out
}

/// Cuts a text into passages at paragraph, then sentence, then word boundaries.
pub fn split_passages(text: &str) -> Vec<Passage> {
    let text = neutralise(text);
    let mut pieces: Vec<String> = Vec::new();
    for para in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        if para.len() <= MAX_PASSAGE_CHARS {
            pieces.push(para.to_string());
        } else {
            pieces.extend(sentences(para));
        }
    }
    let mut passages: Vec<String> = Vec::new();
    let mut current = String::new();
    for piece in pieces {
        if !current.is_empty() && current.len() + piece.len() > PASSAGE_CHARS {
            passages.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push_str("\n\n");
        }
        current.push_str(&piece);
    }
    if !current.is_empty() {
        passages.push(current);
    }
    passages
        .into_iter()
        .enumerate()
        .map(|(index, text)| {
            let mut terms = content_terms(&text);
            terms.sort_unstable();
            Passage { index, tokens: count_tokens(&text), terms, text }
        })
        .collect()
}

/// Sentences of a long paragraph, grouped up to `PASSAGE_CHARS`; a single
/// sentence longer than the maximum is cut between words.
fn sentences(para: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let bytes = para.as_bytes();
    let push = |s: &str, current: &mut String, out: &mut Vec<String>| {
        if !current.is_empty() && current.len() + s.len() > PASSAGE_CHARS {
            out.push(std::mem::take(current));
        }
        current.push_str(s);
    };
    for i in 0..bytes.len() {
        let end =
            matches!(bytes[i], b'.' | b'?' | b'!' | b'\n') && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        if end {
            push(&para[start..=i], &mut current, &mut out);
            start = i + 1;
        }
    }
    if start < para.len() {
        push(&para[start..], &mut current, &mut out);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out.into_iter().flat_map(|s| cut_between_words(s.trim())).filter(|s| !s.is_empty()).collect()
}

fn cut_between_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while rest.len() > MAX_PASSAGE_CHARS {
        let mut cut = MAX_PASSAGE_CHARS;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let cut = rest[..cut].rfind(char::is_whitespace).filter(|&i| i > 0).unwrap_or(cut);
        out.push(rest[..cut].trim().to_string());
        rest = rest[cut..].trim_start();
    }
    out.push(rest.to_string());
    out
}

/// A source's id and text hash.
type SourceKey = (SourceId, String);

/// Passages per source, computed once per session (keyed by id and hash).
#[derive(Debug, Default)]
pub struct PassageCache {
    map: Mutex<HashMap<SourceKey, Arc<Vec<Passage>>>>,
}

impl PassageCache {
    pub fn passages(&self, doc: &SourceDoc) -> Arc<Vec<Passage>> {
        let key = (doc.meta.id, doc.meta.text_hash.clone());
        if let Some(p) = self.map.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return p;
        }
        let p = Arc::new(split_passages(&doc.text));
        if let Ok(mut m) = self.map.lock() {
            m.insert(key, p.clone());
        }
        p
    }
}

/// How the budget is spread over sources.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Spread {
    /// Best passages first, across sources in the order given.
    Ranked,
    /// Every source gets an equal share (REVIEW must judge each one).
    Even,
}

/// Sources rendered into a budget.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fitted {
    pub text: String,
    pub tokens: u64,
    pub shown: Vec<SourceId>,
    pub omitted: Vec<SourceId>,
}

fn header(doc: &SourceDoc, shown: usize, total: usize) -> String {
    let attr = |s: &str| neutralise(&sanitize_inline(s)).replace('"', "'");
    let m = &doc.meta;
    let mut h = format!("<source id=\"{}\" title=\"{}\" locator=\"{}\"", m.id.0, attr(&m.title), attr(&m.locator));
    if let Some(t) = m.tier {
        h.push_str(&format!(" tier=\"{t}\""));
    }
    if let Some(p) = &m.published {
        h.push_str(&format!(" published=\"{}\"", attr(p)));
    }
    if shown < total {
        h.push_str(&format!(" excerpt=\"{shown} of {total} passages\""));
    }
    h.push('>');
    h
}

/// Passage indices of one source, most relevant to `terms` first (the
/// opening passage wins ties: it usually says what the page is about).
fn ranked(passages: &[Passage], terms: &[String]) -> Vec<usize> {
    let mut scored: Vec<(usize, f64)> = passages
        .iter()
        .map(|p| {
            let hits = terms.iter().filter(|t| p.terms.binary_search(t).is_ok()).count() as f64;
            let lead = if p.index == 0 { 0.5 } else { 0.0 };
            (p.index, hits + lead)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(i, _)| i).collect()
}

/// Renders as much of `docs` as fits in `budget` tokens.
pub fn fit_sources(docs: &[SourceDoc], cache: &PassageCache, query: &str, budget: u64, spread: Spread) -> Fitted {
    let terms = content_terms(query);
    let split: Vec<Arc<Vec<Passage>>> = docs.iter().map(|d| cache.passages(d)).collect();
    let order: Vec<Vec<usize>> = split.iter().map(|p| ranked(p, &terms)).collect();
    // Budget for naming left-out sources, taken first.
    let names_reserve = (budget / 10).min(300);
    let mut remaining = budget.saturating_sub(names_reserve);
    let gap_tokens = count_tokens(GAP) + 1;
    let share = match spread {
        Spread::Even => remaining / docs.len().max(1) as u64,
        Spread::Ranked => u64::MAX,
    };
    let mut chosen: Vec<Vec<usize>> = vec![Vec::new(); docs.len()];
    let mut spent: Vec<u64> = vec![0; docs.len()];
    let mut round = 0;
    loop {
        let mut added = false;
        for (s, doc) in docs.iter().enumerate() {
            let Some(&pi) = order[s].get(round) else { continue };
            let p = &split[s][pi];
            let head = if chosen[s].is_empty() {
                count_tokens(&header(doc, 1, split[s].len() + 1)) + count_tokens("</source>") + 2
            } else {
                0
            };
            let cost = p.tokens + head + gap_tokens;
            if cost <= remaining && spent[s] + cost <= share {
                chosen[s].push(pi);
                spent[s] += cost;
                remaining -= cost;
                added = true;
            }
        }
        round += 1;
        let exhausted = order.iter().all(|o| o.len() <= round);
        if exhausted || (!added && remaining <= gap_tokens) {
            break;
        }
    }
    let mut out = Fitted::default();
    for (s, doc) in docs.iter().enumerate() {
        if chosen[s].is_empty() {
            out.omitted.push(doc.meta.id);
            continue;
        }
        chosen[s].sort_unstable();
        let total = split[s].len();
        let mut block = header(doc, chosen[s].len(), total);
        block.push('\n');
        let mut last: Option<usize> = None;
        for &pi in &chosen[s] {
            let skipped = match last {
                None => pi > 0,
                Some(l) => pi > l + 1,
            };
            if skipped {
                block.push_str(GAP);
                block.push_str("\n\n");
            }
            block.push_str(&split[s][pi].text);
            block.push_str("\n\n");
            last = Some(pi);
        }
        if last.is_some_and(|l| l + 1 < total) {
            block.push_str(GAP);
            block.push('\n');
        }
        let block = format!("{}\n</source>\n", block.trim_end());
        out.text.push_str(&block);
        out.shown.push(doc.meta.id);
    }
    if !out.omitted.is_empty() {
        out.text.push_str(&omitted_line(docs, &out.omitted, names_reserve));
    }
    out.tokens = count_tokens(&out.text);
    out
}

/// "Left out for lack of room: [7] Title; [8] Title; and 12 more."
fn omitted_line(docs: &[SourceDoc], omitted: &[SourceId], budget: u64) -> String {
    let mut line = String::from("Sources left out for lack of room:");
    let base = count_tokens(&line) + 8;
    let mut used = base;
    let mut listed = 0;
    for id in omitted {
        let Some(d) = docs.iter().find(|d| d.meta.id == *id) else { continue };
        let title: String = sanitize_inline(&d.meta.title).chars().take(60).collect();
        let item = format!(" [{}] {};", id.0, neutralise(&title));
        let t = count_tokens(&item);
        if used + t > budget {
            break;
        }
        used += t;
        line.push_str(&item);
        listed += 1;
    }
    if listed < omitted.len() {
        line.push_str(&format!(" and {} more.", omitted.len() - listed));
    }
    line.push('\n');
    line
}

#[cfg(test)]
#[path = "compaction_tests.rs"]
mod tests;
