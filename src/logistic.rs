//! L2-penalised logistic regression on a few columns of a dense matrix, by
//! Newton's method: the model of the two-pass forward stepwise selector
//! ([`crate::two_pass`]), which fits one small model per candidate feature.
//!
//! The objective is the one scikit-learn's `LogisticRegression(C=C)`
//! minimises with its default lbfgs solver (the same function, so the
//! same minimiser):
//!
//! ```text
//! f(β) = (1/m) Σ_i w_i ℓ(y_i, η_i) + |β_features|² / (2·C·m),   η = b + X_S β_S
//! ```
//!
//! with `ℓ` the log-loss of a logit, `w_i` row weights (1 for every row, or
//! 0/1 marking a cross-validation fold's training rows), `m = Σ w_i`; the
//! intercept `b` is not penalised. `tol` bounds the largest component of
//! `∇f` at the solution.
//!
//! A fit that adds one feature to a fitted model (the selector's inner
//! loop) starts from that model's coefficients with 0 for the new feature.
//! There the old model's Hessian is still exact, so the first Newton step
//! only needs the new feature's row of it: O(n·k) instead of O(n·k²). Later
//! steps keep that Hessian while it still shrinks the gradient at least
//! fourfold per step (a chord method), and recompute it otherwise. Every
//! step is halved until the objective decreases (sufficiently, Armijo), so
//! the fit cannot diverge; the L2 term keeps the solution finite even on
//! separable data.

use crate::error::{Result, SbError};
use crate::interrupt::{self, ShouldStop};
use ndarray::{ArrayView2, Axis};

/// The rows a model is fitted on: the columns of a (n, d) matrix, 0/1
/// targets and optional row weights.
#[derive(Clone)]
pub struct Data<'a> {
    columns: Vec<&'a [f64]>,
    y: &'a [f64],
    weights: Option<&'a [f64]>,
    /// `m`: the rows' total weight.
    mass: f64,
}

impl<'a> Data<'a> {
    /// `x` must have contiguous columns (Fortran order: a model of k
    /// features reads k columns, not every row); `y` holds 0 or 1 per row;
    /// `weights` (non-negative, finite, not all 0) default to 1. The values
    /// of `x` are not checked here (see [`check_finite`]).
    pub fn new(x: ArrayView2<'a, f64>, y: &'a [f64], weights: Option<&'a [f64]>) -> Result<Self> {
        let bad = |m: String| Err(SbError::InvalidInput(m));
        let (n, d) = x.dim();
        if n == 0 {
            return bad("X has no rows".into());
        }
        if y.len() != n {
            return bad(format!("y has {} values but X has {n} rows", y.len()));
        }
        if let Some(v) = y.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return bad(format!("y must hold 0 or 1, found {v}"));
        }
        let mut columns = Vec::with_capacity(d);
        for j in 0..d {
            match x.index_axis_move(Axis(1), j).to_slice() {
                Some(c) => columns.push(c),
                None => return bad("X must be a Fortran-ordered (column-major) matrix".into()),
            }
        }
        let mass = match weights {
            None => n as f64,
            Some(w) => {
                if w.len() != n {
                    return bad(format!("weights has {} values but X has {n} rows", w.len()));
                }
                if w.iter().any(|&v| !(v.is_finite() && v >= 0.0)) {
                    return bad("weights must be finite and non-negative".into());
                }
                w.iter().sum()
            }
        };
        if mass <= 0.0 {
            return bad("the rows' weights sum to 0".into());
        }
        Ok(Data {
            columns,
            y,
            weights,
            mass,
        })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.y.len()
    }

    /// Number of columns of the matrix.
    pub fn n_features(&self) -> usize {
        self.columns.len()
    }

    fn weight(&self, i: usize) -> f64 {
        self.weights.map_or(1.0, |w| w[i])
    }
}

/// `Err` naming the first non-finite value of `x` (the solver assumes
/// finite values; checked once per matrix, not per fit).
pub fn check_finite(x: ArrayView2<'_, f64>) -> Result<()> {
    match x.indexed_iter().find(|(_, v)| !v.is_finite()) {
        Some(((i, j), v)) => Err(SbError::InvalidInput(format!(
            "X must be finite, found {v} at row {i}, column {j}"
        ))),
        None => Ok(()),
    }
}

