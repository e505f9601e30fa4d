//! `[serve]`: the limits and the bind address of `sleuth serve` (and the
//! concurrency limit `sleuth mcp` shares with it).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServeConfig {
    /// Address to listen on. Anything but loopback needs a token (`token_env`).
    pub bind: String,
    /// Sessions researched at once; 0 means two per CPU core.
    pub max_concurrent: usize,
    /// Sessions waiting for a free slot; past that a request gets 429.
    pub max_queued: usize,
    /// The environment variable holding the bearer token (the name, never the token).
    pub token_env: String,
    /// Largest accepted request body, in bytes (413 beyond).
    pub max_body_bytes: usize,
    /// Time limit of every request except streams and synchronous `/run`.
    pub request_timeout_secs: u64,
    /// How long a synchronous `/run` waits before answering with its job id
    /// (202); the session goes on and `GET /jobs/{id}` follows it.
    pub run_wait_secs: u64,
    /// How long running sessions get at shutdown to reach a checkpoint.
    pub shutdown_grace_secs: u64,
    /// Host names (or `host:port`) a request's `Host` and `Origin` may name
    /// besides the bound address, `localhost`, `127.0.0.1` and `[::1]`: the
    /// public name of a reverse proxy in front of the server. Everything
    /// else is refused (403), so a page using DNS rebinding cannot reach it.
    pub allowed_hosts: Vec<String>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            bind: "127.0.0.1:7878".into(),
            max_concurrent: 0,
            max_queued: 32,
            token_env: "SLEUTH_SERVE_TOKEN".into(),
            max_body_bytes: 64 * 1024,
            request_timeout_secs: 30,
            run_wait_secs: 900,
            shutdown_grace_secs: 10,
            allowed_hosts: Vec::new(),
        }
    }
}

impl ServeConfig {
    /// `max_concurrent` with 0 resolved to two per core.
    pub fn concurrency(&self) -> usize {
        if self.max_concurrent > 0 {
            return self.max_concurrent;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        2 * cores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_concurrency_means_two_per_core() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(ServeConfig::default().concurrency(), 2 * cores);
        let fixed = ServeConfig { max_concurrent: 3, ..ServeConfig::default() };
        assert_eq!(fixed.concurrency(), 3);
    }
}
