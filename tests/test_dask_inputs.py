"""The Dask estimators read their input as the single-machine ones do
(``sparseboost._dask_inputs``): column names, pandas dtypes, labels,
evaluation sets, and clear errors for bad input, on a real ``LocalCluster``
of 2 worker processes. Every test has a timeout."""

from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from sklearn.exceptions import NotFittedError  # noqa: E402
from sparseboost import (  # noqa: E402
    SparseBoostClassifier,
    SparseBoostRegressor,
)
from sparseboost.dask import (  # noqa: E402
    DaskMultiTaskSparseBoostClassifier,
    DaskMultiTaskSparseBoostRegressor,
    DaskSparseBoostClassifier,
    DaskSparseBoostRanker,
    DaskSparseBoostRegressor,
)

pytestmark = pytest.mark.timeout(180)
from dask_cases import _problem, _tasks_problem  # noqa: E402


def test_dataframes_keep_feature_names_and_eval_sets_stop_early(client):
    pd = pytest.importorskip("pandas")
    X, y, _ = _problem("regression", n=900, seed=4)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    ddf = dd.from_pandas(frame, npartitions=3)
    dy = dd.from_pandas(pd.Series(y), npartitions=3)
    X_val, y_val, _ = _problem("regression", n=300, seed=5)
    est = DaskSparseBoostRegressor(
        client=client, n_estimators=200, early_stopping_rounds=3, random_state=0
    ).fit(ddf, dy, eval_set=[(X_val, y_val)])
    assert list(est.feature_names_in_) == list(frame.columns)
    assert est.best_iteration_ is not None and est.n_trees_ < 200
    assert {"c1", "c4"} <= set(est.selected_feature_names_)


def test_predictions_check_column_names_and_take_empty_partitions(client):
    pd = pytest.importorskip("pandas")
    X, y, _ = _problem("regression", n=600, seed=4)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    ddf = dd.from_pandas(frame, npartitions=3)
    est = DaskSparseBoostRegressor(client=client, n_estimators=10, random_state=0)
    est.fit(ddf, dd.from_pandas(pd.Series(y), npartitions=3))
    # Reordered or renamed columns: the local estimator's refusal, not a
    # silent prediction from the wrong columns.
    for bad in (ddf[list(frame.columns[::-1])], ddf.rename(columns={"c0": "z"})):
        with pytest.raises(ValueError, match="X: The feature names should match"):
            est.predict(bad)
    # Matching names: no warning that the (unnamed) blocks lack them.
    # (Computed here, so that a warning would be raised in this process;
    # older Dask warns about the scheduler itself, which is not the point.)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "X does not have valid feature names")
        local = est.predict(ddf).compute(scheduler="sync")
    np.testing.assert_array_equal(local, est.to_local().predict(frame))
    # A filtered partition may hold no row.
    kept = ddf.map_partitions(lambda part: part[part.index < 250])
    np.testing.assert_allclose(
        est.predict(kept).compute(), est.to_local().predict(frame.iloc[:250]), rtol=0, atol=0
    )
    # An evaluation set of Dask arrays (computed on the client). Few rounds:
    # its rows are training rows, on which the score never stops improving.
    dX, dy = da.from_array(X, chunks=(200, X.shape[1])), da.from_array(y, chunks=200)
    evaluated = DaskSparseBoostRegressor(
        client=client, n_estimators=8, early_stopping_rounds=3, random_state=0
    ).fit(dX, dy, eval_set=[(dX[:200], dy[:200])])
    assert evaluated.best_iteration_ == 7
    (history,) = evaluated.evals_result_.values()
    assert [len(values) for values in history.values()] == [8]


