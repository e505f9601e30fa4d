//! PLAN's decomposition: a question's aspects are its runs of content
//! words (phrases between function words and punctuation), each weighted by
//! the rarity of its terms in the corpus. The rarest terms of an aspect are
//! its key: a sentence supports the aspect when it contains them.

use super::action::{PARTICLES, actions, circumstance, ends_on_its_verb, head_actions};
use super::analysis::{Stemmer, is_identifier, is_stopword};
use super::frame::{FrameWord, frame, is_function_word, is_name};
use super::phrase::in_its_phrase;
use super::rarity::Weights;

#[derive(Debug, Clone, PartialEq)]
pub struct Aspect {
    /// The words as the question has them, e.g. "lifetime elision rules".
    pub label: String,
    /// Stems that identify the aspect (its rarer terms).
    pub key: Vec<String>,
    /// Every stem of the aspect.
    pub stems: Vec<String>,
    pub weight: f64,
    /// Not asked, but what the sources consistently pair with the question
    /// (see `consensus`): supported only by a sentence in a section about it.
    pub related: bool,
    /// Where the aspect starts in the question (word index), and whether it
    /// is a parenthetical restatement; `usize::MAX` when not from the question.
    pub position: usize,
    pub parenthetical: bool,
    /// How the question wrote each stem: `(stem, lowercase word, written
    /// inside an identifier)`. A source holds a stem as asked when it has
    /// it in prose, or in code as the same word (`analysis::holds_in`).
    pub forms: Vec<(String, String, bool)>,
    /// The words the question writes as names, as written: capitalised
    /// where no sentence starts, in a question not written in Title Case
    /// ("Go" in "In Go, which case runs …").
    pub names: Vec<String>,
    /// The stems the question writes as code: in a code span, or as an
    /// identifier of several parts (`Vec<MyThing>`, `mylib::Circle`).
    pub code: Vec<String>,
    /// A verb of what the asker wants done to the topic that follows it
    /// (`action`): searched and checked like any aspect, but no section of
    /// its own; its sentences join that topic's.
    pub action: bool,
    /// The section heading of a topic an action acts on: the question's
    /// words from the action through it ("turn an integer").
    pub heading: Option<String>,
}

impl Aspect {
    /// How the question wrote `stem`: its lowercase word and whether it
    /// was part of an identifier. A stem the question did not write (a
    /// related aspect's) matches in any form.
    pub fn form<'a>(&'a self, stem: &'a str) -> (&'a str, bool) {
        self.forms.iter().find(|f| f.0 == stem).map_or((stem, true), |f| (f.1.as_str(), f.2))
    }
}

/// A question word with where it stands.
struct Word {
    surface: String,
    /// Its stems as a source's text would give them: one per part of a
    /// compound like `thread-safe` or `std::sync::Mutex`.
    stems: Vec<String>,
    /// Per stem: the lowercase word and whether it is part of an identifier.
    forms: Vec<(String, String, bool)>,
    /// A stopword or punctuation ends a run.
    breaks: bool,
    position: usize,
    in_parens: bool,
    /// Capitalised where no sentence of the question starts.
    capitalised: bool,
    /// The word without backticks and a possessive `'s`: the name as written.
    plain: String,
    /// In a code span, or an identifier of several parts.
    code: bool,
    /// An action on the topic after it (`action::actions`).
    action: bool,
}

