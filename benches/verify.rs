//! `sleuth verify`'s checker and evidence bundles:
//!
//! 1. Check speed: a 100-claim report over 20 sources, at 1 MB and 8 MB of
//!    source text in all — the time to prepare the sources (per MB) and to
//!    decide every cited sentence (per claim), medians of 7 runs. The
//!    report mixes sentences copied from a source (half with a quote given,
//!    as a session's claims have), reworded ones and fabricated ones.
//! 2. Bundle size against session size: real sessions of the release
//!    binary on a generated 60-page corpus, each exported as a bundle (and
//!    as HTML and PDF, for scale).
//!
//! `cargo bench --bench verify`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // bench code: a failure is a panic

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use sleuth::engine::model::{Citation, Claim, SourceId};
use sleuth::verify::report::parse_report;
use sleuth::verify::sources::SourceText;
use sleuth::verify::{Summary, check_report};

const SOURCES: usize = 20;
const CLAIMS: usize = 100;
const RUNS: usize = 7;

/// A deterministic generator (xorshift), so every run checks the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A word of a 3,000-word vocabulary.
fn word(r: &mut Rng) -> String {
    const SYL: [&str; 16] =
        ["ka", "lo", "mi", "ter", "gan", "su", "ve", "dor", "pi", "ran", "ul", "zeb", "no", "fi", "qua", "ste"];
    let n = r.below(3000);
    format!("{}{}{}", SYL[n % 16], SYL[(n / 16) % 16], if n >= 256 { SYL[(n / 256) % 16] } else { "" })
}

fn sentence(r: &mut Rng) -> String {
    let len = 10 + r.below(14);
    let mut words: Vec<String> = (0..len).map(|_| word(r)).collect();
    if r.below(3) == 0 {
        words.push(format!("{}", r.below(5000)));
    }
    let mut s = words.join(" ");
    s[..1].make_ascii_uppercase();
    s.push('.');
    s
}

/// 20 sources of about `bytes_each`, and a report of 100 cited sentences
/// with the claims (quotes) of the half that copy a source.
fn corpus(bytes_each: usize) -> (Vec<String>, String, Vec<Claim>) {
    let mut r = Rng(0x5eed_1234_abcd_9876);
    let sources: Vec<String> = (0..SOURCES)
        .map(|_| {
            let mut text = String::new();
            while text.len() < bytes_each {
                text.push_str(&sentence(&mut r));
                text.push(if r.below(6) == 0 { '\n' } else { ' ' });
            }
            text
        })
        .collect();
    let mut body = String::from("# A report\n\n");
    let mut claims = Vec::new();
    for k in 0..CLAIMS {
        let n = r.below(SOURCES);
        let sentences: Vec<&str> = sources[n].split(". ").filter(|s| s.len() > 40).collect();
        let picked = sentences[r.below(sentences.len())].trim().trim_end_matches('.').to_string();
        let text = match k % 5 {
            // Copied, with its quote (a session's claim).
            0 | 1 => {
                claims.push(Claim {
                    text: picked.clone(),
                    citations: vec![Citation { source: SourceId(n as u32 + 1), quote: picked.clone() }],
                    aspect: None,
                });
                picked
            }
            // Copied, no quote: the passage rule decides.
            2 => picked,
            // Reworded: words dropped and shuffled.
            3 => {
                let mut w: Vec<&str> = picked.split(' ').collect();
                w.retain(|_| r.below(4) != 0);
                w.reverse();
                w.join(" ")
            }
            // Fabricated.
            _ => sentence(&mut r).trim_end_matches('.').to_string(),
        };
        body.push_str(&format!("{text} [{}].\n\n", n + 1));
    }
    body.push_str("## Sources\n\n");
    for n in 1..=SOURCES {
        body.push_str(&format!("- [{n}] Source {n} — https://example.org/{n}\n"));
    }
    (sources, body, claims)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn check_speed(bytes_each: usize) {
    let (sources, report, claims) = corpus(bytes_each);
    let mb = sources.iter().map(String::len).sum::<usize>() as f64 / 1_048_576.0;
    let texts: BTreeMap<u32, SourceText> = sources
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (i as u32 + 1, SourceText::read(i as u32 + 1, "https://example.org", "bench".into(), t.clone(), 0))
        })
        .collect();
    let parsed = parse_report(&report);
    assert_eq!(parsed.statements.len(), CLAIMS);
    let mut prepare = Vec::new();
    let mut whole = Vec::new();
    let mut summary = Summary::default();
    for _ in 0..RUNS {
        let t = Instant::now();
        let docs: Vec<_> = sources.iter().map(|s| sleuth::engine::check::SourceDoc::new(s)).collect();
        prepare.push(t.elapsed());
        std::hint::black_box(docs);
        let t = Instant::now();
        let checks = check_report(&parse_report(&report), &texts, &claims, false);
        whole.push(t.elapsed());
        summary = Summary::of(&checks);
    }
    let (p, w) = (median(prepare), median(whole));
    let checking = w.saturating_sub(p);
    println!(
        "check {CLAIMS} claims over {SOURCES} sources, {mb:.1} MB: {:.1} ms in all (median of {RUNS}) = {:.2} ms per claim, {:.1} ms per MB; \
         preparing the sources {:.1} ms ({:.1} ms per MB), deciding {:.2} ms per claim",
        w.as_secs_f64() * 1e3,
        w.as_secs_f64() * 1e3 / CLAIMS as f64,
        w.as_secs_f64() * 1e3 / mb,
        p.as_secs_f64() * 1e3,
        p.as_secs_f64() * 1e3 / mb,
        checking.as_secs_f64() * 1e3 / CLAIMS as f64,
    );
    println!(
        "  verdicts: {} supported ({} by quote, {} by passage), {} unsupported (20 fabricated and the rewordings that lost half their words)",
        summary.supported, summary.supported_by_quote, summary.supported_by_passage, summary.unsupported
    );
}