def test_unsupported_settings_and_bad_input_are_clear_errors(client):
    X, y, _ = _problem("regression", n=300)
    dX, dy = da.from_array(X, chunks=(100, X.shape[1])), da.from_array(y, chunks=100)
    # (Column 0 too: an index list [0] is no empty choice.)
    for spec in ([1], [0], np.arange(X.shape[1]) == 0):
        with pytest.raises(ValueError, match="categorical_features: the Dask estimators"):
            DaskSparseBoostRegressor(client=client, categorical_features=spec).fit(dX, dy)
    DaskSparseBoostRegressor(
        client=client, n_estimators=2, categorical_features=np.zeros(X.shape[1], dtype=bool)
    ).fit(dX, dy)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"city": np.array(["a", "b", "c"] * 100), "x": X[:, 0]})
    with pytest.raises(ValueError, match="categorical_features: column 'city'"):
        DaskSparseBoostRegressor(client=client).fit(dd.from_pandas(frame, npartitions=2), dy)
    # Dates are refused as on one machine, not said to be categorical; so
    # are strings and categories read as numbers (they were cast, "1.5" to
    # 1.5, in the workers).
    dated = pd.DataFrame({"x": X[:, 0], "t": pd.date_range("2020-01-01", periods=300)})
    for spec in ("from_dtype", None):
        with pytest.raises(ValueError, match="X column 't' has dtype datetime64.*needs numbers"):
            DaskSparseBoostRegressor(client=client, categorical_features=spec).fit(
                dd.from_pandas(dated, npartitions=2), dy
            )
    # (pandas 3 holds the strings as str, which the single machine refuses;
    # older versions as objects, which it reads as numbers: the same here.)
    for column in (
        np.array(["1.5", "2.5", "3"] * 100, dtype=object),
        pd.Categorical([3, 7, 9] * 100),
    ):
        text = pd.DataFrame({"x": X[:, 0], "s": column})
        est = DaskSparseBoostRegressor(client=client, categorical_features=None, n_estimators=2)
        try:
            SparseBoostRegressor(categorical_features=None, n_estimators=2).fit(text, y)
        except ValueError as e:
            assert "X column 's' has dtype" in str(e)
            # (dask's dtype may be spelled "string" where pandas says "str")
            with pytest.raises(ValueError, match="X column 's' has dtype .*needs numbers"):
                est.fit(dd.from_pandas(text, npartitions=2), dy)
        else:
            est.fit(dd.from_pandas(text, npartitions=2), dy)
    with pytest.raises(ValueError, match="validation_fraction=0.999 of 300 rows"):
        DaskSparseBoostRegressor(
            client=client, early_stopping_rounds=2, validation_fraction=0.999
        ).fit(dX, dy)
    with pytest.raises(TypeError, match="does not take task"):
        DaskSparseBoostRegressor(client=client)._dask_fit(
            dX, dy, None, None, None, None, None, None, task=np.zeros(300)
        )
    with pytest.raises(TypeError, match="dask array"):
        DaskSparseBoostRegressor(client=client).fit(X, y)
    with pytest.raises(ValueError, match="y has 299 values"):
        DaskSparseBoostRegressor(client=client).fit(dX, dy[:299])
    bad = X.copy()
    bad[7, 2] = np.inf
    with pytest.raises(ValueError, match="inf"):
        DaskSparseBoostRegressor(client=client).fit(da.from_array(bad, chunks=(100, 8)), dy)
    # What the single machine refuses, not cast in a worker (the complex
    # part dropped, "1.5" read as a number).
    regressor = DaskSparseBoostRegressor(client=client, n_estimators=2)
    for name, args in (
        ("X", (da.from_array(X + 1j, chunks=(100, 8)), dy)),
        ("X", (da.from_array(X.astype(str), chunks=(100, 8)), dy)),
        ("y", (dX, da.from_array(y.astype(str), chunks=100))),
        ("sample_weight", (dX, dy, da.from_array(np.full(300, "1.0"), chunks=100))),
    ):
        with pytest.raises(ValueError, match=f"{name} must hold (real )?numbers"):
            regressor.fit(*args)


def test_nullable_dataframe_columns_are_missing_values_as_on_one_machine(client):
    # Int64 and Float64 columns holding pd.NA reach the workers as objects.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "a": pd.array(np.where(np.arange(n) % 7 == 0, None, np.arange(n)), dtype="Int64"),
            "b": pd.array(np.where(np.arange(n) % 5 == 0, None, rng.random(n)), dtype="Float64"),
            "c": rng.random(n),
        }
    )
    y = rng.random(n) + (frame["c"].to_numpy() > 0.5) + (frame["b"].isna().to_numpy())
    local = SparseBoostRegressor(n_estimators=5, random_state=0).fit(frame, y)
    est = DaskSparseBoostRegressor(client=client, n_estimators=5, random_state=0)
    est.fit(dd.from_pandas(frame, npartitions=3), da.from_array(y, chunks=100))
    np.testing.assert_allclose(est.to_local().predict(frame), local.predict(frame), atol=1e-9)
    np.testing.assert_allclose(
        est.predict(dd.from_pandas(frame, npartitions=3)).compute(), local.predict(frame), atol=1e-9
    )


