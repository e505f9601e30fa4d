//! Related aspects: concepts the question does not name but that the
//! sources consistently pair with it (the `?` operator with `From`, trait
//! objects with dynamic dispatch). A term qualifies when, across at least
//! two sources, it recurs in the sentences that support the question's
//! aspects, and it is rare enough in the corpus to mean something. A
//! complete answer explains such a concept from a section about it, so the
//! critique requires one, and the next iteration searches for it.

use std::collections::{HashMap, HashSet};

use super::Src;
use super::analysis::{Stemmer, is_stopword};
use super::aspects::{Aspect, coverage};
use super::rarity::Weights;

/// Sources and sentences looked at: the most relevant ones.
const TOP_SOURCES: usize = 8;
const MAX_SENTENCES: usize = 300;

/// A form of a word the question already uses ("generic" for "generics",
/// "elided" for "elision"): the same concept, not a related one.
fn variant_of(stem: &str, asked: &HashSet<&str>) -> bool {
    let prefix: String = stem.chars().take(4).collect();
    prefix.chars().count() == 4 && asked.iter().any(|a| a.starts_with(&prefix))
}

fn is_term(stem: &str) -> bool {
    stem.chars().count() >= 3 && stem.chars().all(|c| c.is_alphabetic() || c == '_')
}

/// Up to `max` related aspects of `aspects` found in `sources`.
pub fn discover(
    aspects: &[Aspect],
    sources: &[Src<'_>],
    w: &Weights,
    stemmer: &mut Stemmer,
    max: usize,
) -> Vec<Aspect> {
    let asked: HashSet<&str> = aspects.iter().flat_map(|a| a.stems.iter().map(String::as_str)).collect();
    let min_weight = aspects.iter().map(|a| a.weight).fold(f64::INFINITY, f64::min).min(0.35);
    let mut score: HashMap<&str, f64> = HashMap::new();
    let mut seen_in: HashMap<&str, HashSet<usize>> = HashMap::new();
    let mut occurrences: HashMap<&str, usize> = HashMap::new();
    let mut supporting: Vec<(usize, usize)> = Vec::new();
    for (si, s) in sources.iter().enumerate().take(TOP_SOURCES) {
        for (i, sent) in s.an.sentences.iter().enumerate() {
            if !aspects.iter().any(|a| coverage(a, |k| sent.has(k), w) >= 0.5) {
                continue;
            }
            supporting.push((si, i));
            for stem in &sent.stems {
                // A capitalised function word is a name (`From`): its corpus
                // frequency as a word says nothing about it.
                let named = s.an.surface.get(stem).is_some_and(|w| {
                    w.chars().next().is_some_and(char::is_uppercase) && super::analysis::is_stopword(w)
                });
                let weight = if named { w.of(stem).max(0.5) } else { w.of(stem) };
                if asked.contains(stem.as_str()) || !is_term(stem) || weight < min_weight || variant_of(stem, &asked) {
                    continue;
                }
                *score.entry(stem).or_default() += weight * weight;
                *occurrences.entry(stem).or_default() += 1;
                seen_in.entry(stem).or_default().insert(si);
            }
        }
    }
    // Concepts with sections of their own (a heading or title naming them)
    // are what an explanation can point to.
    let titled = |t: &str| {
        sources.iter().take(TOP_SOURCES).any(|s| {
            s.an.title_stems.iter().any(|x| x == t) || s.an.headings.iter().any(|(_, h)| h.iter().any(|x| x == t))
        })
    };
    // Consensus first: a term in the supporting sentences of many sources,
    // then its rarity, then how often it recurs.
    let mut terms: Vec<(&str, f64)> = score
        .into_iter()
        .filter_map(|(t, s)| {
            let n = seen_in.get(t).map_or(0, HashSet::len);
            let mean = s / occurrences.get(t).copied().unwrap_or(1).max(1) as f64;
            let occ = occurrences.get(t).copied().unwrap_or(1) as f64;
            let v = n as f64 * mean * (1.0 + occ.ln()) * if titled(t) { 1.5 } else { 1.0 };
            (n >= 2).then_some((t, v))
        })
        .collect();
    terms.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    supporting.truncate(MAX_SENTENCES);
    terms
        .into_iter()
        .take(max)
        .map(|(stem, _)| {
            let (label, stems) = phrase(stem, &supporting, sources, stemmer, &asked);
            let weight = 0.7 * stems.iter().map(|s| w.of(s)).fold(0.0, f64::max);
            Aspect {
                label,
                key: stems.clone(),
                stems,
                weight,
                related: true,
                position: usize::MAX,
                parenthetical: false,
                forms: Vec::new(),
                names: Vec::new(),
                code: Vec::new(),
                action: false,
                heading: None,
            }
        })
        .collect()
}

/// The term as the sources write it, joined with the neighbour that goes
/// with it most of the time ("dynamic dispatch", "From trait").
fn phrase(
    stem: &str,
    supporting: &[(usize, usize)],
    sources: &[Src<'_>],
    stemmer: &mut Stemmer,
    asked: &HashSet<&str>,
) -> (String, Vec<String>) {
    let mut surfaces: HashMap<String, usize> = HashMap::new();
    let mut left: HashMap<(String, String), usize> = HashMap::new();
    let mut right: HashMap<(String, String), usize> = HashMap::new();
    let mut occurrences = 0;
    for &(si, i) in supporting {
        let src = &sources[si];
        if !src.an.sentences[i].has(stem) {
            continue;
        }
        let text = src.an.sentence_text(&src.doc.text, i);
        let words: Vec<&str> =
            text.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty()).collect();
        let stems: Vec<Option<String>> = words.iter().map(|w| stemmer.stem(w)).collect();
        for (j, s) in stems.iter().enumerate() {
            if s.as_deref() != Some(stem) {
                continue;
            }
            occurrences += 1;
            *surfaces.entry(words[j].to_string()).or_default() += 1;
            let neighbour = |k: usize, into: &mut HashMap<(String, String), usize>| {
                if let Some(Some(ns)) = stems.get(k)
                    && is_term(ns)
                    && !is_stopword(words[k])
                    && !asked.contains(ns.as_str())
                    && ns != stem
                {
                    *into.entry((ns.clone(), words[k].to_string())).or_default() += 1;
                }
            };
            if j > 0 {
                neighbour(j - 1, &mut left);
            }
            neighbour(j + 1, &mut right);
        }
    }
    let surface =
        surfaces.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).map_or(stem.to_string(), |(s, _)| s);
    let best = |m: HashMap<(String, String), usize>| m.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)));
    let l = best(left);
    let r = best(right);
    let enough = |n: usize| n >= 2 && n * 2 >= occurrences;
    match (l, r) {
        (Some(((ls, lw), ln)), r) if enough(ln) && r.as_ref().is_none_or(|(_, rn)| ln >= *rn) => {
            (format!("{lw} {surface}"), vec![ls, stem.to_string()])
        }
        (_, Some(((rs, rw), rn))) if enough(rn) => (format!("{surface} {rw}"), vec![stem.to_string(), rs]),
        _ => (surface, vec![stem.to_string()]),
    }
}
