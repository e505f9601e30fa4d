//! A per-provider circuit breaker: after `threshold` consecutive failures,
//! or failures on half the queries of an iteration (at least two), the
//! provider is skipped for a cool-down, then tried once again.

use std::time::Duration;

use tokio::time::Instant;

use crate::engine::ports::Trip;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    Closed,
    Open,
    /// Cool-down over: one trial call decides.
    HalfOpen,
}

#[derive(Debug, Clone)]
pub struct Breaker {
    threshold: u32,
    cooldown: Duration,
    consecutive_failures: u32,
    opened_at: Option<Instant>,
    /// Failures since `begin_iteration`, and how many open the circuit.
    iteration_failures: u32,
    iteration_limit: Option<u32>,
    iteration_queries: u32,
}

impl Breaker {
    pub fn new(threshold: u32, cooldown: Duration) -> Self {
        Self {
            threshold: threshold.max(1),
            cooldown,
            consecutive_failures: 0,
            opened_at: None,
            iteration_failures: 0,
            iteration_limit: None,
            iteration_queries: 0,
        }
    }

    /// A new iteration of `queries` queries starts: its failures are counted
    /// afresh, and half of its queries failing opens the circuit.
    pub fn begin_iteration(&mut self, queries: usize) {
        self.iteration_failures = 0;
        self.iteration_queries = queries as u32;
        self.iteration_limit = (queries > 0).then(|| (queries as u32).div_ceil(2).max(2));
    }

    pub fn state(&self) -> BreakerState {
        match self.opened_at {
            None => BreakerState::Closed,
            Some(at) if at.elapsed() >= self.cooldown => BreakerState::HalfOpen,
            Some(_) => BreakerState::Open,
        }
    }

    pub fn allows(&self) -> bool {
        self.state() != BreakerState::Open
    }

    /// Records a success; true when it closed an open (or half-open)
    /// circuit, as a success already in flight when the circuit opened does.
    pub fn record_success(&mut self) -> bool {
        self.consecutive_failures = 0;
        self.opened_at.take().is_some()
    }

    /// Records a failure; `Some(rule)` when this failure opened the circuit.
    pub fn record_failure(&mut self) -> Option<Trip> {
        self.consecutive_failures += 1;
        self.iteration_failures += 1;
        let trip = if self.state() == BreakerState::HalfOpen {
            Some(Trip::TrialFailed)
        } else if self.opened_at.is_some() {
            None
        } else if self.consecutive_failures >= self.threshold {
            Some(Trip::Consecutive { failures: self.consecutive_failures })
        } else if self.iteration_limit.is_some_and(|limit| self.iteration_failures >= limit) {
            Some(Trip::IterationShare { failures: self.iteration_failures, queries: self.iteration_queries })
        } else {
            None
        };
        if trip.is_some() {
            self.opened_at = Some(Instant::now());
        }
        trip
    }

    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn opens_after_threshold_and_half_opens_after_cooldown() {
        let mut b = Breaker::new(3, Duration::from_secs(60));
        assert_eq!(b.record_failure(), None);
        assert_eq!(b.record_failure(), None);
        assert_eq!(b.record_failure(), Some(Trip::Consecutive { failures: 3 }), "third consecutive failure opens");
        assert_eq!(b.state(), BreakerState::Open);
        assert!(!b.allows());
        tokio::time::advance(Duration::from_secs(61)).await;
        assert_eq!(b.state(), BreakerState::HalfOpen);
        assert_eq!(b.record_failure(), Some(Trip::TrialFailed), "a failed trial re-opens");
        assert!(!b.allows());
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(b.record_success(), "the trial's success closes the circuit, and says so");
        assert_eq!(b.state(), BreakerState::Closed);
        assert!(!b.record_success(), "a closed circuit has nothing to close");
    }

    #[test]
    fn a_success_in_flight_closes_a_circuit_that_just_opened() {
        let mut b = Breaker::new(2, Duration::from_secs(60));
        b.record_failure();
        assert!(b.record_failure().is_some());
        assert!(b.record_success(), "closing an open circuit is reported");
        assert!(b.allows());
    }

    #[test]
    fn half_the_queries_of_an_iteration_failing_opens_it() {
        // Ten queries, failures interleaved with successes: never three in a
        // row, but the fifth failure is half of the iteration.
        let mut b = Breaker::new(3, Duration::from_secs(60));
        b.begin_iteration(10);
        for i in 0..4 {
            assert_eq!(b.record_failure(), None, "failure {i}");
            b.record_success();
        }
        let trip = b.record_failure().expect("half of the iteration opens it");
        assert_eq!(trip, Trip::IterationShare { failures: 5, queries: 10 });
        assert_eq!(trip.to_string(), "failures on 5 of this iteration's 10 queries (half or more)");
        assert!(!trip.to_string().contains("consecutive"));
        // A new iteration counts afresh.
        let mut b = Breaker::new(3, Duration::from_secs(60));
        b.begin_iteration(10);
        for _ in 0..4 {
            b.record_failure();
            b.record_success();
        }
        b.begin_iteration(10);
        assert_eq!(b.record_failure(), None);
    }

    #[test]
    fn success_resets_the_count() {
        let mut b = Breaker::new(3, Duration::from_secs(60));
        b.record_failure();
        b.record_failure();
        b.record_success();
        assert_eq!(b.record_failure(), None);
        assert_eq!(b.consecutive_failures(), 1);
    }
}