/// The question's words (`question_words`) as words and separators. Symbols standing alone (`?`,
/// `&`) or glued to a word (`&str`) stay in the label. Words of the
/// question's frame (`frame`) are separators: they say how it asks, not
/// what about.
fn words(all: &[String], stemmer: &mut Stemmer) -> Vec<Word> {
    let mut out = Vec::new();
    let mut in_parens = false;
    let brk = |position, in_parens| Word {
        surface: String::new(),
        stems: Vec::new(),
        forms: Vec::new(),
        breaks: true,
        position,
        in_parens,
        capitalised: false,
        plain: String::new(),
        code: false,
        action: false,
    };
    let (framed, acting) = frame_of(all, stemmer);
    // A capitalised function word opening a sentence ("… explicitly. Why
    // …") is a function word, not a name.
    let mut sentence_start = true;
    let mut clause_start = true;
    for (position, raw) in all.iter().map(String::as_str).enumerate() {
        let opens_sentence = std::mem::replace(&mut sentence_start, raw.ends_with(['.', '?', '!']));
        // "Context: Sorting fails" capitalises after a colon too.
        let opens_clause = std::mem::replace(&mut clause_start, raw.ends_with(['.', '?', '!', ':']));
        if raw.starts_with('(') {
            out.push(brk(position, in_parens));
            in_parens = true;
        }
        let trimmed = trim_word(raw);
        let ends_clause = ends_clause(raw);
        if trimmed.is_empty() {
            // A symbol on its own, like the `?` in "the ? operator".
            let sym = raw.trim_matches(|c: char| c == ',' || c == '"');
            if !sym.is_empty() && !sym.chars().any(char::is_alphanumeric) && raw.len() <= 3 {
                out.push(Word {
                    surface: sym.to_string(),
                    stems: Vec::new(),
                    forms: Vec::new(),
                    breaks: false,
                    position,
                    in_parens,
                    capitalised: false,
                    plain: String::new(),
                    code: false,
                    action: false,
                });
            }
            continue;
        }
        let bare = trimmed.trim_matches('`');
        let alnum: String = bare.chars().filter(|c| c.is_alphanumeric() || *c == '_').collect();
        if alnum.is_empty() && !bare.is_empty() && bare.len() <= 3 {
            // A symbol in code, like `?`.
            out.push(Word {
                surface: bare.to_string(),
                stems: Vec::new(),
                forms: Vec::new(),
                breaks: false,
                position,
                in_parens,
                capitalised: false,
                plain: String::new(),
                code: true,
                action: false,
            });
            if ends_clause {
                out.push(brk(position, in_parens));
            }
            continue;
        }
        let stop = alnum.is_empty()
            || framed[position]
            || (is_stopword(&alnum) && !is_identifier(&alnum, if opens_sentence { 0 } else { position }));
        // The text's own tokenization, so that the key terms of `thread-safe`
        // are `thread` and `safe`, as in every source that says it.
        // A possessive ("clap's") is the name, not an identifier of two parts.
        let plain = bare.strip_suffix("'s").or_else(|| bare.strip_suffix("’s")).unwrap_or(bare);
        let mut tokens = if stop { Vec::new() } else { stemmer.tokens(plain, true) };
        // A word of several tokens (`Cargo.lock`, `std::env::var`,
        // `leading_zeros`) is an identifier: its parts match identifier parts.
        let compound = tokens.len() > 1;
        // The receiver of a method call is the asker's variable: `v` in
        // `v.iter_mut()` names nothing the sources write.
        if let Some(end) = receiver_end(plain) {
            tokens.retain(|t| t.from > end);
        }
        let forms: Vec<(String, String, bool)> =
            tokens.iter().map(|t| (t.stem.clone(), t.surface.to_lowercase(), compound)).collect();
        let stems = tokens.into_iter().map(|t| t.stem).collect();
        let capitalised = !opens_clause && plain.chars().next().is_some_and(char::is_uppercase);
        let code = compound || trimmed.starts_with('`');
        out.push(Word {
            surface: trimmed.to_string(),
            stems,
            forms,
            breaks: stop,
            position,
            in_parens,
            capitalised,
            plain: plain.to_string(),
            code,
            action: acting[position] && !stop && !code,
        });
        if ends_clause {
            out.push(brk(position, in_parens));
        }
        if raw.ends_with(')') || raw.ends_with("),") {
            in_parens = false;
        }
    }
    out
}

/// Where the variable a method is called on ends, in a word that is a
/// method call on a placeholder variable (`v.iter()`, `s.len()`): a
/// lowercase name of one or two letters, a dot, a name and an opening
/// parenthesis. A descriptive name says what the value is
/// (`vec_of_f64.sort()`); a path (`std::mem::swap()`), a field (`a.x`)
/// or a type (`Vec::new()`) is no method call on a variable.
fn receiver_end(word: &str) -> Option<usize> {
    let dot = word.find('.').filter(|&d| d <= 2)?;
    let (receiver, rest) = (&word[..dot], &word[dot + 1..]);
    let name = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let method = &rest[..rest.find('(')?];
    (name(receiver) && name(method)).then_some(dot)
}

