"""Every estimator parameter, declared once: name, type, default, range,
documentation and the estimators that take it.

The table (the boosters' records below, the forests' and selectors' in
``_params_selectors``) is the one place a parameter is described. From it
come:

- each estimator's docstring "Parameters" section (``document``, a class
  decorator);
- the dict of engine parameters a booster passes to the Rust engine
  (``engine_names``: each parameter's key in that dict);
- ``docs/parameters.md`` (``python -m sparseboost._params_markdown``).

``tests/test_parameters_declared.py`` checks everything else against it:
each estimator's ``__init__`` parameters and defaults (``get_params``), the
keys and defaults the engine accepts (``_core.engine_defaults``), the
ranges the engine enforces, the ``TypedDict`` s of ``_core.pyi`` and the
committed ``docs/parameters.md``.

A parameter that means something else in another estimator family is a
separate record with the same name (the forests' ``max_features`` is
scikit-learn's per-node draw; the boosters' feature budget is
``max_selected_features``).
"""

from __future__ import annotations

import inspect
import re
import sys
import textwrap
import warnings

from ._param_spec import (  # noqa: F401 (the table's vocabulary, imported from here)
    BOOSTERS,
    DASK,
    DASK_MULTITASK,
    DASK_RANKER,
    DASK_REGRESSOR_CLASSIFIER,
    ENGINE_ONLY_KEYS,
    ENGINES,
    FORESTS,
    LINEAR_FORWARD,
    MULTITASK,
    RANKER,
    REGRESSOR_CLASSIFIER,
    SELECTOR,
    SELECTOR_CV,
    SINGLE_TASK,
    TOP_K,
    TWO_PASS,
    Param,
)
from ._params_selectors import SELECTOR_PARAMS

# -- the table -------------------------------------------------------------

_PENALTY_DOC = """
    The new-feature penalty (SPEC section 2). A split on a feature the ensemble
    does not use yet must beat the best split on used features by ``mu``
    (plus the feature's cost): relative to the tree's root loss scale
    ``sum(g**2/h) - G**2/H`` for "agbm" (A-GBM, Han et al. 2020), in gain units
    for "gbfs" (GBFS, Xu et al. 2014; equals LightGBM's
    ``cegb_penalty_feature_coupled=[mu]*d``). "none" is the plain GBDT.
"""