/// The penalty and the stopping rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Inverse of the L2 strength, as scikit-learn's `C` (> 0).
    pub c: f64,
    /// Stop when every component of the gradient is at most this (≥ 0).
    pub tol: f64,
    /// At most this many Newton steps per fit (≥ 1).
    pub max_iter: usize,
}

impl Settings {
    /// `Err` naming the parameter that is out of range.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SbError::InvalidParameter(m));
        if !(self.c.is_finite() && self.c > 0.0) {
            return bad(format!("C must be a finite number > 0, got {}", self.c));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return bad(format!(
                "tol must be a finite number >= 0, got {}",
                self.tol
            ));
        }
        if self.max_iter == 0 {
            return bad("max_iter must be >= 1, got 0".into());
        }
        Ok(())
    }
}

/// A fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Its columns, in the order they were added.
    pub features: Vec<usize>,
    /// `[intercept, one coefficient per feature of features]`.
    pub coef: Vec<f64>,
    /// The linear prediction (logit) of every row, weighted 0 or not.
    pub eta: Vec<f64>,
    /// `f` at `coef`.
    pub objective: f64,
    /// The largest component of `|∇f|` at `coef`.
    pub gradient_max: f64,
    /// Newton steps taken.
    pub n_iter: usize,
    /// Whether `gradient_max <= tol` (else `max_iter` ran out, or no step
    /// could change the objective in floating point).
    pub converged: bool,
}

/// A fitted model and what fitting it once more with one more feature
/// needs: the probabilities, residuals and Hessian at its coefficients.
#[derive(Debug, Clone)]
pub struct Model {
    fit: Fit,
    point: Point,
    /// Row-major k × k, k = 1 + features.
    hessian: Vec<f64>,
}

impl Model {
    /// The model without features: the intercept is the weighted log-odds
    /// of `y` (its exact minimiser).
    pub fn intercept_only(data: &Data, settings: &Settings) -> Result<Model> {
        settings.validate()?;
        let positives: f64 = (0..data.n_rows()).map(|i| data.weight(i) * data.y[i]).sum();
        let rate = positives / data.mass;
        if rate <= 0.0 || rate >= 1.0 {
            return Err(SbError::InvalidInput(
                "y must hold both classes among the weighted rows".into(),
            ));
        }
        let b = (rate / (1.0 - rate)).ln();
        let coef = vec![b];
        let point = Point::at(data, settings, &[], coef, vec![b; data.n_rows()]);
        Ok(Model::at(data, settings, Vec::new(), point, 0, true))
    }

    /// Wrap a fit (as returned by [`Model::extend`] or [`fit`]) so that it
    /// can be extended in turn. Costs one Hessian, O(n·k²).
    pub fn from_fit(data: &Data, settings: &Settings, fit: Fit) -> Model {
        let point = Point::at(
            data,
            settings,
            &fit.features,
            fit.coef.clone(),
            fit.eta.clone(),
        );
        let Fit {
            features,
            n_iter,
            converged,
            ..
        } = fit;
        Model::at(data, settings, features, point, n_iter, converged)
    }

    fn at(
        data: &Data,
        settings: &Settings,
        features: Vec<usize>,
        point: Point,
        n_iter: usize,
        converged: bool,
    ) -> Model {
        let hessian = hessian(data, settings, &features, &point.prob);
        let fit = point.to_fit(features, n_iter, converged);
        Model {
            fit,
            point,
            hessian,
        }
    }

    /// The fitted model.
    pub fn fit(&self) -> &Fit {
        &self.fit
    }

