//! DRAFT's direct answer: what opens it and how its quotes are labelled,
//! through the `Reasoner` trait with sources built in memory.

use super::answer::first_paragraph;
use super::test_docs::{doc, with_config};
use crate::engine::reasoner::{DraftContext, Reasoner, SourceDoc};

fn with_relevance(mut d: SourceDoc, relevance: f32) -> SourceDoc {
    d.relevance = Some(relevance);
    d
}

async fn first(question: &str, sources: Vec<SourceDoc>, cfg: super::BuiltinConfig) -> String {
    let ctx = DraftContext {
        question: question.into(),
        constraints: Vec::new(),
        iteration: 1,
        sources,
        previous_draft: None,
        previous_critique: None,
        memories: Vec::new(),
    };
    let draft = with_config(cfg).draft(ctx).await.unwrap().value;
    first_paragraph(&draft.markdown).to_string()
}

const HEAP: &str = "# Struct BinaryHeap\n\nA priority queue implemented with a binary heap.\n\n\
    Storage is one contiguous vector of elements, grown on demand.\n\n\
    The heap pops the greatest item first, as a max-heap does. \
    Pushing and popping items both take logarithmic time in the number of items.\n";

const SCHEDULER: &str = "# Scheduling\n\nA scheduler keeps a queue of tasks and picks the next task by its \
    priority whenever a worker is free. Each task waits in the queue until its priority is the highest. \
    Workers report back to the scheduler when a task finishes.\n";

#[tokio::test]
async fn the_page_the_question_names_opens_the_answer_with_what_it_says_it_is() {
    let question = "What is a BinaryHeap, and how fast is popping the greatest item?";
    let sources =
        || vec![with_relevance(doc(1, "BinaryHeap", HEAP), 0.9), with_relevance(doc(2, "Tasks", SCHEDULER), 0.6)];
    let opening = first(question, sources(), super::BuiltinConfig::default()).await;
    assert!(opening.starts_with("*Struct BinaryHeap:* A priority queue implemented with a binary heap."), "{opening}");
    // Off: the answer is the sentences that hold the most of the question.
    let off = super::BuiltinConfig { opening_sources: 0, ..Default::default() };
    let opening = first(question, sources(), off).await;
    assert!(!opening.contains("A priority queue implemented"), "{opening}");
}

#[tokio::test]
async fn a_page_whose_opening_does_not_speak_of_the_question_does_not_open_it() {
    let intro = "# Tasks\n\nThis chapter walks through a small program step by step. A scheduler keeps a queue of \
                 tasks and picks the next task by its priority whenever a worker is free.\n";
    let opening = first(
        "How does a scheduler pick the next task by priority?",
        vec![doc(1, "Chapter 9", intro)],
        Default::default(),
    )
    .await;
    assert!(!opening.contains("walks through"), "{opening}");
    assert!(opening.contains("picks the next task by its priority"), "{opening}");
}

#[tokio::test]
async fn each_quote_of_the_direct_answer_says_which_section_it_comes_from_once() {
    let text = "# Queues\n\n## Picking the next task by priority\n\nThe scheduler picks the next task by its \
                priority whenever a worker is free. The scheduler breaks ties by the age of the task.\n\n\
                ## Examples\n\nThe scheduler picks tasks by priority in the example below, oldest first.\n";
    let opening = first(
        "How does the scheduler pick the next task by priority?",
        vec![doc(1, "Queues - Manual", text)],
        Default::default(),
    )
    .await;
    assert!(opening.contains("*Picking the next task by priority:* "), "{opening}");
    // A one-word heading says less than the page's title, which stands in.
    assert!(!opening.contains("*Examples:*"), "{opening}");
    assert_eq!(opening.matches("*Picking the next task by priority:*").count(), 1, "{opening}");
}

async fn drafted(question: &str, sources: Vec<SourceDoc>) -> crate::engine::model::Draft {
    let ctx = DraftContext {
        question: question.into(),
        constraints: Vec::new(),
        iteration: 1,
        sources,
        previous_draft: None,
        previous_critique: None,
        memories: Vec::new(),
    };
    super::test_docs::reasoner().draft(ctx).await.unwrap().value
}

