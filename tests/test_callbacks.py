"""Round callbacks may call the library: predicting with another model,
fitting another estimator or refitting the one being fitted completes,
whatever the thread count (a one-thread fit used to wait for itself).

Each case runs in a subprocess with a deadline, so that a deadlock fails
the test instead of hanging the suite (a thread blocked in Rust cannot be
interrupted from inside the process)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sparseboost import SparseBoostClassifier, SparseBoostRegressor

SCRIPT = """
import numpy as np
from sparseboost import (MultiTaskSparseBoostRegressor, SparseBoostClassifier,
                         SparseBoostRegressor, SparseBoostRanker)
rng = np.random.default_rng(0)
X = rng.random((400, 6)); y = X[:, 0] + X[:, 1]
other = SparseBoostRegressor(n_estimators=5, n_jobs={inner}).fit(X, y)
est = {estimator}
calls = []

def predict(r):
    calls.append(other.predict(X).shape)

def fit(r):
    calls.append(SparseBoostClassifier(n_estimators=3, n_jobs={inner}).fit(X, y > 1).n_trees_)

def fit_with_a_callback(r):
    inner = SparseBoostRegressor(n_estimators=2, n_jobs={inner}, callbacks=[predict])
    calls.append(inner.fit(X, y).n_trees_)

def refit(r):
    # the estimator being fitted, without callbacks (else it would recurse)
    saved = est.callbacks
    est.set_params(callbacks=None).fit(*ARGS)
    est.set_params(callbacks=saved)
    calls.append("refit")

ARGS = {args}
est.set_params(callbacks=[{callback}]).fit(*ARGS)
assert len(calls) >= 3, calls
print("completed", len(calls), flush=True)
"""
ESTIMATORS = {
    "regressor": ("SparseBoostRegressor(n_estimators=3, n_jobs={outer})", "(X, y)"),
    "multitask": (
        "MultiTaskSparseBoostRegressor(n_estimators=3, n_jobs={outer})",
        "(X, y, np.arange(len(y)) % 2)",
    ),
    "ranker": (
        "SparseBoostRanker(n_estimators=3, n_jobs={outer})",
        "(X, np.round(y).astype(int), [40] * 10)",
    ),
}


@pytest.mark.parametrize("threads", [(1, 1), (2, 1)])
@pytest.mark.parametrize("callback", ["predict", "fit", "fit_with_a_callback", "refit"])
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_a_callback_may_call_the_library(estimator, callback, threads):
    outer, inner = threads
    make, args = ESTIMATORS[estimator]
    script = SCRIPT.format(
        estimator=make.format(outer=outer), args=args, callback=callback, inner=inner
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{estimator} fit with a {callback} callback did not finish in 60 s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("completed"), done.stdout


@pytest.mark.timeout(120, method="thread")  # a deadlock ends the run, not hangs it
def test_a_callback_that_fits_in_process_gives_the_same_models():
    # In process too (one thread, the case that deadlocked): the model a
    # callback fits equals the same fit made outside any callback, and the
    # outer fit is unchanged by the work done inside its callback.
    rng = np.random.default_rng(1)
    X = rng.random((300, 5))
    y = (X[:, 0] > 0.5).astype(int)
    inside = []
    outer = SparseBoostClassifier(
        n_estimators=4,
        n_jobs=1,
        random_state=0,
        callbacks=[
            lambda r: inside.append(SparseBoostClassifier(n_estimators=2, n_jobs=1).fit(X, y))
        ],
    ).fit(X, y)
    plain = SparseBoostClassifier(n_estimators=4, n_jobs=1, random_state=0).fit(X, y)
    reference = SparseBoostClassifier(n_estimators=2, n_jobs=1).fit(X, y)
    assert len(inside) == outer.n_trees_
    for model in inside:
        np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
    np.testing.assert_array_equal(outer.predict_proba(X), plain.predict_proba(X))


@pytest.mark.timeout(120, method="thread")
def test_refitting_the_estimator_in_its_callback_leaves_the_outer_fit_whole():
    # The inner fit sees other columns (named in another order, or another
    # width) and other classes; the outer fit must keep its own, or its
    # trees would be read with the inner fit's columns.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    labels = np.where(frame["a"] > 0, "yes", "no")
    inner_fits = [
        (frame[["c", "b", "a"]], labels),
        (frame[["a", "b"]].to_numpy(), rng.integers(0, 3, 300)),
    ]
    for inner_X, inner_y in inner_fits:
        est = SparseBoostClassifier(n_estimators=4, random_state=0)

        def refit(report, est=est, inner_X=inner_X, inner_y=inner_y):
            saved = est.callbacks
            est.set_params(callbacks=None).fit(inner_X, inner_y)
            est.set_params(callbacks=saved)

        est.set_params(callbacks=[refit]).fit(frame, labels)
        plain = SparseBoostClassifier(n_estimators=4, random_state=0).fit(frame, labels)
        assert list(est.feature_names_in_) == ["a", "b", "c"]
        assert est.n_features_in_ == 3
        assert list(est.classes_) == ["no", "yes"]
        assert list(est.selected_feature_names_) == list(plain.selected_feature_names_)
        np.testing.assert_array_equal(est.predict_proba(frame), plain.predict_proba(frame))
        with pytest.raises(ValueError, match="feature names"):
            est.predict(frame[["c", "b", "a"]])


@pytest.mark.parametrize(
    "callbacks",
    [
        (lambda: (f for f in [print])),  # a generator would be used up and never called
        (lambda: print),  # one function, not a list of them
        (lambda: {print}),
        (lambda: [print, "not callable"]),
    ],
)
def test_callbacks_must_be_a_list_or_tuple_of_callables(callbacks):
    X = np.random.default_rng(0).random((50, 3))
    with pytest.raises(TypeError, match="callbacks must be a list or tuple"):
        SparseBoostRegressor(n_estimators=2, callbacks=callbacks()).fit(X, X[:, 0])


def test_a_tuple_of_callbacks_is_called():
    X = np.random.default_rng(0).random((50, 3))
    rounds = []
    SparseBoostRegressor(n_estimators=3, callbacks=(lambda r: rounds.append(r.round),)).fit(
        X, X[:, 0]
    )
    assert rounds == [0, 1, 2]