    /// The model refitted with `feature` added, starting from this one's
    /// coefficients (0 for the new feature) and Hessian.
    pub fn extend(
        &self,
        data: &Data,
        settings: &Settings,
        feature: usize,
        should_stop: &ShouldStop,
    ) -> Result<Fit> {
        if feature >= data.n_features() {
            return Err(SbError::InvalidParameter(format!(
                "feature {feature} is out of range: X has {} features",
                data.n_features()
            )));
        }
        if self.fit.features.contains(&feature) {
            return Err(SbError::InvalidParameter(format!(
                "feature {feature} is already in the model"
            )));
        }
        let mut features = self.fit.features.clone();
        features.push(feature);
        let k = features.len() + 1;
        // The bordered Hessian: the old block, and the new feature's row.
        let x = data.columns[feature];
        let curvature = &self.point.curvature;
        let scaled: Vec<f64> = x.iter().zip(curvature).map(|(a, s)| a * s).collect();
        let mut border = Vec::with_capacity(k);
        border.push(scaled.iter().sum::<f64>() / data.mass);
        for &f in &self.fit.features {
            border.push(dot(&scaled, data.columns[f]) / data.mass);
        }
        border.push(dot(&scaled, x) / data.mass + ridge(data, settings));
        let mut h = vec![0.0; k * k];
        for a in 0..k - 1 {
            h[a * k..a * k + k - 1].copy_from_slice(&self.hessian[a * (k - 1)..(a + 1) * (k - 1)]);
        }
        for (a, &v) in border.iter().enumerate() {
            h[a * k + k - 1] = v;
            h[(k - 1) * k + a] = v;
        }
        let mut point = self.point.clone();
        point.coef.push(0.0);
        point
            .gradient
            .push(dot(&self.point.residual, x) / data.mass);
        newton(data, settings, features, point, Some(h), should_stop)
    }
}

/// Fit the model of `features` (in this order) from the intercept-only
/// model: the reference fit, and what tests compare with scikit-learn.
pub fn fit(
    data: &Data,
    settings: &Settings,
    features: &[usize],
    should_stop: &ShouldStop,
) -> Result<Fit> {
    let start = Model::intercept_only(data, settings)?;
    if let Some(&f) = features.iter().find(|&&f| f >= data.n_features()) {
        return Err(SbError::InvalidParameter(format!(
            "feature {f} is out of range: X has {} features",
            data.n_features()
        )));
    }
    let mut point = start.point;
    point.coef.resize(features.len() + 1, 0.0);
    point.gradient = gradient(data, settings, features, &point.coef, &point.residual);
    newton(data, settings, features.to_vec(), point, None, should_stop)
}

/// The L2 term's curvature per penalised coefficient: 1/(C·m).
fn ridge(data: &Data, settings: &Settings) -> f64 {
    1.0 / (settings.c * data.mass)
}

/// Everything the solver knows at one coefficient vector.
#[derive(Debug, Clone)]
struct Point {
    coef: Vec<f64>,
    eta: Vec<f64>,
    /// `σ(η_i)`.
    prob: Vec<f64>,
    /// `w_i (σ(η_i) − y_i)`.
    residual: Vec<f64>,
    /// `w_i σ(η_i) (1 − σ(η_i))`.
    curvature: Vec<f64>,
    objective: f64,
    gradient: Vec<f64>,
}

impl Point {
    /// The point at `coef` whose logits are `eta` (computed by the caller).
    fn at(
        data: &Data,
        settings: &Settings,
        features: &[usize],
        coef: Vec<f64>,
        eta: Vec<f64>,
    ) -> Point {
        let n = data.n_rows();
        let mut prob = vec![0.0; n];
        let loss = loss_and_prob(data, &eta, &mut prob);
        let objective = objective(data, settings, &coef, loss);
        let mut point = Point {
            coef,
            eta,
            prob,
            residual: Vec::new(),
            curvature: Vec::new(),
            objective,
            gradient: Vec::new(),
        };
        point.derive(data, settings, features);
        point
    }

    /// Residuals, curvatures and the gradient from `prob`.
    fn derive(&mut self, data: &Data, settings: &Settings, features: &[usize]) {
        let n = data.n_rows();
        self.residual = (0..n)
            .map(|i| data.weight(i) * (self.prob[i] - data.y[i]))
            .collect();
        self.curvature = (0..n)
            .map(|i| data.weight(i) * self.prob[i] * (1.0 - self.prob[i]))
            .collect();
        self.gradient = gradient(data, settings, features, &self.coef, &self.residual);
    }

    fn to_fit(&self, features: Vec<usize>, n_iter: usize, converged: bool) -> Fit {
        Fit {
            features,
            coef: self.coef.clone(),
            eta: self.eta.clone(),
            objective: self.objective,
            gradient_max: max_abs(&self.gradient),
            n_iter,
            converged,
        }
    }
}

/// The weighted sum of log-losses at logits `eta`, writing `σ(η)` to
/// `prob` (one exponential and one logarithm per row).
fn loss_and_prob(data: &Data, eta: &[f64], prob: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..eta.len() {
        let e = eta[i];
        let z = (-e.abs()).exp();
        // ℓ = log(1 + exp(η)) − yη, without overflow.
        let loss = e.max(0.0) + z.ln_1p() - data.y[i] * e;
        prob[i] = if e >= 0.0 {
            1.0 / (1.0 + z)
        } else {
            z / (1.0 + z)
        };
        total += data.weight(i) * loss;
    }
    total
}

