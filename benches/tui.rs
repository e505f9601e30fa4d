//! TUI speed (criterion):
//! - one full frame of a session with 50 iterations and 500 sources, for
//!   each detail pane (target: under 2 ms);
//! - streaming 2,000 report tokens through the real event loop in real
//!   time, counting redraws (target: at most 30 a second).
//!
//! Idle CPU of the real binary is measured by `bench/idle_cpu.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::hint::black_box;
use std::io;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use sleuth::engine::protocol::{Event, EventRecord};
use sleuth::engine::{EngineError, SessionState};
use sleuth::tui::app::Pane;
use sleuth::tui::runner::{self, EngineLink};
use sleuth::tui::sample::{Sample, Stop};
use sleuth::tui::{App, Keymap, Msg, Theme};

fn big_session() -> SessionState {
    Sample { iterations: 50, sources_per_iteration: 10, ..Sample::default() }.state()
}

fn frame(c: &mut Criterion) {
    let state = big_session();
    assert_eq!((state.iterations.len(), state.sources.len()), (50, 500));
    let mut group = c.benchmark_group("frame_50_iterations_500_sources");
    for (name, pane) in [("reflection", Pane::Reflection), ("citations", Pane::Citations), ("report", Pane::Report)] {
        for (w, h) in [(100u16, 30u16), (200, 60)] {
            let mut app = App::live(state.clone(), Theme::default(), Keymap::default()).with_size(w, h);
            app.focus = pane;
            app.detail = pane;
            // Mid-list, so the visible window is not the cheap start.
            app.cursors.citations = 250;
            app.selected = Some(25);
            // As the runner does before each frame: the pane's document is
            // wrapped once, then every frame draws from the cache.
            app.refresh_docs();
            let area = Rect::new(0, 0, w, h);
            let mut buf = Buffer::empty(area);
            group.bench_function(format!("{name}_{w}x{h}"), |b| {
                b.iter(|| {
                    buf.reset();
                    black_box(&app).render(area, &mut buf);
                })
            });
        }
    }
    // A whole terminal draw (render plus diff) on the test backend.
    let mut app = App::live(state, Theme::default(), Keymap::default()).with_size(100, 30);
    app.update(Msg::Resize(100, 30));
    app.refresh_docs();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).expect("test backend");
    group.bench_function("terminal_draw_100x30", |b| {
        b.iter(|| {
            terminal.draw(|f| f.render_widget(&app, f.area())).expect("draw");
        });
    });
    group.finish();
}

/// One real-time run: 2,000 tokens, one every 0.5 ms; (draws, seconds).
fn stream_once(rt: &tokio::runtime::Runtime) -> (u64, f64) {
    rt.block_on(async {
        let base = Sample { stop: Stop::Writing, report_chunks: 1, ..Sample::default() };
        let state = base.state();
        let first = state.last_seq + 1;
        let (commands, _cmd_rx) = tokio::sync::mpsc::unbounded_channel();
        let (ev_tx, mut events) = tokio::sync::mpsc::unbounded_channel::<EventRecord>();
        let (key_tx, mut keys) = futures::channel::mpsc::unbounded::<io::Result<TermEvent>>();
        let mut task: tokio::task::JoinHandle<Result<SessionState, EngineError>> = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_micros(500));
            for i in 0..2000u64 {
                tick.tick().await;
                let event = Event::ReportDelta { text: format!("token{i} ") };
                let _ = ev_tx.send(EventRecord { seq: first + i, at_ms: 0, elapsed_ms: 0, event });
            }
            for k in ['q', 'y'] {
                let _ = key_tx.unbounded_send(Ok(TermEvent::Key(KeyEvent::new(KeyCode::Char(k), KeyModifiers::NONE))));
            }
            std::future::pending::<()>().await;
            Ok(SessionState::default())
        });
        let mut app = App::live(state, Theme::default(), Keymap::default());
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).expect("test backend");
        let started = Instant::now();
        let link = EngineLink { commands: &commands, events: &mut events, task: &mut task };
        let out = runner::run(&mut terminal, &mut keys, &mut app, Some(link), None).await.expect("run");
        task.abort();
        (out.draws, started.elapsed().as_secs_f64())
    })
}

fn streaming(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let (draws, secs) = stream_once(&rt);
    eprintln!(
        "streaming 2,000 report tokens: {draws} draws in {secs:.2} s = {:.1} draws/s (cap {})",
        draws as f64 / secs,
        runner::MAX_FPS
    );
    let mut group = c.benchmark_group("stream_2000_tokens");
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    group.bench_function("real_time_loop", |b| b.iter(|| black_box(stream_once(&rt))));
    group.finish();
}

criterion_group!(benches, frame, streaming);
criterion_main!(benches);
