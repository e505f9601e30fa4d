//! Why things went wrong, as types: the phase an `error` event names, and
//! the cause of degraded mode. Code decides on these (exit code 6, the
//! recovered provider, the report's caveats); their sentences are made
//! from them for people and are never read back. Logs of schema 2 and
//! earlier carried the cause as a sentence: `legacy_degradation` reads
//! those sentences once, as the log is read, and nowhere else.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use super::Role;

/// The part of the loop an `error` event comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Plan,
    Search,
    Review,
    Draft,
    Critique,
    Clarify,
    Write,
    Memory,
    Engine,
    /// A phase name this build does not know (a log from a newer sleuth).
    #[serde(other)]
    Other,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Plan => "plan",
            Phase::Search => "search",
            Phase::Review => "review",
            Phase::Draft => "draft",
            Phase::Critique => "critique",
            Phase::Clarify => "clarify",
            Phase::Write => "write",
            Phase::Memory => "memory",
            Phase::Engine => "engine",
            Phase::Other => "other",
        }
    }

    /// The reasoner role that does this phase, if one does.
    pub fn role(self) -> Option<Role> {
        match self {
            Phase::Plan => Some(Role::Plan),
            Phase::Review => Some(Role::Review),
            Phase::Draft => Some(Role::Draft),
            Phase::Critique => Some(Role::Critique),
            Phase::Clarify => Some(Role::Clarify),
            Phase::Write => Some(Role::Write),
            Phase::Search | Phase::Memory | Phase::Engine | Phase::Other => None,
        }
    }

    /// Whether a failure here is covered by the engine's `fallback`: what
    /// the phase then produces is no evidence the question is answered.
    pub fn falls_back(self) -> bool {
        matches!(self, Phase::Plan | Phase::Review | Phase::Draft | Phase::Critique)
    }
}

impl From<Role> for Phase {
    fn from(role: Role) -> Self {
        match role {
            Role::Plan => Phase::Plan,
            Role::Review => Phase::Review,
            Role::Draft => Phase::Draft,
            Role::Critique => Phase::Critique,
            Role::Write => Phase::Write,
            Role::Clarify => Phase::Clarify,
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a session runs in degraded mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Degradation {
    /// A provider's circuit opened: its searches fail for now.
    ProviderFailing { provider: String },
    /// A provider failed and a later call succeeded (the fold's doing).
    ProviderRecovered { provider: String },
    /// Too many of one iteration's queries failed.
    QueriesFailed { iteration: u32, failed: usize, total: usize },
    /// Phases the model was to do fell back to built-in, model-free results.
    ModelFailed { phases: Vec<Role> },
    /// A schema-2 sentence this build does not recognise, kept to show.
    Described { text: String },
}

impl Degradation {
    /// Reasoning (not search) was degraded: exit code 6, status `degraded`.
    pub fn is_reasoning(&self) -> bool {
        matches!(self, Degradation::ModelFailed { .. })
    }

    /// Search trouble that made whole queries fail.
    pub fn is_failed_queries(&self) -> bool {
        matches!(self, Degradation::QueriesFailed { .. })
    }

    /// Reads the `cause` of a `degraded_mode` event, or the `reason`
    /// sentence of a schema-2 one.
    pub fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Typed(Degradation),
            Sentence(String),
        }
        Ok(match Either::deserialize(d)? {
            Either::Typed(t) => t,
            Either::Sentence(s) => legacy_degradation(&s),
        })
    }
}

impl fmt::Display for Degradation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Degradation::ProviderFailing { provider } => write!(f, "provider {provider} is failing"),
            Degradation::ProviderRecovered { provider } => write!(f, "provider {provider} failed, then recovered"),
            Degradation::QueriesFailed { iteration, failed, total } => {
                write!(f, "{failed} of {total} queries failed in iteration {iteration}")
            }
            Degradation::ModelFailed { phases } => {
                let names: Vec<&str> = phases.iter().map(|p| p.as_str()).collect();
                write!(f, "the model could not do: {}", names.join(", "))
            }
            Degradation::Described { text } => f.write_str(text),
        }
    }
}

/// A schema-2 `degraded_mode` reason, as the three sentences that build
/// wrote it; anything else is kept as it was written.
fn legacy_degradation(sentence: &str) -> Degradation {
    if let Some(list) = sentence.strip_prefix("the model could not do: ") {
        let roles: Option<Vec<Role>> =
            list.split(", ").map(|name| Role::ALL.into_iter().find(|r| r.as_str() == name.trim())).collect();
        if let Some(phases) = roles.filter(|r| !r.is_empty()) {
            return Degradation::ModelFailed { phases };
        }
    }
    if let Some(provider) = sentence.strip_prefix("provider ").and_then(|r| r.strip_suffix(" is failing")) {
        return Degradation::ProviderFailing { provider: provider.to_string() };
    }
    let numbers = || -> Option<Degradation> {
        let (failed, rest) = sentence.split_once(" of ")?;
        let (total, rest) = rest.split_once(" queries failed in iteration ")?;
        Some(Degradation::QueriesFailed {
            iteration: rest.trim().parse().ok()?,
            failed: failed.trim().parse().ok()?,
            total: total.trim().parse().ok()?,
        })
    };
    numbers().unwrap_or_else(|| Degradation::Described { text: sentence.to_string() })
}

/// Whether a schema-2 `no_valid_sources` reason was strict mode's (that
/// build began each such sentence with these words).
pub fn legacy_strict_reason(reason: &str) -> bool {
    reason.starts_with("strict mode")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_2_sentences_read_as_the_causes_they_described() {
        let read = |s: &str| Degradation::read(serde_json::Value::String(s.into())).expect("reads");
        assert_eq!(
            read("the model could not do: plan, write"),
            Degradation::ModelFailed { phases: vec![Role::Plan, Role::Write] }
        );
        assert_eq!(read("provider web is failing"), Degradation::ProviderFailing { provider: "web".into() });
        assert_eq!(
            read("3 of 4 queries failed in iteration 2"),
            Degradation::QueriesFailed { iteration: 2, failed: 3, total: 4 }
        );
        assert_eq!(read("something new"), Degradation::Described { text: "something new".into() });
        for d in [
            read("the model could not do: plan, write"),
            read("provider web is failing"),
            read("3 of 4 queries failed in iteration 2"),
        ] {
            assert_eq!(read(&d.to_string()), d, "the sentence a cause prints reads back as that cause");
        }
    }

    #[test]
    fn typed_causes_round_trip_and_unknown_phases_read() {
        let d = Degradation::ModelFailed { phases: vec![Role::Critique] };
        let json = serde_json::to_value(&d).expect("json");
        assert_eq!(json, serde_json::json!({"kind": "model_failed", "phases": ["critique"]}));
        assert_eq!(Degradation::read(json).expect("reads"), d);
        let p: Phase = serde_json::from_value(serde_json::json!("teleport")).expect("reads");
        assert_eq!(p, Phase::Other);
        assert_eq!(serde_json::to_value(Phase::Clarify).expect("json"), serde_json::json!("clarify"));
        assert!(Phase::Review.falls_back() && !Phase::Write.falls_back());
    }
}
