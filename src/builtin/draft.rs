//! DRAFT: an extractive answer. The direct answer first (the sentences or
//! the passage that hold the most of the question, `answer`), then a section
//! per aspect the question names with its best sentences (`candidates`),
//! then a "See also" line. Every sentence is quoted verbatim and cited.

use super::Src;
use super::action::acted_on;
use super::aspects::Aspect;
use super::candidates::{Candidate, NEAR_IDENTICAL, candidates, pick, repeats, similarity, with_context};
use super::config::{BuiltinConfig, DraftWeights};
use super::copies::Copies;
use super::direct;
use super::rarity::Weights;
use crate::engine::model::{Citation, Claim, Draft};
use crate::text::normalize_for_match;

/// The draft, in named steps: the direct answer from the answering parts
/// of the kept pages (`direct`); one section per aspect the question names
/// with its best sentences (`aspect_sections`); the best sentence of each
/// strong source not cited yet (`cover_sources`); each chosen sentence with
/// the neighbour it leans on (`with_neighbours`); then the Markdown and its
/// claims (`render`). Related concepts end it as a "See also" line.
pub fn draft(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    question: &str,
    w: &Weights,
    constraint_stems: &[String],
    cfg: &BuiltinConfig,
) -> Draft {
    let mut cands = candidates(sources, aspects, w, constraint_stems, cfg.draft_sources);
    let answer = direct::direct_answer(sources, aspects, question, w, &cfg.direct_settings());
    let worth = Worth::new(&cands, aspects, &cfg.draft_weights);
    let mut book = Book::new(sources, &cands, &answer);
    let mut sections = aspect_sections(&cands, aspects, &worth, cfg, &mut book);
    cover_sources(&cands, aspects, &worth, cfg, &mut book, &mut sections);
    let picked: Vec<usize> = sections.iter().flatten().copied().collect();
    with_neighbours(sources, &mut cands, &picked, &mut book);
    render(sources, aspects, w, &cands, &answer, &sections)
}

/// How much a candidate sentence is worth in the section of an aspect, and
/// the floor below which it is too loosely tied to the question to appear
/// anywhere in the report.
struct Worth<'a> {
    aspects: &'a [Aspect],
    weights: &'a DraftWeights,
    floor: f64,
    /// The floor of a sentence that cites a source not cited yet.
    cover: f64,
}

impl<'a> Worth<'a> {
    fn new(cands: &[Candidate], aspects: &'a [Aspect], weights: &'a DraftWeights) -> Self {
        let mut worth = Worth { aspects, weights, floor: 0.0, cover: 0.0 };
        let best = cands
            .iter()
            .flat_map(|c| (0..aspects.len()).map(move |ai| (c, ai)))
            .map(|(c, ai)| worth.of(c, ai))
            .fold(0.0, f64::max);
        worth.floor = weights.relevance_floor * best;
        worth.cover = weights.cover_floor * best;
        worth
    }

    /// A sentence in a section about the aspect explains it; a related
    /// concept is best quoted from such a section only. A fragment leaning
    /// on a sentence it cannot be quoted with reads wrong anywhere.
    fn of(&self, c: &Candidate, ai: usize) -> f64 {
        if !c.on[ai] || c.dangling {
            return 0.0;
        }
        let w = self.weights;
        let fit = w.literal * c.literal[ai] + w.context * c.context[ai] + w.section * c.section[ai];
        let related = if self.aspects[ai].related { w.related_base + c.section[ai] } else { 1.0 };
        c.score * fit * (1.0 - w.centrality + w.centrality * c.central[ai]) * related
    }

    /// The worth in the aspect's section, zero below the floor.
    fn in_section(&self, c: &Candidate, ai: usize) -> f64 {
        let v = self.of(c, ai);
        if v < self.floor { 0.0 } else { v }
    }
}

/// What the draft has quoted so far: candidates taken, quotes per source,
/// sentences said (by their words: two pages can share one).
struct Book {
    taken: Vec<usize>,
    uses: Vec<usize>,
    quoted: Vec<(usize, usize)>,
    said: Vec<String>,
}

