use serde::{Deserialize, Serialize};

use super::lenient;

/// One search the loop will run: the text, why it is run, and terms the
/// provider should exclude (rendered in each provider's own syntax).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedQuery {
    pub text: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub intent: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// The aspect of the question this query serves, when the planner knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect: Option<String>,
    /// Whether that aspect is asked or only related to the question.
    #[serde(default, skip_serializing_if = "AspectKind::is_asked")]
    pub aspect_kind: AspectKind,
}

impl PlannedQuery {
    pub fn new(text: impl Into<String>, intent: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            intent: intent.into(),
            exclude: Vec::new(),
            aspect: None,
            aspect_kind: AspectKind::Asked,
        }
    }
}

/// What an aspect is to the question.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AspectKind {
    /// The question asks it: a complete answer must cover it.
    #[default]
    Asked,
    /// A concept the sources pair with the question that it does not ask:
    /// a pointer (the draft's "See also"), never required, never a gap.
    Related,
}

impl AspectKind {
    pub fn is_asked(&self) -> bool {
        *self == AspectKind::Asked
    }
}

/// The reflection block written before acting: what the plan is,
/// what it assumes, what could go wrong and how success will be judged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    #[serde(default, deserialize_with = "lenient::string")]
    pub plan: String,
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub assumptions: Vec<String>,
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub risks: Vec<String>,
    #[serde(default, deserialize_with = "lenient::string_list")]
    pub success_criteria: Vec<String>,
}
