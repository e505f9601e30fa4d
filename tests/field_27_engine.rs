//! Field fixes of the engine and the built-in reasoner, as a new user
//! meets them on a folder of their own, on the real binary (`SLEUTH_HOME` a
//! temp dir in every test): a one-file answer in a small folder finishes in
//! one round without the provisional caveat, while questions the folder
//! does not answer still end unanswered; the words that frame a question
//! ("am I allowed to", "how long", "gives me") are no sections, caveats or
//! searches; a folder with two meanings of a word asks which one; the same
//! small folder answers the same over OpenSearch as over the local index.
//! And reflexion memory with a model (a scripted OpenAI-compatible server on
//! loopback): a lesson needs a real gain, reads as a sentence, and one
//! question keeps one lesson per thing it taught.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::support;
use crate::support::llm::{self as llm_support, Behaviour, FakeLlm};
use crate::support::opensearch::cluster;
use serde_json::json;
use sleuth::engine::memory::{MemoryEntry, MemorySettings, MemoryStore};
use sleuth::engine::ports::{MemorySink, MemoryTexts};
use sleuth::engine::protocol::{Command, Event};
use sleuth::engine::{Engine, EngineParts, SessionState};
use sleuth::llm::endpoint::Endpoint;
use sleuth::llm::prompts::Prompts;
use sleuth::llm::{LlmConfig, LlmReasoner};
use sleuth::search::{SearchProvider, SearchRouter};
use sleuth::session::memory::FileMemoryStore;
use support::bin::{output_async, sleuth_cmd};
use support::scripted::{ScriptedProvider, corpus};

/// Ten short notes of a community garden, one subject each.
const GARDEN: &[(&str, &str, &str)] = &[
    (
        "watering.md",
        "Watering",
        "During a drought, watering is allowed only before eight in the morning and after seven in the evening. Hoses must have a trigger nozzle. Rain barrels may be used at any time.",
    ),
    (
        "plots.md",
        "Plots",
        "A plot costs forty-five euros a year. Plots are assigned in March by the order of the waiting list. Each member may rent one plot.",
    ),
    (
        "tools.md",
        "Tools",
        "The shed holds spades, rakes and two wheelbarrows. Tools are returned clean before the shed closes at dusk. A broken tool is reported to the tool warden.",
    ),
    (
        "compost.md",
        "Compost",
        "Kitchen scraps go into the green bins next to the gate. Meat, dairy and diseased plants never go into the compost. The compost is turned every second Saturday.",
    ),
    (
        "meetings.md",
        "Members' meeting",
        "The members meet on the first Sunday of every month in the greenhouse. Decisions need a majority of the members present. Minutes are posted on the board by the gate.",
    ),
    (
        "pests.md",
        "Pests",
        "Slug pellets are not allowed in the garden. Members protect their seedlings with copper tape or beer traps instead. Aphids are left to the ladybirds.",
    ),
    (
        "children.md",
        "Children",
        "Children are welcome when an adult member stays with them. The pond is fenced and its gate stays closed. The sandpit by the shed is for children under six.",
    ),
    (
        "harvest.md",
        "Sharing the harvest",
        "Surplus vegetables can be left on the sharing table at the entrance. Anyone may take from the table. Members label what they leave with the day it was picked.",
    ),
    (
        "keys.md",
        "Keys",
        "Each member gets one key to the main gate against a deposit of twenty euros. A lost key is replaced for the same deposit. Keys are returned when a membership ends.",
    ),
    (
        "bees.md",
        "Bees",
        "Two beehives stand behind the orchard. Only the beekeeper opens the hives. Visitors keep three metres away from the hives during the summer.",
    ),
];

fn write_notes(dir: &Path, notes: &[(&str, &str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, title, text) in notes {
        std::fs::write(dir.join(name), format!("# {title}\n\n{text}\n")).unwrap();
    }
}

/// A temporary folder `name` holding `notes`, and a home beside it; the
/// folder lives as long as the first value.
fn notes_folder(name: &str, notes: &[(&str, &str, &str)]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, home) = (tmp.path().join(name), tmp.path().join("home"));
    write_notes(&dir, notes);
    (tmp, dir, home)
}

