use serde::{Deserialize, Serialize};

/// `[builtin]`: the built-in reasoner (no model, deterministic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BuiltinConfig {
    /// At most this many aspects are taken from a question.
    pub max_aspects: usize,
    /// Related aspects (concepts the sources pair with the question) the
    /// critique may require; 0 turns them off.
    pub related_aspects: usize,
    /// REVIEW: sources whose relevance to the question's aspects is below
    /// this are rejected as off-topic.
    pub relevance_threshold: f64,
    /// REVIEW: sources with fewer words are rejected as too short.
    pub min_words: usize,
    /// REVIEW: a source this similar (word shingles) to a kept one is a duplicate.
    pub duplicate_similarity: f64,
    /// DRAFT: relevance vs. diversity in sentence selection (MMR), in [0, 1].
    pub mmr_lambda: f64,
    /// DRAFT: sentences in the direct answer.
    pub answer_sentences: usize,
    /// DRAFT: supporting sentences per aspect.
    pub sentences_per_aspect: usize,
    /// DRAFT: the most relevant sources drafted from.
    pub draft_sources: usize,
    /// DRAFT: each of this many most relevant sources adds its best
    /// sentence when the answer does not cite it yet.
    pub cover_sources: usize,
    /// DRAFT: the direct answer opens with the first sentence of the best
    /// of this many most relevant sources that the question names (what a
    /// reference page says its item is); 0 turns it off.
    pub opening_sources: usize,
    /// ASK: the top sources compared for separate meanings.
    pub ask_sources: usize,
    /// ASK: groups of sources less similar than this (cosine of their
    /// vocabularies, question terms left out) are separate meanings.
    pub ask_max_similarity: f64,
    /// ASK: each group needs at least this many sources.
    pub ask_min_group: usize,
    /// ASK: the groups' similarity inside each of them, over their
    /// similarity across, must reach this: two meanings hold together
    /// apart from each other.
    pub ask_separation: f64,
    /// DRAFT: the answer model's weights (`answering`).
    pub answer: super::answering::AnswerWeights,
    /// DRAFT: the direct answer quotes at most this many sentences from
    /// one part (section) of a page.
    pub answer_per_part: usize,
    /// DRAFT: the direct answer's quoted sentences hold about this many
    /// words at most (a code example aside).
    pub answer_words: usize,
    /// DRAFT: parts of the direct answer that show a code example, at most
    /// (how-to questions and questions naming code; the first part may
    /// show a second short one).
    pub answer_examples: usize,
    /// DRAFT: a part whose heading names the whole question scores this
    /// much more (× (1 + gain × share)).
    pub heading_gain: f64,
    /// DRAFT: the opening of the page the question names scores this much
    /// more (× (1 + gain)).
    pub subject_gain: f64,
    /// DRAFT: how a sentence's worth in the direct answer is made.
    pub answer_weights: super::direct::AnswerPartWeights,
    /// DRAFT: how sentences are weighed in the aspects' sections.
    pub draft_weights: DraftWeights,
    /// REVIEW, DRAFT, CRITIQUE: a question word found only inside an
    /// identifier (`leading_zeros` for "leading zeros") is evidence only
    /// when it is the same word (`extern` for "extern") or the question
    /// wrote it in code too; `false` counts every occurrence.
    pub word_sense_in_code: bool,
}

/// `[builtin.draft_weights]`: a sentence's worth in an aspect's section is
/// `score × (literal × L + context × C + section × S) × (1 - centrality +
/// centrality × central)`; a related concept's is scaled by
/// `related_base + section`. Below `relevance_floor` of the best worth, a
/// sentence appears nowhere in the report; a kept source not cited yet
/// adds its best sentence when it reaches `cover_floor` of the best worth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DraftWeights {
    pub literal: f64,
    pub context: f64,
    pub section: f64,
    pub centrality: f64,
    pub related_base: f64,
    pub relevance_floor: f64,
    pub cover_floor: f64,
}

impl Default for DraftWeights {
    fn default() -> Self {
        Self {
            literal: 0.45,
            context: 0.2,
            section: 0.35,
            centrality: 0.4,
            related_base: 0.3,
            relevance_floor: 0.35,
            cover_floor: 0.2,
        }
    }
}

impl BuiltinConfig {
    /// The direct answer's settings.
    pub fn direct_settings(&self) -> super::direct::DirectSettings {
        super::direct::DirectSettings {
            max_sentences: self.answer_sentences.max(1),
            per_part: self.answer_per_part.max(1),
            max_words: self.answer_words,
            max_examples: self.answer_examples,
            heading_gain: self.heading_gain,
            subject_gain: self.subject_gain,
            max_sources: self.draft_sources,
            opening_sources: self.opening_sources,
            weights: self.answer_weights,
        }
    }
}

impl Default for BuiltinConfig {
    fn default() -> Self {
        Self {
            max_aspects: 5,
            related_aspects: 2,
            relevance_threshold: 0.3,
            min_words: 30,
            duplicate_similarity: 0.8,
            mmr_lambda: 0.7,
            answer_sentences: 12,
            sentences_per_aspect: 4,
            draft_sources: 20,
            cover_sources: 10,
            opening_sources: 3,
            ask_sources: 8,
            ask_max_similarity: 0.05,
            ask_min_group: 2,
            ask_separation: 3.0,
            answer: super::answering::AnswerWeights::default(),
            answer_per_part: 2,
            answer_words: 300,
            answer_examples: 1,
            heading_gain: 0.25,
            subject_gain: 0.0,
            answer_weights: super::direct::AnswerPartWeights::default(),
            draft_weights: DraftWeights::default(),
            word_sense_in_code: true,
        }
    }
}
