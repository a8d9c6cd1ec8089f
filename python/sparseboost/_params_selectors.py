"""The parameter table's records of the forests and the selectors (see
``_params``, which joins them to the boosters' records)."""

from __future__ import annotations

from ._param_spec import (
    FORESTS,
    LINEAR_FORWARD,
    SELECTOR,
    SELECTOR_CV,
    TOP_K,
    TWO_PASS,
    Param,
)
from ._validation import MAX_INTEGER_CLASSES

# What "class labels" means where a selector picks its booster from y.
LABELS = f""" Class labels are what scikit-learn's ``type_of_target`` calls
        binary or multiclass, except floats of more than {MAX_INTEGER_CLASSES} distinct
        values: a count held as floats."""

SELECTOR_PARAMS = (
    # -- the forests ----------------------------------------------------
    Param(
        "n_estimators",
        "int",
        100,
        "[1, inf)",
        "Trees (per class for more than 2 classes).",
        FORESTS,
        engine="n_estimators",
    ),
    Param(
        "max_features",
        '{"sqrt", "log2", "default"}, int, float or None',
        "default",
        "an int >= 1 or a float in (0, 1]",
        """Features drawn at each node (scikit-learn's meaning): a count, a
        fraction, "sqrt" or "log2" of the number of features, or all (None).
        "default" is scikit-learn's default: all features for the regressor,
        "sqrt" for the classifier.""",
        FORESTS,
        engine="max_features",
    ),
    Param(
        "bootstrap",
        "bool",
        True,
        "",
        "Draw each tree's rows with replacement (else every row, once).",
        FORESTS,
        engine="bootstrap",
    ),
    Param(
        "oob_score",
        "bool",
        False,
        "",
        """Compute ``oob_score_`` (R² for the regressor, accuracy for the
        classifier) and ``oob_prediction_`` (regressor) or
        ``oob_decision_function_`` (classifier); needs ``bootstrap``.""",
        FORESTS,
    ),
    Param(
        "max_depth",
        "int or None",
        None,
        "[1, inf)",
        "Maximum tree depth; None for no limit.",
        FORESTS,
        engine="max_depth",
    ),
    Param(
        "min_samples_leaf",
        "int",
        1,
        "[1, inf)",
        "Minimum distinct training rows in a leaf.",
        FORESTS,
        engine="min_samples_leaf",
    ),
    Param(
        "max_leaf_nodes",
        "int or None",
        None,
        "[2, inf)",
        "Maximum leaves per tree; None for no limit.",
        FORESTS,
        engine="max_leaf_nodes",
    ),
    Param(
        "max_bins",
        "int",
        255,
        "[2, 255]",
        "Value bins per feature (the engine is histogram-based).",
        FORESTS,
        engine="max_bins",
    ),
    Param(
        "feature_sampling",
        '{"uniform", "dynamic"}',
        "uniform",
        "",
        """How each node draws its features. "dynamic" draws them with weights
        ``reweight_rate * I0 + (squared error each feature removed in the trees
        so far)`` (I0: the first tree's root squared error), which steers the
        draws away from noise features; trees are then grown in order instead
        of in parallel.""",
        FORESTS,
        engine="feature_sampling",
    ),
    Param(
        "reweight_rate",
        "float",
        5.0,
        "[0, inf)",
        "``a`` of the dynamic weights (the paper uses 5-10).",
        FORESTS,
        engine="reweight_rate",
    ),
    Param(
        "threshold",
        "float or str",
        "mean",
        "",
        """Importance a feature needs to be selected (``transform``), as in
        ``SelectFromModel``: a number, "mean", "median" or "k*mean".""",
        FORESTS,
    ),
    Param(
        "n_jobs",
        "int or None",
        None,
        "",
        """Threads: None or -1 for all the cores the process may use, -2 for all
        but one, k > 0 for k.""",
        FORESTS,
        engine="n_threads",
    ),
    Param(
        "random_state",
        "int, RandomState, Generator or None",
        None,
        "[0, 2**64) for an int",
        "Seed of every random choice; the same int gives the same forest.",
        FORESTS,
        engine="seed",
    ),
    # -- SparseBoostSelectorCV ------------------------------------------
    Param(
        "estimator",
        "SparseBoostRegressor, SparseBoostClassifier or SparseBoostRanker",
        None,
        "",
        """The penalised booster whose path orders the features (cloned, with
        ``max_selected_features`` set to this selector's). Its other parameters
        are also those of the refits, with ``penalty="none"``. None picks
        ``SparseBoostClassifier(mu="0.05*mu_max")`` for class labels and
        ``SparseBoostRegressor(mu="0.05*mu_max")`` otherwise."""
        + LABELS,
        SELECTOR_CV,
    ),
    Param(
        "max_selected_features",
        "int",
        20,
        "[1, inf)",
        """The largest budget: the selector keeps at most this many features
        (capped at the number of features), as the booster's
        ``max_selected_features``.""",
        SELECTOR_CV,
    ),
    Param(
        "max_features",
        "int or None",
        None,
        "[1, inf)",
        """Deprecated: renamed ``max_selected_features``. Still read, with a
        FutureWarning, when given.""",
        SELECTOR_CV,
        renamed_to="max_selected_features",
    ),
    Param(
        "budgets",
        'array-like of int, "all" or None',
        None,
        "[1, max_selected_features] each",
        """The budgets k to score: None for the grid 1, 2, 3, 5, 8, 13, 20,
        30, 50, 80, 130, ... up to ``max_selected_features`` (and that cap
        itself), "all" for every k from 1 to the cap, or a list of ints.""",
        SELECTOR_CV,
    ),
    Param(
        "order",
        "str or list of str",
        ("entry", "importance", "unpenalised"),
        "",
        """How the selected features are ranked, CV choosing among several:
        "entry" (the order they enter the penalised fit), "importance" (their
        gain importance in that fit), "unpenalised" (gain importance in a
        booster without penalty: GBDT top-K; one more fit on all features per
        fold), "stability"
        (how often they are selected in ``n_subsamples`` penalised fits on half
        the rows, then entry order; that many more fits per fold), "rfe"
        (recursive elimination, as scikit-learn's ``RFE``: from the
        unpenalised ranking's first 2 x ``max_selected_features`` features,
        refits without penalty each drop the weakest quarter by their gain
        importance, down to one; about a dozen refits on those columns per
        fold), "permutation" (an unpenalised fit on the rows less a
        ``validation_fraction`` hold-out; its first 2 x
        ``max_selected_features`` features by gain, ranked by the drop of
        the CV score on the hold-out when their column is shuffled, as
        scikit-learn's ``permutation_importance``) or "mu_path" (the
        strongest penalty under which a feature is selected, in fits at
        0.5, 0.25, 0.1, 0.05 and 0.02 x mu_max; up to five more fits per
        fold). When the
        penalised fit admits fewer than ``max_selected_features`` features,
        "entry" and "importance" go on with the features that enter fits at a
        fifth and a 25th of its mu and at mu = 0, in entry order.""",
        SELECTOR_CV,
    ),
    Param(
        "cv",
        "int, cross-validation generator or iterable",
        5,
        "",
        """As in scikit-learn (stratified folds for a classifier; for a ranker
        ``GroupKFold`` over the queries). With an int, a two-class ``y`` whose
        rarer class has fewer rows gets that many folds, with a warning.""",
        SELECTOR_CV,
    ),
    Param(
        "scoring",
        "str, callable or None",
        None,
        "",
        """As in scikit-learn; None is "roc_auc" for two classes, the log loss
        over every class of ``y`` for more (a fold without a rare class still
        scores), "neg_root_mean_squared_error" for a regressor and the mean
        ``NDCG@10`` over queries for a ranker.""",
        SELECTOR_CV,
    ),
    Param(
        "rule",
        '{"best", "one_se"}',
        "best",
        "",
        """"best" keeps the best mean CV score; "one_se" keeps the fewest features
        whose mean is within one standard error (fold standard deviation /
        sqrt(folds)) of the best.""",
        SELECTOR_CV,
    ),
    Param(
        "n_subsamples",
        "int",
        10,
        "[1, inf)",
        'Fits per fold of the "stability" order.',
        SELECTOR_CV,
    ),
    Param(
        "random_state",
        "int, RandomState or None",
        None,
        "",
        """Seed of the boosters (unless the estimator sets its own) and of the
        "stability" subsamples.""",
        SELECTOR_CV,
    ),
    Param(
        "verbose",
        "int",
        0,
        "",
        "Print one line per fold.",
        SELECTOR_CV,
    ),
    Param(
        "n_jobs",
        "int or None",
        None,
        "",
        """Threads: None or -1 for all the cores the process may use, -2 for all
        but one, k > 0 for k. The folds run side by side on them, each fit on
        its share; the selection does not depend on it.""",
        SELECTOR_CV,
    ),
    # -- the other selectors --------------------------------------------
    Param(
        "estimator",
        "SparseBoostRegressor or SparseBoostClassifier",
        None,
        "",
        """The booster to fit (cloned). None picks ``SparseBoostClassifier()`` for
        class labels and ``SparseBoostRegressor()`` otherwise."""
        + LABELS,
        SELECTOR,
    ),
    Param(
        "estimator",
        "estimator",
        None,
        "",
        """Fitted (cloned) on all features to rank them: a sparseboost booster or
        any scikit-learn estimator with ``feature_importances_`` (a random
        forest, for example). None picks ``SparseBoostClassifier(penalty="none")``
        for class labels and ``SparseBoostRegressor(penalty="none")`` otherwise,
        the plain GBDT."""
        + LABELS,
        TOP_K,
    ),
    Param(
        "n_features_to_select",
        "int or float",
        10,
        "an int >= 1 or a float in (0, 1]",
        """K: an int (more than the features of ``X`` keeps them all, with a
        warning) or a float, that fraction of the features (rounded down, at
        least 1).""",
        TOP_K,
    ),
    Param(
        "importance",
        '{"gain", "split"}',
        "gain",
        "",
        """For a sparseboost booster, the total split gain or the number of splits
        of each feature (``get_feature_importance``). Other estimators offer
        only their ``feature_importances_``, taken for "gain".""",
        TOP_K,
    ),
    Param(
        "refit",
        "bool",
        True,
        "",
        """Refit a clone of the estimator on the kept columns. ``estimator_`` is
        then that model, and ``predict``, ``predict_proba``,
        ``decision_function`` and ``score`` (those the estimator has) take
        ``X`` with all columns and use the kept ones, as scikit-learn's ``RFE``
        does. With False, ``estimator_`` is the model on all features and the
        selector only transforms.""",
        TOP_K,
    ),
    Param(
        "scoring",
        "str or callable",
        "roc_auc",
        "",
        """What a model is judged by (greater is better). Any scikit-learn scorer
        name (``"roc_auc"``, ``"neg_log_loss"``, ``"f1"``, ...) or callable
        ``scorer(estimator, X, y)``, where ``estimator`` is a fitted
        ``LogisticRegression`` on the model's columns of ``X``.
        ``"recall_at_precision"`` is the recall at precision 0.33 (see
        :func:`sparseboost.metrics.recall_at_precision`); for another precision
        pass ``make_recall_at_precision_scorer(precision)``. ``"roc_auc"`` and
        recall at precision are computed in Rust; other scorers in Python,
        which is slower on large data.""",
        TWO_PASS,
    ),
    Param(
        "threshold",
        "float",
        0.0,
        "",
        """A candidate is kept when its model scores more than ``threshold`` above
        the current model. With ``cv=None`` the score is measured on the
        training rows, where almost any feature helps a little: a threshold
        above 0 (or cross-validation) keeps noise out.""",
        TWO_PASS,
    ),
    Param(
        "cv",
        "None, int, or cross-validation splitter",
        None,
        "",
        """Where a model is scored. None: fitted and scored on all rows. An int k:
        stratified k-fold (no shuffling); a splitter or an iterable of (train,
        test) index arrays: its folds. With folds, each model is fitted on the
        training rows of each fold and its score is the mean of the folds'
        validation scores.""",
        TWO_PASS,
    ),
    Param(
        "C",
        "float",
        1.0,
        "(0, inf)",
        """Inverse L2 strength, as ``LogisticRegression(C=C)``: each model
        minimises the same objective (intercept not penalised) and agrees with
        scikit-learn's lbfgs solution to the solvers' tolerances.""",
        TWO_PASS,
    ),
    Param(
        "n_jobs",
        "int or None",
        None,
        "",
        "Threads for the fits (joblib's convention; None = all cores).",
        TWO_PASS,
    ),
    Param(
        "max_iter",
        "int",
        100,
        "[1, inf)",
        "Newton steps allowed per fit (warm-started fits need 2-5).",
        TWO_PASS,
    ),
    Param(
        "tol",
        "float",
        1e-6,
        "(0, inf)",
        """A fit stops when no component of the gradient of the mean loss (plus
        the penalty) exceeds ``tol``.""",
        TWO_PASS,
    ),
    Param(
        "n_features_to_select",
        "int, float or None",
        None,
        "an int >= 1 or a float in (0, 1]",
        """How many of the first features to enter ``get_support`` keeps: an int,
        a float (that fraction of the features, rounded down, at least 1), or
        None for half the features (at least 1), as in scikit-learn's ``RFE``.
        It does not change the ranking: the whole path is always computed. When
        it asks for more features than could enter, the skipped features fill
        the rest in ``ranking_`` order.""",
        LINEAR_FORWARD,
    ),
)
