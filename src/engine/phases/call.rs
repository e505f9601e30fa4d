//! Every reasoner call goes through `reason`: it runs within the session's
//! remaining time (research calls end where the write step's reserve
//! begins), keeps serving commands, and records the usage of every answered
//! model call, including the calls of a role that failed or was cancelled.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::model::{Degradation, Role};
use crate::engine::protocol::Event;
use crate::engine::reasoner::{Reasoner, ReasonerError, Reply};
use crate::engine::run::{Engine, EngineError, Phase};
use crate::engine::takeover::{Takeover, takeover_due};

/// Share of the time limit kept for WRITE: research calls, and the loop,
/// stop where it begins, so the report is written within the limit.
pub const WRITE_RESERVE_SHARE: f64 = 0.15;

/// The least WRITE gets even when research overran its share (a search
/// that took long): a twentieth of the limit.
const WRITE_FLOOR_SHARE: f64 = 0.05;

/// Which share of the time limit a call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Share {
    Research,
    Write,
}

/// Milliseconds of the limit research may use (the rest is WRITE's).
pub(crate) fn research_limit_ms(limit_secs: u64) -> u64 {
    let limit_ms = limit_secs.saturating_mul(1000);
    limit_ms - (limit_ms as f64 * WRITE_RESERVE_SHARE) as u64
}

impl Engine {
    /// Time a call may take; `None` without a time limit.
    pub(crate) fn time_left(&self, share: Share) -> Option<Duration> {
        let limit_secs = self.settings.limits.time_limit_secs;
        if limit_secs == 0 {
            return None;
        }
        let elapsed = self.elapsed_ms();
        let left = match share {
            Share::Research => research_limit_ms(limit_secs).saturating_sub(elapsed),
            Share::Write => {
                let floor = (limit_secs as f64 * 1000.0 * WRITE_FLOOR_SHARE) as u64;
                (limit_secs * 1000).saturating_sub(elapsed).max(floor)
            }
        };
        Some(Duration::from_millis(left))
    }

    /// Runs a research call of `role` within the research share of the
    /// remaining time (when it waits on a model) while
    /// serving commands. `None`: a command interrupted it. A call still
    /// running at the deadline is dropped (its HTTP request with it) and
    /// ends as an error, so the phase falls back and the loop moves on.
    pub(crate) async fn reason<T>(
        &mut self,
        role: Role,
        work: impl Future<Output = Result<Reply<T>, ReasonerError>>,
    ) -> Phase<Result<T, ReasonerError>> {
        let left = if self.reasoner.uses_model(role) { self.time_left(Share::Research) } else { None };
        let timed = async move {
            match left {
                None => work.await,
                Some(d) => tokio::time::timeout(d, work).await.unwrap_or_else(|_| {
                    Err(ReasonerError::Unavailable(format!(
                        "the time limit was reached after waiting {:.1} s for the model",
                        d.as_secs_f64()
                    )))
                }),
            }
        };
        let out = self.await_work(timed).await?;
        self.record_late_usage()?;
        Ok(match out {
            None => None,
            Some(Ok(reply)) => {
                self.emit_usage(reply.usage)?;
                Some(Ok(reply.value))
            }
            Some(Err(e)) => Some(Err(e)),
        })
    }

    /// Runs `call` (a role of the reasoner, on `ctx`) through `reason`.
    /// `Some(None)`: it failed and the error is recorded, so the phase falls
    /// back. When the failure shows the model cannot do the work
    /// (`takeover_due`), the built-in reasoner takes over instead: it
    /// answers this call at once and every call after it.
    pub(crate) async fn reason_or_hand_over<C, T, F, Fut>(&mut self, role: Role, ctx: C, call: F) -> Phase<Option<T>>
    where
        C: Clone,
        F: Fn(Arc<dyn Reasoner>, C) -> Fut,
        Fut: Future<Output = Result<Reply<T>, ReasonerError>>,
    {
        let Some(out) = self.reason(role, call(self.reasoner.clone(), ctx.clone())).await? else { return Ok(None) };
        let error = match out {
            Ok(v) => return Ok(Some(Some(v))),
            Err(e) => e,
        };
        let out = match self.hand_over(role, &error)? {
            false => Err(error),
            true => match self.reason(role, call(self.reasoner.clone(), ctx)).await? {
                Some(out) => out,
                None => return Ok(None),
            },
        };
        match out {
            Ok(v) => Ok(Some(Some(v))),
            Err(e) => {
                self.emit_error(role.into(), e.to_string())?;
                Ok(Some(None))
            }
        }
    }

    /// Hands the session to the reasoner's stand-in when `error` of `role`
    /// makes it due; true when it did. The failure is recorded in the
    /// takeover (not as a phase that fell back: the stand-in does it).
    fn hand_over(&mut self, role: Role, error: &ReasonerError) -> Result<bool, EngineError> {
        let Some(cause) = takeover_due(&self.state, role, error) else { return Ok(false) };
        let Some(stand_in) = self.reasoner.stand_in() else { return Ok(false) };
        let iteration = self.state.iteration();
        let takeover = Takeover { iteration, role, cause, error: error.to_string() };
        self.emit(Event::BuiltinTookOver { takeover })?;
        self.emit(Event::DegradedMode { iteration, cause: Degradation::ModelFailed { phases: vec![role] } })?;
        self.reasoner = stand_in;
        Ok(true)
    }

    /// The usage of calls whose role failed or was cancelled.
    pub(crate) fn record_late_usage(&mut self) -> Result<(), EngineError> {
        let late = self.reasoner.take_usage();
        self.emit_usage(late)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn research_ends_where_the_write_reserve_begins() {
        assert_eq!(research_limit_ms(120), 102_000);
        assert_eq!(research_limit_ms(0), 0);
    }
}
