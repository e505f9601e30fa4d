//! Pure tests of `App::update`: keys and engine events in, effects out.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::engine::model::SourceId;
use crate::engine::protocol::{Answer, Command, Steer};
use crate::tui::sample::{Sample, Stop};

fn live(stop: Stop) -> App {
    let state = Sample { stop, answered_ask_at: Some(1), ..Sample::default() }.state();
    App::live(state, Theme::default(), Keymap::default())
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}

/// Types each character; returns every effect produced.
fn typed(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars().flat_map(|c| app.update(ch(c))).collect()
}

fn engine(cmd: Command) -> Vec<Effect> {
    vec![Effect::Engine(cmd)]
}

#[test]
fn control_keys_become_engine_commands() {
    let mut app = live(Stop::Paused);
    assert_eq!(app.update(ch('s')), engine(Command::Step));
    assert_eq!(app.update(ch('a')), engine(Command::Continue));
    assert_eq!(app.update(ch('o')), engine(Command::ForceOutput));
    assert_eq!(app.update(ch('x')), engine(Command::Cancel));
}

#[test]
fn stepping_while_running_enters_step_mode_and_says_so() {
    let mut app = live(Stop::Searching);
    assert_eq!(app.update(ch('s')), engine(Command::Step));
    assert!(matches!(&app.banner, Some(Banner::Info(m)) if m.contains("pauses after this iteration")));
}

#[test]
fn a_finished_session_takes_no_commands() {
    let mut app = live(Stop::Finished);
    assert_eq!(app.update(ch('s')), vec![]);
    assert!(matches!(app.banner, Some(Banner::Info(_))));
}

#[test]
fn an_open_ask_shows_its_modal_and_enter_answers_it_by_id() {
    let mut app = live(Stop::AskOpen);
    // Iteration 1's ask was answered; the open one is iteration 3's.
    assert!(matches!(app.overlays.last(), Some(Overlay::Ask(m)) if m.ask_id == "ask-3"));
    let effects = app.update(key(KeyCode::Enter));
    let answer = Answer::Choice { index: 0, label: "the ? operator on Result".into() };
    assert_eq!(effects, engine(Command::Answer { ask_id: "ask-3".into(), answer }));
    assert!(app.overlays.is_empty());
}

#[test]
fn digits_and_arrows_choose_other_options() {
    let mut app = live(Stop::AskOpen);
    let answer = Answer::Choice { index: 1, label: "the ? operator on Option".into() };
    assert_eq!(app.update(ch('2')), engine(Command::Answer { ask_id: "ask-3".into(), answer: answer.clone() }));
    let mut app = live(Stop::AskOpen);
    app.update(ch('j'));
    assert_eq!(app.update(key(KeyCode::Enter)), engine(Command::Answer { ask_id: "ask-3".into(), answer }));
}

#[test]
fn other_opens_a_text_box_for_a_free_answer() {
    let mut app = live(Stop::AskOpen);
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    assert_eq!(app.update(key(KeyCode::Enter)), vec![], "Other… opens the box, answers nothing yet");
    assert!(matches!(app.overlays.last(), Some(Overlay::Ask(m)) if m.other.is_some()));
    // Keys now type: q and s are text, not quit and step.
    assert_eq!(typed(&mut app, "qs on Option"), vec![]);
    app.update(Msg::Paste(" and\x1b[2J Result".into()));
    let effects = app.update(key(KeyCode::Enter));
    let answer = Answer::Text { text: "qs on Option and Result".into() };
    assert_eq!(effects, engine(Command::Answer { ask_id: "ask-3".into(), answer }));
}

#[test]
fn an_ask_put_aside_comes_back_with_r_and_closes_when_answered_elsewhere() {
    let mut app = live(Stop::AskOpen);
    app.update(key(KeyCode::Esc));
    assert!(app.overlays.is_empty());
    assert_eq!(app.update(ch('2')), vec![], "digits do nothing outside the modal");
    app.update(ch('r'));
    assert!(matches!(app.overlays.last(), Some(Overlay::Ask(_))));
    let record = EventRecord {
        seq: app.state.last_seq + 1,
        at_ms: 0,
        elapsed_ms: app.state.elapsed_ms,
        event: Event::AskAnswered { ask_id: "ask-3".into(), answer: Answer::Text { text: "x".into() } },
    };
    app.update(Msg::Engine(Box::new(record)));
    assert!(app.overlays.is_empty());
}

#[test]
fn an_ask_raised_live_opens_the_modal() {
    let records = Sample { stop: Stop::AskOpen, ..Sample::default() }.records();
    let (head, tail) = records.split_at(records.len() - 1);
    let mut app = App::live(SessionState::replay(head), Theme::default(), Keymap::default());
    assert!(app.overlays.is_empty());
    app.update(Msg::Engine(Box::new(tail[0].clone())));
    assert!(matches!(app.overlays.last(), Some(Overlay::Ask(m)) if m.ask_id == "ask-3"));
}

