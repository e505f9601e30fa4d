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

fn strings() -> Value {
    json!({ "type": "array", "items": { "type": "string" } })
}

fn claims() -> Value {
    json!({
        "type": "array",
        "items": object(json!({
            "text": { "type": "string" },
            "aspect": { "type": ["string", "null"] },
            "citations": {
                "type": "array",
                "items": object(json!({ "source": { "type": "integer" }, "quote": { "type": "string" } }))
            }
        }))
    })
}

/// The schema name sent in `response_format` and the schema itself.
/// WRITE's schema covers only the claims that follow the report text.
pub fn for_role(role: Role) -> (&'static str, Value) {
    match role {
        Role::Plan => (
            "sleuth_plan",
            object(json!({
                "reflection": object(json!({
                    "plan": { "type": "string" },
                    "assumptions": strings(),
                    "risks": strings(),
                    "success_criteria": strings()
                })),
                "queries": {
                    "type": "array",
                    "items": object(json!({
                        "query": { "type": "string" },
                        "intent": { "type": "string" },
                        "aspect": { "type": ["string", "null"] },
                        "exclude": strings()
                    }))
                }
            })),
        ),
        Role::Review => (
            "sleuth_review",
            object(json!({
                "verdicts": {
                    "type": "array",
                    "items": object(json!({
                        "id": { "type": "integer" },
                        "keep": { "type": "boolean" },
                        "reason": { "type": ["string", "null"] },
                        "relevance": { "type": "number" },
                        "signals": strings()
                    }))
                }
            })),
        ),
        Role::Draft => ("sleuth_draft", object(json!({ "answer": { "type": "string" }, "claims": claims() }))),
        Role::Critique => (
            "sleuth_critique",
            object(json!({
                "verdict": { "type": "string", "enum": ["PASS", "WARN", "REJECT"] },
                "issues": {
                    "type": "array",
                    "items": object(json!({
                        "severity": { "type": "string", "enum": ["low", "medium", "high", "critical"] },
                        "description": { "type": "string" },
                        "aspect": { "type": ["string", "null"] }
                    }))
                },
                "aspects_required": strings(),
                "aspects_addressed": strings(),
                "weak_aspects": strings(),
                "gaps": strings(),
                "contradictions": {
                    "type": "array",
                    "items": object(json!({
                        "claim": { "type": "string" },
                        "source_a": { "type": "integer" },
                        "source_b": { "type": "integer" }
                    }))
                },
                "needs_clarification": {
                    "anyOf": [
                        { "type": "null" },
                        object(json!({ "question": { "type": "string" }, "options": strings() }))
                    ]
                },
                "dimensions": object(json!({
                    "completeness": { "type": "number" },
                    "accuracy": { "type": "number" },
                    "relevance": { "type": "number" },
                    "freshness": { "type": "number" },
                    "coherence": { "type": "number" }
                }))
            })),
        ),
        Role::Write => ("sleuth_claims", object(json!({ "claims": claims() }))),
        Role::Clarify => ("sleuth_clarify", object(json!({ "question": { "type": "string" }, "options": strings() }))),
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
        for role in Role::ALL {
            let (name, schema) = for_role(role);
            assert!(name.starts_with("sleuth_"));
            check_strict(&schema, role.as_str());
        }
    }
}
