//! Text analysis for the built-in reasoner: the index's own analysis
//! (lowercase English stems), sentences located exactly in a source's text
//! (so a quote is always a verbatim span), and per-source term counts.

use std::collections::{HashMap, HashSet};

use tantivy::tokenizer::TextAnalyzer;

use crate::search::local::analyzer;
use crate::text::{STOPWORDS, fingerprint};

/// Words that shape a question without naming its topic. Short and
/// general on purpose; corpus rarity (IDF) does the rest.
const QUESTION_FILLER: &[&str] = &[
    "am",
    "another",
    "several",
    "many",
    "much",
    "way",
    "ways",
    "kind",
    "kinds",
    "exactly",
    "really",
    "happen",
    "mean",
    "means",
    "explain",
    "example",
    "examples",
    "versus",
    "vs",
    "want",
    "like",
    "able",
    "possible",
    "thing",
    "things",
    "use",
    "used",
    "using",
    "instead",
    "go",
    "goes",
    "different",
    "same",
    "each",
    "every",
    "do",
    "done",
    "make",
    "know",
    "tell",
    "please",
    "lots",
    "pick",
    "just",
    "actually",
    "somehow",
    "anything",
    "something",
    "own",
    "still",
];

/// Irregular English forms the stemmer cannot join to their base, so that
/// "broken" finds "break" and "written" finds "write".
const IRREGULAR: &[(&str, &str)] = &[
    ("broken", "break"),
    ("broke", "break"),
    ("written", "write"),
    ("wrote", "write"),
    ("built", "build"),
    ("ran", "run"),
    ("taken", "take"),
    ("took", "take"),
    ("given", "give"),
    ("gave", "give"),
    ("chosen", "choose"),
    ("chose", "choose"),
    ("hidden", "hide"),
    ("held", "hold"),
    ("kept", "keep"),
    ("left", "leave"),
    ("lost", "lose"),
    ("made", "make"),
    ("found", "find"),
    ("thrown", "throw"),
    ("threw", "throw"),
    ("bound", "bind"),
    ("went", "go"),
    ("gone", "go"),
    ("children", "child"),
    ("indices", "index"),
    ("mice", "mouse"),
];

pub fn is_stopword(word: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    let set = SET.get_or_init(|| STOPWORDS.iter().chain(QUESTION_FILLER).copied().collect());
    if word.len() > 12 {
        return false;
    }
    if word.bytes().any(|b| b.is_ascii_uppercase()) {
        set.contains(word.to_ascii_lowercase().as_str())
    } else {
        set.contains(word)
    }
}

/// A capitalised function word after the first word names something
/// (`From`, `Into`, `Any`): it is content, not a stopword.
pub fn is_identifier(word: &str, position: usize) -> bool {
    position > 0 && word.chars().count() > 1 && word.chars().next().is_some_and(char::is_uppercase)
}

/// Stems words with the index's analyzer.
pub struct Stemmer {
    inner: TextAnalyzer,
}

impl Default for Stemmer {
    fn default() -> Self {
        Self { inner: analyzer() }
    }
}

impl Stemmer {
    /// The stem of one word (`None` for words the analyzer drops).
    pub fn stem(&mut self, word: &str) -> Option<String> {
        let lower = word.to_lowercase();
        let word = IRREGULAR.iter().find(|(form, _)| *form == lower).map_or(word, |(_, base)| *base);
        let mut s = self.inner.token_stream(word);
        let mut out = None;
        while s.advance() {
            out = Some(s.token().text.clone());
        }
        out
    }

    /// `(stem, lowercase word)` for every word of `text` (the index's
    /// tokenization, one pass); stopwords dropped unless `keep_stopwords`.
    pub fn words(&mut self, text: &str, keep_stopwords: bool) -> Vec<(String, String)> {
        self.tokens(text, keep_stopwords).into_iter().map(|t| (t.stem, t.surface)).collect()
    }

