//! A reasoner and a provider driven by a script.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use sleuth::engine::model::*;
use sleuth::engine::reasoner::*;
use sleuth::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// A document the scripted provider can return.
#[derive(Clone, Debug)]
pub struct Doc {
    pub locator: String,
    pub title: String,
    pub text: String,
}

pub fn doc(locator: &str, text: &str) -> Doc {
    Doc { locator: locator.into(), title: locator.into(), text: text.into() }
}

/// `n` distinct documents about a topic, each with a quotable first sentence.
pub fn corpus(n: usize) -> Vec<Doc> {
    (1..=n)
        .map(|i| {
            doc(
                &format!("https://docs.example.org/page{i}"),
                &format!(
                    "Fact number {i} says that widget {i} connects to gadget {}. It was measured in lab {i} on day {}. Unrelated filler {} text.",
                    i * 7,
                    i * 3,
                    i * 11
                ),
            )
        })
        .collect()
}

#[derive(Clone, Debug)]
pub enum Fault {
    /// Fail every call with a transient error.
    Always,
    /// Fail the first `n` calls.
    First(u32),
}

pub struct ScriptedProvider {
    pub name: String,
    pub docs: Vec<Doc>,
    pub fault: Option<Fault>,
    /// Queries containing this text return nothing.
    pub empty_for: Option<String>,
    pub delay: Duration,
    /// Time each fetch takes (a politeness queue, a slow host).
    pub fetch_delay: Duration,
    pub published: Option<String>,
    pub calls: AtomicU32,
    pub queries: Mutex<Vec<SearchQuery>>,
}

impl ScriptedProvider {
    pub fn new(name: &str, docs: Vec<Doc>) -> Self {
        Self {
            name: name.into(),
            docs,
            fault: None,
            empty_for: None,
            delay: Duration::ZERO,
            fetch_delay: Duration::ZERO,
            published: None,
            calls: AtomicU32::new(0),
            queries: Mutex::new(Vec::new()),
        }
    }
}

#[async_trait]
impl SearchProvider for ScriptedProvider {
    fn name(&self) -> &str {
        &self.name
    }

    async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        self.queries.lock().unwrap().push(q.clone());
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        match self.fault {
            Some(Fault::Always) => return Err(ProviderError::transient("503 Service Unavailable")),
            Some(Fault::First(n)) if call < n => return Err(ProviderError::transient("503 Service Unavailable")),
            _ => {}
        }
        if self.empty_for.as_deref().is_some_and(|e| q.text.contains(e)) {
            return Ok(Vec::new());
        }
        // Rotate by a hash of the query so different queries surface different documents.
        let hash =
            q.text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let offset = (hash % self.docs.len().max(1) as u64) as usize;
        Ok(self
            .docs
            .iter()
            .cycle()
            .skip(offset)
            .take(self.docs.len().min(q.limit))
            .enumerate()
            .map(|(rank, d)| SearchHit {
                locator: d.locator.clone(),
                title: d.title.clone(),
                snippet: d.text.chars().take(80).collect(),
                score: 10.0 - rank as f32,
                kind: SourceKind::Web,
                canonical: None,
                heading: None,
                published: self.published.clone(),
                site: None,
                tier: Some(1),
                scholarly: None,
            })
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        if !self.fetch_delay.is_zero() {
            tokio::time::sleep(self.fetch_delay).await;
        }
        let d = self.docs.iter().find(|d| d.locator == hit.locator).ok_or(ProviderError::permanent("404"))?;
        Ok(FetchedDoc::text(d.text.clone()))
    }
}

/// Per-iteration critique shape: (aspects addressed, aspects required).
#[derive(Clone, Debug)]
pub struct Turn {
    pub addressed: usize,
    pub required: usize,
    pub issues: Vec<(&'static str, Severity)>,
    pub clarify: bool,
    /// Cite at most this many sources in the draft.
    pub cite: usize,
    /// Replace the first claim's quote with words no source contains.
    pub fabricate: bool,
    /// Repeat the previous draft verbatim.
    pub same_draft: bool,
    /// The critic's answer relevance (`None`: not judged).
    pub relevance: Option<f64>,
    /// The critic finds that the sources do not answer.
    pub unanswered: bool,
}

impl Turn {
    pub fn coverage(addressed: usize, required: usize) -> Self {
        Self {
            addressed,
            required,
            issues: Vec::new(),
            clarify: false,
            cite: 5,
            fabricate: false,
            same_draft: false,
            relevance: Some(0.9),
            unanswered: false,
        }
    }
}

pub struct ScriptedReasoner {
    pub turns: Vec<Turn>,
    /// Usage charged per call, by role.
    pub usage: HashMap<Role, (u64, u64, f64)>,
    pub fail: HashMap<Role, String>,
    pub calls: Mutex<Vec<Role>>,
    pub plan_contexts: Mutex<Vec<PlanContext>>,
    pub draft_delay: Duration,
    pub queries_per_plan: usize,
    /// Sources REVIEW rejects as off topic unless they come found again.
    pub off_topic: Vec<SourceId>,
    pub review_contexts: Mutex<Vec<ReviewContext>>,
}

impl ScriptedReasoner {
    pub fn new(turns: Vec<Turn>) -> Self {
        Self {
            turns,
            usage: HashMap::new(),
            fail: HashMap::new(),
            calls: Mutex::new(Vec::new()),
            plan_contexts: Mutex::new(Vec::new()),
            draft_delay: Duration::ZERO,
            queries_per_plan: 3,
            off_topic: Vec::new(),
            review_contexts: Mutex::new(Vec::new()),
        }
    }

