use super::*;

fn doc(id: u32, text: &str) -> SourceDoc {
    SourceDoc::page(id, &format!("https://example.org/{id}"), &format!("Page {id}"), text)
}

fn long_text(topic: &str, paragraphs: usize) -> String {
    (0..paragraphs)
        .map(|i| {
            format!(
                "Paragraph {i} about {topic}. It has several sentences of filler to take room. {}",
                "More words here. ".repeat(20)
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[test]
fn passages_respect_boundaries_and_lose_nothing() {
    let text = long_text("widgets", 12);
    let ps = split_passages(&text);
    assert!(ps.len() > 3);
    for p in &ps {
        assert!(p.text.len() <= MAX_PASSAGE_CHARS + 2, "{}", p.text.len());
        assert!(p.text.ends_with('.'), "cut mid-sentence: {:?}", &p.text[p.text.len() - 20..]);
    }
    let words = |s: &str| s.split_whitespace().count();
    assert_eq!(ps.iter().map(|p| words(&p.text)).sum::<usize>(), words(&text));
    let one_huge_sentence = "word ".repeat(2000);
    assert!(split_passages(&one_huge_sentence).iter().all(|p| p.text.len() <= MAX_PASSAGE_CHARS));
}

#[test]
fn delimiters_inside_sources_are_neutralised() {
    let n = neutralise("text </source> and <SOURCE id=\"9\"> and </sources>\u{1b}[2J");
    assert!(!n.to_lowercase().contains("</source") && !n.to_lowercase().contains("<source"));
    assert!(n.contains("‹/source>") && !n.contains('\u{1b}'));
}

#[test]
fn everything_fits_when_there_is_room() {
    let docs = vec![doc(1, "Short text one. About widgets."), doc(2, "Short text two.")];
    let f = fit_sources(&docs, &PassageCache::default(), "widgets", 10_000, Spread::Ranked);
    assert_eq!(f.shown, vec![SourceId(1), SourceId(2)]);
    assert!(f.omitted.is_empty());
    assert!(!f.text.contains("excerpt="));
    assert!(f.text.contains("<source id=\"1\" title=\"Page 1\""));
}

#[test]
fn a_tight_budget_keeps_the_relevant_passages_and_says_what_was_cut() {
    let mut text = long_text("filler", 10);
    text.push_str("\n\nThe gadget tolerance is exactly 42 microns, measured by the lab.");
    text.push_str(&format!("\n\n{}", long_text("filler", 10)));
    let docs: Vec<SourceDoc> =
        (1..=20).map(|i| doc(i, &if i == 1 { text.clone() } else { long_text("noise", 20) })).collect();
    let budget = 1500;
    let f = fit_sources(&docs, &PassageCache::default(), "gadget tolerance microns", budget, Spread::Ranked);
    assert!(f.tokens <= budget, "{} > {budget}", f.tokens);
    assert!(f.text.contains("exactly 42 microns"), "the relevant passage was not chosen");
    assert!(f.text.contains("excerpt=\"") && f.text.contains("[…]"));
    assert!(!f.omitted.is_empty(), "{:?} {:?} {}", f.shown, f.omitted, f.tokens);
    assert!(f.text.contains("Sources left out for lack of room:"));
    // The first source given comes first.
    assert_eq!(f.shown[0], SourceId(1));
}

#[test]
fn even_spread_shows_every_candidate() {
    let docs: Vec<SourceDoc> = (1..=6).map(|i| doc(i, &long_text("topic", 10))).collect();
    let f = fit_sources(&docs, &PassageCache::default(), "topic", 2400, Spread::Even);
    assert_eq!(f.shown.len(), 6);
    assert!(f.tokens <= 2400);
}

#[test]
fn budget_leaves_room_for_reply_and_repair() {
    assert_eq!(prompt_budget(8192, 2048), 7372 - 2048 - 512);
    assert_eq!(prompt_budget(1024, 512), 921 - 512 - 64);
    assert_eq!(prompt_budget(1000, 2000), 0);
}
