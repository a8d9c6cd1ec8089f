//! Variants of the threshold scan (`src/split.rs`, `best_split_of_feature`,
//! without its NaN directions), timed against a copy of it in one process:
//! 400 features of 256 bins in cache, one thread, the variants alternated
//! for 15 rounds, medians. Each variant is first checked to choose the same
//! split with the same gain as the copy. Not part of the crate (measured
//! and not kept; docs/performance.md). Run from the project root:
//!
//!     rustc -O benches/experiments/scan_variants.rs -o /tmp/scan_variants && /tmp/scan_variants
//!
//! - screened: compares products G_L^2 (H_R+l2) + G_R^2 (H_L+l2) with the
//!   best's children's scores times (H_L+l2)(H_R+l2) and divides only when
//!   a threshold comes within 1e-9 of the best;
//! - two_pass: prefix sums into arrays, then the gains;
//! - lean: the best kept as a bin, a gain and a left child, the candidate
//!   built once at the end; lean_screened: both;
//! - blocked: prefix sums, then the gains of four thresholds at a time
//!   without branches, a scalar pass only over a block that beats the best
//!   (blocked_avx2: the same compiled for AVX2).

use std::hint::black_box;
use std::time::Instant;

#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct HistBin { g: f64, h: f64, n: u32 }
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct NodeStats { g: f64, h: f64, n: u32 }
impl NodeStats {
    #[inline] fn add(self, b: &HistBin) -> Self { NodeStats { g: self.g + b.g, h: self.h + b.h, n: self.n + b.n } }
    #[inline] fn minus(self, o: NodeStats) -> Self { NodeStats { g: self.g - o.g, h: self.h - o.h, n: self.n - o.n } }
    #[inline] fn score(&self, l2: f64) -> f64 { self.g * self.g / (self.h + l2) }
}
struct C { min_samples_leaf: u32, min_child_weight: f64, l2: f64 }
impl C { #[inline] fn allows(&self, c: &NodeStats) -> bool { c.n >= self.min_samples_leaf && c.h >= self.min_child_weight && c.h + self.l2 > 0.0 } }
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cand { bin: u8, default_left: bool, gain: f64, left: NodeStats, right: NodeStats, extra: [u64; 5] }

#[inline(never)]
fn original(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> {
    let n_value_bins = bins.len() - 1;
    let parent_score = parent.score(c.l2);
    let min_n = c.min_samples_leaf;
    let mut best: Option<Cand> = None;
    let mut left = NodeStats::default();
    for (b, bin) in bins[..n_value_bins - 1].iter().enumerate() {
        if bin.n == 0 { continue; }
        left = left.add(bin);
        if left.n < min_n { continue; }
        let right = parent.minus(left);
        if right.n < min_n { break; }
        if !c.allows(&left) || !c.allows(&right) { continue; }
        let gain = left.score(c.l2) + right.score(c.l2) - parent_score;
        if best.is_none_or(|s| gain > s.gain) {
            let default_left = left.n >= right.n;
            best = Some(Cand { bin: b as u8, default_left, gain, left, right, extra: [0; 5] });
        }
    }
    best
}

#[inline(never)]
fn screened(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> {
    let n_value_bins = bins.len() - 1;
    let parent_score = parent.score(c.l2);
    let min_n = c.min_samples_leaf;
    let mut best: Option<Cand> = None;
    let mut best_children = f64::NEG_INFINITY;
    let mut left = NodeStats::default();
    for (b, bin) in bins[..n_value_bins - 1].iter().enumerate() {
        if bin.n == 0 { continue; }
        left = left.add(bin);
        if left.n < min_n { continue; }
        let right = parent.minus(left);
        if right.n < min_n { break; }
        if !c.allows(&left) || !c.allows(&right) { continue; }
        let (a, bb) = (left.h + c.l2, right.h + c.l2);
        let num = left.g * left.g * bb + right.g * right.g * a;
        let den = a * bb;
        let bar = best_children * den * (1.0 - 1e-9);
        if (num < bar) & (bar <= f64::MAX) & (num >= 1e-250) & (den >= 1e-250) { continue; }
        let children = left.score(c.l2) + right.score(c.l2);
        let gain = children - parent_score;
        if best.is_none_or(|s| gain > s.gain) {
            best_children = children;
            let default_left = left.n >= right.n;
            best = Some(Cand { bin: b as u8, default_left, gain, left, right, extra: [0; 5] });
        }
    }
    best
}

// Record the best gain as a plain f64, candidate fields written only at the end.
#[inline(never)]
fn lean(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> {
    let n_value_bins = bins.len() - 1;
    let parent_score = parent.score(c.l2);
    let min_n = c.min_samples_leaf;
    let mut best_gain = f64::NAN; let mut best_b = usize::MAX; let mut best_left = NodeStats::default();
    let mut left = NodeStats::default();
    for (b, bin) in bins[..n_value_bins - 1].iter().enumerate() {
        if bin.n == 0 { continue; }
        left = left.add(bin);
        if left.n < min_n { continue; }
        let right = parent.minus(left);
        if right.n < min_n { break; }
        if !c.allows(&left) || !c.allows(&right) { continue; }
        let gain = left.score(c.l2) + right.score(c.l2) - parent_score;
        if best_b == usize::MAX || gain > best_gain {
            best_gain = gain; best_b = b; best_left = left;
        }
    }
    (best_b != usize::MAX).then(|| { let right = parent.minus(best_left); Cand { bin: best_b as u8, default_left: best_left.n >= right.n, gain: best_gain, left: best_left, right, extra: [0;5] } })
}


#[inline(never)]
fn lean_screened(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> {
    let n_value_bins = bins.len() - 1;
    let parent_score = parent.score(c.l2);
    let min_n = c.min_samples_leaf;
    let mut best_gain = f64::NAN; let mut best_b = usize::MAX; let mut best_left = NodeStats::default();
    let mut best_children = f64::NEG_INFINITY;
    let mut left = NodeStats::default();
    for (b, bin) in bins[..n_value_bins - 1].iter().enumerate() {
        if bin.n == 0 { continue; }
        left = left.add(bin);
        if left.n < min_n { continue; }
        let right = parent.minus(left);
        if right.n < min_n { break; }
        if !c.allows(&left) || !c.allows(&right) { continue; }
        let (a, bb) = (left.h + c.l2, right.h + c.l2);
        let num = left.g * left.g * bb + right.g * right.g * a;
        let bar = best_children * (a * bb) * (1.0 - 1e-9);
        if num < bar { continue; }
        let children = left.score(c.l2) + right.score(c.l2);
        let gain = children - parent_score;
        if best_b == usize::MAX || gain > best_gain {
            best_gain = gain; best_b = b; best_left = left; best_children = children;
        }
    }
    (best_b != usize::MAX).then(|| { let right = parent.minus(best_left); Cand { bin: best_b as u8, default_left: best_left.n >= right.n, gain: best_gain, left: best_left, right, extra: [0;5] } })
}

// Two passes: prefix sums into arrays, then gains without a loop-carried chain.
#[inline(never)]
fn two_pass(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> {
    let m = bins.len() - 2;
    let parent_score = parent.score(c.l2);
    let mut gl = [0f64; 256]; let mut hl = [0f64; 256]; let mut nl = [0u32; 256];
    let mut left = NodeStats::default();
    for k in 0..m { left = left.add(&bins[k]); gl[k] = left.g; hl[k] = left.h; nl[k] = left.n; }
    let mut best_gain = f64::NAN; let mut best_b = usize::MAX;
    for k in 0..m {
        if bins[k].n == 0 { continue; }
        let (ln, rn) = (nl[k], parent.n - nl[k]);
        let (lh, rh) = (hl[k], parent.h - hl[k]);
        let (lg, rg) = (gl[k], parent.g - gl[k]);
        let ok = ln >= c.min_samples_leaf && rn >= c.min_samples_leaf && lh >= c.min_child_weight && rh >= c.min_child_weight && lh + c.l2 > 0.0 && rh + c.l2 > 0.0;
        if !ok { if rn < c.min_samples_leaf { break; } continue; }
        let gain = lg * lg / (lh + c.l2) + rg * rg / (rh + c.l2) - parent_score;
        if best_b == usize::MAX || gain > best_gain { best_gain = gain; best_b = k; }
    }
    (best_b != usize::MAX).then(|| { let l = NodeStats { g: gl[best_b], h: hl[best_b], n: nl[best_b] }; let right = parent.minus(l); Cand { bin: best_b as u8, default_left: l.n >= right.n, gain: best_gain, left: l, right, extra: [0;5] } })
}

const BLOCK: usize = 4;
#[inline(always)]
fn blocked_any(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> {
    let m = bins.len() - 2;
    let parent_score = parent.score(c.l2);
    let padded = m.div_ceil(BLOCK) * BLOCK;
    let mut gl = [0f64; 260]; let mut hl = [0f64; 260]; let mut nl = [0f64; 260]; let mut full = [false; 260];
    let mut left = NodeStats::default();
    for k in 0..m {
        let bin = &bins[k];
        if bin.n != 0 { left = left.add(bin); }
        gl[k] = left.g; hl[k] = left.h; nl[k] = left.n as f64; full[k] = bin.n != 0;
    }
    let (pg, ph, pn) = (parent.g, parent.h, parent.n as f64);
    let (l2, min_n, mcw) = (c.l2, c.min_samples_leaf as f64, c.min_child_weight);
    let mut best_gain = f64::NAN; let mut best_k = usize::MAX;
    let mut block = 0;
    while block < padded {
        if pn - nl[block] < min_n { break; }
        let mut gain = [0f64; BLOCK]; let mut valid = [false; BLOCK];
        for l in 0..BLOCK {
            let k = block + l;
            let (lg, lh, ln) = (gl[k], hl[k], nl[k]);
            let (rg, rh, rn) = (pg - lg, ph - lh, pn - ln);
            valid[l] = full[k] & (k < m) & (ln >= min_n) & (rn >= min_n) & (lh >= mcw) & (rh >= mcw) & (lh + l2 > 0.0) & (rh + l2 > 0.0);
            gain[l] = lg * lg / (lh + l2) + rg * rg / (rh + l2) - parent_score;
        }
        let mut beat = false;
        for l in 0..BLOCK { beat |= valid[l] & ((best_k == usize::MAX) | (gain[l] > best_gain)); }
        if beat {
            for l in 0..BLOCK {
                if valid[l] && (best_k == usize::MAX || gain[l] > best_gain) { best_gain = gain[l]; best_k = block + l; }
            }
        }
        block += BLOCK;
    }
    (best_k != usize::MAX).then(|| { let l = NodeStats { g: gl[best_k], h: hl[best_k], n: nl[best_k] as u32 }; let right = parent.minus(l); Cand { bin: best_k as u8, default_left: l.n >= right.n, gain: best_gain, left: l, right, extra: [0;5] } })
}
#[inline(never)]
fn blocked(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> { blocked_any(bins, parent, c) }
#[target_feature(enable = "avx2")]
unsafe fn blocked_avx2_inner(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> { blocked_any(bins, parent, c) }
#[inline(never)]
fn blocked_avx2(bins: &[HistBin], parent: NodeStats, c: &C) -> Option<Cand> { unsafe { blocked_avx2_inner(bins, parent, c) } }

fn main() {
    let mut s: u64 = 42;
    let mut rnd = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s >> 11) as f64 / (1u64 << 53) as f64 };
    let nf = 400;
    let feats: Vec<Vec<HistBin>> = (0..nf).map(|_| (0..257).map(|_| { let n = 20 + (rnd() * 10.0) as u32; HistBin { g: (rnd() - 0.5) * n as f64, h: n as f64 * (0.1 + rnd()), n } }).collect()).collect();
    let parents: Vec<NodeStats> = feats.iter().map(|f| f.iter().fold(NodeStats::default(), |s, b| s.add(b))).collect();
    let c = C { min_samples_leaf: 20, min_child_weight: 1e-3, l2: 0.0 };
    let fns: [(&str, fn(&[HistBin], NodeStats, &C) -> Option<Cand>); 7] = [("original", original), ("screened", screened), ("two_pass", two_pass), ("lean", lean), ("lean_screened", lean_screened), ("blocked", blocked), ("blocked_avx2", blocked_avx2)];
    for i in 0..nf { for (name, f) in &fns { assert_eq!(original(&feats[i], parents[i], &c), f(&feats[i], parents[i], &c), "{name}"); } }
    let mut times = vec![vec![]; fns.len()];
    for _round in 0..15 {
        for (k, (_, f)) in fns.iter().enumerate() {
            let t = Instant::now();
            for _ in 0..50 { for i in 0..nf { black_box(f(black_box(&feats[i]), parents[i], &c)); } }
            times[k].push(t.elapsed().as_secs_f64() / (50.0 * nf as f64 * 256.0) * 1e9);
        }
    }
    let median = |k: usize| { let mut t = times[k].clone(); t.sort_by(|a, b| a.partial_cmp(b).unwrap()); t[7] };
    for (k, (name, _)) in fns.iter().enumerate() { println!("{name}: {:.3} ns/bin (median of 15), {:.2}x the original", median(k), median(k) / median(0)); }
}
