//! The session service between the builder and the entry points. Every
//! front end — `sleuth run`, `resume`, `fork`, the TUI, `sleuth serve`,
//! `sleuth mcp` — turns what its user asked into one `ResearchRequest`,
//! and gets sessions from `Sessions`: `start`, `resume` and `follow_up`
//! hand back a `SessionHandle` (commands in, records out, the folded
//! state); `replay` gives a saved session, redacted, for showing. The
//! servers' job queue (`jobs`) and the answer they return live here too,
//! so `mcp/` never reaches into `serve/`.

pub mod answer;
pub mod handle;
pub mod job;
pub mod jobs;
pub mod metrics;
pub mod recorded;
pub mod replay;
pub mod request;
pub mod sessions;

pub use handle::{HandleParts, SessionHandle};
pub use jobs::{Job, JobError, JobFailure, Jobs, SubmitError};
pub use replay::{ReplayError, Replayed};
pub use request::{Field, RequestError, ResearchRequest, Sources};
pub use sessions::{FollowUpStarted, ForkMade, FoundHits, Readiness, Resumption, Sessions, SessionsError};
