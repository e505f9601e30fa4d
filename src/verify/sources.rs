//! The texts of a report's sources, from wherever the user has them:
//! fetched now (web pages through sleuth's fetcher, with its timeouts and
//! size cap; `file://` addresses read and extracted as the local corpus
//! reads files), a folder of saved texts, or a session's stored sources.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use serde::Serialize;

use super::report::ListedSource;
use crate::search::ProviderError;
use crate::search::local::extract::{Extracted, FileKind, decode_text, extract};
use crate::search::web::{WebClient, WebConfig};
use crate::session::SessionDir;
use crate::text::{sanitize, sha256_hex};

/// Pages fetched at once (the fetcher's per-host limit applies too).
const FETCH_CONCURRENCY: usize = 6;

/// What became of one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceText {
    pub number: u32,
    pub url: String,
    /// Where the text came from: "fetched", "file", a path, "session …", "bundle".
    pub via: String,
    /// The text, or why there is none.
    #[serde(skip)]
    pub text: Result<String, String>,
    /// SHA-256 of the text (UTF-8), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub retrieved_at_ms: u64,
    /// Why it could not be had.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the address is gone for good (HTTP 404/410, no such file),
    /// rather than unreachable now.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

impl SourceText {
    pub fn read(number: u32, url: &str, via: String, text: String, retrieved_at_ms: u64) -> Self {
        Self {
            number,
            url: url.to_string(),
            via,
            sha256: Some(sha256_hex(text.as_bytes())),
            text: Ok(text),
            retrieved_at_ms,
            error: None,
            gone: false,
        }
    }

    pub fn failed(number: u32, url: &str, via: String, why: String, gone: bool) -> Self {
        Self {
            number,
            url: url.to_string(),
            via,
            text: Err(why.clone()),
            sha256: None,
            retrieved_at_ms: now_ms(),
            error: Some(why),
            gone,
        }
    }
}

pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Fetches every wanted source now: web pages with the `[web]` fetcher's
/// timeouts and size cap, `file://` addresses from disk.
pub async fn fetch_all(
    sources: &[ListedSource],
    wanted: &BTreeSet<u32>,
    web: &WebConfig,
) -> Result<BTreeMap<u32, SourceText>, String> {
    let client = WebClient::new(web)?;
    let max_bytes = web.max_page_bytes;
    let jobs = sources.iter().filter(|s| wanted.contains(&s.number)).map(|s| {
        let client = client.clone();
        async move { (s.number, fetch_one(&client, s.number, &s.url, max_bytes).await) }
    });
    Ok(futures::stream::iter(jobs).buffer_unordered(FETCH_CONCURRENCY).collect::<BTreeMap<_, _>>().await)
}

/// One source fetched now.
pub async fn fetch_one(client: &WebClient, number: u32, url: &str, max_bytes: usize) -> SourceText {
    if url.to_ascii_lowercase().starts_with("file://") {
        return read_file_url(number, url, max_bytes);
    }
    match client.fetch_page(url).await {
        Ok(doc) => SourceText::read(number, url, "fetched".into(), sanitize(&doc.text), now_ms()),
        Err(e) => {
            let gone = matches!(&e, ProviderError::Permanent { message } if is_gone(message));
            SourceText::failed(number, url, "fetched".into(), e.to_string(), gone)
        }
    }
}

/// A status that says the page is gone rather than unreachable now.
fn is_gone(message: &str) -> bool {
    ["404", "410"].iter().any(|code| message.contains(code))
}

/// A `file://` address read as the local corpus reads files.
fn read_file_url(number: u32, url: &str, max_bytes: usize) -> SourceText {
    let path = match reqwest::Url::parse(url).ok().and_then(|u| u.to_file_path().ok()) {
        Some(p) => p,
        None => return SourceText::failed(number, url, "file".into(), "not a file path".into(), false),
    };
    read_path(number, url, &path, "file".into(), max_bytes)
}

