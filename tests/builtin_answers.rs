//! The built-in reasoner's answers on a folder of one's own (issue 12), on
//! the real binary: a question whose answer is one sentence of one of ten
//! short documents gets that sentence in the report's first paragraph; a
//! page with a section comparing three things leads with that section; no
//! sentence is quoted twice and no "Related:" section appears.
//! `SLEUTH_HOME` is a temp dir in every test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};

use crate::support::bin;

/// Ten short policy documents, each on its own subject.
const POLICIES: &[(&str, &str)] = &[
    (
        "onboarding.md",
        "# Onboarding\n\nNew employees receive a laptop on their first day. Every new employee is paired with a buddy for their first eight weeks. The buddy answers questions about tools, people and customs.\n",
    ),
    (
        "expenses.md",
        "# Travel expenses\n\nMeals during business travel are reimbursed up to forty euros a day. Alcohol is never reimbursed. Taxis are reimbursed when no public transport runs.\n",
    ),
    (
        "holidays.md",
        "# Holidays\n\nEmployees have twenty-eight days of paid holiday a year. Unused days can be carried over until the end of March. Requests go to the team lead two weeks ahead.\n",
    ),
    (
        "remote.md",
        "# Remote work\n\nStaff may work from home up to three days a week. The office stays the place for team meetings on Tuesdays. A monthly allowance covers internet costs.\n",
    ),
    (
        "security.md",
        "# Security\n\nPasswords are rotated every ninety days. Lost badges must be reported to reception within one hour. Visitors sign in at the front desk.\n",
    ),
    (
        "training.md",
        "# Training\n\nEach employee has a training budget of one thousand euros a year. Conferences count towards the budget. The manager approves courses longer than a week.\n",
    ),
    (
        "parking.md",
        "# Parking\n\nThe garage under the building has forty spaces. Spaces are assigned by lottery every January. Bicycles park for free in the courtyard.\n",
    ),
    (
        "sickness.md",
        "# Sick leave\n\nEmployees who are ill call their manager before nine in the morning. A doctor's note is needed from the fourth day of absence. Sick days do not reduce paid holiday.\n",
    ),
    (
        "equipment.md",
        "# Equipment\n\nLaptops are replaced every four years. Broken equipment is exchanged by the help desk within two days. Personal software needs approval from the security team.\n",
    ),
    (
        "canteen.md",
        "# Canteen\n\nThe canteen serves lunch between noon and two. A vegetarian dish is offered every day. Coffee is free for everyone on the premises.\n",
    ),
];

/// A temp home holding a folder `name` of `docs`: the home and the folder.
fn home_with_corpus(name: &str, docs: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in docs {
        std::fs::write(dir.join(file), text).unwrap();
    }
    (home, dir)
}

/// `sleuth run --set local.corpus=DIR QUESTION` with a temp home: the report.
fn report(home: &Path, corpus: &Path, question: &str) -> String {
    report_with(home, corpus, &[], question)
}

/// The same with more arguments before the question (`--set KEY=VALUE`).
fn report_with(home: &Path, corpus: &Path, args: &[&str], question: &str) -> String {
    let out = bin::sleuth_cmd(home)
        .args(["run", "--ask", "first", "--set", &format!("local.corpus={}", corpus.display())])
        .args(args)
        .arg(question)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        matches!(out.status.code(), Some(0 | 4)),
        "{question}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The report's first block of text that is not a heading.
fn first_paragraph(report: &str) -> String {
    report.split("\n\n").map(str::trim).find(|b| !b.is_empty() && !b.starts_with('#')).unwrap_or_default().to_string()
}

/// The report's quoted sentences (its body, before the caveats), lower-cased.
fn sentences(report: &str) -> Vec<String> {
    let body = report.split("\n## Caveats").next().unwrap_or_default();
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('_'))
        .flat_map(|l| l.trim_start_matches("- ").split(". ").map(str::to_string).collect::<Vec<_>>())
        .map(|s| s.split(" [").next().unwrap_or_default().trim().to_lowercase())
        .filter(|s| s.split_whitespace().count() >= 4)
        .collect()
}