    fn turn(&self, iteration: u32) -> Turn {
        let i = (iteration as usize).saturating_sub(1).min(self.turns.len().saturating_sub(1));
        self.turns.get(i).cloned().unwrap_or_else(|| Turn::coverage(1, 1))
    }

    fn reply<T>(&self, role: Role, value: T) -> Result<Reply<T>, ReasonerError> {
        self.calls.lock().unwrap().push(role);
        if let Some(msg) = self.fail.get(&role) {
            return Err(ReasonerError::Malformed { role: role.to_string(), attempts: 3, last_error: msg.clone() });
        }
        let usage = self.usage.get(&role).map(|(p, c, cost)| Usage {
            role,
            model: "scripted".into(),
            prompt_tokens: *p,
            completion_tokens: *c,
            cost_usd: *cost,
            estimated: false,
            calls: 1,
            cached_tokens: 0,
        });
        Ok(Reply { value, usage: usage.into_iter().collect() })
    }
}

fn first_sentence(text: &str) -> String {
    text.split(". ").next().unwrap_or(text).to_string()
}

#[async_trait]
impl Reasoner for ScriptedReasoner {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn plan(&self, ctx: PlanContext) -> Result<Reply<PlanOutput>, ReasonerError> {
        self.plan_contexts.lock().unwrap().push(ctx.clone());
        let n = ctx.iteration;
        let queries = (1..=self.queries_per_plan)
            .map(|k| PlannedQuery::new(format!("widget facts round {n} part {k}"), "scripted"))
            .collect();
        let reflection = Reflection {
            plan: format!("scripted plan for iteration {n}"),
            assumptions: vec!["widgets exist".into()],
            risks: vec!["gadgets".into()],
            success_criteria: vec!["facts".into()],
        };
        self.reply(Role::Plan, PlanOutput { reflection, queries })
    }

    async fn review(&self, ctx: ReviewContext) -> Result<Reply<Vec<SourceVerdict>>, ReasonerError> {
        self.review_contexts.lock().unwrap().push(ctx.clone());
        let verdicts = ctx
            .candidates
            .iter()
            .map(|c| {
                let id = c.meta.id;
                if self.off_topic.contains(&id) && !ctx.found_again.contains(&id) {
                    SourceVerdict { id, kept: false, reason: Some("off_topic".into()), relevance: 0.1, signals: vec![] }
                } else {
                    SourceVerdict { id, kept: true, reason: None, relevance: 1.0, signals: vec![] }
                }
            })
            .collect();
        self.reply(Role::Review, verdicts)
    }

    async fn draft(&self, ctx: DraftContext) -> Result<Reply<Draft>, ReasonerError> {
        if !self.draft_delay.is_zero() {
            tokio::time::sleep(self.draft_delay).await;
        }
        let turn = self.turn(ctx.iteration);
        if turn.same_draft
            && let Some(prev) = ctx.previous_draft.clone()
        {
            return self.reply(Role::Draft, prev);
        }
        let mut claims = Vec::new();
        let mut md =
            format!("Answer for iteration {} with distinct wording {}.\n\n", ctx.iteration, ctx.iteration * 13);
        for s in ctx.sources.iter().take(turn.cite) {
            let quote = first_sentence(&s.text);
            md.push_str(&format!("- {} [{}]\n", quote, s.meta.id.0));
            claims.push(Claim {
                text: quote.clone(),
                citations: vec![Citation { source: s.meta.id, quote }],
                aspect: None,
            });
        }
        if turn.fabricate
            && let Some(c) = claims.first_mut()
        {
            c.citations[0].quote = "widgets are made of cheese".into();
        }
        self.reply(Role::Draft, Draft { markdown: md, claims })
    }

    async fn critique(&self, ctx: CritiqueContext) -> Result<Reply<Critique>, ReasonerError> {
        let turn = self.turn(ctx.iteration);
        let required: Vec<String> = (1..=turn.required).map(|i| format!("aspect {i}")).collect();
        let addressed = required.iter().take(turn.addressed).cloned().collect();
        let gaps = required.iter().skip(turn.addressed).cloned().collect();
        let critique = Critique {
            verdict: if turn.addressed == turn.required { Verdict::Pass } else { Verdict::Warn },
            issues: turn
                .issues
                .iter()
                .map(|(d, s)| Issue { severity: *s, description: d.to_string(), aspect: None })
                .collect(),
            aspects_required: required,
            aspects_addressed: addressed,
            weak_aspects: vec![],
            gaps,
            related_aspects: Vec::new(),
            contradictions: vec![],
            needs_clarification: (turn.clarify && ctx.answered_asks.is_empty()).then(|| Clarification {
                question: "Which widget do you mean?".into(),
                options: vec!["the blue widget".into(), "the red widget".into()],
            }),
            dimensions: None,
            answer_relevance: turn.relevance,
            unanswered: turn.unanswered,
        };
        self.reply(Role::Critique, critique)
    }

    async fn write(&self, ctx: WriteContext, stream: ReportStream) -> Result<Reply<WriteOutput>, ReasonerError> {
        let body = ctx.draft.markdown.clone();
        for chunk in body.split_inclusive(' ') {
            let _ = stream.send(chunk.to_string());
        }
        self.reply(Role::Write, WriteOutput { markdown: body, claims: ctx.draft.claims.clone() })
    }

    async fn clarify(&self, ctx: ClarifyContext) -> Result<Reply<Clarification>, ReasonerError> {
        let c = ctx
            .critique
            .and_then(|c| c.needs_clarification)
            .unwrap_or(Clarification { question: "Which one?".into(), options: vec![] });
        self.reply(Role::Clarify, c)
    }
}
