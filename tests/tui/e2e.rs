//! The real binary in tmux. Skipped (with a printed reason) only when tmux
//! is missing.

use std::time::Duration;

use sleuth::tui::sample::{Sample, Stop};

use super::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(20);

/// Skips (saying so) when tmux is missing; in CI (`CI` set, as `.ci/run`
/// does, which installs tmux) a missing tmux fails the test instead.
fn skip() -> bool {
    crate::support::bin::missing_tool("tmux", tmux::available(), "apt-get install tmux")
}

#[test]
fn review_a_saved_session_moves_through_iterations_offline() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let id = "20260101-000000-abcd";
    Sample { iterations: 4, hostile_source: true, ..Sample::default() }
        .write_to(&home.path().join("sessions").join(id))
        .unwrap();
    let t = Tmux::start("review", home.path(), &["open", id], 100, 30);
    let last = t.wait_for(&["REVIEW 4 of 4", "Final report", "finished"], WAIT);
    assert!(last.contains("Iterations (4/5)"), "{last}");
    t.keys(&["Left", "Left", "Left"]);
    let first = t.wait_for(&["REVIEW 1 of 4", "Reflection 1"], WAIT);
    assert!(first.contains("Draft 1"), "the draft of iteration 1, not the report:\n{first}");
    assert!(!first.contains("Final report"), "{first}");
    // Search in the reflection pane: a miss says so.
    t.keys(&["Tab", "/"]);
    t.type_text("zzzz");
    t.keys(&["Enter"]);
    t.wait_for(&["no match for `zzzz`"], WAIT);
    t.keys(&["BTab"]);
    // Citations, a hostile source's text: plain text, the title never retitles the window.
    t.keys(&["Tab", "Tab", "j", "Enter"]);
    let source = t.wait_for(&["Source [2]", "Danger zone."], WAIT);
    assert!(!source.contains("pwned"), "an OSC title sequence reached the screen:\n{source}");
    assert!(!t.pane_title().contains("pwned"), "the window title was changed by source text");
    t.keys(&["Escape", "q"]);
    let end = t.wait_for(&["[exit 0]"], WAIT);
    assert!(!end.contains("REVIEW"), "the terminal is restored:\n{end}");
}

#[test]
fn open_without_a_session_lists_them_and_a_damaged_one_is_named() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join("sessions");
    Sample { stop: Stop::AskOpen, ..Sample::default() }.write_to(&sessions.join("20260101-000000-aaaa")).unwrap();
    std::fs::create_dir_all(sessions.join("20260102-000000-bbbb")).unwrap();
    std::fs::write(sessions.join("20260102-000000-bbbb/events.jsonl"), "{oops\n").unwrap();
    let t = Tmux::start("picker", home.path(), &["open"], 100, 30);
    let list = t.wait_for(&["Saved sessions (2)", "damaged", "waiting on ASK"], WAIT);
    assert!(list.contains("How does the ? operator"), "{list}");
    t.keys(&["Enter"]);
    t.wait_for(&["cannot be opened"], WAIT);
    t.keys(&["j", "Enter"]);
    let review = t.wait_for(&["REVIEW 3 of 3", "waiting for your answer"], WAIT);
    assert!(!review.contains("sleuth asks"), "review never answers: no ASK window\n{review}");
    t.keys(&["q"]);
    t.wait_for(&["[exit 0]"], WAIT);
}

#[test]
fn a_too_small_terminal_says_the_minimum_and_resizing_redraws() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let id = "20260101-000000-abcd";
    Sample::default().write_to(&home.path().join("sessions").join(id)).unwrap();
    let t = Tmux::start("small", home.path(), &["open", id], 70, 20);
    t.wait_for(&["at least 80×24", "70×20"], WAIT);
    t.resize(100, 30);
    t.wait_for(&["REVIEW 3 of 3"], WAIT);
    t.keys(&["q"]);
    t.wait_for(&["[exit 0]"], WAIT);
}