/// The question split at white space, except inside a code span, a
/// generic type or an array type: `Result<u32, MyError>` is one word, not
/// `Result<u32,` and `MyError>`; so is `[T; N]`.
pub(super) fn question_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for piece in text.split_whitespace() {
        match out.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
        let last = out.last().map(String::as_str).unwrap_or_default();
        let depth = |o: char, c: char| last.matches(o).count() > last.matches(c).count();
        // Code written without backticks keeps its spaces inside brackets
        // (`HashMap<K, V>`, `[T; N]`).
        open = last.matches('`').count() % 2 == 1
            || (depth('<', '>') && !last.contains("<="))
            || (depth('[', ']') && last.contains(';'));
    }
    out
}

/// Whether `raw` has no punctuation around it (`trim_word` leaves it
/// whole): it ends no clause and opens no quote or parenthesis.
pub(super) fn unpunctuated(raw: &str) -> bool {
    trim_word(raw).len() == raw.len()
}

/// Whether `raw` ends a clause: punctuation after the word (a comma, a
/// semicolon, a colon, a closing parenthesis, the sentence's end).
pub(super) fn ends_clause(raw: &str) -> bool {
    !unpunctuated(raw) && raw.ends_with([',', ';', ':', '.', '!', ')', '?'])
}

/// A word without the punctuation around it; a closing parenthesis stays
/// when the word opened it (`v.iter()`).
pub(super) fn trim_word(raw: &str) -> &str {
    let mut w = raw.trim_start_matches(['"', '\'']);
    if w.starts_with('(') && w.matches('(').count() > w.matches(')').count() {
        w = w.trim_start_matches('(');
    }
    loop {
        let before = w.len();
        w = w.trim_end_matches(['?', ',', '.', ';', ':', '!', '"', '\'']);
        if w.ends_with(')') && w.matches(')').count() > w.matches('(').count() {
            w = &w[..w.len() - 1];
        }
        if w.len() == before {
            return w;
        }
    }
}

/// Whether the question is written in Title Case: at least three words
/// after the first start with a letter, and two thirds of them with a
/// capital. Code (`std::io`, `Vec<T>`, a code span) is left out.
fn title_case(all: &[String]) -> bool {
    let words: Vec<&str> = all
        .iter()
        .skip(1)
        .map(|w| trim_word(w))
        .filter(|w| !w.contains(['`', '_', ':', '<', '(', '[', '&', '/', '=']))
        .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
        .collect();
    let capitals = words.iter().filter(|w| w.chars().next().is_some_and(char::is_uppercase)).count();
    words.len() >= 3 && capitals * 3 >= words.len() * 2
}

/// Which of the question's words are its frame (`frame::frame`) and which
/// its actions (`action::actions`).
fn frame_of(all: &[String], stemmer: &mut Stemmer) -> (Vec<bool>, Vec<bool>) {
    // In a question written in Title Case a capital names nothing: every
    // word is read as if it opened a sentence ("How To Turn An Integer"),
    // so its function words are frame.
    let title = title_case(all);
    let mut sentence_start = true;
    let words: Vec<FrameWord> = all
        .iter()
        .enumerate()
        .map(|(position, raw)| {
            let opens_sentence = std::mem::replace(&mut sentence_start, raw.ends_with(['.', '?', '!']));
            let trimmed = trim_word(raw);
            let code = trimmed.starts_with('`') || trimmed.contains(['_', ':', '<', '(', '[', '&', '/', '=']);
            let bare = trimmed.trim_matches('`');
            FrameWord {
                lower: bare.to_lowercase(),
                name: is_name(bare, if opens_sentence || title { 0 } else { position }, code),
                ends_clause: ends_clause(raw),
            }
        })
        .collect();
    let framed = frame(&words, stemmer);
    let acting = actions(&words, &framed, stemmer);
    (framed, acting)
}