impl Book {
    /// The book after the direct answer: its sentences count as taken.
    fn new(sources: &[Src<'_>], cands: &[Candidate], answer: &direct::DirectAnswer) -> Self {
        let mut book = Book { taken: Vec::new(), uses: vec![0; sources.len()], quoted: Vec::new(), said: Vec::new() };
        for piece in &answer.pieces {
            if let direct::Piece::Span { source, first, last } = *piece {
                book.uses[source] += 1;
                for k in first..=last {
                    book.quoted.push((source, k));
                    book.said.push(said_of(sources, source, k));
                    if let Some(i) = cands.iter().position(|c| c.source == source && c.sentence == k) {
                        book.taken.push(i);
                    }
                }
            }
        }
        // The same words elsewhere are the same sentence.
        for (i, c) in cands.iter().enumerate() {
            if !book.taken.contains(&i) && book.said.contains(&normalize_for_match(&c.text)) {
                book.taken.push(i);
            }
        }
        book
    }
}

fn said_of(sources: &[Src<'_>], si: usize, k: usize) -> String {
    normalize_for_match(sources[si].an.sentence_text(&sources[si].doc.text, k))
}

/// Per aspect, its best sentences by MMR (one for a related concept).
fn aspect_sections(
    cands: &[Candidate],
    aspects: &[Aspect],
    worth: &Worth<'_>,
    cfg: &BuiltinConfig,
    book: &mut Book,
) -> Vec<Vec<usize>> {
    let mut sections = Vec::new();
    for (ai, aspect) in aspects.iter().enumerate() {
        let per = if aspect.related { 1 } else { cfg.sentences_per_aspect };
        sections.push(pick(cands, |c| worth.in_section(c, ai), per, cfg.mmr_lambda, &mut book.taken, &mut book.uses));
    }
    sections
}

/// Each of the most relevant sources not cited yet adds its best sentence
/// to the asked aspect it holds most of, so the answer reflects every
/// strong source.
fn cover_sources(
    cands: &[Candidate],
    aspects: &[Aspect],
    worth: &Worth<'_>,
    cfg: &BuiltinConfig,
    book: &mut Book,
    sections: &mut [Vec<usize>],
) {
    let n = book.uses.len().min(cfg.cover_sources);
    let uncited: Vec<usize> = (0..n).filter(|&si| book.uses[si] == 0).collect();
    for si in uncited {
        let best = cands
            .iter()
            .enumerate()
            .filter(|(i, c)| c.source == si && !book.taken.contains(i) && c.on.iter().any(|on| *on))
            .filter(|(_, c)| (0..aspects.len()).any(|ai| !aspects[ai].related && worth.of(c, ai) >= worth.cover))
            .filter(|(_, c)| book.taken.iter().all(|&j| similarity(&c.stems, &cands[j].stems) < NEAR_IDENTICAL))
            .max_by(|a, b| a.1.score.total_cmp(&b.1.score));
        if let Some((i, c)) = best {
            let ai = best_asked(c, aspects).unwrap_or(0);
            book.taken.push(i);
            book.uses[si] += 1;
            sections[ai].push(i);
        }
    }
}

/// The asked aspect a candidate holds the most of.
fn best_asked(c: &Candidate, aspects: &[Aspect]) -> Option<usize> {
    (0..aspects.len()).filter(|&k| !aspects[k].related).max_by(|&a, &b| c.literal[a].total_cmp(&c.literal[b]))
}

/// A chosen sentence that leans on its neighbour is quoted with it, unless
/// the neighbour is quoted already: no sentence twice.
fn with_neighbours(sources: &[Src<'_>], cands: &mut [Candidate], picked: &[usize], book: &mut Book) {
    for &i in picked {
        book.quoted.push((cands[i].source, cands[i].sentence));
        book.said.push(said_of(sources, cands[i].source, cands[i].sentence));
    }
    for &i in picked {
        let (si, sentence) = (cands[i].source, cands[i].sentence);
        if let Some((text, from, to)) = with_context(&sources[si], sentence) {
            let overlaps = (from..=to).filter(|&k| k != sentence).any(|k| {
                // Said already, alone or inside a longer sentence
                // (a page can repeat a clause after a colon).
                let words = said_of(sources, si, k);
                book.quoted.contains(&(si, k)) || book.said.iter().any(|s| repeats(s, &words))
            });
            if !overlaps {
                cands[i].text = text;
                book.quoted.extend((from..=to).map(|k| (si, k)));
                book.said.extend((from..=to).map(|k| said_of(sources, si, k)));
            }
        }
    }
}

/// The Markdown and its claims: the direct answer, one section per asked
/// aspect, the "See also" line.
fn render(
    sources: &[Src<'_>],
    aspects: &[Aspect],
    w: &Weights,
    cands: &[Candidate],
    answer: &direct::DirectAnswer,
    sections: &[Vec<usize>],
) -> Draft {
    // Each section's sentences with the aspect each was picked for.
    let mut sections: Vec<Vec<(usize, usize)>> =
        sections.iter().enumerate().map(|(ai, s)| s.iter().map(|&i| (i, ai)).collect()).collect();
    let copies = Copies::new(sources);
    let cite = |c: &Candidate, holders: &[usize], aspect: Option<&Aspect>| Claim {
        text: c.text.clone(),
        citations: copies.citations(holders, &c.text),
        aspect: aspect.map(|a| a.label.clone()),
    };
    let top_asked = aspects.iter().filter(|a| !a.related).max_by(|a, b| a.weight.total_cmp(&b.weight));
    let mut claims = Vec::new();
    let mut md = String::new();
    if answer.pieces.is_empty() {
        md.push_str("The sources found do not answer this question directly.\n");
    } else {
        md.push_str(&render_direct(sources, &copies, answer, top_asked, &mut claims));
    }
    let mut see_also = Vec::new();
    // A related concept is pointed to where a source explains it; its
    // sentence joins the asked aspect it speaks of, never a section of its own.
    for ai in (0..aspects.len()).filter(|&k| aspects[k].related) {
        let Some(&(i, _)) = sections[ai].first() else { continue };
        let name = heading_label(&aspects[ai].label);
        let title = crate::text::sanitize_inline(&sources[cands[i].source].doc.meta.title);
        see_also.push(format!("{name} (“{}”)", title.trim()));
        let host = (0..aspects.len())
            .filter(|&k| !aspects[k].related && cands[i].literal[k] > 0.0)
            .max_by(|&a, &b| cands[i].literal[a].total_cmp(&cands[i].literal[b]));
        if let Some(k) = host {
            sections[k].push((i, k));
        }
    }
    let in_answer = |ai: usize| {
        answer.pieces.iter().any(|p| match *p {
            direct::Piece::Span { source, first, last } => {
                (first..=last).any(|i| covers(&sources[source], i, &aspects[ai], w))
            }
            direct::Piece::Code { .. } => false,
        })
    };
    // An action's sentences join the topic it acts on, after the topic's own.
    for ai in 0..aspects.len() {
        if let Some(host) = acted_on(aspects, ai) {
            let joined = std::mem::take(&mut sections[ai]);
            sections[host].extend(joined);
        }
    }
    for (ai, a) in aspects.iter().enumerate() {
        if a.related || a.action {
            continue;
        }
        let heading = heading_label(a.heading.as_ref().unwrap_or(&a.label));
        if sections[ai].is_empty() {
            // An aspect the answer covers needs no empty section of its own.
            if !in_answer(ai) {
                md.push_str(&format!("\n## {heading}\n\n"));
                md.push_str("_None of the sources found addresses this._\n");
            }
            continue;
        }
        // The same words from another copy of a page, or inside a quote
        // already given with its neighbours, are not said twice.
        let said_before = |claims: &[Claim], i: usize| {
            let t = normalize_for_match(&cands[i].text);
            claims.iter().any(|c| normalize_for_match(&c.text).contains(&t))
        };
        let fresh: Vec<(usize, usize)> =
            sections[ai].iter().copied().filter(|&(i, _)| !said_before(&claims, i)).collect();
        if fresh.is_empty() {
            continue;
        }
        md.push_str(&format!("\n## {heading}\n\n"));
        for (i, owner) in fresh {
            if said_before(&claims, i) {
                continue;
            }
            let holders = copies.holders(cands[i].source, &cands[i].text);
            md.push_str(&format!("- {} {}\n", cands[i].text, copies.markers(&holders)));
            claims.push(cite(&cands[i], &holders, Some(&aspects[owner])));
        }
    }
    if !see_also.is_empty() {
        md.push_str(&format!("\n{SEE_ALSO}{}.\n", see_also.join("; ")));
    }
    Draft { markdown: md, claims }
}

/// The direct answer's block: each span labelled with its section (a
/// labelled span on a line of its own), each code example fenced under the
/// quote it shows; one block of text.
fn render_direct(
    sources: &[Src<'_>],
    copies: &Copies<'_>,
    answer: &direct::DirectAnswer,
    aspect: Option<&Aspect>,
    claims: &mut Vec<Claim>,
) -> String {
    let mut out = String::new();
    let mut labels = Vec::new();
    for piece in &answer.pieces {
        match *piece {
            direct::Piece::Span { source, first, last } => {
                let src = &sources[source];
                let sents = &src.an.sentences;
                let sentence = |k: usize| {
                    let s = &sents[k];
                    (src.doc.text[s.start..s.end].split_whitespace().collect::<Vec<_>>().join(" "), s.paragraph)
                };
                // Each sentence carries its citations: a reader (and the
                // checker of every cited sentence) sees where each comes
                // from. A run of sentences the same pages hold is one claim,
                // within a paragraph: between two paragraphs a page may hold
                // a listing, and the two sentences are then no one quote.
                let mut runs: Vec<(Vec<usize>, usize, Vec<String>)> = Vec::new();
                for k in first..=last {
                    let (text, paragraph) = sentence(k);
                    let holders = copies.holders(source, &text);
                    let markers = copies.markers(&holders);
                    if k == first {
                        let quote = labelled(src, first, &text, &markers, &mut labels);
                        // A quote under a label of its own starts a line: the
                        // answer reads as one labelled quote a line, still one
                        // block of text (a single line break ends no paragraph).
                        if !out.is_empty() && !out.ends_with('\n') {
                            out.push(if quote.starts_with('*') { '\n' } else { ' ' });
                        }
                        out.push_str(&quote);
                    } else {
                        out.push_str(&format!(" {text} {markers}"));
                    }
                    match runs.last_mut() {
                        Some((h, p, texts)) if *h == holders && *p == paragraph => texts.push(text),
                        _ => runs.push((holders, paragraph, vec![text])),
                    }
                }
                for (holders, _, texts) in runs {
                    let text = texts.join(" ");
                    claims.push(Claim {
                        citations: copies.citations(&holders, &text),
                        text,
                        aspect: aspect.map(|a| a.label.clone()),
                    });
                }
            }
            direct::Piece::Code { source, block } => {
                let src = &sources[source];
                let b = &src.an.code[block];
                // Blank lines would end the answer's block; the quote still
                // matches the source, whitespace being normalised.
                let code: String = src.doc.text[b.start..b.end]
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .collect::<Vec<_>>()
                    .join("\n");
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&format!("Example [{}]:\n```\n{code}\n```\n", src.doc.meta.id.0));
                claims.push(Claim {
                    citations: vec![Citation { source: src.doc.meta.id, quote: code.clone() }],
                    text: code,
                    aspect: aspect.map(|a| a.label.clone()),
                });
            }
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// A quote of the direct answer with where it stands: its section's
/// heading (the page's title on a page without one), once per label, in
/// italics before it. A quote read alone loses what its section says it is
/// about ("Preventing Reference Cycles Using `Weak<T>`", "Struct
/// `BinaryHeap`"); the label gives it back.
fn labelled(src: &Src<'_>, sentence: usize, text: &str, markers: &str, labels: &mut Vec<String>) -> String {
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
    let page = format!("[{}]", src.doc.meta.id.0);
    let page_said = telling_heading.is_none() && labels.contains(&page);
    if label.is_empty() || key.is_empty() || said.contains(&key) || labels.contains(&key) || page_said {
        if !labels.contains(&page) {
            labels.push(page);
        }
        return format!("{text} {markers}");
    }
    labels.push(key);
    labels.push(page);
    format!("*{}:* {text} {markers}", label.replace('*', ""))
}

/// How the draft's line of related concepts opens.
pub const SEE_ALSO: &str = "See also: ";

/// Whether sentence `i` of a source is on aspect `a`.
fn covers(src: &Src<'_>, i: usize, a: &Aspect, w: &Weights) -> bool {
    super::score::sentence_support(a, &src.an, i, w).on()
}

/// Section headings in sentence case, with a lone symbol in code (`?`),
/// and a word holding a bracket as prose writes it (`my_string[0]`,
/// `text::label_as_prose`). A code span with spaces (`` `foo = "0.2"` ``)
/// is one word: its `=` is no lone symbol.
pub fn heading_label(label: &str) -> String {
    let words: Vec<String> = super::aspects::question_words(label)
        .into_iter()
        .map(|w| if w.chars().any(char::is_alphanumeric) || w.starts_with('`') { w } else { format!("`{w}`") })
        .collect();
    let mut s = crate::text::label_as_prose(&words.join(" "));
    if let Some(first) = s.chars().next().filter(|c| c.is_lowercase()) {
        s.replace_range(..first.len_utf8(), &first.to_uppercase().to_string());
    }
    s
}
