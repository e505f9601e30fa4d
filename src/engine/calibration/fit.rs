//! Fitting the calibration: an L2-regularised logistic regression by
//! Newton's method on standardised features, k-fold cross-validation
//! stratified by question set and label, and the measures the calibration
//! benchmark reports (AUROC, expected calibration error). Small and
//! dependency-free: a hundred labelled questions and a handful of
//! features need nothing more.

use super::sigmoid;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FitError {
    #[error("no rows to fit on")]
    Empty,
    #[error("the fit has only one label ({0}): it needs good and other answers")]
    OneLabel(bool),
    #[error("row {row} has {got} features, the others {expected}")]
    Ragged { row: usize, got: usize, expected: usize },
    #[error("the fit did not converge (singular system)")]
    Singular,
}

/// A fitted mapping on the features' own scale: p = σ(intercept + Σ wᵢ xᵢ).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub intercept: f64,
    pub coefficients: Vec<f64>,
}

impl Model {
    pub fn predict(&self, x: &[f64]) -> f64 {
        sigmoid(self.intercept + self.coefficients.iter().zip(x).map(|(w, v)| w * v).sum::<f64>())
    }
}

/// Fits p(y | x) by logistic regression with penalty `l2 / 2 · ‖w‖²` on the
/// standardised coefficients (the intercept is free), so that one `l2`
/// means the same whatever a feature's scale. A feature that does not vary
/// in the rows gets weight 0.
pub fn fit_logistic(x: &[Vec<f64>], y: &[bool], l2: f64) -> Result<Model, FitError> {
    let n = x.len();
    let p = x.first().map_or(0, Vec::len);
    if n == 0 || y.len() != n {
        return Err(FitError::Empty);
    }
    if let Some((row, r)) = x.iter().enumerate().find(|(_, r)| r.len() != p) {
        return Err(FitError::Ragged { row, got: r.len(), expected: p });
    }
    if y.iter().all(|v| *v == y[0]) {
        return Err(FitError::OneLabel(y[0]));
    }
    let mean: Vec<f64> = (0..p).map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n as f64).collect();
    let sd: Vec<f64> =
        (0..p).map(|j| (x.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n as f64).sqrt()).collect();
    // Standardised design with a leading 1 for the intercept; constant columns are 0.
    let z: Vec<Vec<f64>> = x
        .iter()
        .map(|r| {
            std::iter::once(1.0)
                .chain((0..p).map(|j| if sd[j] > 1e-12 { (r[j] - mean[j]) / sd[j] } else { 0.0 }))
                .collect()
        })
        .collect();
    let positives = y.iter().filter(|v| **v).count() as f64;
    let mut theta = vec![0.0; p + 1];
    theta[0] = (positives / (n as f64 - positives)).ln();
    for _ in 0..100 {
        let mut grad = vec![0.0; p + 1];
        let mut hess = vec![vec![0.0; p + 1]; p + 1];
        for (zi, yi) in z.iter().zip(y) {
            let pi = sigmoid(dot(&theta, zi));
            let r = pi - if *yi { 1.0 } else { 0.0 };
            let w = pi * (1.0 - pi);
            for a in 0..=p {
                grad[a] += r * zi[a];
                for b in 0..=p {
                    hess[a][b] += w * zi[a] * zi[b];
                }
            }
        }
        for a in 1..=p {
            grad[a] += l2 * theta[a];
            hess[a][a] += l2;
        }
        // A constant column has no information: keep the system solvable.
        for (a, row) in hess.iter_mut().enumerate() {
            row[a] += 1e-9;
        }
        let step = solve(hess, grad).ok_or(FitError::Singular)?;
        for (t, s) in theta.iter_mut().zip(&step) {
            *t -= s;
        }
        if step.iter().map(|s| s.abs()).fold(0.0, f64::max) < 1e-10 {
            break;
        }
    }
    // Back to the features' own scale.
    let coefficients: Vec<f64> = (0..p).map(|j| if sd[j] > 1e-12 { theta[j + 1] / sd[j] } else { 0.0 }).collect();
    let intercept = theta[0] - (0..p).map(|j| coefficients[j] * mean[j]).sum::<f64>();
    Ok(Model { intercept, coefficients })
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves `a · x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|i, j| a[*i][col].abs().total_cmp(&a[*j][col].abs()))?;
        if a[pivot][col].abs() < 1e-14 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col].clone();
            for (cell, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                *cell -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Fold of each row (0..k), stratified: within each (set, label) group,
/// in the order given, rows are dealt to the folds in turn, continuing
/// where the previous group stopped so that folds stay the same size.
pub fn stratified_folds(groups: &[(String, bool)], k: usize) -> Vec<usize> {
    let k = k.max(1);
    let mut keys: Vec<&(String, bool)> = groups.iter().collect();
    keys.sort();
    keys.dedup();
    let mut fold = vec![0; groups.len()];
    let mut next = 0;
    for key in keys {
        for (i, g) in groups.iter().enumerate() {
            if g == key {
                fold[i] = next % k;
                next += 1;
            }
        }
    }
    fold
}

/// Out-of-fold predictions: each row predicted by the model fitted on the
/// other folds; and those models, for the coefficients' stability.
pub fn cross_validate(
    x: &[Vec<f64>],
    y: &[bool],
    folds: &[usize],
    l2: f64,
) -> Result<(Vec<f64>, Vec<Model>), FitError> {
    let k = folds.iter().max().map_or(0, |m| m + 1);
    let mut predicted = vec![f64::NAN; x.len()];
    let mut models = Vec::new();
    for f in 0..k {
        let train: Vec<usize> = (0..x.len()).filter(|i| folds[*i] != f).collect();
        let tx: Vec<Vec<f64>> = train.iter().map(|i| x[*i].clone()).collect();
        let ty: Vec<bool> = train.iter().map(|i| y[*i]).collect();
        let m = fit_logistic(&tx, &ty, l2)?;
        for i in (0..x.len()).filter(|i| folds[*i] == f) {
            predicted[i] = m.predict(&x[i]);
        }
        models.push(m);
    }
    Ok((predicted, models))
}

/// Probability that a positive scores above a negative (ties count half).
pub fn auroc(pos: &[f64], neg: &[f64]) -> Option<f64> {
    if pos.is_empty() || neg.is_empty() {
        return None;
    }
    let wins: f64 = pos
        .iter()
        .flat_map(|p| neg.iter().map(move |n| (p, n)))
        .map(|(p, n)| {
            if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            }
        })
        .sum();
    Some(wins / (pos.len() * neg.len()) as f64)
}

/// Expected calibration error over 10 equal-width bins of the predicted
/// value: the mean gap between what was predicted and what happened,
/// weighted by each bin's share of the rows.
pub fn ece(pairs: &[(f64, f64)]) -> f64 {
    let mut bins = [(0.0f64, 0.0f64, 0usize); 10];
    for (predicted, truth) in pairs {
        let b = ((predicted * 10.0) as usize).min(9);
        bins[b].0 += predicted;
        bins[b].1 += truth;
        bins[b].2 += 1;
    }
    let n = pairs.len().max(1) as f64;
    bins.iter().filter(|b| b.2 > 0).map(|(c, t, k)| (*k as f64 / n) * ((c - t) / *k as f64).abs()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows where a good answer is likelier the higher `relevance` is, and
    /// `noise` says nothing: label = relevance above a threshold that
    /// wobbles from row to row (deterministic).
    fn rows(n: usize, offset: usize) -> (Vec<Vec<f64>>, Vec<bool>) {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let relevance = ((i * 37 + offset) % 100) as f64 / 100.0;
            let noise = ((i * 53 + 11 + offset) % 100) as f64 / 100.0;
            let wobble = ((i * 17 + offset) % 30) as f64 / 100.0 - 0.15;
            x.push(vec![relevance, noise]);
            y.push(relevance + wobble > 0.5);
        }
        (x, y)
    }

    #[test]
    fn the_fit_recovers_a_monotone_mapping_and_classifies_a_held_apart_row() {
        let (x, y) = rows(120, 0);
        let m = fit_logistic(&x, &y, 1.0).unwrap();
        assert!(m.coefficients[0] > 5.0, "relevance drives the answer: {m:?}");
        assert!(m.coefficients[1].abs() < m.coefficients[0] / 4.0, "noise weighs little: {m:?}");
        // Monotone in relevance, whatever the noise.
        let p = |r: f64| m.predict(&[r, 0.5]);
        assert!(p(0.1) < p(0.4) && p(0.4) < p(0.6) && p(0.6) < p(0.9));
        // Rows the fit never saw.
        assert!(m.predict(&[0.95, 0.2]) > 0.8, "{}", m.predict(&[0.95, 0.2]));
        assert!(m.predict(&[0.05, 0.9]) < 0.2, "{}", m.predict(&[0.05, 0.9]));
        let (hx, hy) = rows(40, 7);
        let right = hx.iter().zip(&hy).filter(|(r, good)| (m.predict(r) >= 0.5) == **good).count();
        assert!(right >= 32, "{right} of 40 held-apart rows classified right");
    }

    #[test]
    fn stronger_regularisation_shrinks_the_coefficients() {
        let (x, y) = rows(120, 0);
        let weak = fit_logistic(&x, &y, 0.1).unwrap();
        let strong = fit_logistic(&x, &y, 50.0).unwrap();
        assert!(strong.coefficients[0].abs() < weak.coefficients[0].abs());
        assert!(strong.coefficients[0] > 0.0, "still the right sign");
    }

    #[test]
    fn a_fit_needs_both_labels_and_rows_of_one_width() {
        assert_eq!(fit_logistic(&[vec![1.0], vec![2.0]], &[true, true], 1.0), Err(FitError::OneLabel(true)));
        assert_eq!(fit_logistic(&[], &[], 1.0), Err(FitError::Empty));
        assert!(matches!(
            fit_logistic(&[vec![1.0], vec![2.0, 3.0]], &[true, false], 1.0),
            Err(FitError::Ragged { .. })
        ));
        // A constant feature is no error: it weighs nothing.
        let m = fit_logistic(
            &[vec![1.0, 0.0], vec![1.0, 1.0], vec![1.0, 0.2], vec![1.0, 0.9]],
            &[false, true, false, true],
            1.0,
        )
        .unwrap();
        assert_eq!(m.coefficients[0], 0.0);
    }

    #[test]
    fn folds_are_stratified_by_set_and_label() {
        let groups: Vec<(String, bool)> =
            (0..20).map(|i| (if i < 10 { "a" } else { "b" }.to_string(), i % 2 == 0)).collect();
        let folds = stratified_folds(&groups, 5);
        for f in 0..5 {
            for key in [("a", true), ("a", false), ("b", true), ("b", false)] {
                let n = groups.iter().zip(&folds).filter(|((s, l), g)| s == key.0 && *l == key.1 && **g == f).count();
                assert_eq!(n, 1, "fold {f} holds one row of {key:?}");
            }
        }
    }

    #[test]
    fn cross_validation_predicts_each_row_from_the_other_folds() {
        let (x, y) = rows(100, 3);
        let groups: Vec<(String, bool)> = y.iter().map(|g| ("s".to_string(), *g)).collect();
        let folds = stratified_folds(&groups, 5);
        let (p, models) = cross_validate(&x, &y, &folds, 1.0).unwrap();
        assert_eq!(models.len(), 5);
        assert!(p.iter().all(|v| v.is_finite()));
        let pos: Vec<f64> = p.iter().zip(&y).filter(|(_, g)| **g).map(|(v, _)| *v).collect();
        let neg: Vec<f64> = p.iter().zip(&y).filter(|(_, g)| !**g).map(|(v, _)| *v).collect();
        assert!(auroc(&pos, &neg).unwrap() > 0.9);
    }

    #[test]
    fn auroc_and_ece_measure_order_and_scale() {
        assert_eq!(auroc(&[0.9, 0.8], &[0.1, 0.8]), Some(0.875));
        assert_eq!(auroc(&[], &[0.1]), None);
        assert!(ece(&[(0.9, 1.0), (0.1, 0.0)]) < 0.11);
        assert!((ece(&[(0.9, 0.0), (0.9, 0.0)]) - 0.9).abs() < 1e-9);
    }
}
