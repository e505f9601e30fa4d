//! One run per decision branch, with the scripted reasoner and provider;
//! each asserts the recorded decision reasons and that replaying the log
//! rebuilds the live state exactly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::time::Duration;

use crate::support;
use sleuth::engine::SessionState;
use sleuth::engine::model::{Role, Severity, StopReason};
use support::scripted::{ScriptedProvider, ScriptedReasoner, Turn, corpus};
use support::{Harness, decisions, settings};

fn provider() -> ScriptedProvider {
    ScriptedProvider::new("scripted", corpus(12))
}

fn assert_replay_equal(out: &support::Outcome) {
    assert_eq!(SessionState::replay(&out.records), out.state, "replayed state differs from the live one");
}

#[tokio::test]
async fn output_by_thresholds() {
    let h = Harness::new(settings(5), ScriptedReasoner::new(vec![Turn::coverage(2, 2)]), provider());
    let out = h.run("what are widgets").await;
    assert_eq!(decisions(&out.state), vec!["OUTPUT:thresholds"]);
    let e = out.state.iterations[0].evaluation.as_ref().unwrap();
    assert!(e.confidence >= 0.85 && e.coverage >= 0.9, "{e:?}");
    let report = out.state.report.as_ref().unwrap();
    assert_eq!(report.stop, StopReason::Decision(sleuth::engine::model::DecisionReason::Thresholds));
    let v = out.state.verification.as_ref().unwrap();
    assert!(v.all_verified() && v.claims_supported == v.claims_checked && v.claims_checked > 0, "{v:?}");
    assert!(report.markdown.contains("## Sources"));
    assert_replay_equal(&out);
}

#[tokio::test]
async fn output_by_max_iterations_writes_the_best_draft() {
    // Iteration 2 cites fewer sources, so iteration 1's draft scores best.
    let mut second = Turn::coverage(2, 4);
    second.cite = 1;
    let h = Harness::new(settings(2), ScriptedReasoner::new(vec![Turn::coverage(1, 4), second]), provider());
    let out = h.run("what are widgets").await;
    assert_eq!(decisions(&out.state), vec!["CONTINUE:below_thresholds", "OUTPUT:max_iterations"]);
    let report = out.state.report.as_ref().unwrap();
    let c1 = out.state.iterations[0].evaluation.as_ref().unwrap().confidence;
    let c2 = out.state.iterations[1].evaluation.as_ref().unwrap().confidence;
    assert!(c1 > c2, "{c1} vs {c2}");
    assert_eq!(report.based_on_iteration, Some(1));
    assert!(report.caveats.iter().any(|c| c.contains("iteration limit")), "{:?}", report.caveats);
    assert!(report.caveats.iter().any(|c| c.contains("iteration 1, which scored best")), "{:?}", report.caveats);
    assert_replay_equal(&out);
}

#[tokio::test]
async fn output_by_cost_budget() {
    let mut s = settings(5);
    s.limits.cost_budget_usd = 0.05;
    let mut r = ScriptedReasoner::new(vec![Turn::coverage(1, 4)]);
    r.usage.insert(Role::Draft, (1_000, 500, 0.03));
    r.usage.insert(Role::Critique, (1_000, 200, 0.03));
    let out = Harness::new(s, r, provider()).run("q").await;
    assert_eq!(decisions(&out.state), vec!["OUTPUT:cost_budget"]);
    assert!((out.state.cost_usd - 0.06).abs() < 1e-9 + 0.0, "{}", out.state.cost_usd);
    assert!(out.state.report.as_ref().unwrap().caveats.iter().any(|c| c.contains("cost budget")));
    assert_replay_equal(&out);
}

#[tokio::test]
async fn output_by_token_budget() {
    let mut s = settings(5);
    s.limits.token_budget = 2_000;
    let mut r = ScriptedReasoner::new(vec![Turn::coverage(1, 4)]);
    r.usage.insert(Role::Plan, (900, 300, 0.0));
    r.usage.insert(Role::Draft, (900, 300, 0.0));
    let out = Harness::new(s, r, provider()).run("q").await;
    assert_eq!(decisions(&out.state), vec!["OUTPUT:token_budget"]);
    assert_eq!(out.state.total_tokens(), 2_400);
    assert_replay_equal(&out);
}

