//! The presets (simple, standard, deep) by name, and the preset a session records in its
//! header: one of them, or `custom` (limits set by hand, as tests and
//! benchmarks do).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::protocol::Limits;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    Simple,
    #[default]
    Standard,
    Deep,
}

impl Preset {
    pub fn limits(self) -> Limits {
        let (max_iterations, max_queries, max_sources, time_limit_secs, token_budget) = match self {
            Preset::Simple => (2, 3, 5, 60, 100_000),
            Preset::Standard => (5, 10, 15, 120, 400_000),
            Preset::Deep => (10, 15, 20, 300, 1_000_000),
        };
        Limits { max_iterations, max_queries, max_sources, time_limit_secs, cost_budget_usd: 0.50, token_budget }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Simple => "simple",
            Preset::Standard => "standard",
            Preset::Deep => "deep",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Preset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "simple" => Ok(Preset::Simple),
            "standard" => Ok(Preset::Standard),
            "deep" => Ok(Preset::Deep),
            other => Err(format!("unknown preset `{other}` (simple, standard or deep)")),
        }
    }
}

/// The preset in a session header: a named one, or limits set by hand.
/// Written as its name; any other string in an old log reads as `Custom`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SessionPreset {
    Named(Preset),
    #[default]
    Custom,
}

impl SessionPreset {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionPreset::Named(p) => p.as_str(),
            SessionPreset::Custom => "custom",
        }
    }

    pub fn named(self) -> Option<Preset> {
        match self {
            SessionPreset::Named(p) => Some(p),
            SessionPreset::Custom => None,
        }
    }
}

impl From<Preset> for SessionPreset {
    fn from(p: Preset) -> Self {
        SessionPreset::Named(p)
    }
}

impl From<&str> for SessionPreset {
    fn from(s: &str) -> Self {
        s.parse::<Preset>().map_or(SessionPreset::Custom, SessionPreset::Named)
    }
}

impl PartialEq<&str> for SessionPreset {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for SessionPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for SessionPreset {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SessionPreset {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(SessionPreset::from(name.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_preset_is_written_as_its_name_and_old_strings_still_read() {
        let named = SessionPreset::Named(Preset::Deep);
        assert_eq!(serde_json::to_string(&named).expect("json"), "\"deep\"");
        assert_eq!(serde_json::from_str::<SessionPreset>("\"deep\"").expect("reads"), named);
        assert_eq!(serde_json::from_str::<SessionPreset>("\"custom\"").expect("reads"), SessionPreset::Custom);
        assert_eq!(serde_json::from_str::<SessionPreset>("\"bespoke\"").expect("reads"), SessionPreset::Custom);
        assert_eq!(serde_json::to_string(&SessionPreset::Custom).expect("json"), "\"custom\"");
        assert_eq!(named.named(), Some(Preset::Deep));
        assert!(named == "deep");
    }
}
