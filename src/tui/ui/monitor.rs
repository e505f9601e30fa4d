//! The state monitor: confidence and coverage against their thresholds,
//! cost, tokens, iteration, elapsed time, stage and the convergence trend.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::widgets::{ThresholdGauge, field, pane_block, spark, tokens};
use crate::engine::Stage;
use crate::engine::settings::DecideSettings;
use crate::engine::state::SessionState;
use crate::tui::app::{App, MonitorRow, Pane};
use crate::tui::doc::report::viewing_earlier;
use crate::tui::layout::inner;
use crate::tui::theme::Theme;

pub struct Monitor<'a>(pub &'a App);

/// The decision thresholds the session ran with (from its header).
pub fn thresholds(state: &SessionState) -> (f64, f64) {
    let d = DecideSettings::default();
    let get = |key: &str, default: f64| {
        state.header.as_ref().and_then(|h| h.config.get("decide")?.get(key)?.as_f64()).unwrap_or(default)
    };
    (get("confidence_threshold", d.confidence_threshold), get("coverage_threshold", d.coverage_threshold))
}

pub fn stage_style(theme: &Theme, stage: Stage) -> Style {
    match stage {
        Stage::Finished => theme.decision_output,
        Stage::Paused | Stage::WaitingForAnswer => theme.decision_ask,
        Stage::Failed | Stage::Cancelled => theme.rejected,
        Stage::Idle => theme.muted,
        _ => theme.decision_continue,
    }
}

impl Widget for Monitor<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.theme;
        let s = &app.state;
        let focused = app.focus == Pane::Monitor;
        pane_block(t, Line::from(" Monitor "), focused).render(area, buf);
        let body = inner(area);
        let (conf_t, cov_t) = thresholds(s);
        // Live, after `h`: the numbers of the selected iteration.
        let viewing = app.selected.filter(|_| viewing_earlier(app)).and_then(|n| s.iteration_record(n));
        let (confidence, coverage) = match viewing.and_then(|it| it.evaluation.as_ref()) {
            Some(e) => (e.confidence, e.coverage),
            None => (s.confidence, s.coverage),
        };
        let limits = s.header.as_ref().map(|h| h.limits.clone());
        for (i, row) in MonitorRow::ALL.iter().enumerate() {
            if i as u16 >= body.height {
                break;
            }
            let y = body.y + i as u16;
            let line_area = Rect::new(body.x, y, body.width, 1);
            match row {
                MonitorRow::Confidence | MonitorRow::Coverage => {
                    let (label, value, threshold) = if *row == MonitorRow::Confidence {
                        ("confidence", confidence, conf_t)
                    } else {
                        ("coverage", coverage, cov_t)
                    };
                    buf.set_string(body.x, y, format!("{label:<11}"), t.muted);
                    let bar_w = body.width.saturating_sub(11 + 5);
                    ThresholdGauge { value, threshold, theme: t }.render(Rect::new(body.x + 11, y, bar_w, 1), buf);
                    buf.set_string(
                        body.x + 11 + bar_w,
                        y,
                        format!(" {value:.2}"),
                        ThresholdGauge::level_style(t, value, threshold),
                    );
                }
                MonitorRow::Cost => {
                    let budget = limits.as_ref().map_or(0.0, |l| l.cost_budget_usd);
                    let approx = if s.usage_estimated { "~" } else { "" };
                    let text = if budget > 0.0 {
                        format!("{approx}${:.4} of ${budget:.2}", s.cost_usd)
                    } else {
                        format!("{approx}${:.4} (no budget)", s.cost_usd)
                    };
                    let over = budget > 0.0 && s.cost_usd >= budget;
                    let style = if over { t.confidence_low } else { t.text };
                    buf.set_line(body.x, y, &field(t, "cost", vec![Span::styled(text, style)]), body.width);
                }
                MonitorRow::Tokens => {
                    let budget = limits.as_ref().map_or(0, |l| l.token_budget);
                    let text = if budget > 0 {
                        format!("{} of {}", tokens(s.total_tokens()), tokens(budget))
                    } else {
                        tokens(s.total_tokens())
                    };
                    buf.set_line(body.x, y, &field(t, "tokens", vec![Span::styled(text, t.text)]), body.width);
                }
                MonitorRow::Iteration => {
                    let mode = if s.step_mode { "step mode" } else { "auto" };
                    let text = match viewing {
                        Some(it) => {
                            format!("{} of {} · viewing, now {}", it.iteration, s.max_iterations(), s.iteration())
                        }
                        // An ended session runs in no mode: the stage row says how it ended.
                        None if s.is_finished() => format!("{} of {}", s.iteration(), s.max_iterations()),
                        None => format!("{} of {} · {mode}", s.iteration(), s.max_iterations()),
                    };
                    buf.set_line(body.x, y, &field(t, "iteration", vec![Span::styled(text, t.text)]), body.width);
                }
                MonitorRow::Elapsed => {
                    let limit = limits.as_ref().map_or(0, |l| l.time_limit_secs);
                    let secs = app.elapsed_ms() / 1000;
                    let text = if limit > 0 { format!("{secs} s of {limit} s") } else { format!("{secs} s") };
                    let style = if limit > 0 && secs >= limit { t.confidence_low } else { t.text };
                    buf.set_line(body.x, y, &field(t, "elapsed", vec![Span::styled(text, style)]), body.width);
                }
                MonitorRow::Stage => {
                    let stage = app.stage();
                    let spans = vec![Span::styled(app.stage_label(), stage_style(t, stage))];
                    buf.set_line(body.x, y, &field(t, "stage", spans), body.width);
                }
                MonitorRow::Trend => {
                    let values = s.iterations.iter().filter_map(|it| it.confidence_after());
                    let max_bars = body.width.saturating_sub(11 + 7) as usize;
                    let skip = s.iterations.len().saturating_sub(max_bars);
                    let bars = spark(values.skip(skip));
                    let gain = s.convergence_trend.last().map(|g| format!(" {g:+.2}")).unwrap_or_default();
                    let spans = vec![Span::styled(bars, t.confidence_mid), Span::styled(gain, t.muted)];
                    buf.set_line(body.x, y, &field(t, "trend", spans), body.width);
                }
            }
            if focused && app.cursors.monitor == i {
                buf.set_style(line_area, t.selection);
            }
        }
    }
}