/// The question's aspects in the question's own order: at most `max`, the
/// weightiest kept.
pub fn aspects(question: &str, stemmer: &mut Stemmer, weights: &Weights, max: usize) -> Vec<Aspect> {
    // The question's words, split once for the runs, the headings and the actions.
    let all = question_words(question);
    let mut ws = words(&all, stemmer);
    // In a question written in Title Case a capital names nothing.
    let content: Vec<&Word> = ws.iter().filter(|w| !w.breaks && !w.code && w.position > 0).collect();
    if content.len() >= 3 && content.iter().filter(|w| w.capitalised).count() * 3 >= content.len() * 2 {
        ws.iter_mut().for_each(|w| w.capitalised = false);
    }
    let mut runs: Vec<Vec<&Word>> = Vec::new();
    let mut run: Vec<&Word> = Vec::new();
    for w in &ws {
        if w.breaks {
            if !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
            continue;
        }
        run.push(w);
    }
    if !run.is_empty() {
        runs.push(run);
    }
    // Long runs are cut into phrases of at most three words.
    let runs: Vec<Vec<&Word>> = runs
        .into_iter()
        .flat_map(|r| {
            let chunks: Vec<Vec<&Word>> = r.chunks(3).map(<[&Word]>::to_vec).collect();
            chunks
        })
        .filter(|r| r.iter().any(|w| !w.stems.is_empty()))
        .collect();
    let global_max = ws.iter().flat_map(|w| &w.stems).map(|s| weights.of(s)).fold(0.0, f64::max);
    let mut out: Vec<Aspect> = Vec::new();
    // Where each key (its terms, sorted) already is in `out`: one lookup
    // per run, not a scan of every aspect so far (a long question has
    // thousands of runs).
    let mut by_key: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
    for r in runs {
        let stems: Vec<String> = r.iter().flat_map(|w| w.stems.iter().cloned()).collect();
        // A one-letter name (`x` in `for x in v`, `T` in `Vec<T>`) is a
        // placeholder: rare in any corpus, it names nothing a source says.
        // It is no key term beside a longer one.
        let placeholders_only = stems.iter().all(|t| t.chars().count() <= 1);
        let named = |s: &&String| placeholders_only || s.chars().count() > 1;
        let top = stems.iter().filter(named).map(|s| weights.of(s)).fold(0.0, f64::max);
        let key: Vec<String> = stems
            .iter()
            .filter(named)
            .filter(|s| {
                let w = weights.of(s);
                w >= 0.5 * top && w >= 0.35 * global_max || w >= top
            })
            .cloned()
            .collect();
        let rest: f64 = stems.iter().map(|s| weights.of(s)).sum::<f64>() - top;
        let label = r.iter().map(|w| w.surface.as_str()).collect::<Vec<_>>().join(" ");
        let forms = r.iter().flat_map(|w| w.forms.iter().cloned()).collect();
        let names = r.iter().filter(|w| w.capitalised && !w.code).map(|w| w.plain.clone()).collect();
        let code = r.iter().filter(|w| w.code).flat_map(|w| w.stems.iter().cloned()).collect();
        let aspect = Aspect {
            label,
            key,
            stems,
            forms,
            names,
            code,
            weight: top + 0.25 * rest,
            related: false,
            position: r[0].position,
            parenthetical: r[0].in_parens,
            action: r.len() == 1 && r[0].action,
            heading: without_particle(&all, &r).or_else(|| subject_of(&all, &r)).or_else(|| {
                (r.len() == 1 && !r[0].code && !r[0].action).then(|| in_its_phrase(&all, r[0].position)).flatten()
            }),
        };
        // The same terms asked twice ("Rc and Arc … need Arc") are one aspect.
        let mut terms = aspect.key.clone();
        terms.sort();
        match by_key.get(&terms).map(|&i| &mut out[i]) {
            Some(existing) if existing.weight < aspect.weight => *existing = aspect,
            Some(_) => {}
            None => {
                by_key.insert(terms, out.len());
                out.push(aspect);
            }
        }
    }
    let best = out.iter().map(|a| a.weight).fold(0.0, f64::max);
    if out.len() > 2 {
        out.retain(|a| a.weight >= 0.3 * best);
    }
    if let Some(relation) = comparison(question, &out) {
        out.insert(0, relation);
    }
    if out.len() > max.max(1) {
        let mut order: Vec<usize> = (0..out.len()).collect();
        let aside = |a: &Aspect| a.action && circumstance(&all, a.position);
        order.sort_by(|a, b| {
            let (x, y) = (&out[*a], &out[*b]);
            aside(x).cmp(&aside(y)).then(y.weight.total_cmp(&x.weight)).then(a.cmp(b))
        });
        let keep: Vec<usize> = order.into_iter().take(max.max(1)).collect();
        out = out.into_iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, a)| a).collect();
    }
    head_actions(&all, &mut out);
    out
}