fn dir_bytes(dir: &Path) -> u64 {
    walk(dir).iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

fn sleuth(home: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sleuth"))
        .env("SLEUTH_HOME", home)
        .env_remove("SLEUTH_LOG")
        .args(args)
        .output()
        .expect("sleuth runs")
}

fn bundle_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let mut r = Rng(42);
    for i in 0..60 {
        let mut text = format!("# Widget note {i}\n\n");
        for s in 0..6 {
            text.push_str(&format!("## Part {s}\n\n"));
            for _ in 0..8 {
                text.push_str(&format!(
                    "Widget {i} connects to gadget {} through port {} in part {s}. {}\n",
                    i * 7 + s,
                    r.below(90),
                    sentence(&mut r)
                ));
            }
            text.push('\n');
        }
        std::fs::write(corpus.join(format!("note{i}.md")), text).unwrap();
    }
    let home = tmp.path().join("home");
    let set = format!("local.corpus={}", corpus.display());
    for (preset, question) in [
        ("simple", "How does widget 12 connect to gadget 86?"),
        ("standard", "Which port does widget 30 use to reach its gadget?"),
        ("deep", "How do widgets connect to gadgets, and through which ports?"),
    ] {
        let out = sleuth(&home, &["run", "--preset", preset, "--set", &set, question]);
        assert!(out.status.code().is_some_and(|c| c == 0 || c == 4), "{}", String::from_utf8_lossy(&out.stderr));
        let ids: Vec<_> = walk(&home.join("sessions")).into_iter().filter(|p| p.ends_with("events.jsonl")).collect();
        let newest = ids.iter().max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok()).unwrap();
        let dir = newest.parent().unwrap();
        let id = dir.file_name().unwrap().to_string_lossy().into_owned();
        let session = dir_bytes(dir);
        let mut sizes = Vec::new();
        for format in ["bundle", "html", "pdf"] {
            let file = tmp.path().join(format!("{id}.{format}"));
            let out = sleuth(&home, &["export", &id, "--format", format, "-o", file.to_str().unwrap()]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            sizes.push(std::fs::metadata(&file).unwrap().len());
        }
        let sources = std::fs::read_dir(dir.join("sources")).map(|d| d.count()).unwrap_or(0);
        println!(
            "{preset} session ({sources} stored sources): session folder {} KB, bundle {} KB ({:.0}% of the session), html {} KB, pdf {} KB",
            session / 1024,
            sizes[0] / 1024,
            sizes[0] as f64 * 100.0 / session as f64,
            sizes[1] / 1024,
            sizes[2] / 1024
        );
    }
}

fn main() {
    // `cargo test --benches` runs benches once with `--bench` absent: keep it quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    check_speed(if quick { 4_000 } else { 52_429 });
    if quick {
        return;
    }
    check_speed(419_430);
    bundle_sizes();
}
