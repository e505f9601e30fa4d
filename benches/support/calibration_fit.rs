//! The calibration benchmark's labelled rows, its per-set figures, and the
//! fit: cross-validated (k folds stratified by set and label), leave one
//! set out, coefficient stability across folds, and writing the fit as the
//! defaults (`src/engine/calibration/fitted.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sleuth::engine::calibration::fit::{Model, auroc, cross_validate, ece, fit_logistic, stratified_folds};
use sleuth::engine::calibration::{FEATURES, fitted};

/// One question as run: its labels (from the gold data, for scoring only)
/// and the features EVALUATE computed (from the session alone).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Labelled {
    pub set: String,
    pub id: String,
    pub answerable: bool,
    pub facts: (usize, usize),
    pub recall: (usize, usize),
    pub says_unanswered: bool,
    pub confidence: f64,
    pub iterations: u32,
    pub wall_ms: u64,
    pub features: BTreeMap<String, f64>,
    /// The question and the report, for a person reading the dump (never
    /// a feature: features come from the session, above).
    #[serde(default)]
    pub question: String,
    #[serde(default)]
    pub report: String,
}

impl Labelled {
    pub fn fact_share(&self) -> f64 {
        if self.facts.1 == 0 { 0.0 } else { self.facts.0 as f64 / self.facts.1 as f64 }
    }
    /// A good answer: at least 2/3 of its facts in the report.
    pub fn good(&self) -> bool {
        self.answerable && self.facts.1 > 0 && self.facts.0 * 3 >= self.facts.1 * 2
    }
}

#[derive(Default)]
pub struct FitOptions {
    pub enabled: bool,
    pub write: bool,
    pub features: Option<Vec<String>>,
    pub l2: Option<f64>,
    pub folds: Option<usize>,
}

pub fn dump_path() -> PathBuf {
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    PathBuf::from(target).join("calibration").join("features.jsonl")
}

pub fn write_rows(path: &std::path::Path, rows: &[Labelled]) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("dump folder");
    }
    let text: String = rows.iter().map(|r| serde_json::to_string(r).expect("row") + "\n").collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

pub fn read_rows(path: &str) -> Vec<Labelled> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("row")).collect()
}

/// The figures of `score` per set (in the rows' order) and over all:
/// (a), (b), (c), refusals, ECE, provisional.
pub fn set_figures(rows: &[Labelled], score: impl Fn(&Labelled) -> f64, threshold: f64) -> Vec<(String, String)> {
    let mut sets: Vec<String> = Vec::new();
    for r in rows {
        if !sets.contains(&r.set) {
            sets.push(r.set.clone());
        }
    }
    if sets.len() > 1 {
        sets.push("all".into());
    }
    sets.into_iter()
        .map(|set| {
            let of: Vec<(&Labelled, f64)> =
                rows.iter().filter(|r| set == "all" || r.set == set).map(|r| (r, score(r))).collect();
            (set, figures(&of, threshold))
        })
        .collect()
}

fn figures(rows: &[(&Labelled, f64)], threshold: f64) -> String {
    let good: Vec<f64> = rows.iter().filter(|(r, _)| r.good()).map(|(_, s)| *s).collect();
    let other: Vec<f64> = rows.iter().filter(|(r, _)| r.answerable && !r.good()).map(|(_, s)| *s).collect();
    let unanswerable: Vec<&(&Labelled, f64)> = rows.iter().filter(|(r, _)| !r.answerable).collect();
    let neg: Vec<f64> = unanswerable.iter().map(|(_, s)| *s).collect();
    let honest = unanswerable.iter().filter(|(r, s)| *s < 0.6 && r.says_unanswered).count();
    let answerable = rows.iter().filter(|(r, _)| r.answerable).count();
    let refused = rows.iter().filter(|(r, _)| r.answerable && r.says_unanswered).count();
    let vs_good: Vec<(f64, f64)> = rows.iter().map(|(r, s)| (*s, if r.good() { 1.0 } else { 0.0 })).collect();
    let vs_facts: Vec<(f64, f64)> = rows.iter().map(|(r, s)| (*s, r.fact_share())).collect();
    let provisional = rows.iter().filter(|(_, s)| *s < threshold).count();
    let provisional_good = rows.iter().filter(|(r, s)| *s < threshold && r.good()).count();
    let f = |x: Option<f64>| x.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"));
    format!(
        "{} q ({} good, {} other, {} unanswerable): (a) {}  (b) {}  (c) {}/{} below 0.6 and saying so  refused {}/{}  \
         ECE vs good {:.3}, vs facts {:.3}  provisional (< {threshold:.2}) {}/{} ({} of them good)",
        rows.len(),
        good.len(),
        other.len(),
        neg.len(),
        f(auroc(&good, &other)),
        f(auroc(&good, &neg)),
        honest,
        unanswerable.len(),
        refused,
        answerable,
        ece(&vs_good),
        ece(&vs_facts),
        provisional,
        rows.len(),
        provisional_good
    )
}