#[test]
fn steering_at_a_pause_edits_deletes_and_adds() {
    let mut app = live(Stop::Paused);
    app.update(ch('e'));
    assert!(matches!(app.overlays.last(), Some(Overlay::Steer { .. })));
    assert_eq!(app.update(ch('d')), engine(Command::Steer { edit: Steer::DeleteQuery { index: 0 } }));
    app.update(ch('j'));
    app.update(ch('e'));
    let Some(Overlay::Editor(e)) = app.overlays.last() else { panic!("editor expected") };
    assert_eq!(e.text(), "question mark operator Option 3", "the box starts with the query");
    for _ in 0..9 {
        app.update(key(KeyCode::Backspace));
    }
    typed(&mut app, " Result");
    let edit = Steer::EditQuery { index: 1, text: "question mark operator Result".into() };
    assert_eq!(app.update(key(KeyCode::Enter)), engine(Command::Steer { edit }));
    assert!(matches!(app.overlays.last(), Some(Overlay::Steer { .. })), "back to the panel");
    app.update(ch('a'));
    typed(&mut app, "try blocks");
    let add = Steer::AddQuery { text: "try blocks".into() };
    assert_eq!(app.update(key(KeyCode::Enter)), engine(Command::Steer { edit: add }));
    app.update(ch('n'));
    typed(&mut app, "prefer the reference");
    let note = Steer::AddNote { text: "prefer the reference".into() };
    assert_eq!(app.update(key(KeyCode::Enter)), engine(Command::Steer { edit: note }));
    assert_eq!(app.update(ch('s')), engine(Command::Step), "s steps and closes the panel");
    assert!(app.overlays.is_empty());
}

#[test]
fn steering_needs_a_pause() {
    let mut app = live(Stop::Searching);
    assert_eq!(app.update(ch('e')), vec![]);
    assert!(app.overlays.is_empty());
    assert!(matches!(&app.banner, Some(Banner::Info(m)) if m.contains("step pause")));
}

#[test]
fn ban_and_pin_the_selected_source() {
    let mut app = live(Stop::Paused);
    while app.focus != Pane::Citations {
        app.update(key(KeyCode::Tab));
    }
    app.update(ch('j'));
    assert_eq!(app.update(ch('b')), engine(Command::Steer { edit: Steer::BanSource { id: SourceId(2) } }));
    app.update(ch('j'));
    assert_eq!(app.update(ch('p')), engine(Command::Steer { edit: Steer::PinSource { id: SourceId(3) } }));
    assert_eq!(app.update(key(KeyCode::Enter)), vec![Effect::LoadSource(SourceId(3))]);
    assert!(matches!(app.overlays.last(), Some(Overlay::Source(v)) if v.id == SourceId(3) && v.text.is_none()));
    app.update(Msg::SourceLoaded { id: SourceId(3), text: Some("the text".into()) });
    assert!(matches!(app.overlays.last(), Some(Overlay::Source(v)) if v.text.as_deref() == Some("the text")));
}

#[test]
fn engine_errors_become_a_banner_and_resuming_closes_steering() {
    let mut app = live(Stop::Paused);
    app.update(ch('e'));
    let n = app.state.iteration();
    let mut seq = app.state.last_seq;
    let mut next = |event| {
        seq += 1;
        Msg::Engine(Box::new(EventRecord { seq, at_ms: 0, elapsed_ms: 0, event }))
    };
    app.update(next(Event::Resumed { iteration: n }));
    assert!(app.overlays.is_empty());
    app.update(next(Event::Error { phase: crate::engine::model::Phase::Search, message: "provider down".into() }));
    assert_eq!(app.banner, Some(Banner::Error("error in search: provider down".into())));
    app.update(key(KeyCode::Esc));
    assert_eq!(app.banner, None);
    app.update(Msg::EngineStopped { error: Some("log full".into()) });
    assert!(matches!(&app.banner, Some(Banner::Error(m)) if m.contains("log full")));
    assert_eq!(app.update(ch('s')), vec![], "no engine, no command");
}

#[test]
fn quitting_a_busy_session_asks_first() {
    let mut app = live(Stop::Searching);
    assert_eq!(app.update(ch('q')), vec![]);
    assert!(matches!(app.overlays.last(), Some(Overlay::ConfirmQuit)));
    assert_eq!(app.update(ch('n')), vec![]);
    app.update(ch('q'));
    assert_eq!(app.update(ch('y')), vec![Effect::Quit]);
    let mut paused = live(Stop::Paused);
    assert_eq!(paused.update(ch('q')), vec![Effect::Quit], "nothing runs at a pause");
}

#[test]
fn ctrl_c_quits_even_while_typing() {
    let mut app = live(Stop::AskOpen);
    app.update(ch('3'));
    let ctrl_c = Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert_eq!(app.update(ctrl_c), vec![Effect::Quit]);
}

