//! `sleuth stats`: iterations, convergence, stops, cost and search failures
//! across sessions, as a table or `--json`. The definitions are in `session::stats`.

use std::io::Write;

use super::exit;
use super::session_args::StatsArgs;
use crate::session::list::{Status, list_sessions};
use crate::session::stats::{Stats, compute};

pub fn execute(global: &super::GlobalArgs, args: StatsArgs) -> anyhow::Result<u8> {
    let paths = super::sessions::checked_paths(global)?;
    let mut sessions = list_sessions(&paths.sessions_dir())?;
    if let Some(filter) = &args.filter {
        sessions.retain(|s| s.matches(filter));
    }
    let damaged = sessions.iter().filter(|s| s.status == Status::Damaged).count();
    let summaries: Vec<_> = sessions.iter().filter_map(|s| s.summary.as_ref()).collect();
    let stats = compute(&summaries, damaged);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &stats)?;
        writeln!(out)?;
    } else {
        for (label, value) in table(&stats) {
            writeln!(out, "{label:<26} {value}")?;
        }
    }
    Ok(exit::OK)
}

fn table(s: &Stats) -> Vec<(&'static str, String)> {
    let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
    let num = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1}"));
    vec![
        ("sessions", format!("{} ({} with a report, {} damaged)", s.sessions, s.reported, s.damaged)),
        (
            "avg iterations",
            format!("{} (to convergence: {})", num(s.avg_iterations), num(s.avg_iterations_to_convergence)),
        ),
        (
            "convergence rate",
            format!(
                "{} (OUTPUT by thresholds {} · plateau {} · limits {} · by the user {})",
                pct(s.convergence_rate),
                s.stops.thresholds,
                s.stops.plateau,
                s.stops.limits,
                s.stops.user
            ),
        ),
        ("cost per 0.1 confidence", s.cost_per_tenth_confidence.map_or("-".into(), |c| format!("${c:.4}"))),
        (
            "decision reversals",
            format!("{} of {} CONTINUE decisions ({})", s.reversals, s.continue_decisions, pct(s.reversal_rate)),
        ),
        (
            "loop duration",
            s.loop_duration.as_ref().map_or("-".into(), |d| {
                format!("mean {:.1} s · median {:.1} s · max {:.1} s", d.mean_secs, d.median_secs, d.max_secs)
            }),
        ),
        (
            "search failures",
            format!(
                "{} of {} queries ({}) · {} provider fallbacks · {}",
                s.search_failures,
                s.queries,
                pct(s.search_failure_rate),
                s.provider_fallbacks,
                crate::text::counted(s.degraded_sessions, "degraded session", "degraded sessions")
            ),
        ),
        ("total cost", format!("${:.4}", s.cost_usd)),
    ]
}
