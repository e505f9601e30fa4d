//! What flows into a screen (`Msg`) and what comes out (`Effect`): data
//! only, so every screen's `update` is a pure function tested without IO.

use std::path::PathBuf;

use crossterm::event::{Event as TermEvent, KeyEvent};

use crate::config::Preset;
use crate::engine::model::SourceId;
use crate::engine::protocol::{Command, EventRecord};
use crate::engine::tiers::SourceMode;

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(KeyEvent),
    /// Bracketed paste: the whole pasted text at once.
    Paste(String),
    Resize(u16, u16),
    /// One event from the engine (already in the session log).
    Engine(Box<EventRecord>),
    /// The engine task ended; `error` when it failed.
    EngineStopped {
        error: Option<String>,
    },
    /// A source's stored text, after `Effect::LoadSource`.
    SourceLoaded {
        id: SourceId,
        text: Option<String>,
    },
    /// Wall-clock time, about once a second while the engine works.
    Tick {
        now_ms: u64,
    },
    /// After `Effect::Export`: the files written, or why not.
    Exported {
        result: Result<Vec<String>, String>,
    },
}

impl Msg {
    /// The message for a terminal event, if it means anything here.
    pub fn from_terminal(ev: TermEvent) -> Option<Msg> {
        match ev {
            TermEvent::Key(k) => Some(Msg::Key(k)),
            TermEvent::Paste(s) => Some(Msg::Paste(s)),
            TermEvent::Resize(w, h) => Some(Msg::Resize(w, h)),
            _ => None,
        }
    }
}

/// What the question prompt hands back.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptAnswer {
    pub question: String,
    pub preset: Preset,
    pub source_mode: SourceMode,
    pub step_mode: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this command to the engine.
    Engine(Command),
    /// Read a source's text from the session's store.
    LoadSource(SourceId),
    /// Leave the screen.
    Quit,
    /// The prompt's answer: start researching.
    Start(PromptAnswer),
    /// The picker's choice: review this session folder.
    Open(PathBuf),
    /// Write the session's report as HTML and PDF.
    Export,
}