    /// Every word of `text` with where it stands: [`Stemmer::words`] with
    /// byte offsets.
    pub fn tokens(&mut self, text: &str, keep_stopwords: bool) -> Vec<Token> {
        let mut out: Vec<Token> = Vec::new();
        let mut irregular: Vec<(usize, String)> = Vec::new();
        let urls = url_spans(text);
        let mut stream = self.inner.token_stream(text);
        while stream.advance() {
            let t = stream.token();
            // Links are addresses, not words of the text.
            if urls.iter().any(|(s, e)| t.offset_from >= *s && t.offset_to <= *e) {
                continue;
            }
            let word = &text[t.offset_from..t.offset_to];
            let identifier = is_identifier(word, t.position);
            let stop = is_stopword(word);
            if stop && !keep_stopwords && !identifier {
                continue;
            }
            let lower = word.to_lowercase();
            if IRREGULAR.iter().any(|(form, _)| *form == lower) {
                irregular.push((out.len(), lower.clone()));
            }
            // Identifiers keep their case in labels and queries.
            let surface = if identifier && stop { word.to_string() } else { lower };
            out.push(Token { stem: t.text.clone(), surface, from: t.offset_from, to: t.offset_to });
        }
        drop(stream);
        for (i, word) in irregular {
            if let Some(stem) = self.stem(&word) {
                out[i].stem = stem;
            }
        }
        out
    }

    /// Distinct content stems of `text`, sorted.
    pub fn stems(&mut self, text: &str) -> Vec<String> {
        let mut v: Vec<String> = self.words(text, false).into_iter().map(|(s, _)| s).collect();
        v.sort();
        v.dedup();
        v
    }
}

/// A word of a text: its stem, its lowercase form and its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub stem: String,
    pub surface: String,
    pub from: usize,
    pub to: usize,
}

/// How a word stands in code: as a part of a compound identifier
/// (`leading_zeros`, `env::var`, `--keep-going`) or as a whole one
/// (`` `extern` ``).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeForm {
    pub stem: String,
    /// Lowercase, as written.
    pub surface: String,
    /// One part of a compound identifier.
    pub part: bool,
}

/// Byte ranges of `` `code spans` `` in a text (an unclosed one runs to the end).
pub fn code_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, b) in text.bytes().enumerate() {
        if b == b'`' {
            match open.take() {
                Some(s) => out.push((s, i)),
                None => open = Some(i + 1),
            }
        }
    }
    if let Some(s) = open {
        out.push((s, text.len()));
    }
    out
}

/// Whether the word at `from..to` of `text` is glued to another by an
/// identifier joint: `_` or `::` anywhere, `-` or `.` inside code.
fn joined(text: &str, from: usize, to: usize, in_code: bool) -> bool {
    let before = text[..from].chars().rev().take(2).collect::<String>();
    let after = text[to..].chars().take(2).collect::<String>();
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    let glue = |s: &str, lead: bool| {
        let mut cs = s.chars();
        let (a, b) = (cs.next(), cs.next());
        match a {
            Some('_') => true,
            Some(':') => b == Some(':'),
            // `--keep-going`, `a.b`: a joint inside code; a leading `--`
            // makes a flag of the word after it.
            Some('-') if in_code => word_char(b) || (lead && b == Some('-')),
            Some('.') if in_code => word_char(b),
            _ => false,
        }
    };
    glue(&before, true) || glue(&after, false)
}

/// The stems a text holds only in code, with their forms (sorted by stem):
/// a word in prose is evidence of its meaning; the same letters inside an
/// identifier may name something else (`leading_zeros` for "leading zeros").
pub fn code_forms(text: &str, tokens: &[Token]) -> Vec<CodeForm> {
    let spans = code_spans(text);
    let mut prose: HashSet<&str> = HashSet::new();
    let mut code: Vec<CodeForm> = Vec::new();
    for t in tokens {
        let in_code = spans.iter().any(|&(s, e)| t.from >= s && t.to <= e);
        let part = joined(text, t.from, t.to, in_code);
        if !in_code && !part {
            prose.insert(t.stem.as_str());
        } else {
            code.push(CodeForm { stem: t.stem.clone(), surface: t.surface.to_lowercase(), part });
        }
    }
    code.retain(|c| !prose.contains(c.stem.as_str()));
    code.sort_by(|a, b| a.stem.cmp(&b.stem).then(a.surface.cmp(&b.surface)).then(a.part.cmp(&b.part)));
    code.dedup();
    code
}

