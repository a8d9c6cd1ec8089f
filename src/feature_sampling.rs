//! Which features a tree (or a forest's node) may consider: m of the M
//! features, drawn uniformly or, with dynamic feature reweighting (Borisov,
//! Eruhimov and Tuv; SPEC section 5), in proportion to weights that move
//! from uniform towards the importances learned so far:
//!
//! - boosting: `w_n = (1 − m/M)^(a·i) · I₀ + Σ_{j≤i} V_n^(j)`;
//! - forests: `w_n = a · I₀ + Σ_{j≤i} V_n^(j)`;
//!
//! after i rounds (the first round draws uniformly), where I₀ is the root
//! scale of the first round's trees (summed over its K class trees) and
//! `V_n^(j)` feature n's total split gain in round j (summed over the
//! round's trees), both in the engine's Newton units, in which the root
//! scale of a squared-error tree is its root SSE and a split's gain the SSE
//! it removes: the paper's impurities.

use crate::error::{Result, SbError};
use crate::rng::Rng;
use crate::tree::Tree;

/// How many features: a fraction of them or a count (scikit-learn's
/// `max_features` convention).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FeatureCount {
    /// `round(f · M)` features, at least 1; f in (0, 1].
    Fraction(f64),
    /// Exactly this many (at most M), ≥ 1.
    Count(usize),
}

impl FeatureCount {
    /// The number of features of `m_total`, in `1..=m_total` (0 if none).
    pub fn of(self, m_total: usize) -> usize {
        let m = match self {
            FeatureCount::Fraction(f) if f >= 1.0 => m_total,
            FeatureCount::Fraction(f) => (f * m_total as f64).round() as usize,
            FeatureCount::Count(k) => k,
        };
        m.clamp(1, m_total.max(1)).min(m_total)
    }

    /// Check the range; `name` is the parameter's name.
    pub fn validate(self, name: &str) -> Result<()> {
        let ok = match self {
            FeatureCount::Fraction(f) => f > 0.0 && f <= 1.0,
            FeatureCount::Count(k) => k >= 1,
        };
        let given = match self {
            FeatureCount::Fraction(f) => format!("{f:?}"),
            FeatureCount::Count(k) => k.to_string(),
        };
        if ok {
            Ok(())
        } else {
            Err(SbError::InvalidParameter(format!(
                "{name} must be a fraction in (0, 1] or a count >= 1, got {given}"
            )))
        }
    }
}

/// How features are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureSampling {
    /// Uniformly, every time.
    Uniform,
    /// In proportion to dynamic weights.
    Dynamic,
}

impl FeatureSampling {
    /// The Python layer's name.
    pub fn name(self) -> &'static str {
        match self {
            FeatureSampling::Uniform => "uniform",
            FeatureSampling::Dynamic => "dynamic",
        }
    }

    /// Parse the Python layer's name.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "uniform" => Ok(FeatureSampling::Uniform),
            "dynamic" => Ok(FeatureSampling::Dynamic),
            other => Err(SbError::InvalidParameter(format!(
                "feature_sampling must be 'uniform' or 'dynamic', got '{other}'"
            ))),
        }
    }
}

/// How the initial weight `I₀` fades as rounds pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fading {
    /// Boosting: `(1 − m/M)^(a·i) · I₀`.
    Boosting,
    /// Forests: `a · I₀`, constant.
    Forest,
}

/// The dynamic weights of a fit.
#[derive(Debug, Clone)]
pub struct DynamicWeights {
    fading: Fading,
    /// a.
    rate: f64,
    /// m / M.
    fraction: f64,
    /// I₀, once the first round is seen.
    initial: Option<f64>,
    /// `Σ_j V_n^(j)` per feature.
    gains: Vec<f64>,
    /// Rounds seen.
    rounds: usize,
    /// `gains` and `rounds` after the best round so far, when early
    /// stopping keeps only the trees up to it (`mark_best`).
    best: Option<(Vec<f64>, usize)>,
}

impl DynamicWeights {
    /// Weights over `n_features` features of which `m` are drawn each time.
    pub fn new(fading: Fading, rate: f64, m: usize, n_features: usize) -> Self {
        DynamicWeights {
            fading,
            rate,
            fraction: m as f64 / n_features.max(1) as f64,
            initial: None,
            gains: vec![0.0; n_features],
            rounds: 0,
            best: None,
        }
    }

    /// A round ended: its trees, with the root scale of each.
    pub fn observe<'a>(&mut self, trees: impl IntoIterator<Item = (&'a Tree, f64)>) {
        let mut roots = 0.0;
        for (tree, root_scale) in trees {
            roots += root_scale;
            for node in tree.nodes.iter().filter(|n| !n.is_leaf) {
                self.gains[node.feature as usize] += node.gain.max(0.0);
            }
        }
        if self.initial.is_none() {
            self.initial = Some(roots);
        }
        self.rounds += 1;
    }

    /// The weights for the next draw; `None` while they are uniform (before
    /// the first round ends).
    pub fn weights(&self) -> Option<Vec<f64>> {
        self.weights_after(&self.gains, self.rounds)
    }

    /// The round just seen is the best so far: early stopping will keep
    /// the model up to it, and its weights with it.
    pub fn mark_best(&mut self) {
        self.best = Some((self.gains.clone(), self.rounds));
    }

    /// The weights after the round last marked best (those of the kept
    /// trees), or `weights` if none was.
    pub fn weights_at_best(&self) -> Option<Vec<f64>> {
        match &self.best {
            Some((gains, rounds)) => self.weights_after(gains, *rounds),
            None => self.weights(),
        }
    }

    fn weights_after(&self, gains: &[f64], rounds: usize) -> Option<Vec<f64>> {
        let initial = self.initial?;
        let prior = match self.fading {
            Fading::Boosting => (1.0 - self.fraction).powf(self.rate * rounds as f64) * initial,
            Fading::Forest => self.rate * initial,
        };
        Some(gains.iter().map(|&v| prior + v).collect())
    }
}

