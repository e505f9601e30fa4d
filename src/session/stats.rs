//! `sleuth stats`: the loop's metrics across sessions, from their
//! summaries. Seed 004: average iterations to convergence, convergence
//! rate, cost per quality point ($ per 0.1 of confidence), decision
//! reversal rate. Seed 001: loop duration, iterations per request, search
//! failures. Only sessions that wrote a report count towards the loop's
//! figures; search figures count every session.

use serde::Serialize;

use super::summary::{SessionSummary, StopKind};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub sessions: usize,
    /// Sessions with a report (finished or cancelled).
    pub reported: usize,
    pub damaged: usize,
    /// Mean iterations of reported sessions (iterations per request).
    pub avg_iterations: Option<f64>,
    /// Mean iterations of sessions that stopped on the thresholds.
    pub avg_iterations_to_convergence: Option<f64>,
    pub stops: StopCounts,
    /// Thresholds ÷ (thresholds + plateau + limits): OUTPUT because the
    /// answer was good enough, among OUTPUTs the loop decided itself.
    pub convergence_rate: Option<f64>,
    pub cost_usd: f64,
    /// Cost of reported sessions ÷ their final confidence in tenths.
    pub cost_per_tenth_confidence: Option<f64>,
    pub continue_decisions: u32,
    pub reversals: u32,
    /// Reversals ÷ CONTINUE decisions.
    pub reversal_rate: Option<f64>,
    pub loop_duration: Option<Durations>,
    pub queries: u32,
    pub search_failures: u32,
    pub search_failure_rate: Option<f64>,
    pub provider_fallbacks: u32,
    pub degraded_sessions: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StopCounts {
    pub thresholds: usize,
    pub plateau: usize,
    pub limits: usize,
    pub user: usize,
}

/// Active research time of reported sessions, in seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Durations {
    pub mean_secs: f64,
    pub median_secs: f64,
    pub max_secs: f64,
}

/// The figures over `summaries`; `damaged` sessions are counted only.
pub fn compute(summaries: &[&SessionSummary], damaged: usize) -> Stats {
    let mut s = Stats { sessions: summaries.len() + damaged, damaged, ..Default::default() };
    let reported: Vec<&SessionSummary> = summaries.iter().copied().filter(|x| x.metrics.stop.is_some()).collect();
    s.reported = reported.len();
    for x in summaries {
        s.cost_usd += x.cost_usd;
        s.queries += x.metrics.queries;
        s.search_failures += x.metrics.failed_queries;
        s.provider_fallbacks += x.metrics.provider_fallbacks;
        s.degraded_sessions += usize::from(x.metrics.degraded);
        s.continue_decisions += x.metrics.continue_decisions;
        s.reversals += x.metrics.reversals;
    }
    let mut converged = Vec::new();
    for x in &reported {
        match x.metrics.stop {
            Some(StopKind::Thresholds) => {
                s.stops.thresholds += 1;
                converged.push(f64::from(x.iterations));
            }
            Some(StopKind::Plateau) => s.stops.plateau += 1,
            Some(StopKind::Limit) => s.stops.limits += 1,
            Some(StopKind::User) => s.stops.user += 1,
            None => {}
        }
    }
    s.avg_iterations = mean(&reported.iter().map(|x| f64::from(x.iterations)).collect::<Vec<_>>());
    s.avg_iterations_to_convergence = mean(&converged);
    s.convergence_rate =
        ratio(s.stops.thresholds as f64, (s.stops.thresholds + s.stops.plateau + s.stops.limits) as f64);
    let tenths: f64 = reported.iter().map(|x| x.confidence * 10.0).sum();
    let reported_cost: f64 = reported.iter().map(|x| x.cost_usd).sum();
    s.cost_per_tenth_confidence = ratio(reported_cost, tenths);
    s.reversal_rate = ratio(f64::from(s.reversals), f64::from(s.continue_decisions));
    s.search_failure_rate = ratio(f64::from(s.search_failures), f64::from(s.queries));
    let mut secs: Vec<f64> = reported.iter().map(|x| x.elapsed_ms as f64 / 1000.0).collect();
    secs.sort_by(f64::total_cmp);
    s.loop_duration = mean(&secs).map(|m| Durations {
        mean_secs: m,
        median_secs: median(&secs),
        max_secs: secs.last().copied().unwrap_or(0.0),
    });
    s
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Median of sorted values.
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::SessionState;
    use crate::session::summary::SessionMetrics;

    fn summary(iterations: u32, stop: Option<StopKind>, confidence: f64, cost: f64, secs: u64) -> SessionSummary {
        let mut s = SessionSummary::from_state("x", &SessionState::default(), 0);
        s.iterations = iterations;
        s.confidence = confidence;
        s.cost_usd = cost;
        s.elapsed_ms = secs * 1000;
        s.metrics = SessionMetrics {
            stop,
            queries: 10,
            failed_queries: 1,
            continue_decisions: iterations.saturating_sub(1),
            ..Default::default()
        };
        s
    }

    #[test]
    fn metrics_across_sessions() {
        let mut a = summary(2, Some(StopKind::Thresholds), 0.9, 0.02, 10);
        a.metrics.reversals = 0;
        let mut b = summary(5, Some(StopKind::Limit), 0.6, 0.05, 30);
        b.metrics.reversals = 1;
        let c = summary(4, Some(StopKind::Thresholds), 0.86, 0.03, 20);
        let unfinished = summary(1, None, 0.3, 0.01, 5);
        let all = [&a, &b, &c, &unfinished];
        let s = compute(&all, 1);
        assert_eq!((s.sessions, s.reported, s.damaged), (5, 3, 1));
        assert_eq!(s.avg_iterations_to_convergence, Some(3.0));
        assert!((s.avg_iterations.unwrap() - 11.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.stops, StopCounts { thresholds: 2, plateau: 0, limits: 1, user: 0 });
        assert!((s.convergence_rate.unwrap() - 2.0 / 3.0).abs() < 1e-9);
        // $0.10 over 23.6 tenths of confidence.
        assert!((s.cost_per_tenth_confidence.unwrap() - 0.10 / 23.6).abs() < 1e-9);
        assert_eq!((s.continue_decisions, s.reversals), (1 + 4 + 3, 1));
        assert_eq!((s.queries, s.search_failures), (40, 4));
        assert_eq!(s.search_failure_rate, Some(0.1));
        let d = s.loop_duration.unwrap();
        assert_eq!((d.median_secs, d.max_secs), (20.0, 30.0));
    }

    #[test]
    fn no_sessions_no_ratios() {
        let s = compute(&[], 0);
        assert_eq!(s.convergence_rate, None);
        assert_eq!(s.loop_duration, None);
        assert_eq!(s.cost_per_tenth_confidence, None);
    }
}
