//! Whether a sequence of events can be one session's log: what the fold in
//! `state.rs` assumes and a damaged log can break. The fold is total (it
//! never panics on odd events), but folding events no engine could have
//! written gives a state the loop cannot leave: a second
//! `iteration_started 1` makes a record the engine cannot reach by its
//! number, so `resume` planned iteration 1 again and again, forever. A log
//! that breaks one of these rules is damaged, and the reader says which
//! line broke which rule instead of folding it.
//!
//! The rules, each kept by the one engine that writes a log:
//! - the header comes first, once;
//! - iterations start in order, each the previous number + 1;
//! - an event about an iteration names the current one (the last started,
//!   or 0 before the first);
//! - sources are numbered in the order they are added, after the ones a
//!   follow-up imports;
//! - active research time (`elapsed_ms`) never goes backwards. Wall-clock
//!   time (`at_ms`) may: clocks are set back, and a fork's header carries
//!   its own creation time ahead of the events it shares.

use super::protocol::{Event, EventRecord};

/// The running check over a log, one record at a time.
#[derive(Debug, Clone, Default)]
pub struct Continuity {
    started: bool,
    iteration: u32,
    sources: u64,
    elapsed_ms: u64,
}

impl Continuity {
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks that `record` can follow the records admitted before it, and
    /// admits it; otherwise says why not, in words for the user.
    pub fn admit(&mut self, record: &EventRecord) -> Result<(), String> {
        if record.elapsed_ms < self.elapsed_ms {
            return Err(format!(
                "time goes backwards: active time {} ms after {} ms",
                record.elapsed_ms, self.elapsed_ms
            ));
        }
        match &record.event {
            Event::SessionStarted(header) => {
                if self.started {
                    return Err("a second session header".into());
                }
                self.started = true;
                self.sources = header.imported.as_ref().map_or(0, |i| i.sources.len() as u64);
            }
            Event::IterationStarted { iteration, .. } => {
                let expected = self.iteration.saturating_add(1);
                if *iteration != expected {
                    return Err(format!(
                        "iteration {iteration} starts after iteration {} (expected iteration {expected})",
                        self.iteration
                    ));
                }
                self.iteration = expected;
            }
            Event::SourceAdded { source } => {
                self.names_current(source.iteration, "source_added")?;
                let expected = self.sources + 1;
                if u64::from(source.id.0) != expected {
                    return Err(format!("source {} is added where source {expected} comes next", source.id.0));
                }
                self.sources = expected;
            }
            event => {
                if let Some(n) = iteration_named(event) {
                    self.names_current(n, event.kind())?;
                }
            }
        }
        self.elapsed_ms = record.elapsed_ms;
        Ok(())
    }

    fn names_current(&self, n: u32, kind: &str) -> Result<(), String> {
        if n == self.iteration {
            return Ok(());
        }
        Err(format!("a `{kind}` event names iteration {n} during iteration {}", self.iteration))
    }
}

/// The iteration an event is about, for the events that name one.
fn iteration_named(event: &Event) -> Option<u32> {
    match event {
        Event::Planned { iteration, .. }
        | Event::QuerySearched { iteration, .. }
        | Event::QueryFailed { iteration, .. }
        | Event::ProviderFallback { iteration, .. }
        | Event::CircuitOpened { iteration, .. }
        | Event::CircuitClosed { iteration, .. }
        | Event::DegradedMode { iteration, .. }
        | Event::SourceDuplicate { iteration, .. }
        | Event::SourceSkipped { iteration, .. }
        | Event::SearchCompleted { iteration, .. }
        | Event::Reviewed { iteration, .. }
        | Event::NoValidSources { iteration, .. }
        | Event::Drafted { iteration, .. }
        | Event::Critiqued { iteration, .. }
        | Event::Evaluated { iteration, .. }
        | Event::Decided { iteration, .. }
        | Event::Refined { iteration, .. }
        | Event::Paused { iteration }
        | Event::Resumed { iteration }
        | Event::AskRaised { iteration, .. } => Some(*iteration),
        Event::SourceAdded { source } => Some(source.iteration),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Reflection;

    fn rec(seq: u64, elapsed_ms: u64, event: Event) -> EventRecord {
        EventRecord { seq, at_ms: 1_000 + seq, elapsed_ms, event }
    }

    fn started(n: u32) -> Event {
        Event::IterationStarted { iteration: n, queries: vec![] }
    }

    fn planned(n: u32) -> Event {
        Event::Planned {
            iteration: n,
            reflection: Reflection::default(),
            queries: vec![],
            memories_used: vec![],
            lessons_used: vec![],
        }
    }

    fn check(events: Vec<(u64, Event)>) -> Result<(), (usize, String)> {
        let mut c = Continuity::new();
        for (i, (elapsed, e)) in events.into_iter().enumerate() {
            c.admit(&rec(i as u64 + 1, elapsed, e)).map_err(|m| (i + 1, m))?;
        }
        Ok(())
    }

    #[test]
    fn iterations_in_order_with_their_events_pass() {
        assert_eq!(check(vec![(0, started(1)), (1, planned(1)), (2, started(2)), (2, planned(2))]), Ok(()));
    }

    #[test]
    fn the_looping_log_of_issue_25_is_damaged_at_its_second_start() {
        let got = check(vec![(0, started(1)), (1, planned(1)), (2, started(1))]);
        assert_eq!(got, Err((3, "iteration 1 starts after iteration 1 (expected iteration 2)".into())));
    }

    #[test]
    fn an_event_naming_another_iteration_is_damaged() {
        let got = check(vec![(0, started(1)), (1, planned(2))]);
        assert_eq!(got, Err((2, "a `planned` event names iteration 2 during iteration 1".into())));
        let skipped = check(vec![(0, started(1)), (1, started(3))]);
        assert!(skipped.is_err());
    }

    #[test]
    fn time_going_backwards_is_damaged() {
        let got = check(vec![(10, started(1)), (9, planned(1))]);
        assert_eq!(got, Err((2, "time goes backwards: active time 9 ms after 10 ms".into())));
    }
}