fn objective(data: &Data, settings: &Settings, coef: &[f64], loss: f64) -> f64 {
    let penalty: f64 = coef[1..].iter().map(|b| b * b).sum();
    loss / data.mass + 0.5 * ridge(data, settings) * penalty
}

fn gradient(
    data: &Data,
    settings: &Settings,
    features: &[usize],
    coef: &[f64],
    residual: &[f64],
) -> Vec<f64> {
    let mut g = Vec::with_capacity(coef.len());
    g.push(residual.iter().sum::<f64>() / data.mass);
    for (a, &f) in features.iter().enumerate() {
        g.push(dot(residual, data.columns[f]) / data.mass + ridge(data, settings) * coef[a + 1]);
    }
    g
}

/// The Hessian of `f` (row-major k × k, intercept first) where the
/// probabilities are `prob`: O(n·k²).
fn hessian(data: &Data, settings: &Settings, features: &[usize], prob: &[f64]) -> Vec<f64> {
    let k = features.len() + 1;
    let n = data.n_rows();
    let curvature: Vec<f64> = (0..n)
        .map(|i| data.weight(i) * prob[i] * (1.0 - prob[i]))
        .collect();
    let column = |a: usize| -> Option<&[f64]> { (a > 0).then(|| data.columns[features[a - 1]]) };
    let mut h = vec![0.0; k * k];
    let mut scaled = vec![0.0; n];
    for a in 0..k {
        match column(a) {
            None => scaled.copy_from_slice(&curvature),
            Some(x) => {
                for i in 0..n {
                    scaled[i] = curvature[i] * x[i];
                }
            }
        }
        for b in a..k {
            let v = match column(b) {
                None => scaled.iter().sum::<f64>(),
                Some(x) => dot(&scaled, x),
            } / data.mass;
            h[a * k + b] = v;
            h[b * k + a] = v;
        }
        if a > 0 {
            h[a * k + a] += ridge(data, settings);
        }
    }
    h
}

/// Newton's method from `point` (whose gradient is filled in), with the
/// Hessian `hessian` there if the caller has it.
fn newton(
    data: &Data,
    settings: &Settings,
    features: Vec<usize>,
    mut point: Point,
    mut hessian_at_point: Option<Vec<f64>>,
    should_stop: &ShouldStop,
) -> Result<Fit> {
    let n = data.n_rows();
    let mut held: Option<Vec<f64>> = None; // a Hessian from an earlier point
    let mut step_eta = vec![0.0; n];
    let mut trial = point.clone();
    let mut n_iter = 0;
    while n_iter < settings.max_iter {
        let g_max = max_abs(&point.gradient);
        if g_max <= settings.tol {
            return Ok(point.to_fit(features, n_iter, true));
        }
        interrupt::check(should_stop)?;
        // The Newton direction, from the held Hessian when it still works.
        let fresh = held.is_none();
        let h = match (held.take(), hessian_at_point.take()) {
            (_, Some(h)) => h,
            (Some(h), None) => h,
            (None, None) => hessian(data, settings, &features, &point.prob),
        };
        let direction = match solve(&h, &point.gradient) {
            Some(d) => d,
            None if !fresh => {
                // The held Hessian went bad: try the one at this point.
                n_iter += 1;
                continue;
            }
            None => match solve_damped(&h, &point.gradient) {
                Some(d) => d,
                None => break,
            },
        };
        // Logits move along X·direction.
        step_eta.iter_mut().for_each(|v| *v = direction[0]);
        for (a, &f) in features.iter().enumerate() {
            axpy(direction[a + 1], data.columns[f], &mut step_eta);
        }
        let slope: f64 = direction
            .iter()
            .zip(&point.gradient)
            .map(|(d, g)| d * g)
            .sum();
        let mut t = 1.0;
        let mut accepted = false;
        let mut derived = false;
        while t > 1e-12 {
            for ((to, from), d) in trial.coef.iter_mut().zip(&point.coef).zip(&direction) {
                *to = from + t * d;
            }
            for ((to, from), d) in trial.eta.iter_mut().zip(&point.eta).zip(&step_eta) {
                *to = from + t * d;
            }
            let loss = loss_and_prob(data, &trial.eta, &mut trial.prob);
            trial.objective = objective(data, settings, &trial.coef, loss);
            let decrease = point.objective - trial.objective;
            if decrease >= -1e-4 * t * slope {
                accepted = true;
            } else if decrease.abs() <= 64.0 * f64::EPSILON * point.objective.abs() {
                // The objective cannot tell the points apart in its last
                // digits: let the gradient decide.
                trial.derive(data, settings, &features);
                derived = true;
                accepted = max_abs(&trial.gradient) < g_max;
            }
            if accepted {
                break;
            }
            t *= 0.5;
        }
        n_iter += 1;
        if !accepted {
            if fresh {
                break; // no step helps: as good as floating point allows
            }
            continue; // retry with the Hessian at this point
        }
        if !derived {
            trial.derive(data, settings, &features);
        }
        let progress = max_abs(&trial.gradient) <= 0.25 * g_max && t == 1.0;
        std::mem::swap(&mut point, &mut trial);
        // Keep this Hessian for the next step only while it works well.
        if progress {
            held = Some(h);
        }
    }
    let converged = max_abs(&point.gradient) <= settings.tol;
    Ok(point.to_fit(features, n_iter, converged))
}

