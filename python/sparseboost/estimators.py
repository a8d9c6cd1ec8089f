"""The scikit-learn estimators: a regressor, a (binary or multiclass)
classifier and a ranker."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.metrics import accuracy_score, r2_score

from . import persistence
from ._base import BaseSparseBoost
from ._validation import check_labels_sortable


class SparseBoostRegressor(RegressorMixin, BaseSparseBoost):
    """Histogram gradient boosting for regression (squared error) that
    selects its own features.

    It is also a feature selector: ``transform(X)`` keeps the columns of
    ``selected_features_`` and ``get_support()`` gives their mask.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds (one tree each).
    learning_rate : float, default=0.1
        Shrinkage of every leaf value, > 0.
    max_leaves : int, default=31
        Maximum leaves per tree (leaf-wise growth), >= 2.
    max_depth : int or None, default=None
        Maximum tree depth; None for no limit.
    min_samples_leaf : int, default=20
        Minimum training rows in a leaf.
    min_split_fraction : float, default=0.0
        The papers' alpha in [0, 1): a node with fewer than
        ``alpha * n_samples`` rows is not split.
    min_child_weight : float, default=1e-3
        Minimum hessian sum in a leaf (LightGBM's ``min_sum_hessian_in_leaf``).
    l2_regularization : float, default=0.0
        L2 penalty lambda on leaf values.
    min_gain : float, default=0.0
        A split is made only if its gain exceeds this.
    max_bins : int, default=255
        Value bins per feature, in [2, 255]; NaN always gets a bin of its own.
    subsample : float, default=1.0
        Fraction of rows drawn (without replacement) for each tree.
    colsample_bytree : float or int, default=1.0
        Features drawn for each tree: a float is a fraction of them, an int
        a count m >= 1 (scikit-learn's ``max_features`` convention).
    feature_sampling : {"uniform", "dynamic"}, default="uniform"
        How those features are drawn. "dynamic" is dynamic feature
        reweighting (Borisov, Eruhimov and Tuv): the first round draws
        uniformly; round i draws m features without replacement with
        weights ``(1 - m/M)**(a*i) * I0 + (gain of each feature so far)``,
        I0 being the first round's root loss scale (summed over its class
        trees), so sampling moves from uniform towards the features the
        model finds useful. With all features (m = M) it changes nothing.
    reweight_rate : float, default=1.0
        ``a`` above, >= 0: how fast the uniform part fades (the paper
        advises 0.5-2).
    penalty : {"agbm", "gbfs", "none"}, default="agbm"
        The new-feature penalty (SPEC section 2). A split on a feature the
        ensemble does not use yet must beat the best split on used features
        by ``mu`` (plus the feature's cost): relative to the tree's root
        loss scale for "agbm" (A-GBM, Han et al. 2020), in gain units for
        "gbfs" (GBFS, Xu et al. 2014; equals LightGBM's
        ``cegb_penalty_feature_coupled=[mu]*d``). "none" is the plain GBDT.
    mu : float or str, default=0.01
        The penalty: in [0, 1) for "agbm", >= 0 for "gbfs". ``mu=0`` without
        costs gives exactly the plain GBDT. A string ``"f*mu_max"`` (f >= 0)
        gives mu relative to ``mu_max_``, the smallest mu at which the first
        round admits no feature (as glmnet gives lambda relative to
        lambda_max): the same f means the same on any data. A fit whose
        mu is >= ``mu_max_`` has no tree and warns.
    feature_costs : array of shape (n_features,) or dict, default=None
        Extra non-negative cost of each feature, on the same scale as
        ``mu``; a dict maps feature names (or indices) to costs, others 0.
    feature_bags : array of shape (n_features,), default=None
        Bag label of each feature: the penalty is paid once per bag, after
        which every feature of the bag is free.
    max_features : int or None, default=None
        Stop admitting new features once this many are used.
    split_search : {"exhaustive", "group_testing", "auto"}, default="exhaustive"
        How a node finds its split. "exhaustive" scans every feature.
        "group_testing" (GT-GBM) scans only the features already used and
        the candidates found by binary searches over random feature subsets
        (each half tested through the summed "pseudo-feature" of its
        features), so a node costs about ``p * log2(L)`` cheap tests plus
        a few exact scans instead of d exact scans; once ``max_features``
        features are used (no bags) it runs no tests at all. Costs a
        prefix-sum cache of about ``e * ln(s / delta) / 4 + 1`` bytes per
        (row, feature), see ``gt_cache_bytes_``. "auto" runs group testing
        only where its estimated work (prefix cache included) is below half
        of exhaustive search's, from n, d, the bins, s, delta, max_leaves,
        n_estimators and max_features (README, "split_search='auto'");
        ``split_search_`` says which one ran.
    gt_n_features : int, default=10
        s, the number of relevant features group testing expects (clipped to
        the number of features that can split). Subsets have
        ``L = ceil(d / s)`` features, but at most ``max(16, n_rows / 10)``:
        with few rows a test of a long subset cannot tell its halves apart.
    gt_delta : float in (0, 1), default=0.1
        delta, the failure probability of the group-testing theorem; with s
        it sets the number of subsets ``p = ceil(e * s * ln(s / delta))``
        (for subsets shortened to L features: ``ceil(e * ln(s / delta) *
        d / L)``, the same number of subsets per feature).
    gt_max_rows : int >= 2 or None, default=None
        Group tests of a node with more rows than this use that many of
        them, evenly spaced (the candidates they find are still scanned on
        all rows). Faster on large nodes, at some loss of the tests' power;
        None tests on all rows.
    early_stopping_rounds : int or None, default=None
        Stop when the last metric on the last evaluation set has not
        improved for this many rounds, and keep the trees of the best round
        (``best_iteration_``). Without an ``eval_set`` in ``fit``,
        ``validation_fraction`` of the training rows is held out for it.
    eval_metric : str, list of str or None, default=None
        Metrics computed on every evaluation set after each round:
        "rmse", "l2", "logloss", "multi_logloss", "auc", "error",
        "ndcg@k", "map@k", "mrr". None: the objective's own (rmse, logloss,
        multi_logloss, ndcg@lambdarank_truncation_level). Early stopping
        watches the last one.
    validation_fraction : float in (0, 1), default=0.1
        With early stopping and no ``eval_set``: the fraction of rows held
        out (stratified by class for classifiers, whole queries for the
        ranker), drawn with ``random_state``.
    callbacks : list or tuple of callables, or None, default=None
        Each is called after every round with a ``sparseboost.RoundReport``
        (round, train_loss, eval, n_features, elapsed), on the thread that
        called ``fit``; a truthy return stops the fit (the trees so far are
        kept), an exception stops it and is raised. A callback may call the
        library (predict, score, fit another estimator or this one): the fit
        waits on threads of its own, whatever ``n_jobs`` is.
    verbose : int, default=0
        Print a line of the round report every ``verbose`` rounds (0: never).
    n_jobs : int or None, default=None
        Threads: None or -1 for all cores, -2 for all but one, k > 0 for k.
        The fitted model does not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the row/feature sampling and of the binning sample. The same
        int gives the same model.

    Attributes
    ----------
    n_features_in_, feature_names_in_ : as in scikit-learn.
    selected_features_ : ndarray of int
        Features used by any split, in the order they entered the model.
    selected_feature_names_ : ndarray of str
        Their names, in the same order.
    feature_entry_tree_ : ndarray of int
        The tree at which each selected feature entered.
    selection_path_ : dict of arrays
        ``n_features`` used and ``train_loss`` after each tree.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised total gain per feature.
    feature_weights_ : ndarray of shape (n_features_in_,)
        Final feature sampling probabilities (uniform unless
        ``feature_sampling="dynamic"``).
    n_trees_ : int
        Trees fitted.
    mu_max_ : float or None
        "agbm" and "gbfs": the smallest mu at which the first round admits
        no feature (its best root split, over every feature, cannot pay
        mu), on the scale of ``mu``; computed by exhaustive search on the
        first trees' rows. None for ``penalty="none"``.
    train_loss_ : ndarray of shape (n_trees_,)
        Mean training loss (mean squared error) after each tree.
    split_search_ : str
        The search the fit ran: "exhaustive" or "group_testing" (what
        ``split_search="auto"`` chose).
    gt_n_subsets_, gt_cache_bytes_ : int or None
        With group testing: the number of subsets p and the prefix-sum
        cache's bytes; None otherwise.
    evals_result_ : dict
        ``{"validation_0": {metric: array of one value per round}, ...}``
        (empty without evaluation sets).
    best_iteration_, best_score_ : int, float or None
        The round (from 0) with the best last metric on the last evaluation
        set, and that value; None without evaluation sets.
    """

    _objective = "squared_error"
    _labels = False

    def _encode_target(self, y, fitted=False):
        return y

    def fit(self, X, y, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed) and ``y``
        (n_samples,), with optional non-negative ``sample_weight``;
        ``eval_set`` is a list of ``(X, y)`` scored after every round
        (``eval_sample_weight``: one weight array or None per set)."""
        return self._fit(
            X, y, sample_weight, eval_set=eval_set, eval_sample_weight=eval_sample_weight
        )

    def predict(self, X):
        """Predicted values, shape (n_samples,)."""
        return self._raw_predict(X)

    def score(self, X, y, sample_weight=None):
        """R² of ``predict(X)`` (at least 2 rows)."""
        predicted, y, sample_weight = self._score_inputs(X, y, sample_weight)
        return r_squared(y, predicted, sample_weight)


class SparseBoostClassifier(ClassifierMixin, BaseSparseBoost):
    """Histogram gradient boosting for classification that selects its own
    features: binary log-loss for 2 classes, softmax (multiclass log-loss,
    one tree per class and round) for more.

    Parameters are those of :class:`SparseBoostRegressor`. With K > 2
    classes each round grows K trees, one per class, in class order; they
    share the selected features, so the tree of class k + 1 uses for free
    the features class k just selected. A-GBM's scale is each class tree's
    own root scale.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted; for 2 classes ``classes_[1]`` is the
        positive class.
    """

    _objective = "binary_logloss"
    _labels = True

    def _engine_objective(self) -> dict:
        if len(getattr(self, "classes_", ())) > 2:
            return {"objective": "multi_logloss", "n_classes": len(self.classes_)}
        return {"objective": "binary_logloss"}

    def _encode_target(self, y, fitted=False):
        if fitted:
            known = np.isin(y, self.classes_)
            if not known.all():
                raise ValueError(
                    f"y holds labels not seen in fit: {np.unique(y[~known])[:5]!r} "
                    f"(classes_ are {self.classes_!r})"
                )
            return np.searchsorted(self.classes_, y).astype(np.float64)
        self.classes_, encoded = check_labels_sortable(y, "y")
        if len(self.classes_) < 2:
            raise ValueError(
                "y holds a single class: SparseBoostClassifier needs samples of at least 2 "
                f"classes, but the data contains only one class: {self.classes_[0]!r}"
            )
        return encoded.astype(np.float64)

    def fit(self, X, y, sample_weight=None, *, eval_set=None, eval_sample_weight=None):
        """Fit on ``X`` (n_samples, n_features; NaN allowed) and class
        labels ``y`` (n_samples,), with optional ``sample_weight``;
        ``eval_set`` is a list of ``(X, y)`` scored after every round."""
        return self._fit(
            X, y, sample_weight, eval_set=eval_set, eval_sample_weight=eval_sample_weight
        )

    def decision_function(self, X):
        """Raw scores: the logit of the positive class, shape (n_samples,),
        for 2 classes; the K class scores (softmax inputs), shape
        (n_samples, K), for more."""
        return self._raw_predict(X)

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), columns in
        ``classes_`` order."""
        raw = self.decision_function(X)
        if raw.ndim == 2:
            return softmax(raw, axis=1)
        return probabilities(raw)

    def predict(self, X):
        """Most probable class label, shape (n_samples,)."""
        raw = self.decision_function(X)
        if raw.ndim == 2:
            return self.classes_[np.argmax(raw, axis=1)]
        return self.classes_[(raw > 0).astype(int)]

    def score(self, X, y, sample_weight=None):
        """Accuracy of ``predict(X)``."""
        predicted, y, sample_weight = self._score_inputs(X, y, sample_weight)
        return float(accuracy_score(y, predicted, sample_weight=sample_weight))


def r_squared(y, predicted, sample_weight) -> float:
    """R² of ``predicted``; one row has none (scikit-learn would return NaN)."""
    if len(y) < 2:
        raise ValueError(f"score needs at least 2 rows of y (R² of {len(y)} is undefined)")
    return float(r2_score(y, predicted, sample_weight=sample_weight))


def probabilities(logit: np.ndarray) -> np.ndarray:
    """``[1 - p, p]`` with ``p = σ(logit)``, shape (n, 2), without overflow."""
    p = expit(logit)
    return np.column_stack([expit(-logit), p])


persistence.register(SparseBoostRegressor, {"squared_error"})
persistence.register(SparseBoostClassifier, {"binary_logloss", "multi_logloss"})