/// A corpus where "mercury" has two unrelated meanings (the planet, the
/// metal): the built-in reasoner asks which one is meant. Each document
/// mixes its group's vocabulary in a different order, so documents of one
/// group share words but are not near-duplicates.
fn mercury_corpus(dir: &std::path::Path) {
    let planet = "orbit sun planet crater spacecraft telescope astronomer radar solar system eccentric perihelion \
                  messenger mariner basin scarp magnetic core rotation resonance elongation horizon dusk dawn asteroid";
    let metal = "liquid metal element quicksilver cinnabar thermometer barometer amalgam vapour toxic methylmercury \
                 chemist alloy gold silver dentist mining furnace mineral atomic symbol kelvin poison fish battery";
    std::fs::create_dir_all(dir).unwrap();
    for (group, vocab) in [("planet", planet), ("metal", metal)] {
        let words: Vec<&str> = vocab.split_whitespace().collect();
        for d in 0..4u64 {
            let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ ((d + 1) * 0x1000_0001) ^ group.len() as u64;
            let mut next = |n: usize| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % n as u64) as usize
            };
            let mut text = format!("# Mercury the {group}, part {d}\n\n");
            for _ in 0..9 {
                let mut pick: Vec<&str> = Vec::new();
                while pick.len() < 7 {
                    let w = words[next(words.len())];
                    if !pick.contains(&w) {
                        pick.push(w);
                    }
                }
                text.push_str(&format!("Mercury {} and {}. ", pick[..3].join(" "), pick[3..].join(" ")));
            }
            std::fs::write(dir.join(format!("{group}-{d}.md")), text).unwrap();
        }
    }
}

/// The `session saved: <dir>` line printed after the TUI closes: the id.
/// The TUI in tmux, researching "What is mercury?" over the two-sense
/// corpus, once it asks which sense is meant.
fn asking_about_mercury(name: &str, home: &std::path::Path) -> Tmux {
    let corpus = home.join("corpus");
    mercury_corpus(&corpus);
    let set_corpus = format!("local.corpus={}", corpus.display());
    let args =
        ["--set", &set_corpus, "--set", "local.tier=5", "--set", "search.results_per_query=8", "What is mercury?"];
    let t = Tmux::start(name, home, &args, 100, 30);
    t.wait_for(&["sleuth asks (iteration 1)"], WAIT);
    t
}

fn saved_session(screen: &str) -> String {
    let line = screen.lines().find(|l| l.contains("session saved:")).expect("the session is named");
    line.trim().rsplit('/').next().unwrap().trim().to_string()
}

#[test]
fn research_live_step_twice_answer_the_ask_then_review() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("corpus");
    mercury_corpus(&corpus);
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            // A threshold no draft of this small corpus reaches: the session
            // runs to its third iteration, so there are two steps to take.
            "[research]\nstep_mode = true\n\n[limits]\nmax_iterations = 3\n\n[decide]\nconfidence_threshold = 0.99\n\n[local]\ncorpus = \"{}\"\ntier = 5\n\n[search]\nresults_per_query = 8\n",
            corpus.display()
        ),
    )
    .unwrap();
    let t = Tmux::start("live", home.path(), &[], 100, 30);
    // No question on the command line: the prompt asks for it.
    t.wait_for(&["What do you want to know?", "step mode   on"], WAIT);
    t.type_text("What is mercury?");
    t.keys(&["Enter"]);
    let ask = t.wait_for(&["sleuth asks (iteration 1)", "unrelated senses", "Other…"], WAIT);
    assert!(ask.contains("1. ") && ask.contains("2. "), "two meanings offered:\n{ask}");
    t.keys(&["Enter"]);
    let paused = t.wait_for(&["paused (step mode)", "ASK ✓"], WAIT);
    assert!(paused.contains("Iterations (1/"), "{paused}");
    t.keys(&["s"]);
    t.wait_for(&["Iterations (2/", "paused (step mode)"], WAIT);
    t.keys(&["s"]);
    let done = t.wait_for(&["Iterations (3/", "finished"], WAIT);
    assert!(done.contains("OUTPUT"), "{done}");
    t.keys(&["q"]);
    let bye = t.wait_for(&["[exit 0]", "session saved:"], WAIT);
    let id = saved_session(&bye);
    drop(t);

    let t = Tmux::start("reopen", home.path(), &["open", &id], 100, 30);
    t.wait_for(&["REVIEW 3 of 3", "finished"], WAIT);
    t.keys(&["Left", "Left"]);
    let first = t.wait_for(&["REVIEW 1 of 3", "iteration 1 → ASK"], WAIT);
    assert!(first.contains("ASK ✓"), "the answered ask is shown:\n{first}");
    t.keys(&["q"]);
    t.wait_for(&["[exit 0]"], WAIT);
}

