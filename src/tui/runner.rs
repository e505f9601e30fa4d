//! The one event loop: a `tokio::select!` over terminal input, engine
//! events, the engine task's end, a redraw deadline and (while a clock is
//! showing) a one-second tick. Pending engine events are drained before
//! drawing, and drawing happens at most 30 times a second, so a fast
//! stream of report tokens costs few frames. The UI never waits on the
//! engine: commands go out on an unbounded channel.

use std::future::pending;
use std::io;
use std::time::Duration;

use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use super::app::App;
use super::msg::{Effect, Msg};
use super::picker::Picker;
use super::prompt::Prompt;
use crate::engine::EngineError;
use crate::engine::ports::TextStore;
use crate::engine::protocol::{Command, EventRecord};
use crate::engine::state::SessionState;

/// At most this many frames a second.
pub const MAX_FPS: u32 = 30;

/// Anything the loop can drive.
pub trait Screen {
    fn update(&mut self, msg: Msg) -> Vec<Effect>;
    fn view(&self, area: Rect, buf: &mut Buffer);
    /// Gets ready to draw (e.g. brings cached documents up to date).
    fn prepare(&mut self) {}
    /// Whether a clock on screen needs a tick each second.
    fn wants_tick(&self) -> bool {
        false
    }
}

impl Screen for App {
    fn update(&mut self, msg: Msg) -> Vec<Effect> {
        App::update(self, msg)
    }
    fn view(&self, area: Rect, buf: &mut Buffer) {
        self.render(area, buf);
    }
    fn prepare(&mut self) {
        self.refresh_docs();
    }
    fn wants_tick(&self) -> bool {
        self.engine_busy()
    }
}

impl Screen for Prompt {
    fn update(&mut self, msg: Msg) -> Vec<Effect> {
        Prompt::update(self, msg)
    }
    fn view(&self, area: Rect, buf: &mut Buffer) {
        self.render(area, buf);
    }
}

impl Screen for Picker {
    fn update(&mut self, msg: Msg) -> Vec<Effect> {
        Picker::update(self, msg)
    }
    fn view(&self, area: Rect, buf: &mut Buffer) {
        self.render(area, buf);
    }
}

/// Spaces frames at least `1 / MAX_FPS` apart.
#[derive(Debug, Clone)]
pub struct FrameLimiter {
    interval: Duration,
    last: Option<Instant>,
}

impl Default for FrameLimiter {
    fn default() -> Self {
        Self { interval: Duration::from_secs(1) / MAX_FPS, last: None }
    }
}

impl FrameLimiter {
    /// The earliest time the next frame may be drawn.
    pub fn next_at(&self) -> Instant {
        self.last.map_or_else(Instant::now, |t| t + self.interval)
    }

    pub fn ready(&self, now: Instant) -> bool {
        self.last.is_none_or(|t| now >= t + self.interval)
    }

    pub fn drawn(&mut self, now: Instant) {
        self.last = Some(now);
    }
}

/// The engine's ends, for a live screen.
pub struct EngineLink<'a> {
    pub commands: &'a UnboundedSender<Command>,
    pub events: &'a mut UnboundedReceiver<EventRecord>,
    pub task: &'a mut EngineTask,
}

/// How a screen ended and what it cost.
#[derive(Debug)]
pub struct Outcome {
    /// `Quit`, `Start` or `Open`; `Quit` when input ended.
    pub exit: Effect,
    pub draws: u64,
    /// The engine task's result, if it ended while the screen ran.
    pub engine: Option<Result<SessionState, String>>,
}

/// Upper bound on engine events folded between two frames, so a flood
/// cannot starve the keyboard.
const DRAIN_MAX: usize = 4096;

fn wall_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A session's files as the screen needs them: stored source texts
/// (`Effect::LoadSource`) and exports (`Effect::Export`).
pub trait SessionFiles: TextStore {
    /// Writes the shared exports; the paths written.
    fn export(&self) -> Result<Vec<String>, String> {
        Err("this session cannot be exported from here".into())
    }
}

