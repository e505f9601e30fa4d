//! DRAFT: an extractive answer. The direct answer first (the sentences or
//! the passage that hold the most of the question, `answer`), then a section
//! per aspect the question names with its best sentences (`candidates`),
//! then a "See also" line. Every sentence is quoted verbatim and cited.

use super::Src;
use super::answer;
use super::aspects::Aspect;
use super::candidates::{Candidate, NEAR_IDENTICAL, candidates, pick, similarity, with_context};
use super::config::BuiltinConfig;
use super::rarity::Weights;
use crate::engine::model::{Citation, Claim, Draft};
use crate::text::normalize_for_match;

/// Below this share of the best section sentence's worth, a sentence is
/// too loosely tied to the question to appear anywhere in the report.
const RELEVANCE_FLOOR: f64 = 0.35;

/// The draft: the direct answer (the passage that answers the question as
/// a whole, `answer::lead`), then one section per aspect the question names.
/// Each of the most relevant sources not cited yet then adds its best
/// sentence to the aspect it supports, so the answer reflects every strong
/// source. Related concepts end it as a "See also" line, not as sections.
pub fn draft(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    w: &Weights,
    constraint_stems: &[String],
    cfg: &BuiltinConfig,
) -> Draft {
    let mut cands = candidates(sources, aspects, w, constraint_stems, cfg.draft_sources);
    let lead = answer::lead(sources, aspects, w, cfg.draft_sources);
    let in_lead = |si: usize, i: usize| lead.iter().any(|p| p.source == si && (p.first..=p.last).contains(&i));
    let taken: Vec<usize> = (0..cands.len()).filter(|&k| in_lead(cands[k].source, cands[k].sentence)).collect();
    let mut uses = vec![0usize; sources.len()];
    for p in &lead {
        uses[p.source] += 1;
    }
    let worth = |c: &Candidate, ai: usize, aspect: &Aspect| {
        // A fragment leaning on a sentence it cannot be quoted with reads
        // wrong anywhere in the report.
        if !c.on[ai] || c.dangling {
            return 0.0;
        }
        // A sentence in a section about the aspect explains it; a related
        // concept is best quoted from such a section only.
        let fit = 0.45 * c.literal[ai] + 0.2 * c.context[ai] + 0.35 * c.section[ai];
        let related = if aspect.related { 0.3 + c.section[ai] } else { 1.0 };
        c.score * fit * (0.6 + 0.4 * c.central[ai]) * related
    };
    let best_worth = cands
        .iter()
        .flat_map(|c| aspects.iter().enumerate().map(move |(ai, a)| (c, ai, a)))
        .map(|(c, ai, a)| worth(c, ai, a))
        .fold(0.0, f64::max);
    let floor = RELEVANCE_FLOOR * best_worth;
    // The direct answer: the sentences that hold the most of the question
    // (all of an aspect counting most), by MMR; unless a passage found holds
    // clearly more of the question jointly, which then leads (a comparison's
    // answer names everything compared in one place).
    let n = aspects.iter().filter(|a| !a.related).count().max(1) as f64;
    // The direct answer comes from the sources the retrieval evidence
    // stands behind most: a sentence of a page barely kept matches words,
    // one of the page about the question answers it.
    let rel = |si: usize| f64::from(sources[si].doc.relevance.unwrap_or(0.5));
    let top_rel = (0..sources.len().min(cfg.draft_sources)).map(rel).fold(0.0, f64::max).max(1e-9);
    let focus = |si: usize| (rel(si) / top_rel).powf(FOCUS_POWER);
    let answer_worth = |c: &Candidate| {
        let covered = (0..aspects.len()).filter(|&k| c.full[k] && !aspects[k].related).count() as f64;
        let held: Vec<f64> = (0..c.central.len()).filter(|&k| c.on[k]).map(|k| c.central[k]).collect();
        let central = if held.is_empty() { 0.0 } else { held.iter().sum::<f64>() / held.len() as f64 };
        let on_question = (0..aspects.len()).any(|k| !aspects[k].related && worth(c, k, &aspects[k]) >= floor);
        if c.dangling || !on_question {
            0.0
        } else {
            c.score * ((covered + 0.5) / (n + 0.5)).sqrt() * (0.6 + 0.4 * central) * focus(c.source)
        }
    };
    let mut picked_taken = taken.clone();
    let mut picked_uses = uses.clone();
    let mut alone_taken = Vec::new();
    let mut alone_uses = vec![0usize; sources.len()];
    let alone = pick(&cands, answer_worth, cfg.answer_sentences, cfg.mmr_lambda, &mut alone_taken, &mut alone_uses);
    let alone_joint = answer::joint_coverage(
        sources,
        aspects,
        w,
        &alone.iter().map(|&i| (cands[i].source, cands[i].sentence)).collect::<Vec<_>>(),
    );
    let lead_joint = lead.first().map_or(0.0, |p| p.joint);
    let lead = if lead_joint >= alone_joint + LEAD_ADDS { lead } else { Vec::new() };
    let (more, taken, uses) = if lead.is_empty() {
        (alone, alone_taken, alone_uses)
    } else {
        let lead_len: usize = lead.iter().map(|p| p.last - p.first + 1).sum();
        let more = pick(
            &cands,
            answer_worth,
            cfg.answer_sentences.saturating_sub(lead_len),
            cfg.mmr_lambda,
            &mut picked_taken,
            &mut picked_uses,
        );
        (more, picked_taken, picked_uses)
    };
    let (mut taken, mut uses) = (taken, uses);
    // The page the question is about opens the answer with what it says it
    // is, unless the direct answer quotes that sentence already.
    // The same words count as the same sentence: two pages can share one.
    let words_of = |si: usize, k: usize| normalize_for_match(sources[si].an.sentence_text(&sources[si].doc.text, k));
    let answer_words: Vec<String> = lead
        .iter()
        .flat_map(|p| (p.first..=p.last).map(move |k| (p.source, k)))
        .chain(more.iter().map(|&i| (cands[i].source, cands[i].sentence)))
        .map(|(si, k)| words_of(si, k))
        .collect();
    let in_answer = |si: usize, k: usize| answer_words.contains(&words_of(si, k));
    let opening: Option<(usize, usize)> = answer::openings(sources, aspects, w, cfg.opening_sources)
        .into_iter()
        .find(|&(si, k)| !in_answer(si, k))
        .filter(|_| cfg.opening_sources > 0);
    if let Some((si, k)) = opening {
        if let Some(i) = cands.iter().position(|c| c.source == si && c.sentence == k) {
            taken.push(i);
        }
        uses[si] += 1;
    }
    let mut sections: Vec<Vec<usize>> = Vec::new();
    for (ai, aspect) in aspects.iter().enumerate() {
        let per = if aspect.related { 1 } else { cfg.sentences_per_aspect };
        sections.push(pick(
            &cands,
            |c| {
                let v = worth(c, ai, aspect);
                if v < floor { 0.0 } else { v }
            },
            per,
            cfg.mmr_lambda,
            &mut taken,
            &mut uses,
        ));
    }
    let uncited: Vec<usize> = (0..sources.len().min(cfg.cover_sources)).filter(|&si| uses[si] == 0).collect();
    for si in uncited {
        let best = cands
            .iter()
            .enumerate()
            .filter(|(i, c)| c.source == si && !taken.contains(i) && c.on.iter().any(|on| *on))
            .filter(|(_, c)| aspects.iter().enumerate().any(|(ai, a)| !a.related && worth(c, ai, a) >= floor))
            .filter(|(_, c)| taken.iter().all(|&j| similarity(&c.stems, &cands[j].stems) < NEAR_IDENTICAL))
            .max_by(|a, b| a.1.score.total_cmp(&b.1.score));
        if let Some((i, c)) = best {
            let ai = (0..aspects.len())
                .filter(|&k| !aspects[k].related)
                .max_by(|&a, &b| c.literal[a].total_cmp(&c.literal[b]))
                .unwrap_or(0);
            taken.push(i);
            uses[si] += 1;
            sections[ai].push(i);
        }
    }

    // A chosen sentence that leans on its neighbour is quoted with it,
    // unless the neighbour is quoted already: no sentence twice.
    let mut quoted: Vec<(usize, usize)> = lead.iter().flat_map(|p| (p.first..=p.last).map(|i| (p.source, i))).collect();
    quoted.extend(more.iter().chain(sections.iter().flatten()).map(|&i| (cands[i].source, cands[i].sentence)));
    // The neighbours' words count too: two pages can share a sentence.
    let said_of = |si: usize, k: usize| normalize_for_match(sources[si].an.sentence_text(&sources[si].doc.text, k));
    let mut said: Vec<String> = quoted.iter().map(|&(si, k)| said_of(si, k)).collect();
    for &i in more.iter().chain(sections.iter().flatten()) {
        let (si, sentence) = (cands[i].source, cands[i].sentence);
        if let Some((text, from, to)) = with_context(&sources[si], sentence) {
            let overlaps = (from..=to)
                .filter(|&k| k != sentence)
                .any(|k| quoted.contains(&(si, k)) || said.contains(&said_of(si, k)));
            if !overlaps {
                cands[i].text = text;
                quoted.extend((from..=to).map(|k| (si, k)));
                said.extend((from..=to).map(|k| said_of(si, k)));
            }
        }
    }
    let id = |si: usize| sources[si].doc.meta.id;
    let cite = |c: &Candidate, aspect: Option<&Aspect>| Claim {
        text: c.text.clone(),
        citations: vec![Citation { source: id(c.source), quote: c.text.clone() }],
        aspect: aspect.map(|a| a.label.clone()),
    };
    let best_aspect = |c: &Candidate| {
        (0..aspects.len())
            .filter(|&k| !aspects[k].related)
            .max_by(|&a, &b| c.literal[a].total_cmp(&c.literal[b]))
            .map(|k| &aspects[k])
    };
    let mut claims = Vec::new();
    let mut md = String::new();
    if lead.is_empty() && more.is_empty() && opening.is_none() {
        md.push_str("The sources found do not answer this question directly.\n");
    } else {
        let mut parts = Vec::new();
        let mut labels = Vec::new();
        if let Some((si, k)) = opening {
            let src = &sources[si];
            let text = src.an.sentence_text(&src.doc.text, k).split_whitespace().collect::<Vec<_>>().join(" ");
            parts.push(labelled(src, k, &text, id(si).0, &mut labels));
            let best = aspects.iter().filter(|a| !a.related).max_by(|a, b| a.weight.total_cmp(&b.weight));
            claims.push(Claim {
                citations: vec![Citation { source: id(si), quote: text.clone() }],
                text,
                aspect: best.map(|a| a.label.clone()),
            });
        }
        for p in &lead {
            let src = &sources[p.source];
            let said: Vec<String> = (p.first..=p.last)
                .map(|i| src.an.sentence_text(&src.doc.text, i).split_whitespace().collect::<Vec<_>>().join(" "))
                .collect();
            parts.push(labelled(src, p.first, &said.join(" "), id(p.source).0, &mut labels));
            let best = aspects.iter().filter(|a| !a.related).max_by(|a, b| a.weight.total_cmp(&b.weight));
            claims.extend(said.into_iter().map(|text| Claim {
                citations: vec![Citation { source: id(p.source), quote: text.clone() }],
                text,
                aspect: best.map(|a| a.label.clone()),
            }));
        }
        for &i in &more {
            let c = &cands[i];
            parts.push(labelled(&sources[c.source], c.sentence, &c.text, id(c.source).0, &mut labels));
            claims.push(cite(&cands[i], best_aspect(&cands[i])));
        }
        md.push_str(&parts.join(" "));
        md.push('\n');
    }
    let mut see_also = Vec::new();
    // A related concept is pointed to where a source explains it; its
    // sentence joins the asked aspect it speaks of, never a section of its own.
    for ai in (0..aspects.len()).filter(|&k| aspects[k].related) {
        let Some(&i) = sections[ai].first() else { continue };
        let name = heading_label(aspects[ai].label.trim_start_matches(super::aspects::RELATED));
        let title = crate::text::sanitize_inline(&sources[cands[i].source].doc.meta.title);
        see_also.push(format!("{name} (“{}”)", title.trim()));
        let host = (0..aspects.len())
            .filter(|&k| !aspects[k].related && cands[i].literal[k] > 0.0)
            .max_by(|&a, &b| cands[i].literal[a].total_cmp(&cands[i].literal[b]));
        if let Some(k) = host {
            sections[k].push(i);
        }
    }
    for (ai, a) in aspects.iter().enumerate() {
        if a.related {
            continue;
        }
        if sections[ai].is_empty() {
            // An aspect the answer covers needs no empty section of its own.
            let answered = lead.iter().any(|p| (p.first..=p.last).any(|i| covers(&sources[p.source], i, a, w)))
                || more.iter().any(|&i| cands[i].on[ai]);
            if !answered {
                md.push_str(&format!("\n## {}\n\n", heading_label(&a.label)));
                md.push_str("_None of the sources found addresses this._\n");
            }
            continue;
        }
        // The same words from another copy of a page, or inside a quote
        // already given with its neighbours, are not said twice.
        let fresh: Vec<usize> = sections[ai]
            .iter()
            .copied()
            .filter(|&i| {
                let t = normalize_for_match(&cands[i].text);
                !claims.iter().any(|c: &Claim| normalize_for_match(&c.text).contains(&t))
            })
            .collect();
        if fresh.is_empty() {
            continue;
        }
        md.push_str(&format!("\n## {}\n\n", heading_label(&a.label)));
        for i in fresh {
            let t = normalize_for_match(&cands[i].text);
            if claims.iter().any(|c: &Claim| normalize_for_match(&c.text).contains(&t)) {
                continue;
            }
            md.push_str(&format!("- {} [{}]\n", cands[i].text, id(cands[i].source).0));
            claims.push(cite(&cands[i], Some(a)));
        }
    }
    if !see_also.is_empty() {
        md.push_str(&format!("\n{SEE_ALSO}{}.\n", see_also.join("; ")));
    }
    Draft { markdown: md, claims }
}

