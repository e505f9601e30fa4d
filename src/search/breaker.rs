//! A per-provider circuit breaker: after `threshold` consecutive failures,
//! or failures on half the queries of an iteration (at least two), the
//! provider is skipped for a cool-down, then tried once again.

use std::time::Duration;

use tokio::time::Instant;

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
        }
    }

    /// A new iteration of `queries` queries starts: its failures are counted
    /// afresh, and half of its queries failing opens the circuit.
    pub fn begin_iteration(&mut self, queries: usize) {
        self.iteration_failures = 0;
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

    pub fn record_success(&mut self) {
        self.consecutive_failures = 0;
        self.opened_at = None;
    }

    /// Records a failure; true when this failure opened the circuit.
    pub fn record_failure(&mut self) -> bool {
        self.consecutive_failures += 1;
        self.iteration_failures += 1;
        let half_open = self.state() == BreakerState::HalfOpen;
        let too_many = self.consecutive_failures >= self.threshold
            || self.iteration_limit.is_some_and(|limit| self.iteration_failures >= limit);
        if half_open || (self.opened_at.is_none() && too_many) {
            self.opened_at = Some(Instant::now());
            return true;
        }
        false
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
        assert!(!b.record_failure());
        assert!(!b.record_failure());
        assert!(b.record_failure(), "third consecutive failure opens");
        assert_eq!(b.state(), BreakerState::Open);
        assert!(!b.allows());
        tokio::time::advance(Duration::from_secs(61)).await;
        assert_eq!(b.state(), BreakerState::HalfOpen);
        assert!(b.record_failure(), "a failed trial re-opens");
        assert!(!b.allows());
        tokio::time::advance(Duration::from_secs(61)).await;
        b.record_success();
        assert_eq!(b.state(), BreakerState::Closed);
    }

    #[test]
    fn half_the_queries_of_an_iteration_failing_opens_it() {
        // Ten queries, failures interleaved with successes: never three in a
        // row, but the fifth failure is half of the iteration.
        let mut b = Breaker::new(3, Duration::from_secs(60));
        b.begin_iteration(10);
        for i in 0..4 {
            assert!(!b.record_failure(), "failure {i}");
            b.record_success();
        }
        assert!(b.record_failure());
        // A new iteration counts afresh.
        let mut b = Breaker::new(3, Duration::from_secs(60));
        b.begin_iteration(10);
        for _ in 0..4 {
            b.record_failure();
            b.record_success();
        }
        b.begin_iteration(10);
        assert!(!b.record_failure());
    }

    #[test]
    fn success_resets_the_count() {
        let mut b = Breaker::new(3, Duration::from_secs(60));
        b.record_failure();
        b.record_failure();
        b.record_success();
        assert!(!b.record_failure());
        assert_eq!(b.consecutive_failures(), 1);
    }
}