#[tokio::test]
async fn the_section_whose_heading_names_the_question_opens_the_answer_with_its_first_sentence() {
    // The answering sentence shares no word with the question; its
    // section's heading names the question's focus. Another page repeats
    // the question's words without answering it.
    let heap = "# Struct Heap\n\nA priority queue that pops its greatest item first. Items are kept in one \
                vector that grows on demand.\n\n## Min-heap\n\nWrap each value in `Reverse` and the order flips. \
                The smallest value then comes out first, and peeking shows it without removing it.\n";
    let trees = "# Trees\n\nA min-heap is a tree in which each parent is at most its children. Schedulers and \
                 graph searches often keep a min-heap of pending work.\n";
    // The other page comes first and is reviewed as well.
    let sources = vec![with_relevance(doc(2, "Trees", trees), 0.8), with_relevance(doc(1, "Heap", heap), 0.8)];
    let draft = drafted("How do I get a min-heap?", sources).await;
    let opening = first_paragraph(&draft.markdown);
    // After the label of where it stands (a one-word heading gives way to the page's title).
    let quote = opening.strip_prefix("*Heap:* ").unwrap_or(opening);
    assert!(quote.starts_with("Wrap each value in `Reverse` and the order flips. [1]"), "{opening}");
}

#[tokio::test]
async fn a_how_to_answered_by_code_quotes_the_example_and_it_verifies() {
    let fmt = "# Formatting\n\nFormatting macros turn values into text.\n\n## Width\n\nA width pads the value to \
               at least that many characters. A `0` before the width pads a number with zeros instead of \
               spaces.\n\n```\nlet padded = format!(\"{:05}\", 42);\nassert_eq!(padded, \"00042\");\n```\n\n\
               ## Precision\n\nA precision after a dot limits the digits after the decimal point.\n";
    let source = doc(1, "Formatting", fmt);
    let draft = drafted("How do I pad a number with zeros?", vec![source.clone()]).await;
    let code = "let padded = format!(\"{:05}\", 42);\nassert_eq!(padded, \"00042\");";
    assert!(draft.markdown.contains(&format!("```\n{code}\n```")), "{}", draft.markdown);
    let claim = draft.claims.iter().find(|c| c.text == code).unwrap_or_else(|| panic!("{:?}", draft.claims));
    assert_eq!(claim.citations[0].source, source.meta.id);
    // VERIFY finds every quote of the draft, the code's too, in its source.
    let checked = crate::engine::check::SourceDoc::new(&source.text);
    let v = crate::engine::citations::verify(&draft.markdown, &draft.claims, &|_| Some(&checked));
    assert!(v.unsupported.is_empty(), "{v:?}");
}

#[tokio::test]
async fn a_method_repeating_the_questions_words_does_not_open_the_answer_about_its_type() {
    // The type's opening says what it is for; a method's description
    // holds more of the question's words (takes, front, adds, back end)
    // without answering it.
    let ring = "# Struct Ring\n\nA ring is a queue that keeps its items in a fixed circle of slots. Adding at the \
                back and taking from the front both take constant time.\n\n\
                ## pub fn rotate(&mut self, n: usize)\n\nTakes n items from the front of the queue and adds \
                them at its back end, in one rotation.\n";
    let sources = vec![with_relevance(doc(1, "Ring", ring), 0.8)];
    let draft = drafted("Which queue adds at the back end and takes from the front?", sources.clone()).await;
    let opening = first_paragraph(&draft.markdown);
    let quote = opening.strip_prefix("*Struct Ring:* ").unwrap_or(opening);
    assert!(quote.starts_with("A ring is a queue"), "{opening}");
    // A question that names the method is answered by its description.
    let draft = drafted("What does rotate do to the queue's back end?", sources).await;
    let opening = first_paragraph(&draft.markdown);
    assert!(opening.contains("in one rotation"), "{opening}");
}

