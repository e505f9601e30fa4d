//! Review of a saved session: the whole log is kept; the state shown is the
//! fold of the log up to the last event of the chosen iteration.

use crate::engine::protocol::EventRecord;
use crate::engine::state::SessionState;

#[derive(Debug, Clone)]
pub struct Review {
    pub records: Vec<EventRecord>,
    /// The fold of the whole log.
    pub full: SessionState,
    /// The iteration shown (1-based; 0 when the session has none).
    pub at: u32,
}

impl Review {
    pub fn new(records: Vec<EventRecord>) -> Self {
        let full = SessionState::replay(&records);
        let at = full.iteration();
        Self { records, full, at }
    }

    pub fn iterations(&self) -> u32 {
        self.full.iteration()
    }

    /// The state as of the end of iteration `k`; the last iteration (or
    /// beyond) is the whole session, report included.
    pub fn state_at(&self, k: u32) -> SessionState {
        if k >= self.iterations() {
            return self.full.clone();
        }
        let Some(last_seq) = self.full.iteration_record(k).map(|it| it.last_seq) else {
            return self.full.clone();
        };
        SessionState::replay(self.records.iter().take_while(|r| r.seq <= last_seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::sample::Sample;

    #[test]
    fn an_early_iteration_shows_only_what_was_known_then() {
        let review = Review::new(Sample { iterations: 4, ..Sample::default() }.records());
        assert_eq!(review.at, 4);
        let early = review.state_at(1);
        assert_eq!(early.iteration(), 1);
        assert!(early.report.is_none());
        assert_eq!(early.sources.len(), 4);
        assert!(early.iterations[0].refinement.is_some(), "the iteration's own events are included");
        let last = review.state_at(4);
        assert!(last.report.is_some());
        assert_eq!(last, review.full);
    }
}
