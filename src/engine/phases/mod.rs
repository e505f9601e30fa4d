//! The loop's phases as methods of `Engine`, one file each. Every phase ends
//! by emitting the event that moves `next_step` on; an interrupted phase
//! emits nothing more and the loop turns to writing the report.

mod ask;
pub(crate) mod call;
mod context;
mod draft;
mod judge;
mod plan;
mod review;
mod search;
mod write;
