//! The local corpus: a tantivy index of a folder of documents.

mod config;

pub use config::LocalConfig;