fn assert_reads_well(report: &str) {
    assert!(!report.lines().any(|l| l.starts_with("## Related")), "no Related: section\n{report}");
    let said = sentences(report);
    for (i, s) in said.iter().enumerate() {
        assert!(!said[..i].contains(s), "quoted twice: {s}\n{report}");
    }
}

#[test]
fn on_ten_short_documents_the_sentence_that_answers_opens_the_report() {
    let (home, corpus) = home_with_corpus("policies", POLICIES);
    let cases = [
        ("How long is the buddy program?", "first eight weeks"),
        ("Is alcohol reimbursed?", "alcohol is never reimbursed"),
        ("How many days of paid holiday do employees get?", "twenty-eight days"),
        ("When must a lost badge be reported?", "within one hour"),
        ("How often are laptops replaced?", "every four years"),
    ];
    for (question, answer) in cases {
        let report = report(home.path(), &corpus, question);
        let first = first_paragraph(&report).to_lowercase();
        assert!(first.contains(answer), "{question}: the first paragraph should hold “{answer}”\n{report}");
        assert!(!first.starts_with("the sources found do not answer"), "{question}\n{report}");
        assert_reads_well(&report);
    }
}

#[test]
fn a_section_that_compares_everything_asked_leads_the_answer() {
    let pages: &[(&str, &str)] = &[
        (
            "brushes.md",
            "# Brushes\n\n## The flat brush\n\nThe flat brush paints straight edges and fills wide areas quickly.\n\n\
             ## Three brushes compared\n\nThe flat brush paints edges, the round brush paints fine lines, and the fan brush blends colours softly.\n\n\
             ## Care\n\nWash every brush in warm water after painting and dry it lying flat.\n",
        ),
        (
            "round.md",
            "# Round brush\n\nA round brush holds much paint and suits detailed work such as lettering and fine lines on small canvases.\n",
        ),
        (
            "fan.md",
            "# Fan brush\n\nPainters use a fan brush for grass, clouds and soft transitions, blending wet colours into one another.\n",
        ),
        (
            "easels.md",
            "# Easels\n\nA studio easel stands on the floor and holds large canvases steady while painting outdoors is easier with a light field easel.\n",
        ),
    ];
    let (home, corpus) = home_with_corpus("tools", pages);
    let report = report(
        home.path(),
        &corpus,
        "What is the difference between the flat brush, the round brush and the fan brush?",
    );
    let first = first_paragraph(&report);
    assert!(
        first.starts_with(
            "*Three brushes compared:* The flat brush paints edges, the round brush paints fine lines, and the fan \
             brush blends colours softly."
        ),
        "the comparing section leads, under its heading\n{report}"
    );
    assert_reads_well(&report);
}

#[test]
fn a_verb_of_the_question_heads_the_section_of_its_topic_not_its_own() {
    let pages: &[(&str, &str)] = &[
        (
            "equipment.md",
            "# Equipment\n\nBroken equipment is exchanged by the help desk within two days. A broken laptop is \
             exchanged for a loaner the same day. Broken monitors and keyboards are exchanged at the help desk too.\n",
        ),
        (
            "helpdesk.md",
            "# Help desk\n\nThe help desk is on the second floor and opens at eight. To exchange broken equipment, \
             bring it to the help desk with its asset tag. The help desk logs every exchange in the asset register.\n",
        ),
        (
            "travel.md",
            "# Currency exchange\n\nTravellers exchange money at the airport counter before a trip. The exchange \
             rate is posted daily on the board.\n",
        ),
    ];
    let (home, corpus) = home_with_corpus("office", pages);
    // A one-quote answer, so that the rest of what was found is quoted in sections.
    let question = "How do I exchange broken equipment at the help desk?";
    let report = report_with(home.path(), &corpus, &["--set", "builtin.answer_sentences=1"], question);
    let headings: Vec<&str> = report.lines().filter(|l| l.starts_with("## ")).collect();
    assert!(!headings.contains(&"## Exchange"), "{report}");
    assert!(headings.contains(&"## Exchange broken equipment"), "{report}");
    assert_reads_well(&report);
}