#[tokio::test]
async fn a_quote_that_stands_on_several_kept_pages_cites_each_of_them() {
    // A module overview repeats its item's first sentence; a third page
    // shares only a short phrase with them.
    let overview = "# Module collections\n\nUse a `BinaryHeap` when you want a priority queue.\n\n\
                    A priority queue implemented with a binary heap.\n\nSee below.\n";
    let other = "# Sorting\n\nSee below.\n\nSorting a vector keeps its items in order of priority.\n";
    let sources = vec![
        with_relevance(doc(1, "collections", overview), 0.9),
        with_relevance(doc(2, "BinaryHeap", HEAP), 0.5),
        with_relevance(doc(3, "Sorting", other), 0.4),
    ];
    let draft = drafted("Which collection is a priority queue implemented with a binary heap?", sources).await;
    let claim = draft
        .claims
        .iter()
        .find(|c| c.text == "A priority queue implemented with a binary heap.")
        .unwrap_or_else(|| panic!("the shared sentence is quoted: {}", draft.markdown));
    let cited: Vec<u32> = claim.citations.iter().map(|c| c.source.0).collect();
    assert_eq!(cited.len(), 2, "{cited:?}");
    assert!(cited.contains(&1) && cited.contains(&2), "{cited:?}");
    assert!(claim.citations.iter().all(|c| c.quote == claim.text));
    let marked = format!("A priority queue implemented with a binary heap. [{}][{}]", cited[0], cited[1]);
    assert!(draft.markdown.contains(&marked), "{}", draft.markdown);
    // A sentence only one page holds cites that page alone.
    for c in draft.claims.iter().filter(|c| c.text.contains("Use a `BinaryHeap`")) {
        assert_eq!(c.citations.len(), 1, "{:?}", c.citations);
    }
}

#[tokio::test]
async fn a_sentence_a_page_says_twice_is_quoted_once_even_as_the_context_of_another() {
    // Both answering sentences lean on the one before them ("This
    // alignment issue"), and the page says that one in both sections.
    let page = "# Buffers\n\n## Casting bytes\n\n\
                The buffer was allocated with alignment two but it is freed with alignment one. \
                This alignment issue is avoided when you cast the buffer slice with from_raw_parts.\n\n\
                ## Casting words\n\n\
                The buffer was allocated with alignment two but it is freed with alignment one. \
                This alignment issue is avoided when you cast the buffer slice with slice_from_raw_parts.\n";
    let opening = first(
        "How do I avoid alignment issues when I cast a buffer slice?",
        vec![doc(1, "Buffers", page)],
        Default::default(),
    )
    .await;
    assert!(opening.contains("slice_from_raw_parts") || opening.contains("with from_raw_parts"), "{opening}");
    assert_eq!(opening.matches("The buffer was allocated with alignment two").count(), 1, "{opening}");
}

#[tokio::test]
async fn a_sentence_another_quoted_sentence_holds_whole_is_not_quoted_again() {
    // The page says the clause alone and again after a colon.
    let page = "# Resolver\n\n\
                Packages whose requirements on a crate are incompatible are never unified: \
                Instead, two versions of the crate will be resolved and built.\n\n\
                Compatible requirements share one version of a crate in the whole build.\n\n\
                Instead, two versions of the crate will be resolved and built.\n";
    let draft = drafted("When are two versions of a crate resolved and built?", vec![doc(1, "Resolver", page)]).await;
    let body = draft.markdown.split("\n## Caveats").next().unwrap_or_default();
    assert_eq!(body.matches("two versions of the crate will be resolved and built").count(), 1, "{}", draft.markdown);
}

#[tokio::test]
async fn each_labelled_quote_of_the_direct_answer_opens_a_line_of_the_same_paragraph() {
    let tasks = "# Scheduler\n\n## Picking the next task by priority\n\nThe scheduler picks the next task by its \
                 priority whenever a worker is free.\n";
    let workers = "# Workers\n\n## Freeing a worker for the next task\n\nA worker is free once it reports its \
                   task done, and the scheduler then picks the next task by priority.\n";
    let opening = first(
        "How does the scheduler pick the next task by priority when a worker is free?",
        vec![doc(1, "Scheduler", tasks), doc(2, "Workers", workers)],
        Default::default(),
    )
    .await;
    let lines: Vec<&str> = opening.lines().collect();
    assert_eq!(lines.len(), 2, "{opening}");
    assert!(lines.iter().all(|l| l.starts_with('*')), "{opening}");
    assert!(lines.iter().any(|l| l.starts_with("*Picking the next task by priority:*")), "{opening}");
}

