//! JSON Schemas of each role's reply, written to satisfy OpenAI's strict
//! mode (every property required, no extra properties, null for "none"),
//! which llama.cpp, vLLM and Ollama also accept. In `prompt` mode the same
//! schema is printed into the system prompt.

use serde_json::{Value, json};

use crate::engine::model::Role;

fn object(properties: Value) -> Value {
    let required: Vec<String> = properties.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

/// What bounds a reply's lists: small models otherwise loop on an array
/// until the output cap (plans of endless queries, verdicts for ids that
/// were never given).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// `maxItems` of claims, issues, aspects and other lists.
    pub max_items: u32,
    /// `maxItems` of a plan's queries (the preset's query count).
    pub max_queries: u32,
    /// The source ids a reply may name (an `enum`); empty: any integer.
    pub ids: Vec<u32>,
    /// DRAFT carries its own critique (`check`).
    pub self_check: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_items: 8, max_queries: 6, ids: Vec::new(), self_check: false }
    }
}

impl Limits {
    /// The `maxItems` of a list of the root object of `role`'s reply: what
    /// a reply cut off in that list must already hold to lose nothing.
    pub fn cap(&self, role: Role, list: &str) -> usize {
        match (role, list) {
            (Role::Plan, "queries" | "new_queries") => self.max_queries.max(1) as usize,
            (Role::Review, "verdicts" | "sources") if !self.ids.is_empty() => self.ids.len(),
            _ => self.max_items.max(1) as usize,
        }
    }

    fn strings(&self) -> Value {
        json!({ "type": "array", "items": { "type": "string" }, "maxItems": self.max_items })
    }

    fn id(&self) -> Value {
        if self.ids.is_empty() { json!({ "type": "integer" }) } else { json!({ "type": "integer", "enum": self.ids }) }
    }

    fn claims(&self) -> Value {
        json!({
            "type": "array",
            "maxItems": self.max_items,
            "items": object(json!({
                "text": { "type": "string" },
                "aspect": { "type": ["string", "null"] },
                "citations": {
                    "type": "array",
                    "maxItems": 3,
                    "items": object(json!({ "source": self.id(), "quote": { "type": "string" } }))
                }
            }))
        })
    }

    /// CRITIQUE's judgement: on its own, or as DRAFT's `check`.
    fn critique(&self) -> Value {
        object(json!({
            "verdict": { "type": "string", "enum": ["PASS", "WARN", "REJECT"] },
            "issues": {
                "type": "array",
                "maxItems": self.max_items,
                "items": object(json!({
                    "severity": { "type": "string", "enum": ["low", "medium", "high", "critical"] },
                    "description": { "type": "string" },
                    "aspect": { "type": ["string", "null"] }
                }))
            },
            "aspects_required": self.strings(),
            "aspects_addressed": self.strings(),
            "weak_aspects": self.strings(),
            "gaps": self.strings(),
            "contradictions": {
                "type": "array",
                "maxItems": self.max_items,
                "items": object(json!({
                    "claim": { "type": "string" },
                    "source_a": self.id(),
                    "source_b": self.id()
                }))
            },
            "needs_clarification": {
                "anyOf": [
                    { "type": "null" },
                    object(json!({ "question": { "type": "string" }, "options": {
                        "type": "array", "items": { "type": "string" }, "minItems": 2, "maxItems": 4 } }))
                ]
            },
            "answer_relevance": { "type": "number" },
            "unanswered": { "type": "boolean" },
            "dimensions": object(json!({
                "completeness": { "type": "number" },
                "accuracy": { "type": "number" },
                "relevance": { "type": "number" },
                "freshness": { "type": "number" },
                "coherence": { "type": "number" }
            }))
        }))
    }
}

/// The schema name sent in `response_format` and the schema itself, with
/// default limits (`for_call` bounds it by the call's settings and ids).
pub fn for_role(role: Role) -> (&'static str, Value) {
    for_call(role, &Limits::default())
}

