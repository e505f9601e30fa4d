//! The parts of a page: a section under its heading (its sentences, list
//! items and code blocks), the page's opening (what the page says its item
//! is). A page answers a question in one of its parts; DRAFT quotes that
//! part's opening and its shortest relevant code example.

use std::ops::Range;

use super::analysis::AnalyzedDoc;

/// A section of one source: contiguous sentences under one heading, with
/// the code blocks that illustrate them.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Index into `AnalyzedDoc::headings` (`None`: text before any heading).
    pub heading: Option<usize>,
    /// Its sentences (indices into `AnalyzedDoc::sentences`).
    pub sentences: Range<usize>,
    /// Its code blocks (indices into `AnalyzedDoc::code`), including those
    /// of a following section that holds only code (an "Examples" heading
    /// under an item's description).
    pub code: Vec<usize>,
    /// The first part of the page that has prose: the page's opening.
    pub opening: bool,
}

/// The parts of an analysed page, in page order; a section with code but
/// no prose joins the part before it.
pub fn parts(an: &AnalyzedDoc) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    let mut i = 0;
    while i < an.sentences.len() {
        let heading = an.sentences[i].heading;
        let start = i;
        while i < an.sentences.len() && an.sentences[i].heading == heading {
            i += 1;
        }
        out.push(Part { heading, sentences: start..i, code: Vec::new(), opening: out.is_empty() });
    }
    for (ci, block) in an.code.iter().enumerate() {
        // The part of its own heading, else the last part before it.
        let own = out.iter().position(|p| p.heading == block.heading);
        let before = out.iter().rposition(|p| p.heading.zip(block.heading).is_some_and(|(h, b)| h <= b));
        if let Some(k) = own.or(before) {
            out[k].code.push(ci);
        }
    }
    out
}

/// Most lines of a code example quoted in a report.
pub const MAX_EXAMPLE_LINES: usize = 14;

/// A second example of the part the answer opens with, shown beside the
/// first when both are short: the way often takes two small listings (a
/// dependency made optional, then the feature that turns it on). At most
/// this many lines each.
pub const SHORT_EXAMPLE_LINES: usize = 6;

/// The part's code blocks that hold a stem of `wanted` (the question's
/// terms or the answer's) and are short enough to read in a report: those
/// holding the most of `wanted` first, then the shortest. A page's first
/// listing is often the plainest use of its subject (`vec![1, 2, 3]`); the
/// one that shows what was asked holds more of the words asked and quoted
/// (`macro_rules! vec { ( $( $x:expr ),* ) … }`).
pub fn examples(an: &AnalyzedDoc, part: &Part, wanted: &[&str]) -> Vec<usize> {
    // A block before the part's first sentence declares the item (a
    // signature); it is not an example of its use.
    let first_paragraph = an.sentences.get(part.sentences.start).map_or(0, |s| s.paragraph);
    let mut found: Vec<usize> = part
        .code
        .iter()
        .copied()
        .filter(|&c| an.code[c].after > first_paragraph || part.sentences.is_empty())
        .filter(|&c| {
            let b = &an.code[c];
            (2..=MAX_EXAMPLE_LINES).contains(&b.lines) || b.lines == 1 && b.end - b.start <= 120
        })
        .filter(|&c| block_holds(an, c, wanted))
        .collect();
    let mut distinct: Vec<&str> = wanted.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let held = |c: usize| distinct.iter().filter(|&&w| block_holds(an, c, &[w])).count();
    found.sort_by_cached_key(|&c| (std::cmp::Reverse(held(c)), an.code[c].lines, c));
    found
}

/// Whether code block `c` holds a stem of `wanted`.
pub fn block_holds(an: &AnalyzedDoc, c: usize, wanted: &[&str]) -> bool {
    wanted.iter().any(|w| an.code[c].stems.binary_search_by(|s| s.as_str().cmp(w)).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::analysis::{Stemmer, analyze};

    #[test]
    fn sections_become_parts_and_a_code_only_section_joins_the_one_before() {
        let text = "# Struct Heap\n\n## Struct Heap\n\nA priority queue.\n\nIt is a max-heap.\n\n## Examples\n\n\
                    ```\nlet mut h = Heap::new();\nh.push(1);\n```\n\n## Min-heap\n\nUse `Reverse` to pop the \
                    smallest first.\n\n```\nh.push(Reverse(1));\nh.push(Reverse(5));\n```\n";
        let mut st = Stemmer::default();
        let an = analyze("Heap", text, &mut st);
        let ps = parts(&an);
        assert_eq!(ps.len(), 2, "{ps:?}");
        assert!(ps[0].opening && !ps[1].opening);
        assert_eq!((ps[0].code.clone(), ps[1].code.clone()), (vec![0], vec![1]));
        let push = st.stem("reverse").unwrap_or_default();
        assert_eq!(examples(&an, &ps[1], &[push.as_str()]), [1]);
        assert!(examples(&an, &ps[0], &[push.as_str()]).is_empty());
        let code = &text[an.code[1].start..an.code[1].end];
        assert_eq!(code, "h.push(Reverse(1));\nh.push(Reverse(5));");
    }

    #[test]
    fn the_example_holding_more_of_the_words_asked_comes_before_a_shorter_one() {
        let text = "# Macros\n\n## Declarative macros\n\nA macro can take any number of arguments.\n\n\
                    ```\nlet v = vec![1, 2, 3];\n```\n\n\
                    ```\nmacro_rules! vec {\n    ( $( $x:expr ),* ) => {\n        let mut v = Vec::new();\n\
                    $( v.push($x); )*\n        v\n    };\n}\n```\n";
        let mut st = Stemmer::default();
        let an = analyze("Macros", text, &mut st);
        let ps = parts(&an);
        let stems: Vec<String> = ["macro", "vec", "vec"].iter().filter_map(|w| st.stem(w)).collect();
        let wanted: Vec<&str> = stems.iter().map(String::as_str).collect();
        // The definition holds "macro" and "vec"; the shorter use only "vec"
        // (said twice in `wanted`, which counts once).
        assert_eq!(examples(&an, &ps[0], &wanted), [1, 0]);
        // With only "vec" asked, both hold one word and the shorter leads.
        assert_eq!(examples(&an, &ps[0], &wanted[1..]), [0, 1]);
    }
}
