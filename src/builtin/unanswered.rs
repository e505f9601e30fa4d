//! What tells that the sources found do not answer a question, whatever
//! words they share with it: a name it asks about that none of them
//! mentions, a part of a rare name's thing that no sentence holds, most of
//! what it asks held by no sentence. The critic's judgement
//! (`answer::judge`) marks such a question unanswered.

use super::Src;
use super::analysis::is_stopword;
use super::aspects::Aspect;
use super::rarity::Weights;
use super::score::sentence_support;

/// A question word in prose is a name when it is written capitalised after
/// the question's first word, or when fewer than this share of the
/// corpus's passages hold it (a crate, a tool, a product), in a corpus big
/// enough for absence to say something (`rarity::BIG_CORPUS`): in a small
/// folder most words are absent.
const SCARCE_SHARE: f64 = 1e-4;

/// From this share of the corpus's passages a word is common: written
/// capitalised in a question, it must be written so on a page too.
const COMMON_SHARE: f64 = 1e-3;

/// Whether no kept source holds `stem`, in its text, its headings or its title.
fn absent(sources: &[Src<'_>], stem: &str) -> bool {
    sources.iter().all(|s| {
        !s.an.contains(stem)
            && !s.an.title_stems.iter().any(|t| t == stem)
            && !s.an.headings.iter().any(|(_, stems)| stems.iter().any(|t| t == stem))
    })
}

/// The aspect as the sources can be asked about it: without the asker's
/// own names, the stems written only as code (`Vec<MyThing>`,
/// `mylib::shapes::Circle`) that no kept source holds. They say what the
/// asker's code is called, not what to look up. `None` when nothing else
/// is left of it.
pub(super) fn without_own_names(a: &Aspect, sources: &[Src<'_>], w: &Weights) -> Option<Aspect> {
    let own = |stem: &String| a.code.contains(stem) && absent(sources, stem);
    if a.related || !a.key.iter().any(own) {
        return Some(a.clone());
    }
    let key: Vec<String> = a.key.iter().filter(|k| !own(k)).cloned().collect();
    // What is left weighs what its stems weigh.
    let total: f64 = a.key.iter().map(|k| w.of(k)).sum();
    let left: f64 = key.iter().map(|k| w.of(k)).sum();
    let weight = if total > 0.0 { a.weight * left / total } else { a.weight };
    (!key.is_empty()).then(|| Aspect { key, weight, ..a.clone() })
}

/// The names the question asks about, written in prose, that none of
/// `sources` mentions ("tokio", "mockall", "Ubuntu"): what the question is
/// about is not what they cover, whatever else they share with it.
pub(super) fn foreign_names(aspects: &[Aspect], sources: &[Src<'_>], w: &Weights) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if sources.is_empty() {
        return out;
    }
    // A comparison in parentheses ("like Python's Counter") is not what is asked about.
    for a in aspects.iter().filter(|a| !a.related && !a.parenthetical) {
        for (stem, surface, _) in &a.forms {
            let name = a.names.iter().find(|n| n.to_lowercase() == *surface);
            // A name is asked about whatever its weight; another word only
            // when it is among the aspect's key terms.
            if a.code.contains(stem) || (name.is_none() && !a.key.contains(stem)) {
                continue;
            }
            let share = w.corpus_share(stem).filter(|(_, n)| *n as f64 >= super::rarity::BIG_CORPUS);
            // A name that is also a common word of the corpus ("go", "rust")
            // is looked for as the name; a rare one only has to be there.
            let common = is_stopword(surface) || share.is_some_and(|(share, _)| share >= COMMON_SHARE);
            let missing = match name {
                // Written capitalised, as a name: "Go" the language is not
                // "go" the verb the pages use. Only in a big corpus: in a
                // small folder the capital of a common noun ("the
                // Handbook") is the asker's emphasis.
                Some(name) if share.is_some() && common => {
                    absent(sources, stem) || !sources.iter().any(|s| written_as_name(&s.doc.text, name))
                }
                Some(_) => absent(sources, stem),
                None => absent(sources, stem) && share.is_some_and(|(share, _)| share < SCARCE_SHARE),
            };
            if missing && !out.contains(surface) {
                out.push(surface.clone());
            }
        }
    }
    out
}

/// The asked aspects a rare name owns that no kept sentence holds whole
/// ("tokio's multi-threaded runtime" where a page only says Tokio is a
/// runtime): the question asks about a part of something the corpus barely
/// knows, and the sentences found speak of that part of something else.
/// The owner is rare as `foreign_names` reckons a name, in a big corpus
/// only; a common owner ("my crate's docs") is the asker's own.
pub(super) fn unheld_parts(aspects: &[Aspect], sources: &[Src<'_>], w: &Weights) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in aspects.iter().filter(|a| !a.related && !a.parenthetical) {
        let owners = a.label.split_whitespace().filter_map(|word| word.strip_suffix("'s").or(word.strip_suffix("’s")));
        let rare_owner = owners.map(str::to_lowercase).any(|owner| {
            a.forms.iter().filter(|f| f.1 == owner).any(|(stem, ..)| {
                w.corpus_share(stem)
                    .is_some_and(|(share, n)| n as f64 >= super::rarity::BIG_CORPUS && share < SCARCE_SHARE)
            })
        });
        let held =
            || sources.iter().any(|s| (0..s.an.sentences.len()).any(|i| sentence_support(a, &s.an, i, w).full(a)));
        if rare_owner && !held() && !out.contains(&a.label) {
            out.push(a.label.clone());
        }
    }
    out
}

/// The asked aspects no sentence of a kept source supports fully: when
/// they are most of what is asked, the sources are about something else
/// that shares a word or two with the question ("swap file on Ubuntu"
/// against a page that builds for `riscv64/ubuntu`).
pub(super) fn held_nowhere(aspects: &[Aspect], sources: &[Src<'_>], w: &Weights) -> Vec<String> {
    aspects
        .iter()
        .filter(|a| !a.related)
        .filter(|a| {
            !sources.iter().any(|s| (0..s.an.sentences.len()).any(|i| sentence_support(a, &s.an, i, w).full(a)))
        })
        .map(|a| a.label.clone())
        .collect()
}

/// Whether `text` writes `name` as a name: the whole word, capitalised as
/// given, where a sentence, heading or list item does not start.
pub(super) fn written_as_name(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = &text[..i];
        let after = &text[i + name.len()..];
        let whole = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        let lead = before.trim_end_matches([' ', '\t', '"', '(', '“']);
        let starts = lead.is_empty() || lead.ends_with(['\n', '.', '!', '?', ':', '#', '*', '-']);
        whole && !starts
    })
}
