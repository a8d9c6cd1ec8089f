"""TwoPassForwardSelector against a plain scikit-learn implementation of
the blog post's algorithm, its Rust logistic fits against scikit-learn's,
recall at precision against its definition, and the selector's API."""

import warnings

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import get_scorer, make_scorer
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks
from sparseboost import TwoPassForwardSelector, _core
from sparseboost.metrics import make_recall_at_precision_scorer, recall_at_precision


def problem(seed, n=400, d=15, informative=(0, 3, 7, 11)):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    informative = [f for f in informative if f < d]
    weights = np.linspace(1.5, 0.4, len(informative))
    logit = X[:, list(informative)] @ weights - 0.3
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


def exact_roc_auc(y, scores):
    """ROC AUC as the Mann-Whitney U statistic: a count of pairs (ties
    count 1/2), exact in floating point. scikit-learn's trapezoid sums can
    differ in the last bit between two rankings of the same AUC, which
    makes threshold=0's strict "beats" a coin flip; the native AUC counts
    pairs, as this does."""
    ranks = rankdata(scores)
    positive = y == 1
    n_pos, n_neg = positive.sum(), (~positive).sum()
    return (ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def reference_two_pass(X, y, scoring, threshold, cv, C):
    """The blog post's algorithm, one scikit-learn fit per model."""
    scorer = get_scorer(scoring) if isinstance(scoring, str) else scoring

    def score(columns):
        model = LogisticRegression(C=C, tol=1e-12, max_iter=10_000)
        if cv is None:
            model.fit(X[:, columns], y)
            return scorer(model, X[:, columns], y)
        return cross_val_score(model, X[:, columns], y, cv=cv, scoring=scorer).mean()

    d = X.shape[1]
    pass1 = np.array([score([j]) for j in range(d)])
    ranking = sorted(range(d), key=lambda j: (-pass1[j], j))
    selected, current = [ranking[0]], pass1[ranking[0]]
    for j in ranking[1:]:
        candidate = score(selected + [j])
        if candidate - current > threshold:
            selected.append(j)
            current = candidate
    return selected, pass1


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "scoring, threshold, cv",
    [
        ("roc_auc", 0.0, None),
        ("roc_auc", 0.002, 3),
        ("neg_log_loss", 0.002, None),
        ("recall_at_precision", 0.0, 3),
    ],
)
def test_selection_equals_a_plain_scikit_learn_implementation(seed, scoring, threshold, cv):
    X, y = problem(seed)
    C = 0.5
    selector = TwoPassForwardSelector(
        scoring=scoring, threshold=threshold, cv=cv, C=C, tol=1e-10, n_jobs=2
    ).fit(X, y)
    reference_scoring = scoring
    if scoring == "roc_auc" and threshold == 0.0:
        reference_scoring = make_scorer(exact_roc_auc, response_method="decision_function")
    if scoring == "recall_at_precision":
        reference_scoring = make_scorer(
            recall_at_precision, response_method="decision_function", precision=0.33
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected, pass1 = reference_two_pass(X, y, reference_scoring, threshold, cv, C)
    assert selector.selected_features_.tolist() == expected
    np.testing.assert_allclose(selector.pass1_scores_, pass1, atol=1e-9)
    assert selector.n_model_fits_ == 2 * X.shape[1] - 1
    assert len(selector.scores_path_) == len(expected)
    assert np.all(np.diff(selector.scores_path_) > threshold)


def test_other_precisions_and_callables_select_as_the_reference():
    X, y = problem(3)
    y = (y & (X[:, 0] > 0)).astype(int)  # rarer positives: precision matters
    scorer = make_recall_at_precision_scorer(0.6)
    native = TwoPassForwardSelector(scoring=scorer, tol=1e-10).fit(X, y)
    # The same scorer behind a lambda is computed in Python, on each fit.
    python = TwoPassForwardSelector(scoring=lambda e, X, y: scorer(e, X, y), tol=1e-10)
    python.fit(X, y)
    expected, _ = reference_two_pass(X, y, scorer, 0.0, None, 1.0)
    assert native.selected_features_.tolist() == expected
    assert python.selected_features_.tolist() == expected
    np.testing.assert_array_equal(native.pass1_scores_, python.pass1_scores_)


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_rust_logistic_fit_equals_scikit_learn(C):
    X, y = problem(4, n=300, d=8)
    X = np.asfortranarray(X * np.array([1, 10, 0.1, 1, 5, 1, 1, 2]))
    features = [3, 0, 6, 1]
    coef, _, converged = _core.logistic_fit(X, y.astype(float), features, C, 1e-11, 100)
    assert converged
    sk = LogisticRegression(C=C, tol=1e-12, max_iter=100_000).fit(X[:, features], y)
    np.testing.assert_allclose(coef[1:], sk.coef_[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(coef[0], sk.intercept_[0], rtol=1e-5, atol=1e-6)


def test_the_selectors_final_model_is_scikit_learns():
    X, y = problem(5)
    selector = TwoPassForwardSelector(threshold=0.002, C=2.0, tol=1e-10).fit(X, y)
    chosen = selector.selected_features_
    sk = LogisticRegression(C=2.0, tol=1e-12, max_iter=10_000).fit(X[:, chosen], y)
    np.testing.assert_allclose(selector.coef_, sk.coef_[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(selector.intercept_, sk.intercept_, rtol=1e-5, atol=1e-6)


def brute_force_recall_at_precision(y, scores, precision):
    best = 0.0
    for t in np.unique(scores):
        called = scores >= t
        hits = np.sum(called & (y == 1))
        if hits / called.sum() >= precision and y.sum() > 0:
            best = max(best, hits / y.sum())
    return best


@pytest.mark.parametrize("seed", range(20))
def test_recall_at_precision_equals_its_definition(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    y = (rng.random(n) < rng.random()).astype(int)
    scores = rng.integers(0, 8, n).astype(float)  # many ties
    if seed % 2:
        scores += rng.random(n)
    for precision in [0.0, 0.2, 0.33, 0.5, 0.75, 1.0]:
        expected = brute_force_recall_at_precision(y, scores, precision)
        assert recall_at_precision(y, scores, precision) == expected
        native = _core.recall_at_precision(y.astype(float), scores, precision)
        assert native == expected


def test_the_planted_signal_is_found():
    rng = np.random.default_rng(6)
    n, d = 3000, 60
    X = rng.normal(size=(n, d))
    planted = [5, 17, 33, 48]
    logit = X[:, planted] @ np.array([1.2, -1.0, 0.8, 0.6])
    y = rng.random(n) < 1 / (1 + np.exp(-logit))
    selector = TwoPassForwardSelector(threshold=0.001).fit(X, y)
    assert set(selector.selected_features_[:4]) == set(planted)
    assert len(selector.selected_features_) <= 8
    assert selector.transform(X).shape == (n, len(selector.selected_features_))
    cross = TwoPassForwardSelector(cv=3, threshold=0.0).fit(X, y)
    assert set(planted) <= set(cross.selected_features_)


def test_feature_names_and_fitted_attributes():
    pd = pytest.importorskip("pandas")
    X, y = problem(7, d=5)
    frame = pd.DataFrame(X, columns=list("abcde"))
    selector = TwoPassForwardSelector(threshold=0.01).fit(frame, np.where(y, "yes", "no"))
    assert list(selector.feature_names_in_) == list("abcde")
    assert selector.n_features_in_ == 5
    assert selector.pass1_scores_.shape == (5,)
    assert list(selector.get_feature_names_out()) == [
        "abcde"[i] for i in sorted(selector.selected_features_)
    ]


@parametrize_with_checks([TwoPassForwardSelector()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"threshold": -0.1}, ValueError, "threshold"),
        ({"threshold": float("nan")}, ValueError, "threshold"),
        ({"threshold": "0.1"}, TypeError, "threshold"),
        ({"C": 0.0}, ValueError, "C must"),
        ({"C": float("inf")}, ValueError, "C must"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, TypeError, "max_iter"),
        ({"cv": 1}, ValueError, "cv"),
        ({"cv": "five"}, ValueError, "cv"),
        ({"cv": True}, TypeError, "cv"),
        ({"scoring": "not_a_scorer"}, ValueError, "scoring"),
        ({"scoring": 3}, TypeError, "scoring"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_bad_parameters_are_named(params, error, match):
    X, y = problem(8, n=60, d=3)
    with pytest.raises(error, match=match):
        TwoPassForwardSelector(**params).fit(X, y)


def test_bad_data_is_named():
    X, y = problem(9, n=60, d=3)
    with pytest.raises(ValueError, match="y must have exactly two classes.*got 3"):
        TwoPassForwardSelector().fit(X, np.arange(60) % 3)
    with pytest.raises(ValueError, match="1 class"):
        TwoPassForwardSelector().fit(X, np.zeros(60))
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        TwoPassForwardSelector().fit(bad, y)
    with pytest.raises(ValueError, match="y"):
        TwoPassForwardSelector().fit(X, y[:-1])
    with pytest.raises(ValueError, match="precision"):
        make_recall_at_precision_scorer(1.5)
    with pytest.raises(ValueError, match="y_score"):
        recall_at_precision([0, 1], [0.1, np.inf])


def test_too_few_newton_steps_warn():
    X, y = problem(10, n=200, d=4)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        TwoPassForwardSelector(max_iter=1, tol=1e-12).fit(X, y)


def test_cv_folds_match_stratified_k_fold():
    X, y = problem(11)
    by_int = TwoPassForwardSelector(cv=4, threshold=0.001).fit(X, y)
    by_splitter = TwoPassForwardSelector(cv=StratifiedKFold(4), threshold=0.001).fit(X, y)
    np.testing.assert_array_equal(by_int.selected_features_, by_splitter.selected_features_)
    np.testing.assert_array_equal(by_int.pass1_scores_, by_splitter.pass1_scores_)