/// A finished `sleuth run`: exit code, the report, the progress lines.
struct Run {
    code: Option<i32>,
    report: String,
    progress: String,
}

impl Run {
    /// The DECIDE lines, one per iteration.
    fn decisions(&self) -> Vec<&str> {
        self.progress.lines().filter(|l| l.contains("] decide: ")).collect()
    }

    /// The texts searched, in order.
    fn searches(&self) -> Vec<&str> {
        self.progress
            .lines()
            .filter_map(|l| l.split_once("] search \"").and_then(|(_, rest)| rest.split_once('"')).map(|(q, _)| q))
            .collect()
    }

    fn first_paragraph(&self) -> &str {
        self.report.split("\n\n").map(str::trim).find(|b| !b.is_empty() && !b.starts_with('#')).unwrap_or_default()
    }
}

fn run(home: &Path, args: &[&str], question: &str) -> Run {
    let out = sleuth_cmd(home)
        .args(["run", "--ask", "first"])
        .args(args)
        .arg(question)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code(),
        report: String::from_utf8_lossy(&out.stdout).into_owned(),
        progress: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    // An internal label never reaches the reader.
    assert!(!run.report.contains("related:"), "{question}:\n{}", run.report);
    run
}

fn on_folder(home: &Path, dir: &Path, question: &str) -> Run {
    run(home, &["--set", &format!("local.corpus={}", dir.display())], question)
}

#[test]
fn a_small_folders_clearly_answered_question_finishes_in_one_round_without_the_provisional_caveat() {
    let (_tmp, dir, home) = notes_folder("garden", GARDEN);
    let answered = [
        ("How much does a plot cost per year?", "A plot costs forty-five euros a year."),
        ("What is the deposit for a key to the gate?", "against a deposit of twenty euros"),
        ("Are slug pellets allowed?", "Slug pellets are not allowed in the garden."),
        ("When do the members meet?", "The members meet on the first Sunday of every month"),
        ("Where do kitchen scraps go?", "Kitchen scraps go into the green bins next to the gate."),
        ("Who opens the beehives?", "Only the beekeeper opens the hives."),
    ];
    for (question, answer) in answered {
        let r = on_folder(&home, &dir, question);
        assert_eq!(r.code, Some(0), "{question}:\n{}\n{}", r.progress, r.report);
        assert!(r.first_paragraph().contains(answer), "{question}: the answer opens the report:\n{}", r.report);
        let decisions = r.decisions();
        assert!(
            decisions.len() == 1 && decisions[0].contains("decide: OUTPUT"),
            "{question}: one round, decided on its numbers:\n{}",
            r.progress
        );
        assert!(!r.report.contains("provisional"), "{question}:\n{}", r.report);
    }
    // What the notes do not say still ends unanswered.
    for question in ["What does it cost to hold a wedding in the greenhouse?", "How do I apply for a parking permit?"] {
        let r = on_folder(&home, &dir, question);
        assert_eq!(r.code, Some(4), "{question}: unanswered:\n{}\n{}", r.progress, r.report);
        assert!(r.report.contains("do not answer"), "{question}:\n{}", r.report);
    }
}

/// Issue 24: a question about a name the notes never mention is about what
/// they do not cover, however many of its other words they hold; a capital
/// the asker gave a common noun is not such a name in a small folder.
#[test]
fn a_question_about_a_name_the_notes_never_mention_ends_unanswered() {
    let (_tmp, dir, home) = notes_folder("garden", GARDEN);
    let r = on_folder(&home, &dir, "How much does a plot cost per year in the Kensington garden?");
    assert_eq!(r.code, Some(4), "unanswered:\n{}\n{}", r.progress, r.report);
    assert!(r.first_paragraph().contains("do not answer"), "{}", r.report);
    let r = on_folder(&home, &dir, "How much does a Plot cost per year?");
    assert_eq!(r.code, Some(0), "answered:\n{}\n{}", r.progress, r.report);
    assert!(r.first_paragraph().contains("A plot costs forty-five euros a year."), "{}", r.report);
}