#[tokio::test]
async fn an_action_makes_no_section_its_sentences_join_the_topic_it_acts_on() {
    let text = "# Conversions\n\nEvery value can be shown as text.\n\n## Integers\n\nThe `to_string` method \
                gives an integer's decimal digits as a String. An integer is parsed from a String with `parse`.\n\n\
                ## Turning things around\n\nTo turn a page, press the arrow key; each turn moves one page.\n";
    // A one-quote answer, so that the rest is quoted in sections.
    let cfg = super::BuiltinConfig { answer_sentences: 1, ..Default::default() };
    let ctx = DraftContext {
        question: "How do I turn an integer into a String?".into(),
        constraints: Vec::new(),
        iteration: 1,
        sources: vec![doc(1, "Conversions", text)],
        previous_draft: None,
        previous_critique: None,
        memories: Vec::new(),
    };
    let draft = with_config(cfg).draft(ctx).await.unwrap().value;
    let headings: Vec<&str> = draft.markdown.lines().filter(|l| l.starts_with("## ")).collect();
    assert!(headings.contains(&"## Turn an integer"), "{}", draft.markdown);
    assert!(!headings.contains(&"## Turn") && !headings.contains(&"## Integer"), "{}", draft.markdown);
    // What was picked for the action is quoted under the topic's heading,
    // and its claim still says it was picked for the action.
    let turned = draft.claims.iter().find(|c| c.aspect.as_deref() == Some("turn"));
    let turned = turned.unwrap_or_else(|| panic!("{}", draft.markdown));
    let under = draft.markdown.split("## Turn an integer").nth(1).unwrap_or_default();
    assert!(under.contains(&turned.text), "{}", draft.markdown);
}

#[tokio::test]
async fn two_quoted_sentences_a_listing_stands_between_are_two_claims_and_each_verifies() {
    // The sentence before a listing and its caption after it are next to
    // each other among the page's sentences, not in its text.
    let map = "# Maps\n\nMaps store values by key.\n\n## Counting words\n\nTo count words in a map, insert zero \
               for a word the map has not seen yet.\n\n```\nlet count = map.entry(word).or_insert(0);\n*count += 1;\n```\n\n\
               Listing 1: Counting words in a map that stores each word with its count\n";
    let source = doc(1, "Maps", map);
    let draft = drafted("How do I count words in a map?", vec![source.clone()]).await;
    let opening = first_paragraph(&draft.markdown);
    assert!(opening.contains("insert zero") && opening.contains("Listing 1:"), "{opening}");
    let checked = crate::engine::check::SourceDoc::new(&source.text);
    let v = crate::engine::citations::verify(&draft.markdown, &draft.claims, &|_| Some(&checked));
    assert!(v.unsupported.is_empty(), "{v:?}");
}

#[tokio::test]
async fn a_how_to_quotes_the_sentence_that_names_the_way_in_code_without_the_questions_words() {
    let strings = "# Strings\n\nStrings hold UTF-8 text.\n\n## Iterating over a string\n\nThe best way to take a \
                   string apart is to say whether you want characters or bytes. For single Unicode values, call \
                   the `chars` method. Grapheme clusters are not provided.\n";
    let draft = drafted("How do I get the first character of a string?", vec![doc(1, "Strings", strings)]).await;
    let opening = first_paragraph(&draft.markdown);
    assert!(opening.contains("call the `chars` method"), "{opening}");
}

