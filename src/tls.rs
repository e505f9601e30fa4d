//! The TLS crypto provider every HTTP client uses: rustls with ring,
//! installed once per process before the first client is built. ring builds
//! in seconds where aws-lc-rs (reqwest's default) compiles C with cmake for
//! minutes, which was most of a newcomer's first build.

/// Installs ring as the process's rustls provider; later calls do nothing.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when a provider is installed already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
