//! PDFs: extraction speed and fidelity, and finding the page that answers.
//!
//! Over a folder of real PDFs (`SLEUTH_BENCH_PDFS`; `bench/pdf_corpus.sh`
//! fetches the documentation PDFs that Debian's doc packages ship):
//!
//! - **speed**: pages per second of `extract_pdf` (median of 3 runs per
//!   file), and `pdftotext` (poppler) on the same file for scale;
//! - **fidelity**: sentences of 8 or more words taken from `pdftotext`'s
//!   text (the independent reference), every k-th up to 150 per file; the
//!   share found in sleuth's extraction (both sides lowercased, letters and
//!   digits only, so spacing and hyphenation differences do not count);
//! - **page recall**: the folder indexed as a corpus (text by page); for
//!   sentences on known pages (pdftotext's form feeds number them), a
//!   query of the sentence's six longest content words, searched; the share
//!   whose top hit (recall@1) or top five (recall@5) is that file at that
//!   page (`#page=N`). Queries are keywords of a sentence, not hand-written
//!   questions: a measure of retrieval by page, not of answering.
//!
//! `SLEUTH_BENCH_PDFS=.home/bench-pdf cargo bench --bench pdf`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench code: a failure is a panic

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sleuth::search::local::extract::extract_pdf;
use sleuth::search::local::{LocalConfig, LocalCorpus, index_folder};
use sleuth::text::STOPWORDS;

const SENTENCES_PER_FILE: usize = 150;
const QUERIES_PER_FILE: usize = 20;

fn main() {
    let Some(dir) = std::env::var_os("SLEUTH_BENCH_PDFS").map(PathBuf::from) else {
        println!("set SLEUTH_BENCH_PDFS to a folder of PDFs (bench/pdf_corpus.sh makes one)");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf")))
        .collect();
    files.sort();
    println!("{:<18} {:>5} {:>12} {:>14} {:>10}", "file", "pages", "sleuth p/s", "pdftotext p/s", "fidelity");
    let (mut rates, mut fidelities, mut found_all, mut checked_all) = (Vec::new(), Vec::new(), 0, 0);
    let mut page_sentences: Vec<(String, u32, String)> = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let mut times = Vec::new();
        let mut pdf = None;
        for _ in 0..3 {
            let t = Instant::now();
            pdf = Some(extract_pdf(&bytes));
            times.push(t.elapsed().as_secs_f64());
        }
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let pdf = match pdf.unwrap() {
            Ok(p) => p,
            Err(e) => {
                println!("{name:<18} skipped: {e}");
                continue;
            }
        };
        let pages = pdf.page_count();
        let rate = pages as f64 / median(&mut times);
        let t = Instant::now();
        let reference = pdftotext(f);
        let poppler_rate = pages as f64 / t.elapsed().as_secs_f64();
        let ours = squash(&pdf.pages.iter().flatten().cloned().collect::<Vec<_>>().join(" "));
        let sentences = sentences(&reference);
        let step = (sentences.len() / SENTENCES_PER_FILE).max(1);
        let sample: Vec<&(u32, String)> = sentences.iter().step_by(step).take(SENTENCES_PER_FILE).collect();
        let found = sample.iter().filter(|(_, s)| ours.contains(&squash(s))).count();
        let fidelity = found as f64 / sample.len().max(1) as f64;
        println!("{name:<18} {pages:>5} {rate:>12.1} {poppler_rate:>14.1} {:>9.1}%", fidelity * 100.0);
        rates.push(rate);
        fidelities.push(fidelity);
        found_all += found;
        checked_all += sample.len();
        let qstep = (sentences.len() / QUERIES_PER_FILE).max(1);
        for (page, s) in sentences.iter().skip(qstep / 2).step_by(qstep).take(QUERIES_PER_FILE) {
            page_sentences.push((name.clone(), *page, s.clone()));
        }
    }
    println!(
        "\nextraction: median {:.1} pages/s over {} PDFs; fidelity median {:.1}%, pooled {:.1}% ({found_all} of {checked_all} sentences)",
        median(&mut rates),
        rates.len(),
        median(&mut fidelities) * 100.0,
        100.0 * found_all as f64 / checked_all.max(1) as f64
    );
    page_recall(&dir, &page_sentences);
}

fn page_recall(dir: &Path, queries: &[(String, u32, String)]) {
    let index_root = tempfile::tempdir().unwrap();
    let cfg = LocalConfig { corpus: Some(dir.to_path_buf()), max_file_mb: 64, ..LocalConfig::default() };
    let t = Instant::now();
    let (_, summary) = index_folder(&cfg, index_root.path(), Some(dir), &|_| {}).unwrap();
    println!("\nindexed in {:.1} s: {}", t.elapsed().as_secs_f64(), summary.describe());
    let corpus = LocalCorpus::open_or_build(&cfg, index_root.path(), &|_| {}).unwrap();
    let (mut at1, mut at5) = (0, 0);
    for (file, page, sentence) in queries {
        let query = keywords(sentence, 6);
        let hits = corpus.search(&query, &[], 5).unwrap();
        let want = format!("page={page}");
        let rank = hits.iter().position(|h| h.path.ends_with(file.as_str()) && h.anchor.as_deref() == Some(&want));
        at1 += usize::from(rank == Some(0));
        at5 += usize::from(rank.is_some());
    }
    let n = queries.len().max(1) as f64;
    println!(
        "page recall over {} queries: @1 {:.1}%, @5 {:.1}%",
        queries.len(),
        100.0 * at1 as f64 / n,
        100.0 * at5 as f64 / n
    );
}

/// pdftotext's text (form feeds between pages).
fn pdftotext(f: &Path) -> String {
    let out = Command::new("pdftotext").arg(f).arg("-").output().expect("pdftotext (poppler-utils) is installed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Sentences of 8+ words, mostly letters, with their page number.
fn sentences(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for (i, page) in text.split('\u{c}').enumerate() {
        let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
        for s in flat.split_inclusive(". ") {
            let s = s.trim();
            let words: Vec<&str> = s.split_whitespace().collect();
            let letters = s.chars().filter(|c| c.is_alphabetic()).count();
            if words.len() >= 8 && letters * 10 >= s.len() * 7 {
                out.push((i as u32 + 1, s.to_string()));
            }
        }
    }
    out
}

/// Lowercased letters and digits only.
fn squash(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The `n` longest content words of a sentence.
fn keywords(s: &str, n: usize) -> String {
    let mut words: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() > 2 && !STOPWORDS.contains(&w.as_str()))
        .collect();
    words.sort_by_key(|w| std::cmp::Reverse(w.len()));
    words.dedup();
    words.truncate(n);
    words.join(" ")
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}
