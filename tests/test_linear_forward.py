"""LinearForwardSelector: the sweep path against a brute-force forward
search, skipped features, targets, and scikit-learn's conventions."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from sparseboost import LinearForwardSelector
from sparseboost import linear_forward as lf


def brute_force_forward(X, Y):
    """Forward selection by refitting every candidate with lstsq (with
    intercept) at every step; R² of the joint fit of Y's columns."""
    n, d = X.shape
    Y = Y.reshape(n, -1)
    total = np.sum((Y - Y.mean(axis=0)) ** 2)
    chosen, path = [], []
    for _ in range(d):
        best = None
        for j in range(d):
            if j in chosen:
                continue
            A = np.c_[np.ones(n), X[:, chosen + [j]]]
            coef = np.linalg.lstsq(A, Y, rcond=None)[0]
            r2 = 1 - np.sum((Y - A @ coef) ** 2) / total
            if best is None or r2 > best[1]:
                best = (j, r2)
        chosen.append(best[0])
        path.append(best[1])
    return chosen, np.array(path)


def correlated_problem(seed, n=150, d=30):
    rng = np.random.default_rng(seed)
    # correlated columns with offsets and different scales, so that the
    # path depends on the centring and on the residual variances
    X = rng.standard_normal((n, d)) @ rng.standard_normal((d, d)) + 10 * rng.standard_normal(d)
    X *= rng.uniform(0.01, 100, d)
    y = X @ (rng.standard_normal(d) / X.std(axis=0)) * 0.3 + rng.standard_normal(n) + 7
    return X, y


@pytest.mark.parametrize("block", [64, 4, 1])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_path_equals_brute_force_forward_search(seed, block, monkeypatch):
    # block < d makes the path cross several blocks (the compaction step)
    monkeypatch.setattr(lf, "BLOCK", block)
    X, y = correlated_problem(seed)
    selector = LinearForwardSelector().fit(X, y)
    order, path = brute_force_forward(X, y)
    np.testing.assert_array_equal(selector.order_, order)
    np.testing.assert_allclose(selector.r2_path_, path, rtol=0, atol=1e-8)
    assert selector.skipped_ == {}
    np.testing.assert_array_equal(selector.ranking_[order], np.arange(1, 31))


def test_string_labels_rank_for_the_joint_fit_of_the_class_indicators():
    X, y = correlated_problem(5, n=120, d=12)
    labels = np.array(["a", "b", "c"])[np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))]
    selector = LinearForwardSelector().fit(X, labels)
    onehot = (labels[:, None] == np.array(["a", "b", "c"])).astype(float)
    order, path = brute_force_forward(X, onehot)
    np.testing.assert_array_equal(selector.order_, order)
    np.testing.assert_allclose(selector.r2_path_, path, atol=1e-8)
    assert list(selector.classes_) == ["a", "b", "c"]
    # two string classes are the indicator of the second: the same as 0/1 numbers
    two = np.where(y > np.median(y), "yes", "no")
    a = LinearForwardSelector().fit(X, two)
    b = LinearForwardSelector().fit(X, (two == "yes").astype(int))
    np.testing.assert_array_equal(a.order_, b.order_)
    np.testing.assert_allclose(a.r2_path_, b.r2_path_, atol=1e-12)


def test_planted_features_enter_first():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 100))
    y = 3 * X[:, 17] - 2 * X[:, 42] + X[:, 88] + 0.5 * rng.standard_normal(500)
    selector = LinearForwardSelector(n_features_to_select=3).fit(X, y)
    assert set(selector.order_[:3]) == {17, 42, 88}
    assert set(np.flatnonzero(selector.get_support())) == {17, 42, 88}
    assert selector.r2_path_[2] > 0.95
    assert len(selector.order_) == 100
    np.testing.assert_array_equal(np.sort(selector.ranking_), np.arange(1, 101))


def test_constant_and_collinear_columns_are_skipped_without_nan():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 8))
    X[:, 2] = 0.1  # constant (its centred values are rounding noise, not 0)
    X[:, 5] = 2 * X[:, 0] - X[:, 3]  # an exact linear combination
    X[:, 7] = X[:, 1]  # a copy
    y = X[:, 0] + X[:, 1] + 0.1 * rng.standard_normal(200)
    with pytest.warns(UserWarning, match="3 features could not enter") as record:
        selector = LinearForwardSelector(n_features_to_select=7).fit(X, y)
    assert len(record) == 1
    # of {0, 3, 5} and of {1, 7}, the feature that comes last cannot enter
    skipped = selector.skipped_
    assert skipped.pop(2) == "constant"
    assert len(skipped) == 2 and set(skipped.values()) == {"collinear"}
    (a, b) = sorted(skipped)
    assert a in (0, 3, 5) and b in (1, 7)
    assert set(selector.order_) == {0, 1, 3, 4, 5, 6, 7} - {a, b}
    assert np.all(np.isfinite(selector.r2_path_))
    # skipped features rank after the entered ones, in column order
    np.testing.assert_array_equal(selector.ranking_[sorted([2, a, b])], [6, 7, 8])
    assert selector.get_support().sum() == 7