/// Whether a word the question wrote as `asked` (lowercase; `compound` when
/// the question wrote it inside an identifier itself) is what `form` says:
/// the same identifier part asked as one, or the same word (a plural aside)
/// as a whole identifier.
pub fn same_word_in_code(asked: &str, compound: bool, form: &CodeForm) -> bool {
    if compound {
        return true;
    }
    if form.part {
        return false;
    }
    let (a, b) = (asked.trim_end_matches('s'), form.surface.trim_end_matches('s'));
    a == b || asked.strip_suffix("es") == Some(b) || form.surface.strip_suffix("es") == Some(a)
}

/// Byte ranges of `http(s)://…` addresses in a text.
fn url_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("http").map(|i| from + i) {
        let rest = &text[i..];
        if rest.starts_with("http://") || rest.starts_with("https://") {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ')' || c == '>' || c == '"')
                .map_or(text.len(), |e| i + e);
            out.push((i, end));
            from = end;
        } else {
            from = i + 4;
        }
    }
    out
}

/// A sentence of a source: a byte range of its text, with its stems.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub start: usize,
    pub end: usize,
    /// Distinct content stems, sorted.
    pub stems: Vec<String>,
    /// Index into `AnalyzedDoc::headings` of the section it is in.
    pub heading: Option<usize>,
    pub words: usize,
    /// Fit to quote in prose: not code-like, balanced backticks, no `[n]`.
    pub quotable: bool,
    /// The paragraph it belongs to (sentences of one paragraph are adjacent).
    pub paragraph: usize,
    /// Its place in its section (0: the section's first sentence).
    pub in_section: usize,
    /// The stems it holds only inside code, with their forms.
    pub code: Vec<CodeForm>,
    /// A list item (or a definition list's term or description).
    pub item: bool,
}

impl Sentence {
    pub fn has(&self, stem: &str) -> bool {
        self.stems.binary_search_by(|s| s.as_str().cmp(stem)).is_ok()
    }

    /// Whether the sentence holds `stem` in the sense the question asked
    /// it (`asked`, `compound`: see [`same_word_in_code`]): in prose, or
    /// in code as the same word.
    pub fn holds(&self, stem: &str, asked: &str, compound: bool) -> bool {
        self.has(stem) && holds_in(&self.code, stem, asked, compound)
    }
}

/// Whether `stem`, known to be in a text whose code-only stems are `code`,
/// is there as the question asked it.
pub fn holds_in(code: &[CodeForm], stem: &str, asked: &str, compound: bool) -> bool {
    let from = code.partition_point(|c| c.stem.as_str() < stem);
    let forms: Vec<&CodeForm> = code[from..].iter().take_while(|c| c.stem == stem).collect();
    forms.is_empty() || forms.iter().any(|f| same_word_in_code(asked, compound, f))
}

/// A fenced code block of a source: a byte range of its text (the code
/// without its fences) and the section it stands in.
#[derive(Debug, Clone)]
pub struct CodeBlock {
    pub start: usize,
    pub end: usize,
    pub heading: Option<usize>,
    /// Paragraphs before it (it stands between paragraph `after - 1` and `after`).
    pub after: usize,
    pub lines: usize,
    /// Distinct stems of its words, sorted.
    pub stems: Vec<String>,
}

/// Words that open a sentence leaning on the one before it.
const REFERRING: &[&str] = &[
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "they",
    "their",
    "such",
    "instead",
    "however",
    "otherwise",
    "thus",
    "therefore",
    "so",
    "then",
    "also",
    "here",
    "there",
    "both",
    "but",
];

/// Whether a sentence opens by referring back ("Instead, …", "This means …").
pub fn refers_back(sentence: &str) -> bool {
    let mut words = sentence.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty());
    let first = words.next().unwrap_or("");
    // "There are three …" states that something exists; it leans on nothing.
    if first.eq_ignore_ascii_case("there")
        && words
            .next()
            .is_some_and(|w| ["is", "are", "was", "were", "exist", "exists"].iter().any(|x| x.eq_ignore_ascii_case(w)))
    {
        return false;
    }
    REFERRING.iter().any(|r| r.eq_ignore_ascii_case(first))
}

