//! A fitted regression tree, stored as a flat array of nodes.

use serde::{Deserialize, Serialize};

/// One node. Internal nodes send `x[feature] <= threshold` left, NaN left
/// iff `default_left`; leaves carry `value` (already multiplied by the
/// learning rate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// True for a leaf.
    pub is_leaf: bool,
    /// Split feature (internal nodes).
    pub feature: u32,
    /// Split threshold on the raw value (internal nodes).
    pub threshold: f64,
    /// The same threshold as a bin of the training data's binning.
    pub threshold_bin: u8,
    /// Direction of NaN (internal nodes).
    pub default_left: bool,
    /// Index of the left child (internal nodes).
    pub left: u32,
    /// Index of the right child (internal nodes).
    pub right: u32,
    /// Output of a leaf; for internal nodes, the output it would have had.
    pub value: f64,
    /// Gain of the split (internal nodes), 0 for leaves.
    pub gain: f64,
    /// Training rows that reached the node.
    pub count: u32,
    /// A categorical split (internal nodes): the category codes sent left,
    /// ascending; every other value (missing, a code not listed, a code
    /// unseen in training) goes right, and `threshold`, `threshold_bin`
    /// and `default_left` are unused (0, 0, false). `None` for a threshold
    /// split.
    #[serde(default)]
    pub categories: Option<Vec<u32>>,
}

impl Node {
    /// A leaf with output `value` reached by `count` rows.
    pub fn leaf(value: f64, count: u32) -> Self {
        Node {
            is_leaf: true,
            feature: 0,
            threshold: 0.0,
            threshold_bin: 0,
            default_left: false,
            left: 0,
            right: 0,
            value,
            gain: 0.0,
            count,
            categories: None,
        }
    }

    /// The child a raw value goes to.
    #[inline]
    pub fn child_for_value(&self, v: f64) -> u32 {
        let left = match &self.categories {
            None => crate::routing::value_goes_left(v, self.threshold, self.default_left),
            Some(codes) => crate::categorical::code_goes_left(v, codes),
        };
        if left {
            self.left
        } else {
            self.right
        }
    }
}

/// A tree: `nodes[0]` is the root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// The raw score (output, class) the tree adds to.
    #[serde(default)]
    pub output: u32,
    /// The boosting round that grew it (a forest's member), from 0; `None`
    /// in files written before rounds were recorded. A round's trees
    /// (softmax's class trees) need not cover every output, so the round
    /// cannot be told from the outputs.
    // (Always written: the shards' binary messages carry trees, and
    // bincode cannot skip a field.)
    #[serde(default)]
    pub round: Option<u32>,
    /// `Σ g²/h − G²/H` over the rows it was grown on (A-GBM's scale; in
    /// the units of the node gains, see [`crate::units`]); `None` in files
    /// written before it was recorded. Dynamic feature sampling's weights
    /// start from the first round's, so a resumed fit needs it.
    #[serde(default)]
    pub root_scale: Option<f64>,
    /// The nodes, root first.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The output for one row of raw features (length d).
    pub fn predict_row(&self, row: &[f64]) -> f64 {
        let mut i = 0usize;
        loop {
            let node = &self.nodes[i];
            if node.is_leaf {
                return node.value;
            }
            i = node.child_for_value(row[node.feature as usize]) as usize;
        }
    }

    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_leaf).count()
    }

    /// Depth of the deepest leaf (a single leaf has depth 0).
    pub fn depth(&self) -> usize {
        fn walk(t: &Tree, i: usize) -> usize {
            let n = &t.nodes[i];
            if n.is_leaf {
                0
            } else {
                1 + walk(t, n.left as usize).max(walk(t, n.right as usize))
            }
        }
        walk(self, 0)
    }
}