PARAMS = (
    # -- the boosters ---------------------------------------------------
    Param(
        "n_estimators",
        "int",
        100,
        "[1, inf)",
        """Number of boosting rounds (one tree each, one per class for more than
        2 classes, one per task for the multitask boosters). Training stops
        early when no leaf can be split.""",
        BOOSTERS,
        engine="n_estimators",
    ),
    Param(
        "learning_rate",
        "float",
        0.1,
        "(0, inf)",
        "Shrinkage of every leaf value.",
        BOOSTERS,
        engine="learning_rate",
    ),
    Param(
        "max_leaves",
        "int",
        31,
        "[2, inf)",
        "Maximum leaves per tree (leaf-wise, best-first growth).",
        BOOSTERS,
        engine="max_leaves",
    ),
    Param(
        "max_depth",
        "int or None",
        None,
        "[1, inf)",
        "Maximum tree depth; None for no limit.",
        BOOSTERS,
        engine="max_depth",
    ),
    Param(
        "min_samples_leaf",
        "int",
        20,
        "[1, inf)",
        "Minimum training rows in a leaf.",
        BOOSTERS,
        engine="min_samples_leaf",
    ),
    Param(
        "min_split_fraction",
        "float",
        0.0,
        "[0, 1)",
        """The papers' alpha: a node with fewer than ``alpha * n_samples`` rows is
        not split (the multitask boosters count the rows of all tasks).""",
        BOOSTERS,
        engine="min_split_fraction",
    ),
    Param(
        "min_child_weight",
        "float",
        1e-3,
        "[0, inf)",
        """Minimum hessian sum in a leaf (LightGBM's ``min_sum_hessian_in_leaf``),
        each row's hessian times its ``sample_weight``: scale it with the
        weights when they are far below 1.""",
        BOOSTERS,
        engine="min_child_weight",
    ),
    Param(
        "l2_regularization",
        "float",
        0.0,
        "[0, inf)",
        """L2 penalty lambda on leaf values: the Newton gain is
        ``G_L**2/(H_L+lambda) + G_R**2/(H_R+lambda) - G**2/(H+lambda)`` and a leaf's
        value ``-G/(H+lambda)``.""",
        BOOSTERS,
        engine="l2_regularization",
    ),
    Param(
        "min_gain",
        "float",
        0.0,
        "[0, inf)",
        """A split is made only if its gain exceeds this. A gain within the
        rounding error of the node's gradient sums (n·ε of the children's
        scores) counts as 0: a pure node is not split on noise.""",
        BOOSTERS,
        engine="min_gain",
    ),
    Param(
        "max_bins",
        "int",
        255,
        "[2, 255]",
        "Quantile bins per feature; NaN always gets a bin of its own.",
        BOOSTERS,
        engine="max_bins",
    ),
    Param(
        "categorical_features",
        '"from_dtype", array-like or None',
        "from_dtype",
        "",
        """The categorical columns of X, split by sets of categories rather than
        thresholds (as LightGBM's and scikit-learn's HistGradientBoosting's):
        "from_dtype" (pandas ``category``, string, object and bool columns of a
        DataFrame; none of an array), None, their indices, their names, or a
        boolean mask. A column's categories (strings, integers, floats or bools
        of one kind) get codes by frequency in the training rows; those beyond
        the ``max_bins - 1`` most frequent share one. A split sends a set of
        categories left; missing values and categories not seen in ``fit`` go
        right. Such a column is one feature for the penalties, costs, bags,
        budgets and importances; group testing always scans it exactly.
        ``categorical_features_`` and ``categories_`` record what ``fit``
        found. A selector left at "from_dtype" takes the wrapped booster's
        own ``categorical_features``. Not with sparse X or on Dask.""",
        BOOSTERS + FORESTS + SELECTOR + TOP_K + SELECTOR_CV,
    ),
    Param(
        "subsample",
        "float",
        1.0,
        "(0, 1]",
        """Fraction of rows drawn (without replacement) for each tree; the ranker
        draws whole queries.""",
        BOOSTERS,
        engine="subsample",
    ),
    Param(
        "colsample_bytree",
        "float or int",
        1.0,
        "a float in (0, 1] or an int >= 1",
        """Features drawn for each tree: a float is a fraction of them, an int a
        count m (scikit-learn's ``max_features`` convention).""",
        BOOSTERS,
        engine="colsample_bytree",
    ),
    Param(
        "feature_sampling",
        '{"uniform", "dynamic"}',
        "uniform",
        "",
        """How those features are drawn. "dynamic" is dynamic feature reweighting
        (Borisov, Eruhimov and Tuv): the first round draws uniformly; round i
        draws m features without replacement with weights
        ``(1 - m/M)**(a*i) * I0 + (gain of each feature so far)``, I0 being the
        first round's root loss scale (summed over its class trees), so
        sampling moves from uniform towards the features the model finds
        useful. With all features (m = M) it changes nothing.""",
        BOOSTERS,
        engine="feature_sampling",
    ),
    Param(
        "reweight_rate",
        "float",
        1.0,
        "[0, inf)",
        """``a`` above: how fast the uniform part of the dynamic weights fades (the
        paper advises 0.5-2).""",
        BOOSTERS,
        engine="reweight_rate",
    ),
    Param(
        "penalty",
        '{"agbm", "gbfs", "none"}',
        "agbm",
        "",
        _PENALTY_DOC,
        SINGLE_TASK,
        engine="penalty",
    ),
    Param(
        "penalty",
        '{"agbm", "gbfs", "none"}',
        "agbm",
        "",
        """The new-feature penalty: "agbm" takes ``mu_group`` and ``mu_task``
        relative to the tree's root loss scale, "gbfs" in gain units; "none"
        ignores them (the plain GBDT).""",
        MULTITASK,
        engine="penalty",
    ),
    Param(
        "mu",
        "float or str",
        0.01,
        '[0, 1) for "agbm", [0, inf) for "gbfs"',
        """The penalty. ``mu=0`` without costs gives exactly the plain GBDT. A
        string ``"f*mu_max"`` (f >= 0) gives mu relative to ``mu_max_``, the
        smallest mu at which the first round admits no feature (as glmnet
        gives lambda relative to lambda_max): the same f means the same on any
        data. A fit whose mu is >= ``mu_max_`` has no tree and warns
        (without row subsampling: ``mu_max_`` is measured on all rows, and a
        tree's row sample may admit a feature a little above it).""",
        SINGLE_TASK,
        engine="mu",
    ),
    Param(
        "feature_costs",
        "array of shape (n_features,), dict or pandas Series",
        None,
        "[0, inf) each",
        """Extra cost of each feature, on the same scale as ``mu``; a dict (or a
        Series, by its index) maps feature names (or indices) to costs, others
        0.""",
        SINGLE_TASK,
        engine="feature_costs",
    ),
    Param(
        "feature_bags",
        "array of shape (n_features,) or pandas Series",
        None,
        "",
        """Bag label of each feature (ints or strings): the penalty is paid once per
        bag, after which every feature of the bag is free. A Series is read by
        its index (every feature's name or index, once).""",
        SINGLE_TASK,
        engine="feature_bags",
    ),
    Param(
        "max_selected_features",
        "int or None",
        None,
        "[1, inf)",
        """The feature budget: stop admitting new features once this many are
        used, so that ``selected_features_`` holds at most this many. None for no
        budget. With ``feature_bags``, a bag already paid for stays open: its
        other features may still enter after the budget is reached (they cost
        nothing), so ``selected_features_`` may hold more; no new bag enters.""",
        SINGLE_TASK,
        engine="max_selected_features",
    ),
    Param(
        "max_features",
        "int or None",
        None,
        "[1, inf)",
        """Deprecated: renamed ``max_selected_features`` (in scikit-learn's tree
        ensembles ``max_features`` is the number of features drawn at each
        split, as in :class:`SparseForestRegressor`). Still read, with a
        FutureWarning, when ``max_selected_features`` is None.""",
        SINGLE_TASK,
        renamed_to="max_selected_features",
    ),
    Param(
        "split_search",
        '{"exhaustive", "group_testing", "auto"}',
        "exhaustive",
        "",
        """How a node finds its split. "exhaustive" scans every feature.
        "group_testing" (GT-GBM) scans only the features already used and the
        candidates found by binary searches over random feature subsets (each
        half tested through the summed "pseudo-feature" of its features), so a
        node costs about ``p * log2(L)`` cheap tests plus a few exact scans
        instead of d exact scans; once ``max_selected_features`` features are
        used (no bags) it runs no tests at all. Costs a prefix-sum cache of
        about ``e * ln(s / delta) / 4 + 1`` bytes per (row, feature) (about 2
        when subsets are shortened to few rows' length), see
        ``gt_cache_bytes_``. "auto" runs group testing only where its estimated
        work (prefix cache included) is below half of exhaustive search's,
        from n, d, the bins, s, delta, max_leaves, n_estimators and
        max_selected_features (docs/gt_gbm.md, "split_search='auto'");
        ``split_search_`` says which one ran.""",
        BOOSTERS,
        engine="split_search",
    ),
    Param(
        "gt_n_features",
        "int",
        10,
        "[1, inf)",
        """s, the number of relevant features group testing expects (clipped to the
        number of features that can split). Subsets have ``L = ceil(d / s)``
        features, but at most ``max(16, n_rows / 10)``: with few rows a test of
        a long subset cannot tell its halves apart.""",
        BOOSTERS,
        engine="gt_n_features",
    ),
    Param(
        "gt_delta",
        "float",
        0.1,
        "(0, 1)",
        """delta, the failure probability of the group-testing theorem; with s it
        sets the number of subsets ``p = ceil(e * s * ln(s / delta))``.
        Subsets shortened to L features (few rows, see ``gt_n_features``) come
        four per feature instead, ``p = ceil(4 * d / L)``, of which a node of a
        fit on 2000 rows or more searches at most ``ceil(e * s * ln(s /
        delta))``.""",
        BOOSTERS,
        engine="gt_delta",
    ),
    Param(
        "gt_max_rows",
        "int or None",
        None,
        "[2, inf)",
        """Group tests of a node with more rows than this use that many of them,
        evenly spaced (the candidates they find are still scanned on all rows).
        Faster on large nodes, at some loss of the tests' power; None tests on
        all rows.""",
        BOOSTERS,
        engine="gt_max_rows",
    ),
    Param(
        "early_stopping_rounds",
        "int or None",
        None,
        "[1, inf)",
        """Stop when the last metric on the last evaluation set has not improved
        for this many rounds, and keep the trees of the best round
        (``best_iteration_``). Without an ``eval_set`` in ``fit``,
        ``validation_fraction`` of the training rows is held out for it.""",
        BOOSTERS,
        engine="early_stopping_rounds",
    ),
    Param(
        "eval_metric",
        "str, list of str or None",
        None,
        "",
        """Metrics computed on every evaluation set after each round: "rmse",
        "l2", "logloss", "multi_logloss", "auc", "error", "ndcg@k", "map@k",
        "mrr". None: the objective's own (rmse, logloss, multi_logloss,
        ``ndcg@lambdarank_truncation_level``). Early stopping watches the last
        one.""",
        BOOSTERS,
        engine="eval_metric",
    ),
    Param(
        "validation_fraction",
        "float",
        0.1,
        "(0, 1)",
        """With early stopping and no ``eval_set``: the fraction of rows held out
        (stratified by class for classifiers, by task for the multitask
        boosters, by task and class for the multitask classifier, whole
        queries for the ranker), drawn with ``random_state``. A class's or
        task's only row always trains. A multitask hold-out too small to
        give every task held-out and training rows is an error (pass an
        ``eval_set``).""",
        BOOSTERS,
    ),
    Param(
        "callbacks",
        "list or tuple of callables, or None",
        None,
        "",
        """Each is called after every round with a ``sparseboost.RoundReport``
        (round, train_loss, eval, n_features, elapsed, split_features,
        split_gains), on the thread that
        called ``fit``; a truthy return stops the fit (the trees so far are
        kept), an exception stops it and is raised. A callback may call the
        library (predict, score, fit another estimator or this one): the fit
        waits on threads of its own, whatever ``n_jobs`` is. A refit of this
        estimator inside its callback is discarded: the running fit's model,
        columns and classes are the ones kept.""",
        BOOSTERS,
    ),
    Param(
        "verbose",
        "int",
        0,
        "[0, inf)",
        """Print a line of the round report every ``verbose`` rounds (0: never).
        Its lines show the training loss, which is then computed as under
        ``record_train_loss``.""",
        BOOSTERS,
    ),
    Param(
        "record_train_loss",
        "bool",
        False,
        "",
        """Compute the mean training loss after every round and keep it:
        ``train_loss_``, ``selection_path_["train_loss"]`` and the round
        report's ``train_loss`` (NaN without it). Off, a round skips that pass
        over every row, about 7% of a small log-loss fit, and a Dask fit skips
        a round trip per round; LightGBM and XGBoost likewise report a
        training loss only when asked.""",
        BOOSTERS,
        engine="record_train_loss",
    ),
    Param(
        "n_jobs",
        "int or None",
        None,
        "",
        """Threads: None or -1 for all the cores the process may use (CPU affinity
        and container quotas included), -2 for all but one, k > 0 for k (capped
        at those cores). The fitted model does not depend on it.""",
        BOOSTERS,
        engine="n_threads",
    ),
    Param(
        "random_state",
        "int, RandomState, Generator or None",
        None,
        "[0, 2**64) for an int",
        """Seed of the row/feature sampling and of the binning sample. An int is
        the seed itself: the same int gives the same model, whatever ``n_jobs``
        is; None, a RandomState or a Generator draws one.""",
        BOOSTERS,
        engine="seed",
    ),
    # -- the ranker -----------------------------------------------------
    Param(
        "lambdarank_truncation_level",
        "int",
        30,
        "[1, inf)",
        """Pairs count only when their better-ranked row is among the first this
        many of its query (LightGBM's ``lambdarank_truncation_level``); the
        default ``eval_metric`` is ``ndcg@lambdarank_truncation_level``.""",
        RANKER + DASK_RANKER,
        engine="lambdarank_truncation_level",
    ),
    # -- the multitask boosters -----------------------------------------
    Param(
        "mu_group",
        "float or str",
        0.01,
        '[0, inf); mu_group + mu_task < 1 for "agbm"',
        """mu_G: what a split on a feature that no task uses yet pays. A string
        ``"f*mu_max"`` (f >= 0) is f times ``mu_max_``, the smallest
        ``mu_group + mu_task`` at which the first round admits no feature.""",
        MULTITASK,
    ),
    Param(
        "mu_task",
        'float, str, "auto", or array of float or of str, shape (n_tasks,)',
        0.01,
        '[0, inf) each; mu_group + mu_task < 1 for "agbm"',
        """mu_t: what a split on a feature this task does not use yet pays (on top
        of ``mu_group`` when no task uses it); one value for every task, or one
        per task in ``tasks_`` order (a small task's noise features gain more
        relative to its root scale, so it may need a larger mu_t than a large
        task). ``mu_task=0`` is the classic group-sparse multitask model (every
        task may use every shared feature for free); a large ``mu_group`` with
        a small ``mu_task`` approaches independent models. ``"f*mu_max"``
        strings (all of them, in a list) are relative as for ``mu_group``.
        ``"auto"``: one value per task, chosen by task-stratified 3-fold
        cross-validation on the training rows among 0.01, 0.03 and 0.1
        (``"agbm"``; those fractions of ``mu_max`` for ``"gbfs"``), each task
        by its own validation loss, jointly with ``shared_rounds="auto"``;
        ``mu_task_`` holds the values used and ``tuning_results_`` the
        search (not on Dask).""",
        MULTITASK,
    ),
    Param(
        "task_feature_mask",
        "array of bool, shape (n_tasks, n_features)",
        None,
        "",
        """``True`` where a task has the feature; a task never splits on a feature
        it does not have. Rows follow ``tasks_`` (the sorted task labels).""",
        MULTITASK,
    ),
    Param(
        "shared_rounds",
        'int or "auto"',
        0,
        "[0, n_estimators]",
        """The first ``shared_rounds`` of the ``n_estimators`` rounds grow one tree
        on all tasks' rows together instead of one per task (each row starting
        from its task's base score); that tree is part of every task's model.
        The later rounds fit each task's own trees on what this shared start
        leaves. A small task then borrows the shape of the effects it shares
        with the large ones, learned from every row, instead of learning it
        from its own few rows. A shared tree splits only on features every task
        has (``task_feature_mask``) and pays ``mu_group`` plus the mean
        ``mu_task`` for a feature new to the model; its features join Omega_G
        and every Omega_t. A shared round whose tree cannot split ends the
        shared start (that round fits the tasks' trees instead).
        ``shared_rounds=n_estimators`` is one pooled model with a base score per
        task. ``"auto"`` chooses among 0, 10% and 25% of ``n_estimators`` by
        task-stratified 3-fold cross-validation on the training rows (the
        loss over all rows, each task with its best ``mu_task`` when that is
        ``"auto"`` too): 9 fits, or 27 with ``mu_task="auto"``, before the
        final one; ``shared_rounds_`` holds the value used (not on Dask).""",
        MULTITASK,
    ),
    # -- the Dask boosters ----------------------------------------------
    Param(
        "client",
        "distributed.Client or None",
        None,
        "",
        "The Dask client; None for the default client.",
        DASK,
    ),
    Param(
        "timeout",
        "float or None",
        None,
        "",
        """Seconds a shard may take to answer one request; None for no limit (a
        lost worker is detected within about a second either way).""",
        DASK,
    ),
) + SELECTOR_PARAMS