/// The heading of a run that ends on a particle: the run without it
/// ("worker threads back" is headed "worker threads"), or a particle alone
/// with the verb it goes with ("build them together").
fn without_particle(all: &[String], run: &[&Word]) -> Option<String> {
    let (last, rest) = run.split_last()?;
    if last.code || !PARTICLES.contains(&last.surface.to_lowercase().as_str()) {
        return None;
    }
    if !rest.is_empty() {
        return Some(rest.iter().map(|w| w.surface.as_str()).collect::<Vec<_>>().join(" "));
    }
    // Back over the verb's object pronoun to the verb ("build them").
    let clause = |w: &String| unpunctuated(w);
    let from = (last.position.saturating_sub(3)..last.position)
        .rev()
        .take_while(|&k| clause(&all[k]))
        .find(|&k| !is_function_word(&all[k].to_lowercase()))?;
    Some(all[from..=last.position].iter().map(|w| trim_word(w)).collect::<Vec<_>>().join(" "))
}

/// The heading of a run that is a clause's subject and its verb ("users
/// turn"): the subject.
fn subject_of(all: &[String], run: &[&Word]) -> Option<String> {
    let (last, rest) = run.split_last()?;
    let first = run[0].position;
    (!rest.is_empty() && !last.code && ends_on_its_verb(all, first, last.position))
        .then(|| rest.iter().map(|w| w.surface.as_str()).collect::<Vec<_>>().join(" "))
}

/// Words that ask how two things compare.
const COMPARISON_CUES: &[&str] = &[
    "difference",
    "differences",
    "differ",
    "differs",
    "versus",
    "vs",
    "vs.",
    "compare",
    "compared",
    "comparison",
    "instead of",
    "rather than",
];

/// For a question that compares, the comparison itself is an aspect: a
/// sentence supports it when it names both things. The things are the
/// aspects on either side of the cue ("A instead of B"), or the first two
/// after it ("the difference between A and B"); parenthetical restatements
/// and actions ("between looping over A and B") are not things of their own.
fn comparison(question: &str, aspects: &[Aspect]) -> Option<Aspect> {
    let words: Vec<String> = question.split_whitespace().map(|w| w.to_lowercase()).collect();
    // Each cue's words are compared where they would start: the question's
    // rest is never joined again for every word (quadratic in its length).
    let cues: Vec<Vec<&str>> = COMPARISON_CUES.iter().map(|c| c.split(' ').collect()).collect();
    let at =
        |i: usize, cue: &[&str]| words.get(i..i + cue.len()).is_some_and(|w| w.iter().zip(cue).all(|(a, b)| a == b));
    let cue = (0..words.len()).find(|&i| cues.iter().any(|c| at(i, c)))?;
    let things: Vec<&Aspect> = aspects.iter().filter(|a| !a.parenthetical && !a.related && !a.action).collect();
    let before = things.iter().rev().find(|a| a.position < cue);
    let after: Vec<&&Aspect> = things.iter().filter(|a| a.position > cue).collect();
    let (first, second) = match (before, after.first()) {
        (Some(b), Some(a)) => (*b, **a),
        (None, _) if after.len() >= 2 => (*after[0], *after[1]),
        _ => return None,
    };
    let (ka, kb) = (first.key.first()?, second.key.first()?);
    if ka == kb {
        return None;
    }
    Some(Aspect {
        label: format!("{} vs {}", first.label, second.label),
        key: vec![ka.clone(), kb.clone()],
        stems: first.stems.iter().chain(&second.stems).cloned().collect(),
        forms: first.forms.iter().chain(&second.forms).cloned().collect(),
        names: first.names.iter().chain(&second.names).cloned().collect(),
        code: first.code.iter().chain(&second.code).cloned().collect(),
        weight: (first.weight + second.weight) / 2.0,
        related: false,
        position: first.position,
        parenthetical: false,
        action: false,
        heading: None,
    })
}

