//! Retry with exponential backoff and jitter (backon), honouring a server's
//! `Retry-After`. Shared by search providers and the LLM client; an error
//! type says whether it is worth another try by implementing `RetryClass`.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};

/// An error that knows whether it is worth another try.
pub trait RetryClass {
    fn is_transient(&self) -> bool;
    /// How long the server asked us to wait, if it said.
    fn retry_after(&self) -> Option<Duration> {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Total attempts, the first included.
    pub attempts: u32,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// A `Retry-After` longer than this is cut to it.
    pub retry_after_cap: Duration,
}

impl RetryPolicy {
    pub fn new(attempts: u32, min_ms: u64, max_ms: u64, retry_after_cap_secs: u64) -> Self {
        Self {
            attempts: attempts.max(1),
            min_delay: Duration::from_millis(min_ms),
            max_delay: Duration::from_millis(max_ms.max(min_ms)),
            retry_after_cap: Duration::from_secs(retry_after_cap_secs),
        }
    }
}

/// Runs `op` until it succeeds, fails permanently, or attempts run out.
/// Returns the result and the number of attempts made.
pub async fn retry<T, E, F, Fut>(policy: RetryPolicy, op: F) -> (Result<T, E>, u32)
where
    E: RetryClass,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let attempts = Arc::new(AtomicU32::new(1));
    let counter = attempts.clone();
    let backoff = ExponentialBuilder::default()
        .with_min_delay(policy.min_delay)
        .with_max_delay(policy.max_delay)
        .with_max_times(policy.attempts.saturating_sub(1) as usize)
        .with_jitter();
    let cap = policy.retry_after_cap;
    let result = op
        .retry(backoff)
        .when(|e: &E| e.is_transient())
        .adjust(move |e: &E, dur| dur.map(|d| e.retry_after().map_or(d, |ra| ra.min(cap))))
        .notify(move |_, _| {
            counter.fetch_add(1, Ordering::Relaxed);
        })
        .await;
    (result, attempts.load(Ordering::Relaxed))
}

thread_local! {
    /// Set while `contain` runs a closure on this thread.
    static CONTAINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the panic under way happens inside `contain` (a panic hook
/// returns at once then: the panic is an error value, not a crash).
pub fn panic_contained() -> bool {
    CONTAINED.with(std::cell::Cell::get)
}

/// Runs `f`, turning a panic into an error: for third-party parsers of
/// untrusted input (a malformed PDF) that may panic where they should have
/// returned an error. The panic is logged, not printed, and no panic hook
/// (the TUI's restores the terminal and exits) treats it as a crash.
pub fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if panic_contained() {
                tracing::debug!(panic = %info, "contained panic");
                return;
            }
            previous(info);
        }));
    });
    let was = CONTAINED.with(|c| c.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CONTAINED.with(|c| c.set(was));
    out.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contained_panic_is_an_error_and_the_flag_is_reset() {
        #[allow(clippy::panic)]
        let r: Result<u8, String> = contain(|| panic!("bad xref"));
        assert_eq!(r, Err("bad xref".to_string()));
        assert!(!panic_contained());
        assert_eq!(contain(|| 7), Ok(7));
    }

    /// An error of the shape adapters have: transient or not, maybe a wait.
    #[derive(Debug, PartialEq)]
    enum ProviderError {
        Transient { retry_after: Option<Duration> },
        Permanent,
    }

    impl ProviderError {
        fn transient(_: &str) -> Self {
            ProviderError::Transient { retry_after: None }
        }

        fn permanent(_: &str) -> Self {
            ProviderError::Permanent
        }
    }

    impl RetryClass for ProviderError {
        fn is_transient(&self) -> bool {
            matches!(self, ProviderError::Transient { .. })
        }

        fn retry_after(&self) -> Option<Duration> {
            match self {
                ProviderError::Transient { retry_after } => *retry_after,
                ProviderError::Permanent => None,
            }
        }
    }

    fn policy() -> RetryPolicy {
        RetryPolicy::new(3, 10, 100, 30)
    }

    #[tokio::test(start_paused = true)]
    async fn transient_errors_are_retried_until_success() {
        let calls = AtomicU32::new(0);
        let (r, attempts) = retry(policy(), || async {
            if calls.fetch_add(1, Ordering::SeqCst) < 2 { Err(ProviderError::transient("503")) } else { Ok(7) }
        })
        .await;
        assert_eq!(r, Ok(7));
        assert_eq!(attempts, 3);
    }

    #[tokio::test(start_paused = true)]
    async fn permanent_errors_are_not_retried() {
        let (r, attempts) = retry(policy(), || async { Err::<(), _>(ProviderError::permanent("404")) }).await;
        assert!(r.is_err());
        assert_eq!(attempts, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_is_honoured_and_capped() {
        let start = tokio::time::Instant::now();
        let calls = AtomicU32::new(0);
        let (r, _) = retry(policy(), || async {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(ProviderError::Transient { retry_after: Some(Duration::from_secs(2)) })
            } else {
                Ok(())
            }
        })
        .await;
        assert!(r.is_ok());
        let waited = start.elapsed();
        assert!(waited >= Duration::from_secs(2) && waited < Duration::from_secs(3), "{waited:?}");

        let start = tokio::time::Instant::now();
        let calls = AtomicU32::new(0);
        let _ = retry(policy(), || async {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(ProviderError::Transient { retry_after: Some(Duration::from_secs(3600)) })
            } else {
                Ok(())
            }
        })
        .await;
        assert!(start.elapsed() <= Duration::from_secs(31));
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_the_last_attempt() {
        let calls = AtomicU32::new(0);
        let (r, attempts) = retry(policy(), || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err::<(), _>(ProviderError::transient("timeout"))
        })
        .await;
        assert!(r.is_err());
        assert_eq!((attempts, calls.load(Ordering::SeqCst)), (3, 3));
    }
}