/// Solve `H d = −g` by Cholesky (`None` if `H` is not positive definite).
fn solve(h: &[f64], g: &[f64]) -> Option<Vec<f64>> {
    let k = g.len();
    let mut l = h.to_vec();
    for j in 0..k {
        let mut diag = l[j * k + j];
        for p in 0..j {
            diag -= l[j * k + p] * l[j * k + p];
        }
        if !(diag > 0.0 && diag.is_finite()) {
            return None;
        }
        let diag = diag.sqrt();
        l[j * k + j] = diag;
        for i in j + 1..k {
            let mut v = l[i * k + j];
            for p in 0..j {
                v -= l[i * k + p] * l[j * k + p];
            }
            l[i * k + j] = v / diag;
        }
    }
    let mut z: Vec<f64> = g.iter().map(|v| -v).collect();
    for i in 0..k {
        for p in 0..i {
            z[i] -= l[i * k + p] * z[p];
        }
        z[i] /= l[i * k + i];
    }
    for i in (0..k).rev() {
        for p in i + 1..k {
            z[i] -= l[p * k + i] * z[p];
        }
        z[i] /= l[i * k + i];
    }
    Some(z)
}

/// [`solve`] with a growing multiple of the identity added, for a Hessian
/// that lost definiteness to rounding (probabilities all saturated).
fn solve_damped(h: &[f64], g: &[f64]) -> Option<Vec<f64>> {
    let k = g.len();
    let scale = (0..k)
        .map(|a| h[a * k + a].abs())
        .fold(f64::MIN_POSITIVE, f64::max);
    let mut damping = 1e-12 * scale;
    for _ in 0..20 {
        let mut damped = h.to_vec();
        for a in 0..k {
            damped[a * k + a] += damping;
        }
        if let Some(d) = solve(&damped, g) {
            return Some(d);
        }
        damping *= 100.0;
    }
    None
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    // Four accumulators: the compiler vectorises this, not a single chain.
    let mut acc = [0.0; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, ShapeBuilder};

    fn columns(n: usize, d: usize, value: impl Fn(usize, usize) -> f64) -> Array2<f64> {
        Array2::from_shape_fn((n, d).f(), |(i, j)| value(i, j))
    }

    fn settings(c: f64) -> Settings {
        Settings {
            c,
            tol: 1e-10,
            max_iter: 100,
        }
    }

    /// A deterministic pseudo-random number in [-1, 1).
    fn noise(i: usize, j: usize) -> f64 {
        let h = (i as u64 * 2654435761 + j as u64 * 40503 + 12345).wrapping_mul(0x9E3779B97F4A7C15);
        (h >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    #[test]
    fn separable_data_stays_finite_and_converges() {
        // y = 1 exactly when x > 0: without the penalty the slope would
        // grow without bound; with it the solution is finite.
        // Rows far from the boundary (the scale) make plain Newton steps
        // overshoot into saturated probabilities; step halving stops that.
        for (scale, c) in [(1.0, 1.0), (1.0, 1e3), (1.0, 1e6), (1e3, 1e6), (1e4, 1e8)] {
            let x = columns(200, 1, |i, _| scale * (i as f64 / 100.0 - 0.995));
            let y: Vec<f64> = (0..200).map(|i| f64::from(i >= 100)).collect();
            let data = Data::new(x.view(), &y, None).unwrap();
            let fit = fit(&data, &settings(c), &[0], &interrupt::never).unwrap();
            assert!(fit.converged, "C={c}: {fit:?}");
            assert!(fit.coef.iter().all(|b| b.is_finite()));
            assert!(fit.coef[1] > 0.0);
            // The stationarity condition itself, C Σ (p − y) x = −β, to the
            // tolerance (which is on the mean: times C·m here).
            let r: f64 = (0..200)
                .map(|i| (1.0 / (1.0 + (-fit.eta[i]).exp()) - y[i]) * x[[i, 0]])
                .sum();
            assert!(
                (c * r + fit.coef[1]).abs() <= 1.01e-10 * c * 200.0,
                "C={c}: {fit:?}"
            );
        }
    }

    #[test]
    fn extending_a_model_equals_fitting_from_scratch() {
        let (n, d) = (500, 6);
        let x = columns(n, d, noise);
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(x[[i, 0]] + 0.5 * x[[i, 3]] + 0.3 * noise(i, 99) > 0.0))
            .collect();
        let data = Data::new(x.view(), &y, None).unwrap();
        let s = settings(0.5);
        let mut model = Model::intercept_only(&data, &s).unwrap();
        for f in [3, 0, 5] {
            let grown = model.extend(&data, &s, f, &interrupt::never).unwrap();
            let scratch = fit(&data, &s, &grown.features, &interrupt::never).unwrap();
            assert!(grown.converged && scratch.converged);
            for (a, b) in grown.coef.iter().zip(&scratch.coef) {
                assert!((a - b).abs() < 1e-8, "{grown:?} vs {scratch:?}");
            }
            model = Model::from_fit(&data, &s, grown);
        }
        assert_eq!(model.fit().features, vec![3, 0, 5]);
    }

    #[test]
    fn zero_weights_drop_rows() {
        let (n, d) = (300, 2);
        let x = columns(n, d, noise);
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(x[[i, 1]] + noise(i, 7) > 0.0))
            .collect();
        let keep: Vec<usize> = (0..n).filter(|i| i % 3 != 0).collect();
        let weights: Vec<f64> = (0..n).map(|i| f64::from(i % 3 != 0)).collect();
        let sub = columns(keep.len(), d, |i, j| x[[keep[i], j]]);
        let sub_y: Vec<f64> = keep.iter().map(|&i| y[i]).collect();
        let s = settings(2.0);
        let weighted = fit(
            &Data::new(x.view(), &y, Some(&weights)).unwrap(),
            &s,
            &[0, 1],
            &interrupt::never,
        )
        .unwrap();
        let subset = fit(
            &Data::new(sub.view(), &sub_y, None).unwrap(),
            &s,
            &[0, 1],
            &interrupt::never,
        )
        .unwrap();
        for (a, b) in weighted.coef.iter().zip(&subset.coef) {
            assert!((a - b).abs() < 1e-9);
        }
    }

    #[test]
    fn bad_inputs_are_named() {
        let x = columns(4, 1, |i, _| i as f64);
        let err = |r: Result<Data>| r.err().unwrap().to_string();
        assert!(
            err(Data::new(x.view(), &[0.0, 1.0, 2.0, 0.0], None)).contains("y must hold 0 or 1")
        );
        assert!(err(Data::new(x.view(), &[0.0, 1.0], None)).contains("y has 2 values"));
        let c_order = Array2::<f64>::zeros((4, 2));
        assert!(err(Data::new(c_order.view(), &[0.0; 4], None)).contains("Fortran"));
        let data = Data::new(x.view(), &[1.0; 4], None).unwrap();
        let e = Model::intercept_only(&data, &settings(1.0)).err().unwrap();
        assert!(e.to_string().contains("both classes"));
        let e = settings(0.0).validate().err().unwrap();
        assert!(e.to_string().contains("C must be"));
        let mut nan = x.clone();
        nan[[2, 0]] = f64::NAN;
        assert!(check_finite(nan.view())
            .err()
            .unwrap()
            .to_string()
            .contains("row 2"));
    }
}
