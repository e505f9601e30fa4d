use super::*;

const WATERING: &str = "# Watering\n\nDuring a drought, garden watering is allowed only before 8 am and after 7 pm. \
                        Hoses must have a trigger nozzle.\n\n## Fines\n\nA first breach costs 50 euros; a second breach costs 150 euros.";

fn docs() -> Vec<SourceDoc> {
    vec![SourceDoc::new(WATERING), SourceDoc::new("Plots cost 45 euros per year and are assigned in March.")]
}

fn run(text: &str, cites: &[u32], quotes: &[GivenQuote], require: bool) -> StatementCheck {
    let docs = docs();
    let source = |n: u32| match n {
        1 | 2 => SourceState::Read(&docs[n as usize - 1]),
        3 => SourceState::Unreachable("HTTP 503"),
        _ => SourceState::Unknown,
    };
    check_statement(&CheckInput { text, cites, quotes, require_quote: require }, &source)
}

fn quote(source: Option<u32>, text: &str) -> GivenQuote {
    GivenQuote { source, text: text.into() }
}

#[test]
fn a_found_quote_that_says_the_sentence_supports_it() {
    let c = run(
        "Garden watering is allowed only before 8 am and after 7 pm.",
        &[1],
        &[quote(Some(1), "watering is allowed only before 8 am and after 7 pm")],
        false,
    );
    assert_eq!((c.outcome, c.rule, c.source), (CheckOutcome::Supported, CheckRule::Quote, Some(1)), "{c:?}");
}

#[test]
fn a_fabricated_quote_is_unsupported_whatever_the_passage_says() {
    let c = run(
        "Garden watering is allowed only before 8 am.",
        &[1],
        &[quote(None, "watering is allowed at any hour")],
        false,
    );
    assert_eq!((c.outcome, c.rule), (CheckOutcome::Unsupported, CheckRule::Quote), "{c:?}");
    assert!(c.why.contains("not in any cited source"), "{}", c.why);
}

#[test]
fn a_real_quote_that_says_something_else_falls_to_the_passage_rule() {
    let c = run("Plots cost 45 euros per year.", &[2, 1], &[quote(Some(1), "Hoses must have a trigger nozzle")], false);
    assert_eq!((c.outcome, c.rule, c.source), (CheckOutcome::Supported, CheckRule::Passage, Some(2)), "{c:?}");
    assert!(c.why.starts_with("its quote holds only"), "{}", c.why);
}

#[test]
fn without_a_quote_the_best_passage_decides_and_numbers_must_match() {
    let ok = run("A first breach of the watering rules costs 50 euros.", &[1], &[], false);
    assert_eq!((ok.outcome, ok.rule), (CheckOutcome::Supported, CheckRule::Passage), "{ok:?}");
    let wrong_number = run("A first breach of the watering rules costs 500 euros.", &[1], &[], false);
    assert_eq!(wrong_number.outcome, CheckOutcome::Unsupported, "{wrong_number:?}");
    assert!(wrong_number.why.contains("lacks the number 500"), "{}", wrong_number.why);
    let unrelated = run("Text between source tags is data and never an instruction.", &[1], &[], false);
    assert_eq!(unrelated.outcome, CheckOutcome::Unsupported, "{unrelated:?}");
}

#[test]
fn unreachable_unknown_and_missing_quotes_are_outcomes_of_their_own() {
    let c = run("Hoses must have a trigger nozzle.", &[3], &[], false);
    assert_eq!(c.outcome, CheckOutcome::Unreachable);
    assert!(c.why.contains("HTTP 503"));
    // One source read decides even when another was unreachable.
    assert_eq!(run("Hoses must have a trigger nozzle.", &[3, 1], &[], false).outcome, CheckOutcome::Supported);
    let ghost = run("Hoses must have a trigger nozzle.", &[9], &[], false);
    assert_eq!((ghost.outcome, ghost.why.as_str()), (CheckOutcome::Unsupported, "[9] names no source of the report"));
    let strict = run("Hoses must have a trigger nozzle.", &[1], &[], true);
    assert_eq!(strict.outcome, CheckOutcome::NoQuote, "{strict:?}");
    assert!(strict.evidence.contains("trigger nozzle"), "the closest passage is still shown: {strict:?}");
}

#[test]
fn the_share_rule_is_the_one_the_engine_scores_claims_with() {
    let claim = "A vector grows by doubling its capacity when its buffer is full";
    for evidence in [
        "A vector grows by doubling its capacity when its buffer is full.",
        "Strings are UTF-8 encoded byte sequences.",
        "buffer doubling capacity grow",
    ] {
        let (m, t) = shared_terms(claim, &[evidence]);
        assert_eq!(covers(m, t), crate::engine::evaluate::quote_supports_claim(claim, &[evidence]), "{evidence}");
    }
}

#[test]
fn a_negation_the_passage_does_not_make_is_not_supported() {
    let docs = [SourceDoc::new(
        "Rust has a borrow checker. It frees memory when the owner goes out of scope; a garbage collector is not needed.",
    )];
    let gc = [SourceDoc::new("Rust programs run with a tracing garbage collector.")];
    let check = |d: &SourceDoc, text: &str| {
        check_statement(&CheckInput { text, cites: &[1], quotes: &[], require_quote: false }, &|_| SourceState::Read(d))
    };
    assert_eq!(check(&docs[0], "Rust needs no garbage collector.").outcome, CheckOutcome::Supported);
    let turned = check(&gc[0], "Rust has no garbage collector.");
    assert_eq!(turned.outcome, CheckOutcome::Unsupported, "{turned:?}");
    assert!(turned.why.contains("negates"), "{}", turned.why);
}

#[test]
fn a_number_the_quote_does_not_hold_is_checked_against_the_passage() {
    let given = [quote(Some(1), "A first breach costs 50 euros")];
    let c = run("A first breach costs 60 euros.", &[1], &given, false);
    assert_eq!((c.outcome, c.rule), (CheckOutcome::Unsupported, CheckRule::Passage), "{c:?}");
    assert!(c.why.starts_with("its quote lacks the number 60; "), "{}", c.why);
}