#[test]
fn the_words_that_frame_a_question_are_no_section_caveat_or_search() {
    let (_tmp, dir, home) = notes_folder("garden", GARDEN);
    let cases: &[(&str, &[&str])] = &[
        ("When am I allowed to water during a drought?", &["am", "allowed", "during"]),
        ("How close may visitors go to the beehives?", &["close", "may"]),
        ("How long does a key deposit last when my membership ends?", &["long", "my"]),
        ("Which tool gives me the cleanest cut?", &["gives"]),
    ];
    for (question, frame) in cases {
        let r = on_folder(&home, &dir, question);
        for word in *frame {
            let heading = format!("## {}{}", word[..1].to_uppercase(), &word[1..]);
            assert!(!r.report.lines().any(|l| l.starts_with(&heading)), "{question}: {heading}\n{}", r.report);
            let caveat = r.report.lines().find(|l| l.contains("Not covered by the sources found"));
            assert!(
                caveat.is_none_or(|c| !c.split([':', ',', '.']).any(|part| part.trim() == *word)),
                "{question}: {word} in {caveat:?}"
            );
            assert!(!r.searches().contains(word), "{question}: a search for {word:?}: {:?}", r.searches());
        }
    }
}

/// Three notes on the snake, three on the programming language, written as
/// a person would: each repeats little of the others' words.
const PYTHONS: &[(&str, &str, &str)] = &[
    (
        "snakes.md",
        "Pythons",
        "Pythons are large non-venomous snakes found in Africa, Asia and Australia. A python kills its prey by constriction: it coils around the animal and squeezes until the animal stops breathing. Most pythons lay eggs and guard them until they hatch.",
    ),
    (
        "ball-python.md",
        "Ball python care",
        "The ball python is a small python often kept as a pet snake. Its enclosure needs a warm side and a cool side because snakes cannot regulate their body temperature. Young ball pythons eat one mouse a week.",
    ),
    (
        "reticulated.md",
        "Reticulated python",
        "The reticulated python of Southeast Asia is the longest snake in the world, reaching more than six metres. Like other pythons it hunts at night and swallows its prey whole.",
    ),
    (
        "language.md",
        "Python (programming language)",
        "Python is a high-level programming language created by Guido van Rossum. Python code is known for its readability and its use of indentation to mark blocks. The language is dynamically typed and comes with a large standard library.",
    ),
    (
        "packages.md",
        "Installing packages",
        "Python packages are installed with pip, the package installer for the Python programming language. A virtual environment keeps the packages of one project apart: create one with python -m venv and activate it before running pip install.",
    ),
    (
        "comprehensions.md",
        "List comprehensions",
        "A list comprehension is a compact way to build a list in Python code: [x * x for x in range(10)] squares the numbers from 0 to 9. Comprehensions are usually faster than a for loop that appends to a list.",
    ),
];

#[test]
fn a_folder_with_two_meanings_of_a_word_asks_which_one_and_a_plain_question_does_not() {
    let (_tmp, dir, home) = notes_folder("pythons", PYTHONS);
    let r = on_folder(&home, &dir, "What is python?");
    assert!(r.decisions().first().is_some_and(|d| d.contains("decide: ASK")), "{}", r.progress);
    // `--ask first` picks the first meaning: the report keeps to one.
    assert!(r.report.contains("Interpretation: you chose"), "{}", r.report);
    let snake = r.report.contains("snake");
    let language = r.report.contains("programming language");
    assert!(snake != language, "one meaning, not both:\n{}", r.report);
    // A question that names its meaning is answered without asking.
    for question in ["How long is the reticulated python?", "How do I install Python packages?"] {
        let r = on_folder(&home, &dir, question);
        assert!(r.decisions().iter().all(|d| !d.contains("ASK")), "{question}:\n{}", r.progress);
        assert_eq!(r.code, Some(0), "{question}:\n{}", r.report);
    }
}