/// What the reasoner knows about one source's text.
#[derive(Debug, Clone, Default)]
pub struct AnalyzedDoc {
    pub words: usize,
    pub sentences: Vec<Sentence>,
    pub headings: Vec<(String, Vec<String>)>,
    /// Per heading, the stems it holds only inside code.
    pub heading_code: Vec<Vec<CodeForm>>,
    /// Fenced code blocks, in order.
    pub code: Vec<CodeBlock>,
    pub title_stems: Vec<String>,
    /// Term frequency of each content stem in the whole text.
    pub tf: HashMap<String, u32>,
    /// The most frequent surface form of each stem, for labels.
    pub surface: HashMap<String, String>,
    /// Sorted shingle hashes (`text::fingerprint`).
    pub fingerprint: Vec<u64>,
}

impl AnalyzedDoc {
    pub fn sentence_text<'a>(&self, text: &'a str, i: usize) -> &'a str {
        let s = &self.sentences[i];
        &text[s.start..s.end]
    }

    pub fn contains(&self, stem: &str) -> bool {
        self.tf.contains_key(stem)
    }
}

/// Text analysed per source: a very long page (release notes, a whole
/// reference) is read in its first part only.
const MAX_ANALYZED_BYTES: usize = 300_000;

/// Analyses a source: headings, sentences (outside code fences), counts.
pub fn analyze(title: &str, text: &str, stemmer: &mut Stemmer) -> AnalyzedDoc {
    let cut = (0..=MAX_ANALYZED_BYTES.min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    let text = &text[..cut];
    let mut doc = AnalyzedDoc { title_stems: stemmer.stems(title), ..Default::default() };
    let mut surface_counts: HashMap<(String, String), u32> = HashMap::new();
    let mut in_fence = false;
    let mut heading: Option<usize> = None;
    let mut para: Option<(usize, usize)> = None;
    let mut offset = 0;
    let mut paragraphs: Vec<((usize, usize), Option<usize>, bool)> = Vec::new();
    let mut block: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if fence {
            in_fence = !in_fence;
            match block.take() {
                None if in_fence => block = Some(offset),
                Some(from) if from < start => {
                    let code = text[from..start].trim_end();
                    paragraphs_flush(&mut para, &mut paragraphs, heading);
                    doc.code.push(CodeBlock {
                        start: from,
                        end: from + code.len(),
                        heading,
                        after: paragraphs.len(),
                        lines: code.lines().count(),
                        stems: stemmer.stems(code),
                    });
                }
                _ => {}
            }
        }
        let is_heading = !in_fence && trimmed.starts_with('#') && trimmed.trim_start_matches('#').starts_with(' ');
        let is_item = is_list_item(trimmed);
        if fence || in_fence || trimmed.is_empty() || is_heading || is_item {
            paragraphs_flush(&mut para, &mut paragraphs, heading);
        }
        if is_heading {
            let h = trimmed.trim_start_matches('#').trim().to_string();
            let tokens = stemmer.tokens(&h, false);
            let mut stems: Vec<String> = tokens.iter().map(|t| t.stem.clone()).collect();
            stems.sort();
            stems.dedup();
            doc.heading_code.push(code_forms(&h, &tokens));
            doc.headings.push((h, stems));
            heading = Some(doc.headings.len() - 1);
            continue;
        }
        if fence || in_fence || trimmed.is_empty() {
            continue;
        }
        let content_start = start + (line.len() - line.trim_start().len());
        let content_end = start + line.trim_end().len();
        if is_item {
            let marker = trimmed.find(' ').map_or(0, |i| i + 1);
            paragraphs.push(((content_start + marker, content_end), heading, true));
            continue;
        }
        para = Some(match para {
            Some((s, _)) => (s, content_end),
            None => (content_start, content_end),
        });
    }
    if let Some(p) = para {
        paragraphs.push((p, heading, false));
    }
    let mut section: (Option<usize>, usize) = (None, 0);
    for (paragraph, ((ps, pe), heading, item)) in paragraphs.into_iter().enumerate() {
        for (s, e) in split_sentences(&text[ps..pe]) {
            let sentence = &text[ps + s..ps + e];
            let tokens = stemmer.tokens(sentence, false);
            let code = code_forms(sentence, &tokens);
            let n_words = sentence.split_whitespace().count();
            doc.words += n_words;
            let mut stems: Vec<String> = Vec::with_capacity(tokens.len());
            for Token { stem, surface, .. } in tokens {
                *doc.tf.entry(stem.clone()).or_default() += 1;
                *surface_counts.entry((stem.clone(), surface)).or_default() += 1;
                stems.push(stem);
            }
            stems.sort();
            stems.dedup();
            doc.sentences.push(Sentence {
                start: ps + s,
                end: ps + e,
                stems,
                heading,
                words: n_words,
                quotable: quotable(sentence, n_words, item),
                paragraph,
                in_section: if section.0 == heading && !doc.sentences.is_empty() { section.1 } else { 0 },
                code,
                item,
            });
            section = (heading, if section.0 == heading { section.1 + 1 } else { 1 });
        }
    }
    let mut best: HashMap<String, (u32, String)> = HashMap::new();
    for ((stem, word), n) in surface_counts {
        let e = best.entry(stem).or_insert((0, String::new()));
        if n > e.0 || (n == e.0 && word < e.1) {
            *e = (n, word);
        }
    }
    doc.surface = best.into_iter().map(|(k, (_, w))| (k, w)).collect();
    doc.fingerprint = fingerprint(text);
    doc
}

