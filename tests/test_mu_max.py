"""μ_max (the smallest μ at which the first round admits no feature), μ
given relative to it, and the warning for a model the penalty left empty."""

import warnings

import numpy as np
import pytest
import sparseboost as sb


def _data(seed=0, n=400, d=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, size=(n, d)).astype(float)
    y = 2.0 * (X[:, 1] > 3) + np.sin(X[:, 4]) + rng.normal(0, 0.5, n)
    return X, y


def _best_root_gain(X, y, min_leaf):
    """Brute force: the largest SSE reduction of one split of any column."""
    total = ((y - y.mean()) ** 2).sum()
    best = 0.0
    for j in range(X.shape[1]):
        for t in np.unique(X[:, j])[:-1]:
            left = X[:, j] <= t
            if left.sum() < min_leaf or (~left).sum() < min_leaf:
                continue
            sse = ((y[left] - y[left].mean()) ** 2).sum() + (
                (y[~left] - y[~left].mean()) ** 2
            ).sum()
            best = max(best, total - sse)
    return best, total


def _fit(cls=sb.SparseBoostRegressor, X=None, y=None, **params):
    defaults = dict(n_estimators=10, max_leaves=4, min_samples_leaf=5, random_state=0)
    return cls(**{**defaults, **params}).fit(X, y)


@pytest.mark.parametrize("penalty", ["agbm", "gbfs"])
def test_mu_max_is_the_best_root_split_brute_force(penalty):
    X, y = _data()
    model = _fit(X=X, y=y, penalty=penalty, mu=0.0)
    gain, sse = _best_root_gain(X, y, min_leaf=5)
    expected = gain / sse if penalty == "agbm" else gain
    assert model.mu_max_ == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("penalty", ["agbm", "gbfs"])
@pytest.mark.parametrize("cls", [sb.SparseBoostRegressor, sb.SparseBoostClassifier])
def test_mu_above_mu_max_warns_and_below_grows(penalty, cls):
    X, y = _data(1)
    if cls is sb.SparseBoostClassifier:
        y = (y > np.median(y)).astype(int)
    mu_max = _fit(cls, X, y, penalty=penalty, mu=0.0).mu_max_
    assert mu_max > 0
    with pytest.warns(UserWarning, match=r"mu_max=.*no tree"):
        empty = _fit(cls, X, y, penalty=penalty, mu=mu_max * 1.001)
    assert empty.n_trees_ == 0 and empty.selected_features_.size == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        below = _fit(cls, X, y, penalty=penalty, mu=mu_max * 0.999)
    assert below.n_trees_ > 0
    assert below.mu_max_ == mu_max


@pytest.mark.parametrize("penalty", ["agbm", "gbfs"])
@pytest.mark.parametrize("factor", [0.0, 0.2, 0.7])
def test_relative_mu_gives_the_model_of_the_equivalent_absolute_mu(penalty, factor):
    X, y = _data(2)
    rng = np.random.default_rng(3)
    # Weights and a large target scale move the fit's internal units.
    weights = rng.uniform(0.5, 3.0, X.shape[0]) * 1e3
    y = y * 1e4
    costs = [0.0, 0.1, 0.0, 0.05, 0.0, 0.0]
    if penalty == "gbfs":
        costs = [c * 1e9 for c in costs]
    params = dict(penalty=penalty, feature_costs=costs, subsample=0.8, colsample_bytree=0.7)
    relative = sb.SparseBoostRegressor(mu=f"{factor}*mu_max", n_estimators=15, random_state=4)
    relative.set_params(**params).fit(X, y, sample_weight=weights)
    absolute = sb.SparseBoostRegressor(
        mu=factor * relative.mu_max_, n_estimators=15, random_state=4
    ).set_params(**params)
    absolute.fit(X, y, sample_weight=weights)
    assert absolute.mu_max_ == relative.mu_max_
    assert absolute._model.to_json() == relative._model.to_json()
    np.testing.assert_array_equal(absolute.predict(X), relative.predict(X))