/// The text of the file at `path`, extracted by its kind (HTML, Markdown,
/// plain text; anything else read as plain text).
pub fn read_path(number: u32, url: &str, path: &Path, via: String, max_bytes: usize) -> SourceText {
    let fail = |why: String, gone: bool| SourceText::failed(number, url, via.clone(), why, gone);
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return fail(format!("{}: {e}", path.display()), e.kind() == std::io::ErrorKind::NotFound),
    };
    // Only regular files: a FIFO or a device would block or never end.
    if !meta.is_file() {
        return fail(format!("{} is not a regular file", path.display()), false);
    }
    if meta.len() > max_bytes as u64 {
        return fail(format!("{} is larger than {max_bytes} bytes (web.max_page_bytes)", path.display()), false);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return fail(format!("{}: {e}", path.display()), false),
    };
    let text = match decode_text(&bytes) {
        Ok((t, _)) => sanitize(&t),
        Err(reason) => return fail(format!("{}: {} content is not read", path.display(), reason.label()), false),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let kind = FileKind::of(path).unwrap_or(FileKind::Text);
    let text = match extract(kind, &text, &name) {
        Extracted::Page(p) => p.render(),
        // A redirect stub or an empty page: its words as they are.
        _ => text,
    };
    let modified = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64);
    let mut out = SourceText::read(number, url, via, text, now_ms());
    out.retrieved_at_ms = modified.unwrap_or(out.retrieved_at_ms);
    out
}

/// Sources saved in a folder, one file per source named by its number:
/// `3.txt`, `3.md` or `3.html` (what `sleuth verify --json` lists).
pub fn from_dir(
    dir: &Path,
    sources: &[ListedSource],
    wanted: &BTreeSet<u32>,
    max_bytes: usize,
) -> BTreeMap<u32, SourceText> {
    let mut out = BTreeMap::new();
    for n in wanted {
        let url = sources.iter().find(|s| s.number == *n).map_or(String::new(), |s| s.url.clone());
        let found: Option<PathBuf> =
            ["txt", "md", "markdown", "html", "htm"].iter().map(|e| dir.join(format!("{n}.{e}"))).find(|p| p.exists());
        let text = match found {
            Some(p) => read_path(*n, &url, &p, p.display().to_string(), max_bytes),
            None => SourceText::failed(
                *n,
                &url,
                dir.display().to_string(),
                format!("no file {n}.txt, {n}.md or {n}.html in {}", dir.display()),
                false,
            ),
        };
        out.insert(*n, text);
    }
    out
}

/// A session's stored source texts (`sources/<n>.txt`), as VERIFY read them.
pub fn from_session(dir: &SessionDir, sources: &[ListedSource], wanted: &BTreeSet<u32>) -> BTreeMap<u32, SourceText> {
    let mut out = BTreeMap::new();
    for n in wanted {
        let url = sources.iter().find(|s| s.number == *n).map_or(String::new(), |s| s.url.clone());
        let path = dir.sources_dir().join(format!("{n}.txt"));
        let via = format!("session {}", dir.id);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => {
                let at = std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_millis() as u64);
                SourceText::read(*n, &url, via, t, at)
            }
            Err(e) => SourceText::failed(*n, &url, via, format!("{}: {e}", path.display()), false),
        };
        out.insert(*n, text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_as_the_corpus_reads_them_and_special_files_refused() {
        let dir = tempfile::tempdir().unwrap();
        let md = dir.path().join("3.md");
        std::fs::write(&md, "# Fines\n\nA first breach costs **50 euros**.\n").unwrap();
        let wanted: BTreeSet<u32> = [3, 4].into_iter().collect();
        let got = from_dir(dir.path(), &[], &wanted, 1 << 20);
        let text = got[&3].text.clone().unwrap_or_default();
        assert!(text.contains("A first breach costs") && text.contains("50 euros"), "{text}");
        assert!(got[&4].error.as_deref().unwrap_or("").contains("no file 4.txt"));
        let not_file = read_path(1, "file:///", dir.path(), "file".into(), 1 << 20);
        assert!(not_file.error.unwrap_or_default().contains("not a regular file"));
        let missing = read_path(1, "file:///x", &dir.path().join("nope.md"), "file".into(), 1 << 20);
        assert!(missing.gone);
    }
}