# -- reading the table ----------------------------------------------------


def parameters_of(estimator: str) -> list:
    """The parameters of the estimator class named ``estimator``, in the
    table's order (the order of its signature)."""
    return [p for p in PARAMS if estimator in p.estimators]


def signature_of(estimator: str) -> inspect.Signature:
    """The ``__init__`` signature of the class named ``estimator``, for a
    class whose ``__init__`` takes ``**params``: ``self`` and the table's
    parameters, keyword-only, with their defaults. scikit-learn reads an
    estimator's parameters from it (``get_params``, ``clone``, the repr of
    the changed ones)."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(p.name, keyword, default=p.default) for p in parameters_of(estimator)]
    )


def default_of(estimator: str, name: str):
    """The table's default of parameter ``name`` of ``estimator``."""
    return _param(estimator, name).default


def estimators() -> list:
    """Every estimator class name the table knows, in the table's order."""
    return list(dict.fromkeys(name for p in PARAMS for name in p.estimators))


def engine_names(estimator: str) -> dict:
    """``{parameter name: engine key}`` of the parameters of
    ``estimator`` that the engine reads."""
    return {p.name: p.engine for p in parameters_of(estimator) if p.engine is not None}


def engine_keys(engine: str) -> set:
    """Every key the engine dict ``engine`` ("booster" or "forest") takes:
    those of the parameters of its estimators and its engine-only keys."""
    classes = ENGINES[engine]
    spelled = {p.engine for p in PARAMS if p.engine and set(p.estimators) & set(classes)}
    return spelled | set(ENGINE_ONLY_KEYS[engine])