def test_more_features_than_rows_enter_until_the_fit_is_exact():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((10, 25))
    y = rng.standard_normal(10)
    with pytest.warns(UserWarning, match="collinear"):
        selector = LinearForwardSelector().fit(X, y)
    # with an intercept, n - 1 features span the centred rows
    assert len(selector.order_) == 9
    assert selector.r2_path_[-1] == pytest.approx(1.0, abs=1e-10)
    assert len(selector.skipped_) == 16


def test_r2_path_is_non_decreasing_and_in_unit_interval():
    for seed in range(5):
        X, y = correlated_problem(seed, n=60, d=40)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path = LinearForwardSelector().fit(X, y).r2_path_
        assert np.all(np.diff(path) >= 0)
        assert np.all((path >= 0) & (path <= 1))


def test_constant_target_gives_column_order_and_r2_one():
    X = np.random.default_rng(3).standard_normal((30, 4))
    selector = LinearForwardSelector().fit(X, np.full(30, 2.5))
    np.testing.assert_array_equal(selector.order_, [0, 1, 2, 3])
    np.testing.assert_array_equal(selector.r2_path_, np.ones(4))


def test_the_path_does_not_depend_on_the_scale_of_a_column_or_the_target():
    # R² is scale-free; the Gram matrix's squares must not overflow (values
    # near 1e155) or underflow (near 1e-170).
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4))
    y = 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=500)
    reference = LinearForwardSelector(n_features_to_select=2).fit(X, y)
    scalings = [
        (X * 1e155, y),
        (X * 1e-170, y),
        (X * np.array([1e160, 1.0, 1e-160, 1.0]), y),
        (X, y * 1e155),
        (X, y * 1e-170),
        # subnormal: 2**1074, which brings them into [0.5, 1), is no float
        (X * np.array([1.0, 1e-310, 1.0, 1.0]), y),
        (X, y * 1e-310),
    ]
    for Xs, ys in scalings:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fitted = LinearForwardSelector(n_features_to_select=2).fit(Xs, ys)
        np.testing.assert_array_equal(fitted.order_, reference.order_)
        np.testing.assert_allclose(fitted.r2_path_, reference.r2_path_, rtol=1e-12)
        assert fitted.skipped_ == {}
    # Powers of two change nothing at all.
    exact = LinearForwardSelector(n_features_to_select=2).fit(X * 2.0**-600, y * 2.0**500)
    np.testing.assert_array_equal(exact.r2_path_, reference.r2_path_)


def test_bad_input_is_named():
    X = np.random.default_rng(4).standard_normal((20, 5))
    y = X[:, 0]
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X.*NaN"):
        LinearForwardSelector().fit(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="X.*infinity"):
        LinearForwardSelector().fit(bad, y)
    with pytest.raises(ValueError, match="y.*NaN"):
        LinearForwardSelector().fit(X, np.where(y > 0, np.nan, y))
    with pytest.raises(ValueError, match="n_features_to_select must be >= 1, got 0"):
        LinearForwardSelector(n_features_to_select=0).fit(X, y)
    with pytest.raises(ValueError, match=r"n_features_to_select as a fraction.*got 1.5"):
        LinearForwardSelector(n_features_to_select=1.5).fit(X, y)
    with pytest.raises(TypeError, match="n_features_to_select must be"):
        LinearForwardSelector(n_features_to_select="3").fit(X, y)
    with pytest.warns(UserWarning, match="all of them are kept"):
        assert LinearForwardSelector(n_features_to_select=9).fit(X, y).get_support().all()
    assert LinearForwardSelector().fit(X, y).get_support().sum() == 2
    assert LinearForwardSelector(n_features_to_select=0.6).fit(X, y).get_support().sum() == 3


def test_pipeline_and_grid_search():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 20))
    y = X[:, 3] - X[:, 11] + 0.5 * X[:, 6] + 0.3 * rng.standard_normal(300)
    pipe = make_pipeline(LinearForwardSelector(), LinearRegression())
    search = GridSearchCV(
        pipe, {"linearforwardselector__n_features_to_select": [1, 2, 3, 10]}, cv=3
    ).fit(X, y)
    # 3 features explain y; more only add noise to the fit, fewer miss signal
    assert search.best_params_["linearforwardselector__n_features_to_select"] in (3, 10)
    assert search.best_estimator_[0].transform(X).shape[1] in (3, 10)
    assert search.score(X, y) > 0.9


def test_feature_names_are_kept():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.standard_normal((50, 3)), columns=["a", "b", "c"])
    selector = LinearForwardSelector(n_features_to_select=1).fit(X, X["c"] * 2)
    assert list(selector.get_feature_names_out()) == ["c"]


@parametrize_with_checks([LinearForwardSelector()])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # the checks' data has constant and duplicated columns
        warnings.filterwarnings("ignore", "features could not enter")
        check(estimator)