#[tokio::test(start_paused = true)]
async fn output_by_time_budget() {
    let mut s = settings(5);
    s.limits.time_limit_secs = 60;
    let mut p = provider();
    p.delay = Duration::from_secs(40);
    let out = Harness::new(s, ScriptedReasoner::new(vec![Turn::coverage(1, 4)]), p).run("q").await;
    // Queries run in parallel: one iteration costs ~40 s; the second's
    // searches are cut where research's share of the limit ends (51 s).
    assert_eq!(decisions(&out.state), vec!["CONTINUE:below_thresholds", "OUTPUT:time_budget"]);
    assert!(out.state.elapsed_ms >= 51_000 && out.state.elapsed_ms <= 60_000, "{}", out.state.elapsed_ms);
    assert_replay_equal(&out);
}

/// 25.8: waits in a politeness queue (a fetch taking 100 s) end with the
/// time limit: a 60 s session ends within 60 s, with what it had read.
#[tokio::test(start_paused = true)]
async fn politeness_waits_end_at_the_time_limit() {
    let mut s = settings(5);
    s.limits.time_limit_secs = 60;
    let mut p = provider();
    p.delay = Duration::from_secs(20);
    p.fetch_delay = Duration::from_secs(100);
    let out = Harness::new(s, ScriptedReasoner::new(vec![Turn::coverage(1, 4)]), p).run("q").await;
    assert!(out.state.elapsed_ms <= 60_000, "the limit holds: {} ms", out.state.elapsed_ms);
    assert!(out.state.report.is_some(), "a report is written");
    assert_eq!(decisions(&out.state).last().map(String::as_str), Some("OUTPUT:time_budget"));
    assert_replay_equal(&out);
}

#[tokio::test]
async fn diminishing_returns() {
    let turns = (8..=12).map(|a| Turn::coverage(a, 20)).collect();
    // Every round finds pages it had not seen, so the trend is what stops it
    // (a round that finds nothing new and drafts no better stagnates sooner).
    let many = ScriptedProvider::new("scripted", corpus(60));
    let out = Harness::new(settings(10), ScriptedReasoner::new(turns), many).run("q").await;
    let d = decisions(&out.state);
    assert_eq!(d.last().map(String::as_str), Some("OUTPUT:diminishing_returns"), "{d:?}");
    assert_eq!(d.len(), 4, "needs three gains after the first: {d:?}");
    let trend = &out.state.convergence_trend;
    let mean: f64 = trend[trend.len() - 3..].iter().sum::<f64>() / 3.0;
    assert!(mean < 0.05, "{trend:?}");
    assert_replay_equal(&out);
}

#[tokio::test]
async fn convergence_when_the_draft_stops_changing() {
    let mut same = Turn::coverage(1, 4);
    same.same_draft = true;
    let out =
        Harness::new(settings(10), ScriptedReasoner::new(vec![Turn::coverage(1, 4), same]), provider()).run("q").await;
    assert_eq!(decisions(&out.state), vec!["CONTINUE:below_thresholds", "OUTPUT:converged"]);
    let detail = &out.state.iterations[1].decision.as_ref().unwrap().detail;
    assert!(detail.contains("similarity"), "{detail}");
    assert_replay_equal(&out);
}

#[tokio::test]
async fn convergence_on_a_severity_plateau() {
    let issue = |a| {
        let mut t = Turn::coverage(a, 10);
        t.issues = vec![("the cost of gadgets is not sourced", Severity::High)];
        t
    };
    let out = Harness::new(settings(10), ScriptedReasoner::new(vec![issue(2), issue(4), issue(6)]), provider())
        .run("q")
        .await;
    let d = decisions(&out.state);
    assert_eq!(d.last().map(String::as_str), Some("OUTPUT:converged"), "{d:?}");
    assert!(out.state.current().unwrap().decision.as_ref().unwrap().detail.contains("severity"));
}
