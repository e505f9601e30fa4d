//! ASK: when the pages about the question's term fall into two groups that
//! each hold together and share almost no vocabulary with each other
//! besides the question's own words (a term with two unrelated meanings),
//! the question is ambiguous. Pages are compared by their term vectors
//! (rare terms weigh more, the question's terms left out); each group is
//! labelled by its most characteristic terms, and those labels are the
//! options offered.

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

/// Mean similarity of the pairs inside `g`.
fn within(g: &[usize], sim: &[Vec<f64>]) -> f64 {
    let pairs = g.len() * g.len().saturating_sub(1) / 2;
    if pairs == 0 {
        return 0.0;
    }
    let total: f64 = g.iter().enumerate().flat_map(|(x, &i)| g[x + 1..].iter().map(move |&j| sim[i][j])).sum();
    total / pairs as f64
}

/// Mean similarity of the pairs across `a` and `b`.
fn across(a: &[usize], b: &[usize], sim: &[Vec<f64>]) -> f64 {
    let total: f64 = a.iter().flat_map(|&i| b.iter().map(move |&j| sim[i][j])).sum();
    total / (a.len() * b.len()).max(1) as f64
}

/// Similarity below which two groups count as sharing nothing: what one
/// incidental word in common gives short pages.
const NOTHING_SHARED: f64 = 0.005;

/// The split of `members` into two groups, each of at least `min_group`,
/// that best separates them: the most similar inside both groups relative
/// to across them. Returns the groups and that ratio (`min within ÷
/// across`). Every split is tried: the members are the few top pages.
fn best_split(members: &[usize], sim: &[Vec<f64>], min_group: usize) -> Option<(Vec<usize>, Vec<usize>, f64)> {
    // Every split of the first 16 at most (32,768 of them).
    let members = &members[..members.len().min(16)];
    let n = members.len();
    if n < 2 * min_group {
        return None;
    }
    let mut best: Option<(Vec<usize>, Vec<usize>, f64)> = None;
    // The first member stays in `a`: each split is tried once.
    for mask in 0u32..(1 << (n - 1)) {
        let (mut a, mut b) = (vec![members[0]], Vec::new());
        for (k, &m) in members.iter().enumerate().skip(1) {
            if mask & (1 << (k - 1)) == 0 { a.push(m) } else { b.push(m) }
        }
        if a.len() < min_group || b.len() < min_group {
            continue;
        }
        let ratio = within(&a, sim).min(within(&b, sim)) / across(&a, &b, sim).max(NOTHING_SHARED);
        if best.as_ref().is_none_or(|x| ratio > x.2) {
            best = Some((a, b, ratio));
        }
    }
    best
}

/// A clarification when the pages about the question's term fall into two
/// groups that each hold together and share next to nothing with each
/// other: two meanings of the term. Only pages *about* the term count (it
/// is in their title or a heading): a word a page uses in passing is no
/// meaning of it. The groups are found by trying every split of those
/// pages (a handful) for the one that best separates their vocabularies,
/// so the signal does not depend on how often a page repeats its words:
/// three short notes on a snake share less than three long pages on a
/// planet, but still more with each other than with the programming language.
pub fn separate_meanings(
    aspects: &[Aspect],
    sources: &[Src<'_>],
    w: &Weights,
    cfg: &BuiltinConfig,
) -> Option<Clarification> {
    let top: Vec<&Src<'_>> = sources.iter().take(cfg.ask_sources).collect();
    let min_group = cfg.ask_min_group.max(1);
    let term = aspects.iter().max_by(|a, b| a.weight.total_cmp(&b.weight))?;
    // A page is about the term when its title, a heading or its opening
    // sentence names it.
    let about = |s: &Src<'_>| {
        let titled = |k: &String| s.an.title_stems.contains(k) || s.an.headings.iter().any(|(_, h)| h.contains(k));
        let opens = s.an.sentences.first().is_some_and(|x| term.key.iter().all(|k| x.has(k)));
        !term.key.is_empty() && (term.key.iter().all(titled) || opens)
    };
    let members: Vec<usize> = (0..top.len()).filter(|&i| about(top[i])).collect();
    if members.len() < 2 * min_group {
        return None;
    }
    let exclude: HashSet<&str> = aspects.iter().flat_map(|a| a.stems.iter().map(String::as_str)).collect();
    let vectors: Vec<Vector> = top.iter().map(|s| vector(s, &exclude, w)).collect();
    let sim: Vec<Vec<f64>> = vectors.iter().map(|a| vectors.iter().map(|b| cosine(a, b)).collect()).collect();
    let (a, b, ratio) = best_split(&members, &sim, min_group)?;
    if ratio < cfg.ask_separation || across(&a, &b, &sim) >= cfg.ask_max_similarity {
        return None;
    }
    let options: Vec<String> = [&a, &b].iter().map(|g| label(g, &top, &vectors)).collect();
    Some(Clarification {
        question: format!(
            "The sources use “{}” in {} unrelated senses: which one do you mean?",
            term.label,
            options.len()
        ),
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
        .filter(|(stem, _)| {
            let surface = group.iter().find_map(|&i| top[i].an.surface.get(*stem)).map_or(*stem, String::as_str);
            !super::frame::is_function_word(surface)
        })
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
    fn the_best_split_holds_together_inside_and_shares_nothing_across() {
        let sim = vec![
            vec![1.0, 0.04, 0.11, 0.03, 0.0],
            vec![0.04, 1.0, 0.05, 0.0, 0.0],
            vec![0.11, 0.05, 1.0, 0.0, 0.0],
            vec![0.03, 0.0, 0.0, 1.0, 0.13],
            vec![0.0, 0.0, 0.0, 0.13, 1.0],
        ];
        let (mut a, mut b, ratio) = best_split(&[0, 1, 2, 3, 4], &sim, 2).unwrap();
        a.sort();
        b.sort();
        assert_eq!((a, b), (vec![0, 1, 2], vec![3, 4]));
        assert!(ratio > 5.0, "{ratio}");
        // One group with nothing inside it is no meaning.
        let loose = vec![
            vec![1.0, 0.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0, 0.2],
            vec![0.0, 0.0, 0.2, 1.0],
        ];
        assert!(best_split(&[0, 1, 2, 3], &loose, 2).unwrap().2 < 1.0);
        assert!(best_split(&[0, 1, 2], &sim, 2).is_none());
    }
}