fn design(rows: &[&Labelled], names: &[String]) -> (Vec<Vec<f64>>, Vec<bool>) {
    let x = rows.iter().map(|r| names.iter().map(|n| r.features.get(n).copied().unwrap_or(0.0)).collect()).collect();
    (x, rows.iter().map(|r| r.good()).collect())
}

pub fn fit_and_report(rows: &[Labelled], o: &FitOptions, threshold: f64) {
    let names: Vec<String> =
        o.features.clone().unwrap_or_else(|| fitted::COEFFICIENTS.iter().map(|(k, _)| (*k).to_string()).collect());
    if let Some(bad) = names.iter().find(|n| !FEATURES.iter().any(|(f, _)| f == n)) {
        panic!("--features: `{bad}` is no feature; they are: {:?}", FEATURES.iter().map(|f| f.0).collect::<Vec<_>>());
    }
    let l2 = o.l2.unwrap_or(fitted::L2);
    let k = o.folds.unwrap_or(fitted::FOLDS);
    let all: Vec<&Labelled> = rows.iter().collect();
    let (x, y) = design(&all, &names);
    let groups: Vec<(String, bool)> = rows.iter().map(|r| (r.set.clone(), r.good())).collect();
    let folds = stratified_folds(&groups, k);
    let (oof, models) = cross_validate(&x, &y, &folds, l2).unwrap_or_else(|e| panic!("fit: {e}"));
    let full = fit_logistic(&x, &y, l2).unwrap_or_else(|e| panic!("fit: {e}"));
    println!();
    println!(
        "Fit: logistic regression of good (≥ 2/3 of the facts) on {} features, L2 {l2} on standardised features, \
         {} questions",
        names.len(),
        rows.len()
    );
    println!(
        "Cross-validated ({k} folds stratified by set and label; each question predicted by the fit on the other folds):"
    );
    let by_id: BTreeMap<(String, String), f64> =
        rows.iter().zip(&oof).map(|(r, p)| ((r.set.clone(), r.id.clone()), *p)).collect();
    for (set, figures) in set_figures(rows, |r| by_id[&(r.set.clone(), r.id.clone())], threshold) {
        println!("  cv {set}: {figures}");
    }
    println!("Leave one set out (fit on the others, report on the one left out):");
    let sets: Vec<String> = {
        let mut s: Vec<String> = rows.iter().map(|r| r.set.clone()).collect();
        s.sort();
        s.dedup();
        s
    };
    for held in sets.iter().filter(|s| !s.ends_with("-dev")) {
        let train: Vec<&Labelled> = rows.iter().filter(|r| &r.set != held).collect();
        let test: Vec<Labelled> = rows.iter().filter(|r| &r.set == held).cloned().collect();
        let (tx, ty) = design(&train, &names);
        let Ok(m) = fit_logistic(&tx, &ty, l2) else { continue };
        let from: Vec<&String> = sets.iter().filter(|s| *s != held).collect();
        let predict = |r: &Labelled| {
            m.predict(&names.iter().map(|n| r.features.get(n).copied().unwrap_or(0.0)).collect::<Vec<_>>())
        };
        for (_, figures) in set_figures(&test, predict, threshold) {
            println!(
                "  fit on {} → {held}: {figures}",
                from.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" + ")
            );
        }
    }
    println!("In-sample (fit on all, predicted on all; optimistic):");
    for (set, figures) in set_figures(
        rows,
        |r| full.predict(&names.iter().map(|n| r.features.get(n).copied().unwrap_or(0.0)).collect::<Vec<_>>()),
        threshold,
    ) {
        println!("  fit {set}: {figures}");
    }
    print_stability(&names, &x, &full, &models);
    let fitted_on = format!(
        "{}: logistic regression, L2 {l2} on standardised features, {k}-fold CV stratified by set and label, fitted {} \
         by `cargo bench --bench calibration -- --fit --write`",
        sets.iter()
            .map(|s| format!("{s} ({})", rows.iter().filter(|r| &r.set == s).count()))
            .collect::<Vec<_>>()
            .join(", "),
        today()
    );
    if o.write {
        write_defaults(&names, &full, l2, k, &fitted_on);
        write_fixture(rows);
    } else {
        println!("(not written: add --write to make this fit the defaults)");
    }
}