/// Three short Markdown files, as the field report indexed them.
const HANDBOOK: &[(&str, &str, &str)] = &[
    (
        "onboarding.md",
        "Onboarding",
        "New employees receive a laptop on their first day. Every new employee is paired with a buddy for their first eight weeks. The buddy answers questions about tools, people and customs.",
    ),
    (
        "expenses.md",
        "Travel expenses",
        "Meals during business travel are reimbursed up to forty euros a day. Alcohol is never reimbursed. Taxis are reimbursed when no public transport runs.",
    ),
    (
        "holidays.md",
        "Holidays",
        "Employees have twenty-eight days of paid holiday a year. Unused days can be carried over until the end of March. Requests go to the team lead two weeks ahead.",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_folder_answers_the_same_over_opensearch_as_over_the_local_index() {
    let (server, fake) = cluster::FakeCluster::start().await;
    let (_tmp, dir, home) = notes_folder("handbook", HANDBOOK);
    std::fs::create_dir_all(&home).unwrap();
    let config = format!("[opensearch]\nurl = \"{}\"\nindex = \"handbook\"\n", server.uri());
    std::fs::write(home.join("config.toml"), config).unwrap();
    let mut index = sleuth_cmd(&home);
    index.args(["index", "--to", "opensearch", dir.to_str().unwrap()]);
    let out = output_async(index).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!fake.docs("handbook").is_empty());
    // The index's term statistics, for the reasoner to weigh words by.
    let stats = fake.docs("handbook-files").get("sleuth:corpus-statistics").cloned().expect("statistics written");
    assert_eq!(stats["passages"], 3, "{stats}");
    assert_eq!(stats["df"]["buddi"], 1, "{stats}");
    let question = "How long does the buddy program last?";
    let answer = "for their first eight weeks";
    let (h, d) = (home.clone(), dir.clone());
    let local = tokio::task::spawn_blocking(move || on_folder(&h, &d, question)).await.unwrap();
    assert!(local.first_paragraph().contains(answer), "local:\n{}\n{}", local.progress, local.report);
    let h = home.clone();
    let remote = tokio::task::spawn_blocking(move || {
        run(&h, &["--set", r#"search.chains=[["opensearch"]]"#, "--time-limit", "0"], question)
    })
    .await
    .unwrap();
    assert!(!remote.progress.contains("too_short"), "{}", remote.progress);
    assert!(remote.first_paragraph().contains(answer), "opensearch:\n{}\n{}", remote.progress, remote.report);
    assert_eq!(remote.code, local.code, "the same outcome:\n{}\n{}", remote.report, local.report);
    assert_eq!(remote.decisions().len(), 1, "{}", remote.progress);
}

const QUESTION: &str = "How do widgets connect to gadgets?";

/// The critic's reply: `issues`, the aspects it found addressed, and how
/// well the opening answers.
fn critique(issues: serde_json::Value, addressed: &[&str], relevance: f64) -> Behaviour {
    Behaviour::Content(
        json!({
            "verdict": "WARN", "issues": issues,
            "aspects_required": ["widgets", "gadgets"], "aspects_addressed": addressed,
            "weak_aspects": [], "gaps": [], "contradictions": [], "needs_clarification": null,
            "answer_relevance": relevance, "unanswered": false,
            "dimensions": { "completeness": 0.9, "accuracy": 0.95, "relevance": 0.95, "freshness": 0.9, "coherence": 0.9 }
        })
        .to_string(),
    )
}

/// One session of `QUESTION` with the model on `fake`, two iterations, its
/// lessons going to the memory file at `path`.
async fn session_with_model(fake: &FakeLlm, path: &Path, id: &str) -> SessionState {
    let mut c = LlmConfig { base_url: fake.base_url(), model: "test-model".into(), ..LlmConfig::default() };
    c.backoff_min_ms = 10;
    c.backoff_max_ms = 50;
    c.timeout_secs = 5;
    c.review_with_model = true;
    c.refine_with_model = true;
    c.write_with_model = true;
    c.self_check = false;
    let endpoint = Endpoint::with_env(&c.resolved_endpoints()[0], &c, |_| None).unwrap();
    let reasoner = Arc::new(LlmReasoner::with_endpoints(c, Prompts::builtin(), vec![endpoint]).unwrap());
    let provider: Arc<dyn SearchProvider> = Arc::new(ScriptedProvider::new("web", corpus(4)));
    let parts = EngineParts {
        reasoner,
        search: Arc::new(SearchRouter::new(vec![vec![provider]], &sleuth::search::RouterSettings::default())),
        texts: Arc::new(MemoryTexts::default()),
        memory: Arc::new(FileMemoryStore::open(path, MemorySettings::default())) as Arc<dyn MemoryStore>,
        log: Box::new(MemorySink::default()),
    };
    let mut settings = llm_support::settings(2);
    settings.session_id = id.into();
    // Both iterations run: the second is the revision a lesson comes from.
    settings.decide.confidence_threshold = 0.99;
    let (engine, mut handle) = Engine::new(settings, parts, SessionState::default());
    let task = tokio::spawn(engine.run());
    handle.commands.send(Command::Start { question: QUESTION.into() }).unwrap();
    while let Some(record) = handle.events.recv().await {
        if matches!(record.event, Event::SessionEnded { .. }) {
            break;
        }
    }
    task.await.unwrap().unwrap()
}

fn lessons(path: &Path) -> Vec<MemoryEntry> {
    FileMemoryStore::open(path, MemorySettings::default()).entries()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_runs_of_one_question_keep_one_lesson_that_reads_as_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.jsonl");
    // What a small model's critic writes about the same miss, run after run.
    let said = [
        "description: type begin trait Color inherent",
        "mistake: gadgets gadget connect port",
        "The answer never says how gadgets connect.",
        "gadgets missing",
        "The draft leaves out the gadget side of the connection.",
    ];
    for (run, description) in said.iter().enumerate() {
        let fake = FakeLlm::start().await;
        fake.queue(
            "critique",
            critique(
                json!([{ "severity": "high", "description": description, "aspect": "gadgets" }]),
                &["widgets"],
                0.6,
            ),
        );
        let state = session_with_model(&fake, &path, &format!("run-{run}")).await;
        let gain = state.iterations[1].evaluation.as_ref().unwrap().gain;
        assert!(gain >= 0.1, "the revision covered gadgets: a real gain ({gain})");
    }
    let kept = lessons(&path);
    assert_eq!(kept.len(), 1, "one lesson for one question and one miss: {kept:#?}");
    let lesson = &kept[0];
    assert_eq!(lesson.aspect.as_deref(), Some("gadgets"));
    assert_eq!(lesson.mistake, "The draft leaves out the gadget side of the connection.", "the latest, in its words");
    // Keyword salad about an aspect becomes a sentence about that aspect.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.jsonl");
    let fake = FakeLlm::start().await;
    fake.queue(
        "critique",
        critique(json!([{ "severity": "high", "description": said[0], "aspect": "gadgets" }]), &["widgets"], 0.6),
    );
    session_with_model(&fake, &path, "salad").await;
    let kept = lessons(&path);
    assert_eq!(kept.iter().map(|l| l.mistake.as_str()).collect::<Vec<_>>(), ["The answer did not cover “gadgets”."]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revision_that_barely_raised_confidence_teaches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.jsonl");
    let fake = FakeLlm::start().await;
    // Everything covered from the start; one remark goes away and the
    // opening reads a little better (0.86 → 0.9).
    fake.queue(
        "critique",
        critique(
            json!([{ "severity": "low", "description": "The answer could name the port each gadget uses.", "aspect": "" }]),
            &["widgets", "gadgets"],
            0.86,
        ),
    );
    let state = session_with_model(&fake, &path, "tiny").await;
    let gain = state.iterations[1].evaluation.as_ref().unwrap().gain;
    assert!(gain > 0.0 && gain < MemorySettings::default().min_gain, "a gain, but no real one: {gain}");
    assert!(lessons(&path).is_empty(), "{:#?}", lessons(&path));
    assert_eq!(state.memories_stored, 0);
}