/// A related concept an earlier critique or query named (its kind
/// `AspectKind::Related`): searched and pointed to, never required.
pub fn related_aspect(label: &str, stemmer: &mut Stemmer, weights: &Weights) -> Option<Aspect> {
    let stems: Vec<String> = stemmer.words(label, true).into_iter().map(|(s, _)| s).collect();
    let weight = stems.iter().map(|s| weights.of(s)).fold(0.0, f64::max);
    (!stems.is_empty()).then(|| Aspect {
        label: label.to_string(),
        key: stems.clone(),
        stems,
        forms: Vec::new(),
        names: Vec::new(),
        code: Vec::new(),
        weight: 0.7 * weight,
        related: true,
        position: usize::MAX,
        parenthetical: false,
        action: false,
        heading: None,
    })
}

/// How much of an aspect a set of stems holds: the weighted share of its
/// key stems present, in `[0, 1]`.
pub fn coverage(aspect: &Aspect, has: impl Fn(&str) -> bool, weights: &Weights) -> f64 {
    let total: f64 = aspect.key.iter().map(|k| weights.of(k)).sum();
    if total <= 0.0 {
        return 0.0;
    }
    aspect.key.iter().filter(|k| has(k)).map(|k| weights.of(k)).sum::<f64>() / total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(q: &str) -> Vec<String> {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        aspects(q, &mut st, &w, 5).into_iter().map(|a| a.label).collect()
    }

    #[test]
    fn runs_of_content_words_become_aspects() {
        assert_eq!(
            labels("What are the lifetime elision rules for function signatures?"),
            vec!["lifetime elision rules", "function signatures"]
        );
        assert_eq!(
            labels("What is the difference between Rc and Arc, and when do I need Arc?"),
            vec!["Rc vs Arc", "Rc", "Arc"]
        );
        assert_eq!(labels("How does the ? operator convert errors?"), vec!["? operator convert", "errors"]);
        assert_eq!(labels("Is an array like [T; N] generic over N?"), vec!["array", "[T; N] generic", "N"]);
    }

    /// "clap's" is the name clap in prose, not an identifier of two parts.
    #[test]
    fn a_possessive_is_the_name_written_in_prose() {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        let asp = aspects("How do I define subcommands with clap's derive API?", &mut st, &w, 5);
        let clap = asp.iter().flat_map(|a| &a.forms).find(|f| f.1 == "clap").unwrap_or_else(|| panic!("{asp:?}"));
        assert!(!clap.2, "{asp:?}");
        assert!(!asp.iter().flat_map(|a| &a.stems).any(|s| s == "s"), "{asp:?}");
    }

    #[test]
    fn a_heading_ends_before_a_particle_or_takes_its_verb() {
        let mut st = Stemmer::default();
        let q = "How do I build them together, and send the worker threads back?";
        let all = question_words(q);
        let ws = words(&all, &mut st);
        let run =
            |label: &str| -> Vec<&Word> { ws.iter().filter(|w| label.split(' ').any(|l| w.surface == l)).collect() };
        assert_eq!(without_particle(&all, &run("together")).as_deref(), Some("build them together"));
        assert_eq!(without_particle(&all, &run("worker threads back")).as_deref(), Some("worker threads"));
        assert_eq!(without_particle(&all, &run("worker threads")), None);
    }

    #[test]
    fn in_title_case_a_capital_names_nothing() {
        let title = labels("How To Turn An Integer Into A String");
        assert!(title.iter().all(|l| !l.contains("To") && !l.contains("An") && !l.contains("Into")), "{title:?}");
        assert_eq!(title, ["Turn", "Integer", "String"]);
        // Names in a sentence as usual stay names.
        assert!(labels("Should I use Into or From for my type?").contains(&"Into".to_string()));
    }

    #[test]
    fn words_about_the_asker_are_no_aspects() {
        let when = labels("When am I allowed to water during a drought?");
        assert!(!when.iter().any(|l| l.eq_ignore_ascii_case("am")), "{when:?}");
        assert!(when.iter().any(|l| l.contains("drought")), "{when:?}");
        let gives = labels("Which collection gives me the smallest item first?");
        assert!(!gives.iter().any(|l| l.to_lowercase().contains("gives")), "{gives:?}");
        assert!(gives.iter().any(|l| l.contains("smallest item")), "{gives:?}");
    }

    /// No aspect made only of words that say how the question asks: each
    /// case lists the aspects a section may be titled with.
    #[test]
    fn the_question_frame_makes_no_aspect() {
        let cases: &[(&str, &[&str])] = &[
            ("When am I allowed to water during a drought?", &["water", "drought"]),
            ("How long does the buddy program last?", &["buddy program"]),
            ("How often are passwords rotated?", &["passwords rotated"]),
            (
                "What's the idiomatic way to count word occurrences in a HashMap without doing a separate lookup?",
                &["count word occurrences", "HashMap", "separate lookup"],
            ),
            (
                "My main.rs is getting huge; how do I move a module into its own file?",
                &["main.rs", "move", "module", "file"],
            ),
            (
                "Why does `?` turn an io::Error into Result<u32, MyError> here?",
                &["? turn", "io::Error", "Result<u32, MyError>"],
            ),
            ("I'm trying to read a file, what should I use?", &["read", "file"]),
            (
                "What's the difference between v.iter() and v.into_iter()?",
                &["v.iter() vs v.into_iter()", "v.iter()", "v.into_iter()"],
            ),
        ];
        for (q, want) in cases {
            assert_eq!(labels(q), *want, "{q}");
        }
    }

    #[test]
    fn a_compound_word_has_the_stems_a_source_text_gives_it() {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        for q in ["Is the quux registry thread-safe?", "Is std::sync::Mutex fair?"] {
            let a = &aspects(q, &mut st, &w, 5)[0];
            let text = st.stems(q);
            assert!(a.key.iter().all(|k| text.contains(k)), "{q}: key {:?} not among the text's stems {text:?}", a.key);
        }
    }

    /// The variable a method is called on is the asker's, not the docs':
    /// `iter_mut()` in a source holds `v.iter_mut()`; a path or a field
    /// keeps every part.
    #[test]
    fn a_method_calls_receiver_is_no_term_of_the_aspect() {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        let all = aspects("Is v.iter_mut() lazy?", &mut st, &w, 5);
        let a = all.iter().find(|a| a.label.contains("v.iter_mut()")).unwrap_or_else(|| panic!("{all:?}"));
        assert_eq!(a.stems[..2], ["iter", "mut"]);
        assert!(a.key.iter().all(|k| k != "v") && !a.key.is_empty(), "{:?}", a.key);
        assert!(!a.code.is_empty(), "still code: {:?}", a.code);
        let all = aspects("Why won't xs.sort() compile?", &mut st, &w, 5);
        let b = all.iter().find(|b| b.label.contains("xs.sort()")).unwrap_or_else(|| panic!("{all:?}"));
        assert_eq!(b.stems[0], "sort", "{b:?}");
        for (q, kept) in [
            ("Is std::mem::swap() safe?", "mem"),
            ("Does the closure capture a.x whole?", "a"),
            ("Why won't vec_of_floats.sort() compile?", "float"),
        ] {
            let all: Vec<String> = aspects(q, &mut st, &w, 5).into_iter().flat_map(|a| a.stems).collect();
            assert!(all.iter().any(|s| s == kept), "{q}: {all:?}");
        }
    }

    #[test]
    fn a_one_letter_name_is_no_key_term_beside_a_longer_one() {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        let mut keys =
            |q: &str| -> Vec<Vec<String>> { aspects(q, &mut st, &w, 5).into_iter().map(|a| a.key).collect() };
        let wrapped = keys("Why must I write `Rc<T>` here?");
        assert!(wrapped.iter().any(|k| k.contains(&"rc".to_string())), "{wrapped:?}");
        assert!(wrapped.iter().all(|k| !k.contains(&"t".to_string())), "{wrapped:?}");
        // Nothing but placeholders: they stay the key.
        let array = keys("What is `[T; N]`?");
        assert!(array.iter().any(|k| k.contains(&"n".to_string())), "{array:?}");
    }

    #[test]
    fn coverage_weighs_key_terms() {
        let mut st = Stemmer::default();
        let w = Weights::new(None, 0.0, &[]);
        let a = &aspects("lifetime elision", &mut st, &w, 5)[0];
        assert_eq!(coverage(a, |s| a.key.iter().any(|k| k == s), &w), 1.0);
        assert_eq!(coverage(a, |_| false, &w), 0.0);
        let partial = coverage(a, |s| s == a.key[0], &w);
        assert!(partial > 0.0 && partial < 1.0);
    }
}
