//! The JSON each role replies with (the plan, the critique, the
//! draft and the report, as the engine needs them), read leniently — a string
//! where a list was asked for, `"[3]"` for a source id, `"Pass"` for
//! `PASS` — then checked and mapped onto the engine's types.

use std::collections::BTreeSet;

use serde::{Deserialize, Deserializer};

use crate::engine::model::{
    Citation, Claim, Clarification, Contradiction, Critique, DimensionScores, Draft, Issue, PlannedQuery, Reflection,
    Severity, SourceId, SourceVerdict, Verdict,
};

/// A source id as models write it: `3`, `"3"`, `"[3]"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceRef(pub u32);

impl<'de> Deserialize<'de> for SourceRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let n = match &v {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.trim().trim_start_matches('[').trim_end_matches(']').trim().parse().ok(),
            _ => None,
        };
        n.and_then(|n| u32::try_from(n).ok())
            .map(SourceRef)
            .ok_or_else(|| serde::de::Error::custom(format!("a source id must be a number like 3, got {v}")))
    }
}

fn lenient_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s,
        Some(serde_json::Value::Array(a)) => {
            a.iter().map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string)).collect::<Vec<_>>().join("; ")
        }
        Some(other) => other.to_string(),
    })
}

fn lenient_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::String(s)) => s
            .lines()
            .map(|l| l.trim().trim_start_matches(['-', '*']).trim().to_string())
            .filter(|l| !l.is_empty())
            .collect(),
        Some(serde_json::Value::Array(a)) => a
            .into_iter()
            .map(|x| match x {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            })
            .filter(|s| !s.trim().is_empty())
            .collect(),
        Some(other) => vec![other.to_string()],
    })
}

fn lenient_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().trim_end_matches('%').parse::<f64>().ok(),
        _ => None,
    }
    .filter(|x| x.is_finite())
    .map(|x| if x > 1.0 && x <= 100.0 { x / 100.0 } else { x.clamp(0.0, 1.0) }))
}

// ---------------------------------------------------------------- PLAN