def renamed_values(estimator, table_name: str) -> dict:
    """``{new name: (old name, value)}`` for each deprecated spelling that
    ``estimator`` (an instance of the class the table calls
    ``table_name``) was given, with a FutureWarning. Read in ``fit``, not
    in ``__init__``: scikit-learn's ``clone`` needs ``__init__`` to store
    every parameter as given."""
    values = {}
    for p in parameters_of(table_name):
        if p.renamed_to is None:
            continue
        value = getattr(estimator, p.name)
        if value is p.default:
            continue
        current = getattr(estimator, p.renamed_to)
        if current is not _param(table_name, p.renamed_to).default:
            raise ValueError(
                f"{p.name} is the deprecated spelling of {p.renamed_to}: give only "
                f"{p.renamed_to} (got {p.name}={value!r} and {p.renamed_to}={current!r})"
            )
        warnings.warn(
            f"{type(estimator).__name__}: {p.name} was renamed {p.renamed_to} "
            f"({p.name}={value!r} is read as {p.renamed_to}={value!r}); the old spelling "
            "will be removed",
            FutureWarning,
            stacklevel=_callers_level(),
        )
        values[p.renamed_to] = (p.name, value)
    return values


def current_spelling(estimator: str, params: dict) -> dict:
    """``params`` of the estimator class named ``estimator`` with every
    deprecated spelling given (not its default) moved to the parameter that
    replaced it (for model files written before a rename), without a
    warning."""
    params = dict(params)
    for p in parameters_of(estimator):
        if p.renamed_to is not None and params.get(p.name, p.default) is not p.default:
            new_default = _param(estimator, p.renamed_to).default
            if params.get(p.renamed_to, new_default) is new_default:
                params[p.renamed_to] = params.pop(p.name)
    return params