/// `m` of `from` (ascending), ascending: uniformly, or with probability
/// proportional to `weights[f]` (indexed by feature) without replacement,
/// by Efraimidis and Spirakis's keys `ln(u) / w` (the m largest win; a
/// feature of weight 0 only when fewer than m others have any). All of
/// them, drawing nothing, when `m ≥ from.len()`.
pub fn draw(rng: &mut Rng, from: &[usize], m: usize, weights: Option<&[f64]>) -> Vec<usize> {
    if m >= from.len() {
        return from.to_vec();
    }
    let Some(weights) = weights else {
        return rng
            .sample_sorted(from.len(), m)
            .into_iter()
            .map(|i| from[i])
            .collect();
    };
    let mut keyed: Vec<(f64, usize)> = from
        .iter()
        .map(|&f| {
            // In (0, 1]: ln is finite.
            let u = 1.0 - rng.next_f64();
            let w = weights[f];
            let key = if w > 0.0 && w.is_finite() {
                u.ln() / w
            } else {
                f64::NEG_INFINITY
            };
            (key, f)
        })
        .collect();
    // Largest keys first; ties (weight-0 features) by feature index.
    keyed.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<usize> = keyed[..m].iter().map(|&(_, f)| f).collect();
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Node;

    fn stump(feature: u32, gain: f64) -> Tree {
        let mut root = Node::leaf(0.0, 10);
        root.is_leaf = false;
        root.feature = feature;
        root.gain = gain;
        root.left = 1;
        root.right = 2;
        Tree {
            output: 0,
            round: None,
            root_scale: None,
            nodes: vec![root, Node::leaf(1.0, 5), Node::leaf(-1.0, 5)],
        }
    }

    #[test]
    fn boosting_weights_follow_the_formula_over_two_rounds() {
        // M = 4, m = 1, a = 2: the prior fades by (3/4)^(2i).
        let mut w = DynamicWeights::new(Fading::Boosting, 2.0, 1, 4);
        assert_eq!(w.weights(), None);
        // Round 1: two class trees, root scales 6 and 4 (I₀ = 10).
        w.observe([(&stump(1, 3.0), 6.0), (&stump(1, 1.0), 4.0)]);
        let p1 = 0.75f64.powf(2.0) * 10.0;
        assert_eq!(w.weights().unwrap(), vec![p1, p1 + 4.0, p1, p1]);
        // Round 2: I₀ stays that of the first round.
        w.observe([(&stump(3, 2.5), 100.0), (&stump(1, 0.5), 50.0)]);
        let p2 = 0.75f64.powf(4.0) * 10.0;
        assert_eq!(w.weights().unwrap(), vec![p2, p2 + 4.5, p2, p2 + 2.5]);
    }

    #[test]
    fn forest_weights_keep_a_constant_prior() {
        let mut w = DynamicWeights::new(Fading::Forest, 5.0, 2, 3);
        w.observe([(&stump(2, 1.5), 2.0)]);
        w.observe([(&stump(2, 0.5), 7.0)]);
        assert_eq!(w.weights().unwrap(), vec![10.0, 10.0, 12.0]);
    }

    #[test]
    fn weighted_draws_follow_the_weights() {
        let mut rng = Rng::new(3);
        let from: Vec<usize> = (0..4).collect();
        let weights = [1.0, 0.0, 3.0, 6.0];
        let mut counts = [0usize; 4];
        for _ in 0..20000 {
            let d = draw(&mut rng, &from, 1, Some(&weights));
            counts[d[0]] += 1;
        }
        assert_eq!(counts[1], 0);
        for (f, expected) in [(0, 0.1), (2, 0.3), (3, 0.6)] {
            let share = counts[f] as f64 / 20000.0;
            assert!((share - expected).abs() < 0.015, "{f}: {share}");
        }
        // Fewer positive weights than m: the rest by index.
        assert_eq!(
            draw(&mut rng, &from, 3, Some(&[0.0, 0.0, 0.0, 1.0])),
            vec![0, 1, 3]
        );
        assert_eq!(draw(&mut rng, &from, 4, Some(&weights)), from);
    }

    #[test]
    fn counts_and_fractions() {
        assert_eq!(FeatureCount::Fraction(1.0).of(7), 7);
        assert_eq!(FeatureCount::Fraction(0.01).of(7), 1);
        assert_eq!(FeatureCount::Count(3).of(7), 3);
        assert_eq!(FeatureCount::Count(30).of(7), 7);
        assert_eq!(FeatureCount::Count(3).of(0), 0);
        assert!(FeatureCount::Count(0).validate("m").is_err());
        assert!(FeatureCount::Fraction(1.5).validate("m").is_err());
    }
}
