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

#[cfg(test)]
mod tests {
    use super::*;

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
