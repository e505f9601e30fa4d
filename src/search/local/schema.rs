//! The tantivy schema: one document per passage (searched), one per page
//! (its whole text, for `fetch`) and one per page's definition (its title
//! and opening sentences, searched on their own).

use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer};

/// The analyzer of every searched field: words, lowercased, English stems.
pub const ANALYZER: &str = "en_stem";

/// The same analysis as the index's, for code that must agree with it
/// (query terms, the built-in reasoner's statistics).
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(Stemmer::new(tantivy::tokenizer::Language::English))
        .build()
}

pub const KIND_PASSAGE: &str = "passage";
pub const KIND_PAGE: &str = "page";
/// A page's defining text (title and opening sentences), searched apart
/// from passages: see `definitions`.
pub const KIND_DEFINITION: &str = "definition";

#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// `passage` or `page`.
    pub kind: Field,
    /// Corpus-relative page path (exact term: deletes and fetches use it).
    pub path: Field,
    pub anchor: Field,
    pub title: Field,
    pub heading: Field,
    pub body: Field,
    pub lang: Field,
    /// Page documents only: the title (stored, not searched).
    pub page_title: Field,
    /// Page documents only: the whole text `fetch` returns.
    pub page_text: Field,
    /// Page documents only: modification time, seconds since the epoch.
    pub mtime: Field,
    /// Passage documents: words in the passage (a column, for ranking).
    pub words: Field,
    /// Passage documents: its section's link targets, space-separated, on
    /// the section's first passage (stored, not searched): what READ follows.
    pub links: Field,
    /// Definition documents: the page's title (searched, stored). Fields of
    /// their own, so definitions never enter passage search or its term
    /// statistics.
    pub def_title: Field,
    /// Definition documents: the page's opening sentences (searched, stored).
    pub def_body: Field,
}

pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    let fields = Fields {
        kind: b.add_text_field("kind", STRING),
        path: b.add_text_field("path", STRING | STORED | FAST),
        anchor: b.add_text_field("anchor", STORED),
        title: b.add_text_field("title", text.clone()),
        heading: b.add_text_field("heading", text.clone()),
        body: b.add_text_field("body", text.clone()),
        lang: b.add_text_field("lang", STRING | STORED),
        page_title: b.add_text_field("page_title", STORED),
        page_text: b.add_text_field("page_text", STORED),
        mtime: b.add_u64_field("mtime", INDEXED | STORED),
        words: b.add_u64_field("words", FAST),
        links: b.add_text_field("links", STORED),
        def_title: b.add_text_field("def_title", text.clone()),
        def_body: b.add_text_field("def_body", text),
    };
    (b.build(), fields)
}

/// The fields of an opened index, checked against ours.
pub fn fields_of(schema: &Schema) -> Option<Fields> {
    let f = |name: &str| schema.get_field(name).ok();
    Some(Fields {
        kind: f("kind")?,
        path: f("path")?,
        anchor: f("anchor")?,
        title: f("title")?,
        heading: f("heading")?,
        body: f("body")?,
        lang: f("lang")?,
        page_title: f("page_title")?,
        page_text: f("page_text")?,
        mtime: f("mtime")?,
        words: f("words")?,
        links: f("links")?,
        def_title: f("def_title")?,
        def_body: f("def_body")?,
    })
}
