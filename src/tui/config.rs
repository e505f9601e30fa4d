use serde::{Deserialize, Serialize};

/// `[tui]`: appearance and keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TuiConfig {
    pub theme: String,
}

impl Default for TuiConfig {
    fn default() -> Self {
        Self { theme: "dark".into() }
    }
}
