//! Politeness toward the sites sleuth reads: at most `per_host` requests in
//! flight to one origin, and request starts to one origin spaced by at least
//! `delay`. Other origins are not held up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

struct Origin {
    slots: Arc<Semaphore>,
    /// The earliest time the next request may start.
    next_start: tokio::sync::Mutex<Instant>,
}

pub struct HostGate {
    per_host: usize,
    delay: Duration,
    origins: Mutex<HashMap<String, Arc<Origin>>>,
}

/// Held while a request to an origin is in flight.
pub struct HostPermit {
    _slot: Option<OwnedSemaphorePermit>,
}

impl HostGate {
    pub fn new(per_host: usize, delay: Duration) -> Self {
        Self { per_host: per_host.max(1), delay, origins: Mutex::new(HashMap::new()) }
    }

    /// Waits for a free slot for `origin`, then for its turn.
    pub async fn acquire(&self, origin: &str) -> HostPermit {
        let entry = {
            // A poisoned map only means another task panicked mid-insert;
            // the map itself is still usable.
            let mut map = self.origins.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(origin.to_string())
                .or_insert_with(|| {
                    Arc::new(Origin {
                        slots: Arc::new(Semaphore::new(self.per_host)),
                        next_start: tokio::sync::Mutex::new(Instant::now()),
                    })
                })
                .clone()
        };
        // The semaphore is never closed, so acquiring cannot fail; should it
        // ever, going ahead unthrottled is better than failing the fetch.
        let slot = entry.slots.clone().acquire_owned().await.ok();
        let start = {
            let mut next = entry.next_start.lock().await;
            let start = (*next).max(Instant::now());
            *next = start + self.delay;
            start
        };
        tokio::time::sleep_until(start).await;
        HostPermit { _slot: slot }
    }
}

/// `scheme://host:port` of a URL: the unit politeness is counted in.
pub fn origin_of(url: &reqwest::Url) -> String {
    format!("{}://{}:{}", url.scheme(), url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn starts_to_one_origin_are_spaced_and_bounded() {
        let gate = Arc::new(HostGate::new(2, Duration::from_millis(100)));
        let t0 = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..4 {
            let gate = gate.clone();
            tasks.push(tokio::spawn(async move {
                let _p = gate.acquire("http://a:80").await;
                let started = t0.elapsed();
                // Each request takes 300 ms.
                tokio::time::sleep(Duration::from_millis(300)).await;
                started
            }));
        }
        let mut starts = Vec::new();
        for t in tasks {
            starts.push(t.await.unwrap().as_millis());
        }
        starts.sort();
        // Two slots: the third waits for the first to finish (300 ms).
        assert_eq!(starts, vec![0, 100, 300, 400]);
    }

    #[tokio::test(start_paused = true)]
    async fn other_origins_are_not_held_up() {
        let gate = HostGate::new(1, Duration::from_secs(10));
        let t0 = Instant::now();
        let _a = gate.acquire("http://a:80").await;
        let _b = gate.acquire("http://b:80").await;
        assert_eq!(t0.elapsed(), Duration::ZERO);
    }

    #[test]
    fn origin_includes_the_port() {
        let u = reqwest::Url::parse("https://Example.org/x?y").unwrap();
        assert_eq!(origin_of(&u), "https://example.org:443");
    }
}