def _param(estimator: str, name: str) -> Param:
    return next(p for p in parameters_of(estimator) if p.name == name)


def _callers_level() -> int:
    """The ``stacklevel`` of a warning that points at the first frame
    outside sparseboost (the user's ``fit``), however deep the call."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("sparseboost"):
        frame, level = frame.f_back, level + 1
    return level


def table_name(cls) -> str:
    """The name under which the table knows the estimator class ``cls``:
    its own, or that of the nearest base class it knows (for a user's
    subclass)."""
    known = estimators()
    for klass in cls.__mro__:
        if klass.__name__ in known:
            return klass.__name__
    raise TypeError(f"{cls.__name__} is no estimator of sparseboost._params")


# -- docstrings -------------------------------------------------------------

# The numpydoc sections a class docstring may have after "Parameters".
_LATER_SECTIONS = ("Attributes", "Notes", "See Also", "References", "Examples")


def shown(value) -> str:
    """A default as the docs write it (strings in double quotes)."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "(" + ", ".join(shown(v) for v in value) + ")"
    return repr(value)


def paragraphs(text: str) -> list:
    """The paragraphs of ``text``, each on one line."""
    return [
        " ".join(block.split()) for block in textwrap.dedent(text).split("\n\n") if block.strip()
    ]


# Stands for a space that a line must not break at while text is wrapped.
_KEEP = "\0"