#[derive(Debug, Deserialize)]
pub struct PlanWire {
    /// Required: a plan whose reflection is missing (a reply cut off
    /// after its queries) is a failed reply, not an empty reflection.
    pub reflection: Reflection,
    #[serde(alias = "new_queries")]
    pub queries: Vec<QueryItem>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum QueryItem {
    Text(String),
    Full(QueryWire),
}

#[derive(Debug, Deserialize)]
pub struct QueryWire {
    #[serde(alias = "text", deserialize_with = "lenient_string")]
    pub query: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub intent: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub aspect: String,
    #[serde(default, deserialize_with = "lenient_list")]
    pub exclude: Vec<String>,
}

impl PlanWire {
    pub fn into_queries(self) -> Result<(Reflection, Vec<PlannedQuery>), String> {
        let queries: Vec<PlannedQuery> = self
            .queries
            .into_iter()
            .map(|q| match q {
                QueryItem::Text(t) => PlannedQuery::new(t, ""),
                QueryItem::Full(q) => PlannedQuery {
                    text: q.query,
                    intent: q.intent,
                    exclude: q.exclude,
                    aspect: Some(q.aspect).filter(|a| !a.trim().is_empty()),
                    aspect_kind: crate::engine::model::AspectKind::Asked,
                },
            })
            .filter(|q| !q.text.trim().is_empty())
            .collect();
        if queries.is_empty() {
            return Err("`queries` is empty; give at least one search query".into());
        }
        Ok((self.reflection, queries))
    }
}

// ---------------------------------------------------------------- REVIEW

#[derive(Debug, Deserialize)]
pub struct ReviewWire {
    #[serde(alias = "sources")]
    pub verdicts: Vec<VerdictWire>,
}

#[derive(Debug, Deserialize)]
pub struct VerdictWire {
    pub id: SourceRef,
    #[serde(alias = "kept")]
    pub keep: bool,
    #[serde(default, deserialize_with = "lenient_string")]
    pub reason: String,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub relevance: Option<f64>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub signals: Vec<String>,
}

impl ReviewWire {
    /// Verdicts for the given candidate ids; at least one must match.
    pub fn into_verdicts(self, candidates: &[SourceId]) -> Result<Vec<SourceVerdict>, String> {
        let verdicts: Vec<SourceVerdict> = self
            .verdicts
            .into_iter()
            .filter(|v| candidates.contains(&SourceId(v.id.0)))
            .map(|v| SourceVerdict {
                id: SourceId(v.id.0),
                kept: v.keep,
                reason: (!v.keep).then(|| reason_key(&v.reason)),
                relevance: v.relevance.unwrap_or(if v.keep { 0.5 } else { 0.0 }) as f32,
                signals: v.signals.into_iter().take(5).collect(),
            })
            .collect();
        if verdicts.is_empty() && !candidates.is_empty() {
            return Err(format!("no verdict names one of the source ids given ({})", id_list(candidates)));
        }
        Ok(verdicts)
    }
}

/// A rejection reason as a table key: `Off topic` → `off_topic`.
fn reason_key(reason: &str) -> String {
    let words: Vec<String> = crate::text::word_tokens(reason).into_iter().take(4).collect();
    if words.is_empty() { "unspecified".into() } else { words.join("_") }
}

fn id_list(ids: &[SourceId]) -> String {
    ids.iter().map(|i| i.0.to_string()).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------- DRAFT / WRITE

#[derive(Debug, Deserialize)]
pub struct DraftWire {
    #[serde(alias = "markdown", alias = "draft", alias = "answer_markdown", deserialize_with = "lenient_string")]
    pub answer: String,
    /// Required: without it nothing the answer says can be checked (an
    /// explicit `[]` is an answer that claims nothing).
    pub claims: Vec<ClaimWire>,
    /// The draft's own critique (`llm.self_check`), in the same reply.
    #[serde(default)]
    pub check: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub struct ClaimsWire {
    pub claims: Vec<ClaimWire>,
}

#[derive(Debug, Deserialize)]
pub struct ClaimWire {
    #[serde(alias = "claim", deserialize_with = "lenient_string")]
    pub text: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub aspect: String,
    #[serde(default, alias = "sources")]
    pub citations: Vec<CitationWire>,
}

#[derive(Debug, Deserialize)]
pub struct CitationWire {
    #[serde(alias = "id", alias = "source_id")]
    pub source: SourceRef,
    #[serde(default, deserialize_with = "lenient_string")]
    pub quote: String,
}

/// Claims whose every citation names a known source; else the error lists
/// the unknown ids.
pub fn map_claims(claims: Vec<ClaimWire>, known: &[SourceId]) -> Result<Vec<Claim>, String> {
    let unknown: BTreeSet<u32> = claims
        .iter()
        .flat_map(|c| &c.citations)
        .map(|c| c.source.0)
        .filter(|id| !known.contains(&SourceId(*id)))
        .collect();
    if !unknown.is_empty() {
        let unknown: Vec<String> = unknown.iter().map(u32::to_string).collect();
        return Err(format!(
            "citations name source ids that were not given: {} (cite only {})",
            unknown.join(", "),
            id_list(known)
        ));
    }
    Ok(claims
        .into_iter()
        .filter(|c| !c.text.trim().is_empty())
        .map(|c| Claim {
            text: c.text,
            citations: c
                .citations
                .into_iter()
                .map(|x| Citation { source: SourceId(x.source.0), quote: x.quote })
                .collect(),
            aspect: Some(c.aspect).filter(|a| !a.trim().is_empty()),
        })
        .collect())
}

impl DraftWire {
    pub fn into_draft(self, known: &[SourceId]) -> Result<Draft, String> {
        self.into_checked_draft(known).map(|(d, _)| d)
    }

    /// The draft and its self-check. A self-check that does not parse is
    /// dropped, not repaired: the draft is what the call is for, and the
    /// critique can still be asked for on its own.
    pub fn into_checked_draft(self, known: &[SourceId]) -> Result<(Draft, Option<Critique>), String> {
        if self.answer.trim().is_empty() {
            return Err("`answer` is empty; write the answer in markdown with [n] citations".into());
        }
        let check = self
            .check
            .and_then(|v| serde_json::from_value::<CritiqueWire>(v).ok())
            .and_then(|w| w.into_critique(known).ok());
        let claims = map_claims(self.claims, known)?;
        // Sources were given: an answer citing none of them is not drawn
        // from them (unless its own check says they do not answer).
        let cites = !crate::engine::citations::citation_markers(&self.answer).is_empty()
            || claims.iter().any(|c| !c.citations.is_empty());
        if !known.is_empty() && !cites && !check.as_ref().is_some_and(|c| c.unanswered) {
            return Err(format!(
                "`answer` cites none of the sources given; cite each statement's source by id, like [{}]",
                known[0].0
            ));
        }
        Ok((Draft { markdown: self.answer, claims }, check))
    }
}

// ---------------------------------------------------------------- CRITIQUE

#[derive(Debug, Deserialize)]
pub struct CritiqueWire {
    #[serde(alias = "status", deserialize_with = "lenient_string")]
    pub verdict: String,
    #[serde(default)]
    pub issues: Vec<IssueWire>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub aspects_required: Vec<String>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub aspects_addressed: Vec<String>,
    #[serde(default, deserialize_with = "lenient_list")]
    pub weak_aspects: Vec<String>,
    #[serde(default, alias = "logical_gaps", deserialize_with = "lenient_list")]
    pub gaps: Vec<String>,
    #[serde(default)]
    pub contradictions: Vec<ContradictionWire>,
    #[serde(default)]
    pub needs_clarification: Option<ClarifyWire>,
    #[serde(default)]
    pub dimensions: Option<DimensionsWire>,
    /// How well the answer's first paragraph answers the question as asked.
    #[serde(default, deserialize_with = "lenient_f64")]
    pub answer_relevance: Option<f64>,
    /// The sources do not answer the question at all.
    #[serde(default)]
    pub unanswered: Option<bool>,
}

#[derive(Debug, Deserialize)]
pub struct IssueWire {
    #[serde(default, deserialize_with = "lenient_string")]
    pub severity: String,
    #[serde(alias = "issue", deserialize_with = "lenient_string")]
    pub description: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub aspect: String,
}

#[derive(Debug, Deserialize)]
pub struct ContradictionWire {
    #[serde(deserialize_with = "lenient_string")]
    pub claim: String,
    pub source_a: SourceRef,
    pub source_b: SourceRef,
}

#[derive(Debug, Deserialize)]
pub struct DimensionsWire {
    #[serde(default, deserialize_with = "lenient_f64")]
    pub completeness: Option<f64>,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub accuracy: Option<f64>,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub relevance: Option<f64>,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub freshness: Option<f64>,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub coherence: Option<f64>,
}

impl CritiqueWire {
    pub fn into_critique(self, known: &[SourceId]) -> Result<Critique, String> {
        let verdict = match self.verdict.trim().to_uppercase().as_str() {
            "PASS" => Verdict::Pass,
            "WARN" | "WARNING" => Verdict::Warn,
            "REJECT" | "FAIL" => Verdict::Reject,
            other => return Err(format!("`verdict` must be PASS, WARN or REJECT (got `{other}`)")),
        };
        if self.aspects_required.is_empty() {
            return Err("`aspects_required` is empty; list the aspects a complete answer must cover".into());
        }
        let issues = self
            .issues
            .into_iter()
            .filter(|i| !i.description.trim().is_empty())
            .map(|i| Issue {
                severity: severity(&i.severity),
                description: i.description,
                aspect: Some(i.aspect).filter(|a| !a.trim().is_empty()),
            })
            .collect();
        // Only aspects that were required count as addressed (coverage ≤ 1).
        let required = self.aspects_required;
        let norm = |s: &str| crate::text::normalize_for_match(s);
        let addressed =
            self.aspects_addressed.into_iter().filter(|a| required.iter().any(|r| norm(r) == norm(a))).collect();
        let contradictions = self
            .contradictions
            .into_iter()
            .filter(|c| known.contains(&SourceId(c.source_a.0)) && known.contains(&SourceId(c.source_b.0)))
            .map(|c| Contradiction {
                claim: c.claim,
                source_a: SourceId(c.source_a.0),
                source_b: SourceId(c.source_b.0),
                resolution_needed: true,
            })
            .collect();
        let dimensions = self.dimensions.and_then(|d| {
            Some(DimensionScores {
                completeness: d.completeness?,
                accuracy: d.accuracy?,
                relevance: d.relevance?,
                freshness: d.freshness?,
                coherence: d.coherence?,
            })
        });
        Ok(Critique {
            verdict,
            issues,
            aspects_required: required,
            aspects_addressed: addressed,
            weak_aspects: self.weak_aspects,
            gaps: self.gaps,
            related_aspects: Vec::new(),
            contradictions,
            // Clarify only on a signal: a question with its readings named.
            needs_clarification: self
                .needs_clarification
                .and_then(ClarifyWire::into_clarification)
                .filter(|c| c.options.iter().filter(|o| !o.trim().is_empty()).count() >= 2),
            dimensions,
            answer_relevance: self.answer_relevance.map(|r| r.clamp(0.0, 1.0)),
            unanswered: self.unanswered.unwrap_or(false),
        })
    }
}

fn severity(s: &str) -> Severity {
    match s.trim().to_lowercase().as_str() {
        "critical" | "blocker" => Severity::Critical,
        "high" | "major" => Severity::High,
        "low" | "minor" | "trivial" => Severity::Low,
        _ => Severity::Medium,
    }
}

// ---------------------------------------------------------------- CLARIFY

#[derive(Debug, Deserialize)]
pub struct ClarifyWire {
    #[serde(default, deserialize_with = "lenient_string")]
    pub question: String,
    #[serde(default, deserialize_with = "lenient_list")]
    pub options: Vec<String>,
}

impl ClarifyWire {
    /// `None` for an empty question (a critic's "no clarification needed").
    pub fn into_clarification(self) -> Option<Clarification> {
        let question = self.question.trim().to_string();
        (!question.is_empty()).then(|| Clarification { question, options: self.options.into_iter().take(6).collect() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::structured::parse;

    #[test]
    fn plan_accepts_strings_and_seed_shapes() {
        let w: PlanWire = parse(
            r#"{"reflection": {"plan": "p"}, "new_queries": ["a b", {"query": "c", "intent": ["x", "y"], "aspect": ""}]}"#,
        )
        .unwrap();
        let (_, q) = w.into_queries().unwrap();
        assert_eq!(q[0].text, "a b");
        assert_eq!((q[1].intent.as_str(), q[1].aspect.clone()), ("x; y", None));
        let empty: PlanWire = parse(r#"{"reflection": {"plan": "p"}, "queries": []}"#).unwrap();
        assert!(empty.into_queries().unwrap_err().contains("empty"));
        let no_reflection = parse::<PlanWire>(r#"{"queries": ["a b"]}"#).unwrap_err();
        assert!(no_reflection.contains("missing field `reflection`"), "{no_reflection}");
    }

    #[test]
    fn review_ids_are_lenient_but_must_be_known() {
        let w: ReviewWire = parse(
            r#"{"verdicts": [{"id": "[2]", "keep": false, "reason": "Off topic!", "relevance": "80%"}, {"id": 9, "keep": true}]}"#,
        )
        .unwrap();
        let v = w.into_verdicts(&[SourceId(1), SourceId(2)]).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].id, v[0].reason.as_deref(), v[0].relevance), (SourceId(2), Some("off_topic"), 0.8));
        let none: ReviewWire = parse(r#"{"verdicts": [{"id": 7, "keep": true}]}"#).unwrap();
        assert!(none.into_verdicts(&[SourceId(1)]).unwrap_err().contains("1"));
    }

    #[test]
    fn draft_citations_must_name_given_sources() {
        let raw = r#"{"answer": "X [1]", "claims": [{"text": "X", "citations": [{"source": 1, "quote": "x"}, {"source": "[5]", "quote": "y"}]}]}"#;
        let err = parse::<DraftWire>(raw).unwrap().into_draft(&[SourceId(1)]).unwrap_err();
        assert!(err.contains("5") && err.contains("cite only 1"), "{err}");
        let ok = parse::<DraftWire>(
            r#"{"markdown": "X [1]", "claims": [{"claim": "X", "sources": [{"id": 1, "quote": "x"}]}]}"#,
        );
        assert_eq!(ok.unwrap().into_draft(&[SourceId(1)]).unwrap().claims[0].citations[0].source, SourceId(1));
    }

    #[test]
    fn critique_normalises_verdict_severity_and_coverage() {
        let raw = r#"{"verdict": "Warn", "issues": [{"severity": "MAJOR", "description": "thin"}],
            "aspects_required": "- speed\n- safety", "aspects_addressed": ["Speed", "price"],
            "needs_clarification": {"question": "", "options": []},
            "dimensions": {"completeness": 70, "accuracy": 0.9, "relevance": 1, "freshness": 0.5, "coherence": 0.8}}"#;
        let c = parse::<CritiqueWire>(raw).unwrap().into_critique(&[]).unwrap();
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(c.issues[0].severity, Severity::High);
        assert_eq!(c.aspects_required, vec!["speed", "safety"]);
        assert_eq!(c.aspects_addressed, vec!["Speed"]);
        assert_eq!(c.needs_clarification, None);
        assert_eq!(c.dimensions.unwrap().completeness, 0.7);
        let bad = parse::<CritiqueWire>(r#"{"verdict": "maybe", "aspects_required": ["a"]}"#).unwrap();
        assert!(bad.into_critique(&[]).unwrap_err().contains("PASS, WARN or REJECT"));
    }
}