/// The schema for one call. WRITE's schema covers only the claims that
/// follow the report text.
pub fn for_call(role: Role, l: &Limits) -> (&'static str, Value) {
    match role {
        Role::Plan => (
            "sleuth_plan",
            object(json!({
                "reflection": object(json!({
                    "plan": { "type": "string" },
                    "assumptions": l.strings(),
                    "risks": l.strings(),
                    "success_criteria": l.strings()
                })),
                "queries": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": l.max_queries.max(1),
                    "items": object(json!({
                        "query": { "type": "string" },
                        "intent": { "type": "string" },
                        "aspect": { "type": ["string", "null"] },
                        "exclude": l.strings()
                    }))
                }
            })),
        ),
        Role::Review => (
            "sleuth_review",
            object(json!({
                "verdicts": {
                    "type": "array",
                    "maxItems": if l.ids.is_empty() { l.max_items as usize } else { l.ids.len() },
                    "items": object(json!({
                        "id": l.id(),
                        "keep": { "type": "boolean" },
                        "reason": { "type": ["string", "null"] },
                        "relevance": { "type": "number" },
                        "signals": l.strings()
                    }))
                }
            })),
        ),
        Role::Draft if l.self_check => (
            "sleuth_draft",
            object(json!({ "answer": { "type": "string" }, "claims": l.claims(), "check": l.critique() })),
        ),
        Role::Draft => ("sleuth_draft", object(json!({ "answer": { "type": "string" }, "claims": l.claims() }))),
        Role::Critique => ("sleuth_critique", l.critique()),
        Role::Write => ("sleuth_claims", object(json!({ "claims": l.claims() }))),
        Role::Clarify => {
            ("sleuth_clarify", object(json!({ "question": { "type": "string" }, "options": l.strings() })))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strict mode: every object lists all its properties as required and
    /// forbids others.
    fn check_strict(v: &Value, path: &str) {
        if let Some(props) = v.get("properties").and_then(Value::as_object) {
            let required: Vec<&str> = v["required"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
            for k in props.keys() {
                assert!(required.contains(&k.as_str()), "{path}.{k} not required");
            }
            assert_eq!(v["additionalProperties"], false, "{path}");
            for (k, p) in props {
                check_strict(p, &format!("{path}.{k}"));
            }
        }
        if let Some(items) = v.get("items") {
            check_strict(items, &format!("{path}[]"));
        }
        if let Some(any) = v.get("anyOf").and_then(Value::as_array) {
            for a in any {
                check_strict(a, path);
            }
        }
    }

    #[test]
    fn every_schema_is_strict_mode_compatible() {
        let checked = Limits { ids: vec![3, 4], self_check: true, ..Limits::default() };
        for role in Role::ALL {
            let (name, schema) = for_role(role);
            assert!(name.starts_with("sleuth_"));
            check_strict(&schema, role.as_str());
            check_strict(&for_call(role, &checked).1, role.as_str());
        }
    }

    #[test]
    fn lists_are_bounded_and_ids_are_the_ones_given() {
        let l = Limits { max_items: 5, max_queries: 3, ids: vec![6, 9], self_check: true };
        let (_, plan) = for_call(Role::Plan, &l);
        assert_eq!(plan["properties"]["queries"]["maxItems"], 3);
        let (_, review) = for_call(Role::Review, &l);
        assert_eq!(review["properties"]["verdicts"]["maxItems"], 2);
        assert_eq!(review["properties"]["verdicts"]["items"]["properties"]["id"]["enum"], json!([6, 9]));
        let (_, draft) = for_call(Role::Draft, &l);
        assert_eq!(draft["properties"]["claims"]["maxItems"], 5);
        assert_eq!(
            draft["properties"]["claims"]["items"]["properties"]["citations"]["items"]["properties"]["source"]["enum"],
            json!([6, 9])
        );
        assert_eq!(draft["properties"]["check"]["properties"]["gaps"]["maxItems"], 5);
        let (_, plain) = for_call(Role::Draft, &Limits { self_check: false, ..l });
        assert!(plain["properties"].get("check").is_none());
    }
}