#[tokio::test]
async fn the_answering_part_shows_its_two_short_examples_and_both_verify() {
    // The way takes two listings: the dependency made optional, then the
    // feature that turns it on. The second holds a word of the question.
    let deps = "# Dependencies\n\nA package lists what it builds on.\n\n## Optional dependencies\n\nA dependency \
                marked `optional` is not compiled by default.\n\n```\n[dependencies]\ngif = { version = \"0.11\", \
                optional = true }\n```\n\nA feature that names it with `dep:` turns it on.\n\n```\n[features]\n\
                fancy = [\"dep:gif\"]\n```\n\n## Renaming\n\nA dependency may be renamed with `package`.\n";
    let source = doc(1, "Dependencies", deps);
    let draft = drafted("How do I make a dependency optional behind a feature?", vec![source.clone()]).await;
    let opening = first_paragraph(&draft.markdown);
    for code in ["[dependencies]\ngif = { version = \"0.11\", optional = true }", "[features]\nfancy = [\"dep:gif\"]"] {
        assert!(draft.markdown.contains(&format!("```\n{code}\n```")), "{code} in {}", draft.markdown);
        assert!(draft.claims.iter().any(|c| c.text == code), "{code} is a claim: {:?}", draft.claims);
    }
    assert!(opening.contains("optional"), "{opening}");
    let checked = crate::engine::check::SourceDoc::new(&source.text);
    let v = crate::engine::citations::verify(&draft.markdown, &draft.claims, &|_| Some(&checked));
    assert!(v.unsupported.is_empty(), "{v:?}");
}

/// A section that opens on a definition and lists its conditions answers
/// in the list: the list after the opening comes with it, and a sentence
/// that introduces a list (no colon, as the page has it) brings its items.
#[tokio::test]
async fn the_list_after_an_answering_opening_is_quoted_with_it() {
    let text = "# Traits\n\n## Shareable traits\n\nA shareable trait can be the base of a handle. \
                A trait is shareable if it has the following qualities:\n\n\
                - Every method takes its receiver by reference.\n\n\
                - No method has type parameters.\n\n\
                For methods there is another rule\n\n\
                - A method that returns `Self` must require `Self: Sized`.\n";
    let opening =
        first("What rules must a trait follow to be shareable?", vec![doc(1, "Traits", text)], Default::default())
            .await;
    assert!(opening.contains("A shareable trait can be the base of a handle."), "{opening}");
    assert!(opening.contains("No method has type parameters."), "the list after the opening: {opening}");
    let rule =
        first("What is the rule for methods of a shareable trait?", vec![doc(1, "Traits", text)], Default::default())
            .await;
    assert!(rule.contains("`Self: Sized`"), "the item the sentence introduces: {rule}");
    // Not only after a part's opening: a chosen sentence brings the list the next one introduces.
    let text = "# Handles\n\n## Sharing\n\nHandles are cheap to copy. A handle can be sent across threads \
                when its trait is shareable. That holds when\n\n- the trait has no generic methods.\n";
    let sent =
        first("When can a handle be sent across threads?", vec![doc(1, "Handles", text)], Default::default()).await;
    assert!(sent.contains("the trait has no generic methods."), "{sent}");
}

/// A part's opening whose paragraph ends by introducing steps brings the
/// steps, with the sentences between: the opening says a tool does it,
/// the steps say how.
#[tokio::test]
async fn the_steps_the_openings_paragraph_introduces_are_quoted_with_it() {
    let text = "# Eras\n\n## Moving a project to a new era\n\nThe toolchain can move a project from one era to the next. \
                It rewrites your source so that it builds afterwards. Briefly, the steps are:\n\n\
                - Run `upgrade fix` on the workspace.\n\n\
                - Set the `edition` key in the manifest.\n\n\
                Moving a project to a new era can break code that relies on old rules. \
                A project keeps its old era until it is moved to a newer era.\n";
    let q = "How do I move my project to a newer era?";
    let opening = first(q, vec![doc(1, "Eras", text)], Default::default()).await;
    assert!(opening.contains("The toolchain can move a project from one era to the next."), "{opening}");
    assert!(opening.contains("`upgrade fix`"), "the steps its paragraph introduces: {opening}");
}

/// A section heading keeps a code span with spaces whole; a lone symbol
/// still reads as code.
#[test]
fn a_heading_keeps_a_code_span_with_spaces_whole() {
    use super::draft::heading_label;
    assert_eq!(heading_label("write `foo = \"0.2\"`"), "Write `foo = \"0.2\"`");
    assert_eq!(heading_label("? operator convert"), "`?` operator convert");
    assert_eq!(heading_label("write my_string[0]"), "Write `my_string[0]`");
}
