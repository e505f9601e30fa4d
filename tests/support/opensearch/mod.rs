//! A fake OpenSearch cluster and the checker of the requests sent to it.

pub mod cluster;
pub mod schema;
