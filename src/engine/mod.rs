//! The research loop. It knows nothing about terminals: it takes
//! `Command`s, emits `Event`s, and every decision is a pure function of the
//! folded `SessionState`.

pub mod calibration;
pub mod caveats;
pub mod check;
pub mod citations;
pub mod command;
pub mod continuity;
pub mod convergence;
pub mod decide;
pub mod dedupe;
pub mod evaluate;
pub mod fallback;
pub mod imported;
pub mod interpretation;
pub mod memory;
pub mod model;
pub mod monitor;
pub mod next;
mod phases;
pub mod ports;
pub mod preset;
pub mod protocol;
pub mod quality;
pub mod reasoner;
pub mod recency;
pub mod redact;
pub mod refine;
pub mod render;
pub mod run;
pub mod settings;
pub mod state;
pub mod status;
pub mod takeover;
pub mod tiers;

pub use next::{NextStep, Stage};
pub use protocol::{Answer, Command, Event, EventRecord, Limits, SessionHeader, Steer};
pub use run::{Engine, EngineError, EngineHandle, EngineParts};
pub use state::SessionState;
pub use status::SessionStatus;