def test_agbm_mu_max_does_not_depend_on_the_target_scale_and_gbfs_does():
    X, y = _data(5)
    agbm = [_fit(X=X, y=y * s, penalty="agbm", mu=0.0).mu_max_ for s in (1.0, 1e3)]
    gbfs = [_fit(X=X, y=y * s, penalty="gbfs", mu=0.0).mu_max_ for s in (1.0, 1e3)]
    assert agbm[1] == pytest.approx(agbm[0], rel=1e-9)
    assert gbfs[1] == pytest.approx(gbfs[0] * 1e6, rel=1e-9)


def test_constant_target_gives_mu_max_zero_and_no_warning():
    X, _ = _data(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _fit(X=X, y=np.full(X.shape[0], 3.0), penalty="agbm", mu=0.5)
    assert model.mu_max_ == 0.0 and model.n_trees_ == 0


def test_no_penalty_has_no_mu_max():
    X, y = _data(7)
    assert _fit(X=X, y=y, penalty="none").mu_max_ is None


@pytest.mark.parametrize("bad", ["0.5", "mu_max", "x*mu_max", "0.5*mu_min", "-0.1*mu_max"])
def test_a_bad_relative_mu_names_mu(bad):
    X, y = _data(8)
    with pytest.raises(ValueError, match="mu"):
        _fit(X=X, y=y, penalty="agbm", mu=bad)


def test_relative_mu_survives_clone_and_save(tmp_path):
    from sklearn.base import clone

    X, y = _data(9)
    model = _fit(X=X, y=y, penalty="agbm", mu="0.5*mu_max")
    assert clone(model).get_params()["mu"] == "0.5*mu_max"
    path = tmp_path / "m.json"
    model.save_model(path)
    loaded = sb.load_model(path)
    assert loaded.get_params()["mu"] == "0.5*mu_max"
    assert loaded.mu_max_ == model.mu_max_
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("bad", [-1.0, "x", True])
def test_a_model_file_with_a_bad_mu_max_is_refused(tmp_path, bad):
    import json

    X, y = _data(10)
    path = tmp_path / "m.json"
    _fit(X=X, y=y, penalty="agbm", mu=0.01).save_model(path)
    document = json.loads(path.read_text())
    document["fitted"]["mu_max_"] = bad
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="mu_max_"):
        sb.load_model(path)


def test_group_testing_measures_mu_max_only_for_a_relative_mu():
    # Measuring mu_max scans every feature at the root, the work group
    # testing avoids: an absolute mu leaves it unmeasured and grows the
    # same trees; a relative one measures the exhaustive search's value.
    X, y = _data(10, n=600, d=40)
    gt = dict(split_search="group_testing", gt_n_features=3, penalty="agbm")
    absolute = _fit(X=X, y=y, mu=0.01, **gt)
    assert absolute.split_search_ == "group_testing"
    assert absolute.mu_max_ is None
    assert absolute.n_trees_ > 0
    exhaustive = _fit(X=X, y=y, mu=0.01, penalty="agbm")
    relative = _fit(X=X, y=y, mu=f"{0.01 / exhaustive.mu_max_!r}*mu_max", **gt)
    assert relative.mu_max_ == exhaustive.mu_max_
    # The same penalty, so the same model, with or without the measurement.
    same = _fit(X=X, y=y, mu=0.01 / exhaustive.mu_max_ * relative.mu_max_, **gt)
    assert same.mu_max_ is None
    np.testing.assert_array_equal(same.predict(X), relative.predict(X))


def test_a_group_tested_fit_that_admits_nothing_says_mu_max_was_not_measured():
    X, y = _data(11, n=600, d=40)
    with pytest.warns(UserWarning, match="does not measure"):
        empty = _fit(X=X, y=y, mu=0.999, split_search="group_testing", penalty="agbm")
    assert empty.n_trees_ == 0 and empty.mu_max_ is None
