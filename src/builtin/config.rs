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
            answer_sentences: 3,
            sentences_per_aspect: 4,
            draft_sources: 20,
            cover_sources: 6,
            opening_sources: 3,
            ask_sources: 8,
            ask_max_similarity: 0.05,
            ask_min_group: 2,
        }
    }
}