/// Runs `screen` until it exits. `texts` serves `Effect::LoadSource` and
/// `Effect::Export`.
pub async fn run<B, S, I>(
    terminal: &mut Terminal<B>,
    input: &mut I,
    screen: &mut S,
    engine: Option<EngineLink<'_>>,
    texts: Option<&dyn SessionFiles>,
) -> io::Result<Outcome>
where
    B: Backend,
    B::Error: std::error::Error + Send + Sync + 'static,
    S: Screen,
    I: Stream<Item = io::Result<crossterm::event::Event>> + Unpin,
{
    let (commands, mut events, mut task) = match engine {
        Some(link) => (Some(link.commands), Some(link.events), Some(link.task)),
        None => (None, None, None),
    };
    let mut limiter = FrameLimiter::default();
    let mut draws = 0u64;
    let mut dirty = true;
    let mut events_open = events.is_some();
    let mut task_running = task.is_some();
    let mut engine_result = None;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let size = terminal.size().map_err(io::Error::other)?;
    let mut queue = vec![Msg::Resize(size.width, size.height)];
    loop {
        for msg in std::mem::take(&mut queue) {
            dirty = true;
            for effect in screen.update(msg) {
                match effect {
                    Effect::Engine(cmd) => {
                        if let Some(commands) = commands {
                            // A gone engine shows up as `EngineStopped`; nothing to do here.
                            let _ = commands.send(cmd);
                        }
                    }
                    Effect::LoadSource(id) => {
                        let text = texts.and_then(|t| t.get(id)).map(|t| t.to_string());
                        queue.push(Msg::SourceLoaded { id, text });
                    }
                    Effect::Export => {
                        let result = texts.map_or(Err("no session folder to export from".into()), |t| t.export());
                        queue.push(Msg::Exported { result });
                    }
                    exit => return Ok(Outcome { exit, draws, engine: engine_result }),
                }
            }
        }
        if !queue.is_empty() {
            continue;
        }
        let now = Instant::now();
        if dirty && limiter.ready(now) {
            screen.prepare();
            terminal.draw(|f| screen.view(f.area(), f.buffer_mut())).map_err(io::Error::other)?;
            draws += 1;
            limiter.drawn(now);
            dirty = false;
        }
        let wants_tick = screen.wants_tick();
        let redraw_at = limiter.next_at();
        tokio::select! {
            ev = input.next() => match ev {
                Some(Ok(ev)) => queue.extend(Msg::from_terminal(ev)),
                Some(Err(e)) => return Err(e),
                None => return Ok(Outcome { exit: Effect::Quit, draws, engine: engine_result }),
            },
            rec = next_event(&mut events), if events_open => match rec {
                Some(rec) => {
                    queue.push(Msg::Engine(Box::new(rec)));
                    if let Some(rx) = events.as_mut() {
                        while queue.len() < DRAIN_MAX {
                            match rx.try_recv() {
                                Ok(r) => queue.push(Msg::Engine(Box::new(r))),
                                Err(_) => break,
                            }
                        }
                    }
                }
                None => events_open = false,
            },
            done = join(&mut task), if task_running => {
                task_running = false;
                let result = match done {
                    Ok(Ok(state)) => Ok(state),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(e) => Err(format!("the engine task failed: {e}")),
                };
                let error = result.as_ref().err().cloned();
                engine_result = Some(result);
                // Events still queued in the channel come first.
                if let Some(rx) = events.as_mut() {
                    while let Ok(r) = rx.try_recv() {
                        queue.push(Msg::Engine(Box::new(r)));
                    }
                }
                queue.push(Msg::EngineStopped { error });
            },
            _ = tokio::time::sleep_until(redraw_at), if dirty => {},
            _ = tick.tick(), if wants_tick => queue.push(Msg::Tick { now_ms: wall_ms() }),
        }
    }
}

async fn next_event(events: &mut Option<&mut UnboundedReceiver<EventRecord>>) -> Option<EventRecord> {
    match events {
        Some(rx) => rx.recv().await,
        None => pending().await,
    }
}

type EngineTask = JoinHandle<Result<SessionState, EngineError>>;

async fn join(task: &mut Option<&mut EngineTask>) -> Result<Result<SessionState, EngineError>, tokio::task::JoinError> {
    match task {
        Some(t) => (&mut **t).await,
        None => pending().await,
    }
}
