//! Prometheus text exposition of the research loop (sessions ended by
//! status, their durations, tokens and cost) and of the server's load.
//! Written by hand: a dozen lines of format, no crate.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

const DURATION_BUCKETS: [f64; 10] = [0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0];
const ITERATION_BUCKETS: [f64; 8] = [1.0, 2.0, 3.0, 4.0, 5.0, 8.0, 10.0, 15.0];

#[derive(Debug, Clone)]
struct Histogram {
    bounds: &'static [f64],
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Self { bounds, counts: vec![0; bounds.len()], sum: 0.0, count: 0 }
    }

    fn observe(&mut self, v: f64) {
        for (bound, n) in self.bounds.iter().zip(self.counts.iter_mut()) {
            if v <= *bound {
                *n += 1;
            }
        }
        self.sum += v;
        self.count += 1;
    }

    fn write(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        for (bound, n) in self.bounds.iter().zip(&self.counts) {
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {n}");
        }
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum {}", self.sum);
        let _ = writeln!(out, "{name}_count {}", self.count);
    }
}

#[derive(Debug)]
struct Inner {
    duration: Histogram,
    iterations: Histogram,
    search_failures: u64,
    tokens: u64,
    cost_usd: f64,
    ended: BTreeMap<&'static str, u64>,
    rejected: u64,
}

/// The server's counters; shared by every request and job.
#[derive(Debug)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Default for Metrics {
    fn default() -> Self {
        let inner = Inner {
            duration: Histogram::new(&DURATION_BUCKETS),
            iterations: Histogram::new(&ITERATION_BUCKETS),
            search_failures: 0,
            tokens: 0,
            cost_usd: 0.0,
            ended: BTreeMap::new(),
            rejected: 0,
        };
        Self { inner: Mutex::new(inner) }
    }
}

/// A session's totals, recorded when it ends.
pub struct SessionTotals {
    pub status: &'static str,
    pub seconds: f64,
    pub iterations: u32,
    pub tokens: u64,
    pub cost_usd: f64,
}

impl Metrics {
    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        // A panic elsewhere while holding the lock leaves plain numbers: still usable.
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    pub fn search_failed(&self) {
        self.with(|m| m.search_failures += 1);
    }

    pub fn rejected(&self) {
        self.with(|m| m.rejected += 1);
    }

    pub fn session_ended(&self, t: &SessionTotals) {
        self.with(|m| {
            m.duration.observe(t.seconds);
            m.iterations.observe(f64::from(t.iterations));
            m.tokens += t.tokens;
            m.cost_usd += t.cost_usd;
            *m.ended.entry(t.status).or_default() += 1;
        });
    }

    /// Mean research time of the sessions so far (a `Retry-After` hint).
    pub fn mean_seconds(&self) -> Option<f64> {
        self.with(|m| (m.duration.count > 0).then(|| m.duration.sum / m.duration.count as f64))
    }

    /// The exposition text, with the current number of running and queued sessions.
    pub fn render(&self, running: usize, queued: usize) -> String {
        self.with(|m| {
            let mut out = String::new();
            m.duration.write(&mut out, "research_loop_duration_seconds", "Active research time of a session.");
            m.iterations.write(&mut out, "iterations_per_request", "Iterations a session ran.");
            let counter = |out: &mut String, name: &str, help: &str, v: String| {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}");
            };
            counter(&mut out, "search_failures_total", "Searches that failed after retries.", m.search_failures.to_string());
            counter(&mut out, "sleuth_llm_tokens_total", "LLM tokens (prompt and completion) of ended sessions.", m.tokens.to_string());
            counter(&mut out, "sleuth_llm_cost_usd_total", "LLM cost of ended sessions, US dollars.", m.cost_usd.to_string());
            counter(&mut out, "sleuth_requests_rejected_total", "Requests refused with 429.", m.rejected.to_string());
            let _ = writeln!(out, "# HELP sleuth_sessions_ended_total Sessions ended, by status.\n# TYPE sleuth_sessions_ended_total counter");
            for (status, n) in &m.ended {
                let _ = writeln!(out, "sleuth_sessions_ended_total{{status=\"{status}\"}} {n}");
            }
            let gauge = |out: &mut String, name: &str, help: &str, v: usize| {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
            };
            gauge(&mut out, "sleuth_sessions_running", "Sessions researching now.", running);
            gauge(&mut out, "sleuth_sessions_queued", "Sessions waiting for a slot.", queued);
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_counters_add_up() {
        let m = Metrics::default();
        for (seconds, iterations) in [(0.7, 1), (3.0, 2), (700.0, 5)] {
            let t = SessionTotals { status: "finished", seconds, iterations, tokens: 10, cost_usd: 0.5 };
            m.session_ended(&t);
        }
        m.search_failed();
        let text = m.render(2, 1);
        assert!(text.contains("research_loop_duration_seconds_bucket{le=\"1\"} 1\n"), "{text}");
        assert!(text.contains("research_loop_duration_seconds_bucket{le=\"5\"} 2\n"), "{text}");
        assert!(text.contains("research_loop_duration_seconds_bucket{le=\"+Inf\"} 3\n"), "{text}");
        assert!(text.contains("iterations_per_request_bucket{le=\"2\"} 2\n"), "{text}");
        assert!(text.contains("search_failures_total 1\n"), "{text}");
        assert!(text.contains("sleuth_llm_tokens_total 30\n"), "{text}");
        assert!(text.contains("sleuth_sessions_ended_total{status=\"finished\"} 3\n"), "{text}");
        assert!(text.contains("sleuth_sessions_running 2\n") && text.contains("sleuth_sessions_queued 1\n"), "{text}");
        assert_eq!(m.mean_seconds().map(|s| s.round()), Some(235.0));
    }
}