/// Ends the paragraph being read, if any.
fn paragraphs_flush(
    para: &mut Option<(usize, usize)>,
    paragraphs: &mut Vec<((usize, usize), Option<usize>, bool)>,
    heading: Option<usize>,
) {
    if let Some(p) = para.take() {
        paragraphs.push((p, heading, false));
    }
}

fn is_list_item(line: &str) -> bool {
    line.starts_with("- ")
        || line.starts_with("* ")
        || line
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit()))
}

const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs", "cf", "approx", "fig", "no", "mr", "dr", "st"];

/// Sentence byte ranges of a paragraph: ends at `.`, `!` or `?` followed by
/// a space and a capital, digit, quote or backtick, outside code spans and
/// not after an abbreviation.
pub fn split_sentences(p: &str) -> Vec<(usize, usize)> {
    let bytes = p.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'`' {
            in_code = !in_code;
        } else if !in_code && matches!(c, b'.' | b'!' | b'?') {
            let next_ws = bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace);
            if next_ws {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                let starts_new = bytes.get(j).is_none_or(|b| {
                    b.is_ascii_uppercase() || b.is_ascii_digit() || matches!(b, b'`' | b'"' | b'(' | b'\xe2')
                });
                let word_before = p[start..i].rsplit(|ch: char| ch.is_whitespace()).next().unwrap_or("").to_lowercase();
                let word_before = word_before.trim_start_matches(['(', '"']);
                // An initial ("J. Smith") is one letter; a number ends a
                // sentence ("… with alignment 1. To avoid …").
                let initial = word_before.chars().count() == 1 && word_before.chars().all(char::is_alphabetic);
                let abbrev = c == b'.' && (ABBREVIATIONS.contains(&word_before) || initial);
                if starts_new && !abbrev {
                    push_trimmed(p, start, i + 1, &mut out);
                    start = j;
                    i = j;
                    continue;
                }
            }
        }
        i += 1;
    }
    push_trimmed(p, start, bytes.len(), &mut out);
    out
}

fn push_trimmed(p: &str, s: usize, e: usize, out: &mut Vec<(usize, usize)>) {
    let piece = &p[s..e];
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    if !trimmed.is_empty() {
        out.push((s + lead, s + lead + trimmed.len()));
    }
}