@pytest.mark.parametrize(
    ("categories", "dtype"),
    [
        ([0, 1, 2], "category"),
        (["lo", "mid", "hi"], "category"),
        ([0, 1, 2], "Int64"),
        ([False, True, True], "boolean"),
    ],
)
def test_labels_in_a_pandas_dtype_dask_series_are_the_single_machines(client, categories, dtype):
    # to_dask_array makes a categorical, Int64 or boolean Series objects:
    # ints and bools were then labels of "unknown" type.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.random((400, 5))
    labels = pd.Series(np.asarray(categories)[np.digitize(X[:, 1], [0.3, 0.6])], dtype=dtype)
    local = SparseBoostClassifier(n_estimators=5, random_state=0).fit(X, labels)
    est = DaskSparseBoostClassifier(client=client, n_estimators=5, random_state=0)
    est.fit(da.from_array(X, chunks=(100, 5)), dd.from_pandas(labels, npartitions=4))
    np.testing.assert_array_equal(est.classes_, local.classes_)
    assert est.classes_.dtype == local.classes_.dtype
    np.testing.assert_allclose(est.to_local().predict_proba(X), local.predict_proba(X), atol=1e-9)


def test_a_dask_dataframe_eval_set_keeps_its_column_names(client):
    # It was computed to an array: reordered columns were scored silently.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(6)]
    frame = pd.DataFrame(rng.random((400, 6)), columns=names)
    held = pd.DataFrame(rng.random((200, 6)), columns=names)
    y = 3 * frame["c1"].to_numpy() - 2 * frame["c4"].to_numpy()
    y_held = 3 * held["c1"].to_numpy() - 2 * held["c4"].to_numpy()
    est = DaskSparseBoostRegressor(client=client, n_estimators=5, random_state=0)
    train = (dd.from_pandas(frame, npartitions=2), da.from_array(y, chunks=200))
    with pytest.raises(ValueError, match="eval_set\\[0\\]: X: The feature names should match"):
        est.fit(*train, eval_set=[(dd.from_pandas(held[names[::-1]], npartitions=2), y_held)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no "X does not have valid feature names")
        est.fit(*train, eval_set=[(dd.from_pandas(held, npartitions=2), y_held)])
    local = SparseBoostRegressor(n_estimators=5, random_state=0)
    local.fit(frame, y, eval_set=[(held, y_held)])
    np.testing.assert_allclose(
        est.evals_result_["validation_0"]["rmse"], local.evals_result_["validation_0"]["rmse"]
    )


def test_frame_names_timeout_weights_clone_and_pickle_as_on_one_machine(client):
    pd = pytest.importorskip("pandas")
    from sklearn.base import clone

    rng = np.random.default_rng(0)
    X = rng.random((300, 3))
    y = X[:, 0] + 0.1 * rng.random(300)
    dy = da.from_array(y, chunks=150)
    est = DaskSparseBoostRegressor(client=client, n_estimators=3, random_state=0)
    # Column names as scikit-learn reads a pandas frame's (they were str()-ed):
    # what the single machine does (duplicates are refused by newer
    # scikit-learn versions only).
    for columns in (["a", "a", "c"], ["a", 1, "c"]):
        frame = pd.DataFrame(X, columns=columns)
        try:
            local = SparseBoostRegressor(n_estimators=3).fit(frame, y)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e), match=re.escape(str(e).splitlines()[0])):
                est.fit(dd.from_pandas(frame, npartitions=2), dy)
        else:
            est.fit(dd.from_pandas(frame, npartitions=2), dy)
            np.testing.assert_array_equal(est.feature_names_in_, local.feature_names_in_)
    with pytest.raises(TypeError, match="string names"):
        est.fit(dd.from_pandas(pd.DataFrame(X, columns=["a", 1, "c"]), npartitions=2), dy)
    numbered = dd.from_pandas(pd.DataFrame(X), npartitions=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ("X does not have valid feature names")
        est.fit(numbered, dy)
        assert not hasattr(est, "feature_names_in_")
        est.predict(numbered).compute()
    # timeout: named, not a distributed parsing error.
    for bad in (-1, 0, "x", float("nan"), True):
        with pytest.raises(ValueError, match="timeout must be None"):
            DaskSparseBoostRegressor(client=client, timeout=bad).fit(numbered, dy)
    # A number is every row's weight. (One chunk, so one shard: bit for bit
    # whichever worker holds it.)
    dX, dy = da.from_array(X, chunks=-1), da.from_array(y, chunks=-1)
    scalar = clone(est).fit(dX, dy, sample_weight=2.0)
    rows = clone(est).fit(dX, dy, sample_weight=da.full(300, 2.0, chunks=-1))
    assert scalar._model.to_json() == rows._model.to_json()
    with pytest.raises(ValueError, match="sample_weight"):
        clone(est).fit(dX, dy, sample_weight=-1.0)
    # With client=: clone shares it; pickling drops it (the default client then).
    copy = clone(est)
    assert copy.client is client and copy.get_params()["n_estimators"] == 3
    assert not hasattr(copy, "_model")
    # ... keeping what scikit-learn's clone keeps; copies share the client.
    import copy as copying

    from sklearn import config_context

    with config_context(enable_metadata_routing=True):
        requesting = clone(est).set_fit_request(sample_weight=True).set_output(transform="pandas")
        cloned = clone(requesting)
        assert cloned.get_metadata_routing().fit.requests["sample_weight"] is True
        assert cloned._sklearn_output_config == {"transform": "pandas"}
    assert copying.copy(scalar).client is client and copying.deepcopy(scalar).client is client
    np.testing.assert_array_equal(copying.deepcopy(scalar).predict(X), scalar.predict(X))
    restored = pickle.loads(pickle.dumps(scalar))
    assert restored.client is None
    np.testing.assert_array_equal(restored.predict(X), scalar.predict(X))
    # A failed refit leaves no model behind (the old one answered under the
    # failed call's n_features_in_ and names).
    with pytest.raises(ValueError, match="y contains a non-finite value"):
        scalar.fit(dX, da.from_array(np.r_[np.nan, y[1:]], chunks=150))
    with pytest.raises(NotFittedError):
        scalar.predict(X)
    # A resume from the estimator's own model still has it.
    rows.set_params(n_estimators=5).fit(dX, dy, init_model=rows)  # (rounds in all)
    assert rows.n_trees_ == 5


def test_computed_dask_frames_and_series_stay_pandas():
    # The single machine's checks read their names and nullable dtypes.
    pd = pytest.importorskip("pandas")
    from sparseboost.dask import _computed

    frame = pd.DataFrame({"a": [1.0, 2.0], "b": pd.array([1, None], dtype="Int64")})
    got = _computed(
        [(dd.from_pandas(frame, npartitions=1), dd.from_pandas(frame["b"], npartitions=1))]
    )
    assert list(got[0][0].columns) == ["a", "b"] and str(got[0][1].dtype) == "Int64"
    assert isinstance(_computed(da.ones(3, chunks=2)), np.ndarray)


def test_one_task_label_for_every_row_is_that_label_and_transform_takes_none(client):
    # A label given once for all rows: "ab" was made an array of "a"
    # (da.full took the dtype of its first character).
    X, y, task = _tasks_problem(n=300)
    task = np.where(task == "a", "ab", task)
    dX = da.from_array(X, chunks=100)
    est = DaskMultiTaskSparseBoostRegressor(client=client, n_estimators=5, random_state=0)
    est.fit(dX, da.from_array(y, chunks=100), task)
    local = est.to_local()
    for label in ("ab", "b"):
        np.testing.assert_array_equal(est.predict(dX, label).compute(), local.predict(X, label))
    assert not np.array_equal(local.predict(X, "ab"), local.predict(X, "b"))
    # transform takes no task (it was given one, and raised TypeError).
    np.testing.assert_array_equal(est.transform(dX).compute(), local.transform(X))
    assert local.transform(X).shape[1] == est.selected_features_.size > 0


def test_dask_multitask_bad_input_is_a_clear_error(client):
    X, y, task = _tasks_problem(n=300)
    dX, dy = da.from_array(X, chunks=100), da.from_array(y, chunks=100)
    with pytest.raises(ValueError, match="task must hold"):
        DaskMultiTaskSparseBoostRegressor(client=client).fit(dX, dy, None)
    with pytest.raises(ValueError, match="task has 299 values"):
        DaskMultiTaskSparseBoostRegressor(client=client).fit(dX, dy, task[:299])
    lonely = task.copy()
    lonely[0] = "z"
    with pytest.raises(ValueError, match="at least 2 rows.*'z': 1"):
        DaskMultiTaskSparseBoostRegressor(client=client).fit(dX, dy, lonely)
    with pytest.raises(TypeError, match="shared_rounds"):
        DaskMultiTaskSparseBoostRegressor(client=client, shared_rounds=1.5).fit(dX, dy, task)


def test_classifier_labels_are_checked_and_every_output_checks_names(client):
    # As the single-machine classifier: NaN, continuous and mixed labels are
    # refused (not made classes), and decision_function and transform check
    # a DataFrame's column names and map over its chunks as predict does.
    pd = pytest.importorskip("pandas")
    X, y, _ = _problem("classification", n=400)
    dX = da.from_array(X, chunks=(100, X.shape[1]))
    bad_labels = {
        "NaN": np.where(np.arange(400) == 7, np.nan, y.astype(float)),
        "continuous": np.random.default_rng(0).random(400),
        "labels of type NoneType, str": np.where(y > 0, "yes", None).astype(object),
    }
    for message, labels in bad_labels.items():
        with pytest.raises(ValueError, match=message):
            DaskSparseBoostClassifier(client=client, n_estimators=2).fit(
                dX, da.from_array(labels, chunks=100)
            )
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    dframe = dd.from_pandas(frame, npartitions=4)
    model = DaskSparseBoostClassifier(client=client, n_estimators=5, random_state=0).fit(
        dframe, da.from_array(np.where(y > 0, "yes", "no"), chunks=100)
    )
    local = model.to_local()
    for method in ("decision_function", "transform"):
        out = getattr(model, method)(dframe)
        assert isinstance(out, da.Array), method
        np.testing.assert_allclose(out.compute(), getattr(local, method)(frame), atol=1e-9)
        with pytest.raises(ValueError, match="feature names"):
            getattr(model, method)(dframe[list(frame.columns[::-1])])


def test_multitask_targets_and_task_weights_are_checked_as_on_one_machine(client):
    X, y, _ = _problem("regression", n=400)
    dX = da.from_array(X, chunks=(100, X.shape[1]))
    task = np.array(["a", "b", "c"])[np.arange(400) % 3]
    weight = np.where(task == "b", 0.0, 1.0)
    with pytest.raises(ValueError, match="sample_weight of task 'b' sums to zero"):
        DaskMultiTaskSparseBoostRegressor(client=client, n_estimators=2).fit(
            dX,
            da.from_array(y, chunks=100),
            da.from_array(task, chunks=100),
            sample_weight=da.from_array(weight, chunks=100),
        )
    labels = (y > np.median(y)).astype(float)
    labels[7] = np.nan
    with pytest.raises(ValueError, match="y contains NaN"):
        DaskMultiTaskSparseBoostClassifier(client=client, n_estimators=2).fit(
            dX, da.from_array(labels, chunks=100), da.from_array(task, chunks=100)
        )


def test_the_dask_estimators_parameters_are_their_signatures():
    # From **params scikit-learn's repr listed every default.
    import inspect

    for cls in (
        DaskSparseBoostRegressor,
        DaskSparseBoostClassifier,
        DaskSparseBoostRanker,
        DaskMultiTaskSparseBoostRegressor,
        DaskMultiTaskSparseBoostClassifier,
    ):
        local = set(cls._local_class().get_params())
        assert set(inspect.signature(cls).parameters) == local | {"client", "timeout"}
        assert repr(cls(n_estimators=5, timeout=9)) == f"{cls.__name__}(n_estimators=5, timeout=9)"