#[test]
fn review_moves_every_pane_through_iterations_and_sends_nothing() {
    let records = Sample { iterations: 4, ..Sample::default() }.records();
    let mut app = App::review(records, Theme::default(), Keymap::default());
    assert_eq!(app.state.iteration(), 4);
    assert!(app.state.report.is_some());
    assert_eq!(app.update(ch('h')), vec![]);
    assert_eq!(app.update(key(KeyCode::Left)), vec![]);
    assert_eq!(app.state.iteration(), 2);
    assert_eq!(app.selected, Some(2));
    assert!(app.state.report.is_none(), "the report did not exist yet");
    assert_eq!(app.state.sources.len(), 8);
    assert_eq!(app.update(ch('s')), vec![], "no controls in review");
    app.update(key(KeyCode::End));
    app.update(ch('l'));
    app.update(ch('l'));
    app.update(ch('l'));
    assert_eq!(app.state.iteration(), 4);
    assert_eq!(app.update(ch('q')), vec![Effect::Quit]);
}

#[test]
fn search_scrolls_the_reflection_to_the_match() {
    let mut app = live(Stop::Paused).with_size(100, 30);
    app.focus = Pane::Reflection;
    app.detail = Pane::Reflection;
    app.update(ch('/'));
    typed(&mut app, "next 3.");
    app.update(key(KeyCode::Enter));
    let lines = crate::tui::doc::reflection::lines(&app, crate::tui::layout::detail_text_width(&app));
    let at = app.cursors.reflection;
    assert!(at > 0);
    assert!(crate::tui::text::plain(&lines[at]).contains("next 3."), "{:?}", crate::tui::text::plain(&lines[at]));
    app.update(ch('/'));
    typed(&mut app, "zzz-not-there");
    app.update(key(KeyCode::Enter));
    assert!(matches!(&app.banner, Some(Banner::Info(m)) if m.contains("no match")));
}

#[test]
fn tab_cycles_panes_and_the_detail_column_follows() {
    let mut app = live(Stop::Finished);
    let mut seen = Vec::new();
    for _ in 0..5 {
        app.update(key(KeyCode::Tab));
        seen.push((app.focus, app.detail));
    }
    assert_eq!(seen[0], (Pane::Reflection, Pane::Reflection));
    assert_eq!(seen[1], (Pane::Citations, Pane::Citations));
    assert_eq!(seen[2], (Pane::Report, Pane::Report));
    assert_eq!(seen[3], (Pane::Monitor, Pane::Report), "the detail column keeps the last detail pane");
    assert_eq!(seen[4].0, Pane::Iterations);
    app.update(Msg::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)));
    assert_eq!(app.focus, Pane::Monitor);
}

/// The document cache: built once for what is shown, reused while nothing
/// changes, rebuilt on a resize, a new event or another iteration; update
/// code (paging) reads the same document a frame draws.
#[test]
fn documents_are_cached_per_width_and_rebuilt_on_change() {
    use std::borrow::Cow;

    use crate::tui::doc::{self, DocKind};
    use crate::tui::layout::detail_text_width;
    let mut app = live(Stop::Paused).with_size(100, 30);
    app.focus = Pane::Reflection;
    app.detail = Pane::Reflection;
    assert!(app.docs.reflection.is_none(), "nothing is built before it is needed");
    app.refresh_docs();
    let width = detail_text_width(&app);
    assert!(matches!(app.doc(DocKind::Reflection, width), Cow::Borrowed(_)), "a frame draws the cache");
    assert!(matches!(app.doc(DocKind::Reflection, width + 1), Cow::Owned(_)), "another width is not the cache");
    let built = app.docs.reflection.as_ref().unwrap().key.clone();
    app.refresh_docs();
    assert_eq!(app.docs.reflection.as_ref().unwrap().key, built, "nothing changed, nothing rebuilt");

    app.update(Msg::Resize(140, 40));
    app.refresh_docs();
    let wide = app.docs.reflection.as_ref().unwrap();
    assert_eq!(wide.key.width, detail_text_width(&app));
    let fresh = doc::reflection::lines(&app, wide.key.width);
    assert_eq!(wide.text(), fresh.iter().map(crate::tui::text::plain).collect::<Vec<_>>());

    // Paging builds what it needs itself, for the current selection.
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.docs.reflection.as_ref().unwrap().key.shown, Some(2));

    let record = crate::engine::protocol::EventRecord {
        seq: app.state.last_seq + 1,
        at_ms: 0,
        elapsed_ms: 0,
        event: crate::engine::protocol::Event::OutputForced,
    };
    app.update(Msg::Engine(Box::new(record)));
    app.refresh_docs();
    assert_eq!(app.docs.reflection.as_ref().unwrap().key.seq, app.state.last_seq, "a new event rebuilds");
}

#[test]
fn the_export_key_asks_for_html_and_pdf_once_there_is_a_report() {
    let mut searching = live(Stop::Searching);
    assert_eq!(searching.update(ch('w')), vec![]);
    assert!(matches!(&searching.banner, Some(Banner::Info(m)) if m.contains("no report")));
    let mut done = live(Stop::Finished);
    assert_eq!(done.update(ch('w')), vec![Effect::Export]);
    done.update(Msg::Exported { result: Ok(vec!["a.html".into(), "a.pdf".into()]) });
    assert!(matches!(&done.banner, Some(Banner::Info(m)) if m == "wrote a.html and a.pdf"));
    done.update(Msg::Exported { result: Err("disk full".into()) });
    assert!(matches!(&done.banner, Some(Banner::Error(m)) if m.contains("disk full")));
}