def range_sentence(p: Param) -> str:
    """The sentence that gives ``p``'s range ("" if it has none)."""
    if not p.range or p.renamed_to:
        return ""
    if INTERVAL.match(p.range):
        return f"Values must be in the range {p.range}."
    return f"Values: {p.range}."


# A range that is an interval of numbers, which the tests probe at its ends.
INTERVAL = re.compile(r"^([\[(])(-?[\d.e+-]+|-inf), (-?[\d.e+-]+|inf)([\])])$")


def parameters_section(estimator: str, indent: str = "    ") -> str:
    """The numpydoc "Parameters" section of the estimator class named
    ``estimator``, indented by ``indent``."""
    lines = [f"{indent}Parameters", f"{indent}----------"]
    body = indent + "    "
    for p in parameters_of(estimator):
        lines.append(f"{indent}{p.name} : {p.type}, default={shown(p.default)}")
        text = paragraphs(p.doc)
        if INTERVAL.match(p.range):  # an interval stays on one line
            text[-1] += " " + range_sentence(p).replace(p.range, p.range.replace(" ", _KEEP))
        elif p.range:
            text[-1] += " " + range_sentence(p)
        for paragraph in text:
            wrapped = textwrap.wrap(paragraph, 76, initial_indent=body, subsequent_indent=body)
            lines += [line.replace(_KEEP, " ") for line in wrapped]
    return "\n".join(lines) + "\n"


def document(cls):
    """Class decorator: put the "Parameters" section of ``cls`` (from the
    table) into its docstring, before its first later section
    ("Attributes", "Notes", ...) or at its end."""
    doc = textwrap.dedent(cls.__doc__ or "")
    first_line, _, rest = doc.partition("\n")
    # The summary line sits right after the quotes, unindented; the rest is
    # indented as the class body: dedent the rest alone.
    doc = first_line + "\n" + textwrap.dedent(rest)
    section = parameters_section(cls.__name__, indent="")
    match = re.search(rf"^({'|'.join(_LATER_SECTIONS)})\n-+\n", doc, flags=re.MULTILINE)
    at = match.start() if match else len(doc.rstrip()) + 1
    head = doc[:at].rstrip() + "\n\n"
    cls.__doc__ = head + section + ("\n" + doc[at:] if match else "")
    return cls
