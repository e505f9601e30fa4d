//! ASK: when the top sources for a question fall into groups that share
//! almost no vocabulary besides the question's own words (a term with two
//! unrelated meanings), the question is ambiguous. Sources are grouped by
//! average-link clustering of their term vectors (rare terms weigh more,
//! the question's terms left out); each group is labelled by its most
//! characteristic terms, and those labels are the options offered.

use std::collections::{HashMap, HashSet};

use super::Src;
use super::aspects::Aspect;
use super::config::BuiltinConfig;
use super::rarity::Weights;
use crate::engine::model::Clarification;

type Vector = HashMap<String, f64>;

fn vector(s: &Src<'_>, exclude: &HashSet<&str>, w: &Weights) -> Vector {
    let mut v: Vector =
        s.an.tf
            .iter()
            .filter(|(stem, _)| !exclude.contains(stem.as_str()) && stem.chars().count() > 2)
            .map(|(stem, tf)| (stem.clone(), (1.0 + f64::from(*tf).ln()) * w.of(stem)))
            .collect();
    let norm = v.values().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.values_mut().for_each(|x| *x /= norm);
    }
    v
}

fn cosine(a: &Vector, b: &Vector) -> f64 {
    let (small, large) = if a.len() < b.len() { (a, b) } else { (b, a) };
    small.iter().filter_map(|(k, x)| large.get(k).map(|y| x * y)).sum()
}

/// Groups of source indices, by average-link merging while the closest
/// pair of groups is at least `merge_at` similar.
fn cluster(sim: &[Vec<f64>], merge_at: f64) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = (0..sim.len()).map(|i| vec![i]).collect();
    let link = |a: &[usize], b: &[usize]| {
        let total: f64 = a.iter().flat_map(|&i| b.iter().map(move |&j| sim[i][j])).sum();
        total / (a.len() * b.len()) as f64
    };
    loop {
        let mut best: Option<(usize, usize, f64)> = None;
        for i in 0..groups.len() {
            for j in i + 1..groups.len() {
                let s = link(&groups[i], &groups[j]);
                if best.is_none_or(|(_, _, b)| s > b) {
                    best = Some((i, j, s));
                }
            }
        }
        match best {
            Some((i, j, s)) if s >= merge_at => {
                let merged = groups.remove(j);
                groups[i].extend(merged);
            }
            _ => return groups,
        }
    }
}

/// A clarification when the top sources split into clearly separate groups.
pub fn separate_meanings(
    question: &str,
    aspects: &[Aspect],
    sources: &[Src<'_>],
    w: &Weights,
    cfg: &BuiltinConfig,
) -> Option<Clarification> {
    let top: Vec<&Src<'_>> = sources.iter().take(cfg.ask_sources).collect();
    let min_group = cfg.ask_min_group.max(1);
    if top.len() < 2 * min_group {
        return None;
    }
    let exclude: HashSet<&str> = aspects.iter().flat_map(|a| a.stems.iter().map(String::as_str)).collect();
    let vectors: Vec<Vector> = top.iter().map(|s| vector(s, &exclude, w)).collect();
    let sim: Vec<Vec<f64>> = vectors.iter().map(|a| vectors.iter().map(|b| cosine(a, b)).collect()).collect();
    let groups = cluster(&sim, 2.0 * cfg.ask_max_similarity);
    let big: Vec<&Vec<usize>> = groups.iter().filter(|g| g.len() >= min_group).collect();
    let in_big: usize = big.iter().map(|g| g.len()).sum();
    if big.len() < 2 || in_big * 4 < top.len() * 3 {
        return None;
    }
    let sim = &sim;
    for (x, a) in big.iter().enumerate() {
        for b in big.iter().skip(x + 1) {
            let total: f64 = a.iter().flat_map(|&i| b.iter().map(move |&j| sim[i][j])).sum();
            if total / (a.len() * b.len()) as f64 >= cfg.ask_max_similarity {
                return None;
            }
        }
    }
    let options: Vec<String> = big.iter().map(|g| label(g, &top, &vectors)).collect();
    let term = aspects.iter().max_by(|a, b| a.weight.total_cmp(&b.weight)).map_or(question, |a| a.label.as_str());
    Some(Clarification {
        question: format!("The sources use “{term}” in {} unrelated senses: which one do you mean?", options.len()),
        options,
    })
}

/// A group's three most characteristic terms, as the sources spell them.
fn label(group: &[usize], top: &[&Src<'_>], vectors: &[Vector]) -> String {
    let mut weight: HashMap<&str, f64> = HashMap::new();
    for &i in group {
        for (stem, x) in &vectors[i] {
            *weight.entry(stem).or_default() += x;
        }
    }
    let mut terms: Vec<(&str, f64)> = weight.into_iter().collect();
    terms.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    terms
        .into_iter()
        .take(3)
        .map(|(stem, _)| {
            group.iter().find_map(|&i| top[i].an.surface.get(stem).cloned()).unwrap_or_else(|| stem.to_string())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clustering_separates_unrelated_groups() {
        let sim = vec![
            vec![1.0, 0.6, 0.01, 0.0],
            vec![0.6, 1.0, 0.0, 0.02],
            vec![0.01, 0.0, 1.0, 0.5],
            vec![0.0, 0.02, 0.5, 1.0],
        ];
        let mut g = cluster(&sim, 0.1);
        g.iter_mut().for_each(|x| x.sort());
        g.sort();
        assert_eq!(g, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(cluster(&sim, 0.0).len(), 1);
    }
}
