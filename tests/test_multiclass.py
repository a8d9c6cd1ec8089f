"""Multiclass classification: softmax, one tree per class and round, with
every penalty and group testing."""

import json
import pickle

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.metrics import log_loss
from sparseboost import SparseBoostClassifier, load_model

PLANTED = [17, 101, 160]


def planted_multiclass(n=1500, d=200, seed=0):
    """4 classes decided by 3 of 200 features (two thresholds on a sum of
    two features and the sign of the third), with 5% label noise."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    a, b, c = (X[:, j] for j in PLANTED)
    y = (a + b > 1).astype(int) + 2 * (c > 0.5)
    flip = rng.random(n) < 0.05
    y[flip] = rng.integers(0, 4, flip.sum())
    return X, np.array(["north", "east", "south", "west"])[y]


@pytest.fixture(scope="module")
def data():
    return planted_multiclass(), planted_multiclass(seed=1)


@pytest.mark.parametrize(
    "params",
    [
        dict(penalty="agbm", mu=0.02),
        dict(penalty="gbfs", mu=2.0),
        dict(penalty="agbm", mu=0.02, split_search="group_testing", gt_n_features=3),
    ],
)
def test_the_planted_features_are_selected_first(data, params):
    (X, y), (X_test, y_test) = data
    model = SparseBoostClassifier(n_estimators=60, random_state=0, **params).fit(X, y)
    assert set(model.selected_features_[:3]) == set(PLANTED), model.selected_features_
    assert model.score(X_test, y_test) > 0.85
    # One tree per class and round, in class order.
    outputs = [t["output"] for t in json.loads(model._model.to_json())["trees"]]
    assert outputs[:8] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_probabilities_labels_and_raw_scores(data):
    (X, y), (X_test, y_test) = data
    model = SparseBoostClassifier(n_estimators=40, random_state=0).fit(X, y)
    assert list(model.classes_) == ["east", "north", "south", "west"]
    proba = model.predict_proba(X_test)
    raw = model.decision_function(X_test)
    assert proba.shape == raw.shape == (len(X_test), 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(proba, softmax(raw, axis=1), rtol=1e-12)
    assert np.array_equal(model.predict(X_test), model.classes_[np.argmax(raw, axis=1)])
    # Better than the class prior by a wide margin.
    prior = np.unique(y, return_counts=True)[1] / len(y)
    assert log_loss(y_test, proba, labels=model.classes_) < 0.5 * log_loss(
        y_test, np.tile(prior, (len(y_test), 1)), labels=model.classes_
    )


def test_training_loss_matches_the_predictions(data):
    (X, y), _ = data
    model = SparseBoostClassifier(
        n_estimators=20, penalty="none", random_state=0, record_train_loss=True
    ).fit(X, y)
    expected = log_loss(y, model.predict_proba(X), labels=model.classes_)
    assert model.train_loss_[-1] == pytest.approx(expected, rel=1e-10)


def test_eval_history_and_training_loss_follow_every_round(data):
    """Eval scores are updated by routing each round's trees through the
    binned eval set; they must equal the predictions of the model cut at
    that round (fits of fewer rounds are prefixes of the same fit). Deep,
    lopsided trees and missing values exercise the routing; the K trees
    of a round share the training loss after the round."""
    (X, y), (X_val, y_val) = data
    X_val = X_val.copy()
    X_val[::7, PLANTED[0]] = np.nan
    X_val[::5, PLANTED[2]] = np.nan
    params = dict(
        penalty="none", max_leaves=40, min_samples_leaf=2, random_state=0, record_train_loss=True
    )
    model = SparseBoostClassifier(n_estimators=12, **params)
    model.fit(X, y, eval_set=[(X_val, y_val)])
    history = model.evals_result_["validation_0"]["multi_logloss"]
    assert len(history) == 12
    for rounds in (1, 5, 12):
        prefix = SparseBoostClassifier(n_estimators=rounds, **params).fit(X, y)
        proba = prefix.predict_proba(X_val)
        expected = log_loss(y_val, proba, labels=prefix.classes_)
        assert history[rounds - 1] == pytest.approx(expected, rel=1e-10), rounds
        train = log_loss(y, prefix.predict_proba(X), labels=prefix.classes_)
        assert model.train_loss_[4 * rounds - 4 : 4 * rounds] == pytest.approx([train] * 4)


def test_save_load_and_pickle_reproduce_predictions(tmp_path, data):
    (X, y), (X_test, _) = data
    model = SparseBoostClassifier(n_estimators=15, random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    model.save_model(path)
    document = json.loads(path.read_text())
    assert document["model"]["n_outputs"] == 4 and document["model"]["version"] == 3
    for other in (load_model(path), pickle.loads(pickle.dumps(model))):
        assert np.array_equal(other.decision_function(X_test), model.decision_function(X_test))
        assert list(other.classes_) == list(model.classes_)


def test_same_model_with_one_and_two_threads(data):
    (X, y), _ = data
    for params in (dict(), dict(split_search="group_testing", subsample=0.7)):
        one = SparseBoostClassifier(n_estimators=10, n_jobs=1, random_state=3, **params).fit(X, y)
        two = SparseBoostClassifier(n_estimators=10, n_jobs=2, random_state=3, **params).fit(X, y)
        assert one._model.to_json() == two._model.to_json()


def test_unseen_eval_labels_are_named():
    X, y = planted_multiclass(n=200)
    with pytest.raises(ValueError, match=r"eval_set\[0\].*not seen in fit"):
        SparseBoostClassifier(n_estimators=2).fit(X, y, eval_set=[(X, np.full(200, "up"))])