/// Each coefficient fitted on all rows, its mean and spread over the folds'
/// fits, how many folds agree on its sign, and its standardised size.
fn print_stability(names: &[String], x: &[Vec<f64>], full: &Model, folds: &[Model]) {
    println!(
        "Coefficients (all rows; over the {} fold fits: mean ± sd, folds with the same sign; × sd of the feature):",
        folds.len()
    );
    println!("  {:<18} {:>8}", "intercept", format!("{:+.3}", full.intercept));
    for (j, name) in names.iter().enumerate() {
        let v: Vec<f64> = folds.iter().map(|m| m.coefficients[j]).collect();
        let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
        let sd = (v.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / v.len().max(1) as f64).sqrt();
        let same = v.iter().filter(|c| c.signum() == full.coefficients[j].signum()).count();
        let col: Vec<f64> = x.iter().map(|r| r[j]).collect();
        let m = col.iter().sum::<f64>() / col.len().max(1) as f64;
        let spread = (col.iter().map(|c| (c - m).powi(2)).sum::<f64>() / col.len().max(1) as f64).sqrt();
        println!(
            "  {name:<18} {:>+8.3}   {mean:>+8.3} ± {sd:.3}   {same}/{}   {:>+7.3}",
            full.coefficients[j],
            v.len(),
            full.coefficients[j] * spread
        );
    }
}

fn today() -> String {
    let d = time::OffsetDateTime::now_utc().date();
    format!("{}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

fn write_defaults(names: &[String], m: &Model, l2: f64, folds: usize, fitted_on: &str) {
    let mut out = String::new();
    out.push_str("//! The default calibration, written by `cargo bench --bench calibration --\n");
    out.push_str("//! --fit --write` (do not edit by hand: re-run the fit). The figures it\n");
    out.push_str("//! printed are in docs/benchmarks.md (Calibration).\n\n");
    out.push_str("/// Where these numbers came from.\n");
    let _ = writeln!(out, "pub const FITTED_ON: &str = {fitted_on:?};\n");
    out.push_str("/// The regularisation and folds the fit uses (the next refit too).\n");
    let _ = writeln!(out, "pub const L2: f64 = {l2:?};");
    let _ = writeln!(out, "pub const FOLDS: usize = {folds};\n");
    out.push_str("/// The log-odds of a good answer when every feature is 0.\n");
    let _ = writeln!(out, "pub const INTERCEPT: f64 = {:.4};\n", m.intercept);
    out.push_str("/// Feature → weight in the log-odds (features: `super::FEATURES`).\n");
    out.push_str("pub const COEFFICIENTS: &[(&str, f64)] = &[\n");
    for (n, c) in names.iter().zip(&m.coefficients) {
        let _ = writeln!(out, "    ({n:?}, {c:.4}),");
    }
    out.push_str("];\n");
    let path = "src/engine/calibration/fitted.rs";
    std::fs::write(path, out).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    write_example(names, m, fitted_on);
    println!(
        "written to {path} and config.toml.example: rebuild and re-run `cargo bench --bench calibration` to measure it \
         as run"
    );
}

/// The fitted lines of `config.toml.example` (between its markers), which
/// must equal the defaults (a test uncomments them).
fn write_example(names: &[String], m: &Model, fitted_on: &str) {
    const START: &str = "# --- fitted: written by the calibration fit ---\n";
    const END: &str = "# --- end fitted ---\n";
    let path = "config.toml.example";
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let (Some(a), Some(b)) = (text.find(START), text.find(END)) else {
        panic!("{path}: the fitted block's markers are missing")
    };
    let line = |key: String, comment: &str| format!("# {key:<36} # {comment}\n");
    let mut block = String::from(START);
    block.push_str(&format!("# fitted_on = {fitted_on:?}\n"));
    block.push_str(&line(
        format!("intercept = {:.4}", m.intercept),
        "log-odds of a good answer when every feature is 0 (-50..50)",
    ));
    block.push_str("\n[evaluate.calibration.coefficients]    # feature -> weight in the log-odds (-50..50 each)\n");
    for (n, c) in names.iter().zip(&m.coefficients) {
        block.push_str(&line(format!("{n} = {c:.4}"), "-50..50"));
    }
    let updated = format!("{}{block}{}", &text[..a], &text[b..]);
    std::fs::write(path, updated).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
}

/// The calibration test's fixture (`tests/calibration.rs`): each question's
/// labels and features, without its text or report, rounded to 4 decimals.
fn write_fixture(rows: &[Labelled]) {
    let path = "tests/fixtures/calibration/rows.jsonl";
    let round = |v: f64| (v * 10_000.0).round() / 10_000.0;
    let text: String = rows
        .iter()
        .map(|r| {
            let features: BTreeMap<&String, f64> = r.features.iter().map(|(k, v)| (k, round(*v))).collect();
            let row = serde_json::json!({
                "set": r.set, "id": r.id, "answerable": r.answerable, "good": r.good(),
                "says_unanswered": r.says_unanswered, "features": features,
            });
            row.to_string() + "\n"
        })
        .collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    println!("written to {path}: the calibration test's fixture ({} questions)", rows.len());
}