#[test]
fn quitting_at_an_ask_keeps_it_open_in_the_log() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let t = asking_about_mercury("quit-ask", home.path());
    t.keys(&["q"]);
    let bye = t.wait_for(&["[exit 0]", "a question waits for your answer"], WAIT);
    let id = saved_session(&bye);
    let log = sleuth::session::read_log(&home.path().join("sessions").join(&id).join("events.jsonl")).unwrap();
    let state = sleuth::engine::SessionState::replay(&log.records);
    let ask = state.open_ask().expect("the ask is still open in the log");
    // Resuming folds the same log: the live view opens the ASK window again.
    let app = sleuth::tui::App::live(state.clone(), sleuth::tui::Theme::default(), sleuth::tui::Keymap::default());
    assert!(
        matches!(app.overlays.last(), Some(sleuth::tui::app::Overlay::Ask(m)) if m.ask_id == ask.ask_id),
        "the reopened session asks again"
    );
}

/// While a live TUI writes session `id`: `sleuth sessions` lists it running
/// under the TUI's pid, and a second `resume` is refused naming that pid,
/// writing nothing.
fn assert_locked_by_the_live_tui(home: &std::path::Path, id: &str) {
    let lock = home.join("sessions").join(id).join("lock");
    let pid: u32 = std::fs::read_to_string(&lock).unwrap().trim().parse().expect("the lock file names the TUI's pid");
    assert_ne!(pid, std::process::id());
    let sleuth = |args: &[&str]| crate::support::bin::sleuth_cmd(home).args(args).output().unwrap();
    let listed = sleuth(&["sessions", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let row = rows.as_array().unwrap().iter().find(|r| r["id"] == id).expect("the session is listed");
    assert_eq!(row["status"], "running", "{row}");
    assert_eq!(row["pid"], pid, "{row}");
    let before = std::fs::read(home.join("sessions").join(id).join("events.jsonl")).unwrap();
    let second = sleuth(&["resume", id, "--headless"]);
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "a second writer was let in: {err}");
    assert!(err.contains("open in another sleuth process") && err.contains(&format!("pid {pid}")), "{err}");
    let after = std::fs::read(home.join("sessions").join(id).join("events.jsonl")).unwrap();
    assert_eq!(before, after, "the refused resume wrote nothing");
}

#[test]
fn resuming_a_session_that_was_quit_at_an_ask_asks_again_and_finishes() {
    if skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let t = asking_about_mercury("resume-ask", home.path());
    // A new session in the TUI is locked while it is open.
    let id = crate::support::e2e::session_ids(home.path()).pop().expect("the TUI created its session");
    assert_locked_by_the_live_tui(home.path(), &id);
    t.keys(&["q"]);
    let bye = t.wait_for(&["[exit 0]", "a question waits for your answer"], WAIT);
    assert_eq!(saved_session(&bye), id);
    drop(t);

    // `sleuth resume` on a terminal continues in the TUI: the same ASK again.
    let t = Tmux::start("resume-ask-2", home.path(), &["resume", &id], 100, 30);
    t.wait_for(&["sleuth asks (iteration 1)"], WAIT);
    assert_locked_by_the_live_tui(home.path(), &id);
    t.keys(&["Enter"]);
    t.wait_for(&["finished"], WAIT);
    t.keys(&["q"]);
    t.wait_for(&["[exit 0]"], WAIT);
    let log = sleuth::session::read_log(&home.path().join("sessions").join(&id).join("events.jsonl")).unwrap();
    let seqs: Vec<u64> = log.records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "one gapless log across the resume");
    let state = sleuth::engine::SessionState::replay(&log.records);
    assert_eq!(state.asks.len(), 1, "asked once, answered once");
    assert!(state.asks[0].answer.is_some());
    assert!(state.is_finished() && state.report.is_some());
    drop(t);

    // A follow-up on a terminal runs in the TUI too, as a new session.
    let question = "How long is its orbit around the sun?";
    let t = Tmux::start("resume-ask-3", home.path(), &["resume", &id, "--follow-up", question], 100, 30);
    // In the TUI (its Monitor pane), to the end: a short session can end
    // before the first screen is read, so "LIVE" may never be seen.
    t.wait_for(&["Monitor", question, "finished"], WAIT);
    t.keys(&["q"]);
    let bye = t.wait_for(&["[exit 0]"], WAIT);
    let follow_up = saved_session(&bye);
    assert_ne!(follow_up, id);
    let log = sleuth::session::read_log(&home.path().join("sessions").join(&follow_up).join("events.jsonl")).unwrap();
    let state = sleuth::engine::SessionState::replay(&log.records);
    let header = state.header.as_ref().expect("header");
    assert_eq!(header.follow_up_of.as_deref(), Some(id.as_str()));
    assert_eq!(header.question, question);
    assert!(state.is_finished(), "the follow-up ran to its end in the TUI");
}