/// A quote of the direct answer with where it stands: its section's
/// heading (the page's title on a page without one), once per label, in
/// italics before it. A quote read alone loses what its section says it is
/// about ("Preventing Reference Cycles Using `Weak<T>`", "Struct
/// `BinaryHeap`"); the label gives it back.
fn labelled(src: &Src<'_>, sentence: usize, text: &str, id: u32, labels: &mut Vec<String>) -> String {
    let heading = src.an.sentences.get(sentence).and_then(|s| s.heading).and_then(|h| src.an.headings.get(h));
    let title = src.doc.meta.title.split(" - ").next().unwrap_or_default();
    // A heading that is a code signature or a single word ("Examples")
    // says less than the page's title.
    let telling =
        |h: &str| h.split_whitespace().count() > 1 && !h.contains(['(', '{', '<', '=']) && !h.starts_with("pub ");
    let telling_heading = heading.map(|(h, _)| h.as_str()).filter(|h| telling(h));
    let label = crate::text::sanitize_inline(telling_heading.unwrap_or(title));
    let label = label.trim().trim_end_matches(':').trim();
    let said = normalize_for_match(text);
    let key = normalize_for_match(label);
    // The page's title is said once per page: a second quote from it under
    // an untelling heading needs no label.
    let page = format!("[{id}]");
    let page_said = telling_heading.is_none() && labels.contains(&page);
    if label.is_empty() || key.is_empty() || said.contains(&key) || labels.contains(&key) || page_said {
        if !labels.contains(&page) {
            labels.push(page);
        }
        return format!("{text} [{id}]");
    }
    labels.push(key);
    labels.push(page);
    format!("*{}:* {text} [{id}]", label.replace('*', ""))
}

/// How sharply the direct answer prefers the best-supported sources.
const FOCUS_POWER: f64 = 1.0;

/// How much more of the question a passage must hold jointly than the
/// best separate sentences to lead the answer.
const LEAD_ADDS: f64 = 0.15;

/// How the draft's line of related concepts opens.
pub const SEE_ALSO: &str = "See also: ";

/// Whether sentence `i` of a source is on aspect `a`.
fn covers(src: &Src<'_>, i: usize, a: &Aspect, w: &Weights) -> bool {
    super::score::sentence_support(a, &src.an, i, w).on()
}

/// Section headings in sentence case, with a lone symbol in code (`?`).
pub fn heading_label(label: &str) -> String {
    let words: Vec<String> =
        label
            .split_whitespace()
            .map(|w| {
                if w.chars().any(char::is_alphanumeric) || w.starts_with('`') {
                    w.to_string()
                } else {
                    format!("`{w}`")
                }
            })
            .collect();
    let mut s = words.join(" ");
    if let Some(first) = s.chars().next().filter(|c| c.is_lowercase()) {
        s.replace_range(..first.len_utf8(), &first.to_uppercase().to_string());
    }
    s
}