/// Whether a sentence reads as prose that can stand in a report. A list
/// item may be short ("Dereference a raw pointer").
fn quotable(s: &str, words: usize, item: bool) -> bool {
    // A short statement that stands on its own ("Alcohol is never
    // reimbursed.") is a sentence; a short one leaning back is a fragment.
    let statement = s.ends_with('.') && !refers_back(s);
    let min = if item {
        3
    } else if statement {
        4
    } else {
        6
    };
    if !(min..=70).contains(&words) || s.matches('`').count() % 2 == 1 {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    if !(first.is_uppercase() || first == '`' || first == '"' || first == '“' || first.is_ascii_digit()) {
        return false;
    }
    if has_bracket_number(s) || s.ends_with(':') || s.contains("](") {
        return false;
    }
    // Mostly letters, as prose is; a code span counts as one word, so that
    // a sentence naming code ("`iter()`, which iterates over `&T`.") reads
    // as the prose it is.
    let mut prose = String::with_capacity(s.len());
    let mut from = 0;
    for (start, end) in code_spans(s) {
        prose.push_str(&s[from..start.saturating_sub(1)]);
        prose.push('x');
        from = (end + 1).min(s.len());
    }
    prose.push_str(&s[from..]);
    let letters = prose.chars().filter(|c| c.is_alphabetic() || c.is_whitespace()).count();
    letters * 100 >= prose.chars().count() * 75
}

/// `[12]`-like text outside code spans would read as a citation marker.
fn has_bracket_number(s: &str) -> bool {
    let mut in_code = false;
    let b = s.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'`' => in_code = !in_code,
            b'[' if !in_code => {
                let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit() || **c == b',' || **c == b' ').count();
                if digits > 0 && b.get(i + 1 + digits) == Some(&b']') {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_outside_code_and_abbreviations() {
        let p = "The `?` operator returns early. It calls `From::from`, e.g. for io errors. Done! ok then. Next one?";
        let got: Vec<&str> = split_sentences(p).into_iter().map(|(s, e)| &p[s..e]).collect();
        assert_eq!(
            got,
            vec![
                "The `?` operator returns early.",
                "It calls `From::from`, e.g. for io errors.",
                "Done! ok then.",
                "Next one?"
            ]
        );
        // An initial is no sentence end; a number is.
        let p = "Written by J. Smith in May. Freed with alignment 1. To avoid that, cast.";
        let got: Vec<&str> = split_sentences(p).into_iter().map(|(s, e)| &p[s..e]).collect();
        assert_eq!(got, vec!["Written by J. Smith in May.", "Freed with alignment 1.", "To avoid that, cast."]);
    }

    #[test]
    fn analysis_keeps_exact_spans_and_skips_code() {
        let text = "# Title\n\n## Errors\n\nThe question mark operator converts errors with From.\nIt returns early from the function.\n\n```\nlet x = a?;\n```\n\n- A list item that is long enough to quote here.\n";
        let mut st = Stemmer::default();
        let d = analyze("Title", text, &mut st);
        let sentences: Vec<&str> = (0..d.sentences.len()).map(|i| d.sentence_text(text, i)).collect();
        assert_eq!(
            sentences,
            vec![
                "The question mark operator converts errors with From.",
                "It returns early from the function.",
                "A list item that is long enough to quote here."
            ]
        );
        assert_eq!(d.headings.iter().map(|h| h.0.as_str()).collect::<Vec<_>>(), vec!["Title", "Errors"]);
        assert_eq!(d.sentences[0].heading, Some(1));
        assert!(d.sentences[0].has("oper") || d.sentences[0].has("operator"));
        assert!(!d.contains("let"));
    }

    #[test]
    fn quotable_rejects_code_and_citation_lookalikes() {
        assert!(quotable("The operator converts the error value with From.", 8, false));
        assert!(!quotable("let x = foo(a, b)?; return Err(e.into());", 8, false));
        assert!(!quotable("See the reference [3] for details on this topic here.", 10, false));
        assert!(!quotable("and lowercase start is a continuation of something.", 8, false));
        assert!(quotable("Dereference a raw pointer", 4, true) && !quotable("Dereference a raw pointer", 4, false));
        assert!(quotable("Alcohol is never reimbursed.", 4, false), "a short statement");
        // Code spans are words of the sentence, not symbols of code.
        assert!(quotable("`iter()`, which iterates over `&T`.", 4, true), "an item naming code");
        assert!(!quotable("let v: Vec<&T> = x.iter().map(|y| y + 1).collect();", 8, true));
        assert!(!quotable("This is never reimbursed.", 4, false), "a short fragment leaning back");
    }
}
