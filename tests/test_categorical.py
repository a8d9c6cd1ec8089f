"""Categorical features through the estimators: which columns are
categorical (``categorical_features``), their codes, a planted categorical
feature selected first, missing and unseen categories routed as documented,
files and pickles that keep the categories, the same model whatever the
threads, and every estimator kind that takes them (or refuses them by
name)."""

from __future__ import annotations

import decimal
import fractions
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sparseboost import (
    MultiTaskSparseBoostRegressor,
    SparseBoostClassifier,
    SparseBoostRanker,
    SparseBoostRegressor,
    SparseForestRegressor,
    load_model,
)
from sparseboost._categorical import Categories

pd = pytest.importorskip("pandas")

CITIES = np.array([f"city{i:02d}" for i in range(20)])
PLANTED = ["city02", "city07", "city11"]


def planted(n=3000, seed=0, noise_features=8):
    """A DataFrame whose string column "city" (20 categories, a few missing)
    decides y: +3 for three of them; the other columns are noise."""
    rng = np.random.default_rng(seed)
    city = CITIES[rng.integers(0, 20, n)].astype(object)
    city[rng.random(n) < 0.03] = None
    X = pd.DataFrame({f"x{j}": rng.random(n) for j in range(noise_features)})
    X.insert(3, "city", city)
    y = 3.0 * np.isin(city, PLANTED) + 0.5 * rng.random(n)
    return X, y


@pytest.mark.parametrize(
    "params",
    [
        dict(penalty="agbm", mu=0.01),
        dict(penalty="gbfs", mu=0.5),
        dict(penalty="agbm", mu=0.01, split_search="group_testing", gt_n_features=2),
    ],
    ids=["agbm", "gbfs", "gt"],
)
def test_a_planted_categorical_feature_is_selected_first(params):
    X, y = planted()
    model = SparseBoostRegressor(n_estimators=40, random_state=0, **params).fit(X, y)
    assert list(model.categorical_features_) == [3]
    assert model.selected_features_[0] == 3
    assert model.selected_feature_names_[0] == "city"
    assert np.argmax(model.feature_importances_) == 3
    # The planted categories and the others end on different sides.
    test = pd.DataFrame({c: [0.5, 0.5] for c in X.columns})
    test["city"] = ["city07", "city05"]
    high, low = model.predict(test)
    assert high - low > 2.0


def test_codes_follow_frequency_and_the_rarest_share_one():
    column = np.array(list("aaaaabbbbccde") + [None, "e"], dtype=object)
    cats = Categories.fit(column, max_codes=3, name="c")
    assert list(cats.values) == ["a", "b", "c", "e", "d"]
    codes = cats.codes(np.array(["a", "b", "c", "d", "e", "zz", None], dtype=object))
    np.testing.assert_array_equal(codes[:5], [0, 1, 2, 2, 2])
    assert np.isnan(codes[5:]).all(), "unseen and missing are NaN"
    with pytest.raises(TypeError, match="several kinds"):
        Categories.fit(np.array([1, "a", 2], dtype=object), 10, "c")
    # Dates: a model file could not hold them, so the fit refuses them.
    dates = np.array(["2020-01-01", "2021-06-30"] * 3, dtype="datetime64[us]")
    for column in (dates, dates.astype(object)):
        with pytest.raises(TypeError, match="column c holds values of kind"):
            Categories.fit(column, 10, "c")


def test_missing_and_unseen_categories_go_right():
    X, y = planted(seed=1)
    stump = SparseBoostRegressor(
        n_estimators=1, max_leaves=2, learning_rate=1.0, penalty="none", random_state=0
    ).fit(X, y)
    rows = pd.DataFrame({c: [0.5] * 4 for c in X.columns})
    rows["city"] = [None, "never seen", "city07", "city05"]
    missing, unseen, planted_one, other = stump.predict(rows)
    assert missing == unseen, "both go right"
    assert planted_one != other
    assert missing in (planted_one, other)


def test_explicit_columns_by_index_name_and_mask():
    X, y = planted(n=1500, seed=2)
    codes = X.copy()
    codes["city"] = pd.Categorical(X["city"]).codes.astype(float)
    codes.loc[codes["city"] < 0, "city"] = np.nan
    for spec in ([3], ["city"], np.arange(X.shape[1]) == 3):
        model = SparseBoostRegressor(n_estimators=10, categorical_features=spec, random_state=0)
        model.fit(codes, y)
        assert list(model.categorical_features_) == [3], spec
    # A numpy array holding numbers: categorical only when asked.
    array = codes.to_numpy()
    assert len(SparseBoostRegressor(n_estimators=5).fit(array, y).categorical_features_) == 0
    model = SparseBoostRegressor(n_estimators=10, categorical_features=[3]).fit(array, y)
    assert model.selected_features_[0] == 3
    none = SparseBoostRegressor(n_estimators=5, categorical_features=None).fit(codes, y)
    assert len(none.categorical_features_) == 0


@pytest.mark.parametrize(
    "spec, error, match",
    [
        (["nowhere"], ValueError, "categorical_features names 'nowhere'"),
        ([40], ValueError, "categorical_features has indices \\[40\\]"),
        ("some", ValueError, "categorical_features must be"),
        ([3, 3], ValueError, "categorical_features lists a feature twice"),
        (np.array([True, False]), ValueError, "categorical_features is a mask of 2"),
    ],
)
def test_bad_categorical_features_are_named(spec, error, match):
    X, y = planted(n=300)
    with pytest.raises(error, match=match):
        SparseBoostRegressor(n_estimators=2, categorical_features=spec).fit(X, y)


@pytest.mark.parametrize("categorical", [True, False])
@pytest.mark.parametrize(
    "max_bins, error", [(None, TypeError), (2.5, TypeError), (1, ValueError), (300, ValueError)]
)
def test_a_bad_max_bins_is_named_with_or_without_categorical_columns(categorical, max_bins, error):
    # The encoding reads max_bins (its cap on categories) before the engine
    # checks it: the message must still name max_bins alone.
    X, y = planted(n=100)
    if not categorical:
        X = X.drop(columns="city")
    model = SparseBoostRegressor(n_estimators=2, max_bins=max_bins)
    with pytest.raises(error, match="^(invalid parameter: )?max_bins must be"):
        model.fit(X, y)


def test_a_sparse_matrix_with_categorical_columns_is_refused():
    X = sp.random(100, 5, density=0.3, format="csr", random_state=0)
    y = np.arange(100.0)
    with pytest.raises(ValueError, match="categorical_features"):
        SparseBoostRegressor(n_estimators=2, categorical_features=[1]).fit(X, y)
    # from_dtype finds none in a sparse matrix.
    SparseBoostRegressor(n_estimators=2).fit(X, y)


def test_files_and_pickles_keep_the_categories(tmp_path):
    X, y = planted(n=1500, seed=3)
    model = SparseBoostClassifier(n_estimators=20, random_state=0).fit(X, y > 1.5)
    path = tmp_path / "model.json"
    model.save_model(path)
    for restored in (load_model(path), pickle.loads(pickle.dumps(model))):
        np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
        assert [list(v) for v in restored.categories_] == [list(v) for v in model.categories_]
        assert list(restored.categorical_features_) == [3]
    text = path.read_text()
    assert '"categories": [' in text and "city07" in text


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_integer_ids_beyond_float64s_precision_stay_distinct(tmp_path, dtype):
    # 64-bit IDs: a pandas category column hands them over as Python ints,
    # which float64 would merge above 2**53.
    big = 2**63 + 1 if dtype == np.uint64 else 2**53
    ids = np.array([big, big + 1, big + 2, 5] * 100, dtype=dtype)
    y = np.array([0.0, 3.0, 1.0, 2.0] * 100)
    X = pd.DataFrame({"id": pd.Categorical(ids), "z": np.arange(400.0)})
    model = SparseBoostRegressor(n_estimators=30, penalty="none", random_state=0).fit(X, y)
    assert model.categories_[0].dtype == dtype
    assert sorted(model.categories_[0].tolist()) == [5, big, big + 1, big + 2]
    np.testing.assert_allclose(model.predict(X[:4]), y[:4], atol=0.1)
    # The same IDs as objects, or as a plain integer column, code the same.
    as_objects = X[:4].assign(id=np.array(ids[:4].tolist(), dtype=object))
    np.testing.assert_array_equal(model.predict(as_objects), model.predict(X[:4]))
    path = tmp_path / "model.json"
    model.save_model(path)
    np.testing.assert_array_equal(load_model(path).predict(X[:4]), model.predict(X[:4]))


@pytest.mark.parametrize("dtype", ["Int64", "int64[pyarrow]"])
def test_nullable_integer_ids_with_a_missing_value_stay_distinct(dtype):
    # A nullable column with NA converts to float64 in to_numpy(), which
    # merged these three IDs into one category.
    if dtype.endswith("[pyarrow]"):
        pytest.importorskip("pyarrow")
    big = 2**60
    ids = [big + 1, big + 2, big + 3, None] * 100
    y = np.array([0.0, 2.0, 1.0, 3.0] * 100)
    X = pd.DataFrame({"id": pd.Series(ids, dtype=dtype), "z": np.zeros(400)})
    model = SparseBoostRegressor(
        n_estimators=30, penalty="none", categorical_features=["id"], random_state=0
    ).fit(X, y)
    assert sorted(model.categories_[0].tolist()) == [big + 1, big + 2, big + 3]
    np.testing.assert_allclose(model.predict(X[:4]), y[:4], atol=0.1)
    # The same IDs without NA, as plain int64, predict the same.
    plain = pd.DataFrame({"id": np.array(ids[:3], dtype=np.int64), "z": np.zeros(3)})
    np.testing.assert_array_equal(model.predict(plain), model.predict(X[:3]))


@pytest.mark.parametrize(
    "values",
    [
        [decimal.Decimal("0.1"), decimal.Decimal("0.2"), decimal.Decimal("0.3")],
        [fractions.Fraction(1, 3), fractions.Fraction(2, 3), fractions.Fraction(5, 3)],
        [2**60 + 1, 0.5, 7],
    ],
    ids=["decimal", "fraction", "big-int-among-fractions"],
)
def test_numbers_of_any_python_type_code_as_their_training_categories(values):
    # pandas.read_sql gives NUMERIC columns as Decimal objects: each must
    # find its own category (Decimal("0.1") is not the float 0.1).
    column = np.array(values * 100, dtype=object)
    y = np.array([0.0, 5.0, 2.0] * 100)
    X = pd.DataFrame({"c": column, "z": np.zeros(300)})
    model = SparseBoostRegressor(n_estimators=30, penalty="none", random_state=0).fit(X, y)
    assert model.score(X, y) > 0.99
    cats = model._categorical.categories[0]
    assert not np.isnan(cats.codes(column[:3])).any()


def test_an_infinite_category_is_refused_at_fit_naming_the_column():
    # Infinity is refused anywhere else in X, and a model file holds finite
    # categories only (it could be fitted but not saved).
    X = pd.DataFrame({"c": pd.Categorical([1.0, np.inf, 2.0] * 20), "z": np.zeros(60)})
    with pytest.raises(ValueError, match="'c' holds an infinite value"):
        SparseBoostRegressor().fit(X, np.arange(60.0))


def test_numbers_that_float64_merges_are_an_error_naming_the_column():
    ids = np.array([2**70, 2**70 + 1, 5] * 50, dtype=object)
    X = pd.DataFrame({"id": ids, "z": np.arange(150.0)})
    with pytest.raises(ValueError, match="'id' holds numbers that float64 cannot tell apart"):
        SparseBoostRegressor(categorical_features=["id"]).fit(X, np.arange(150.0))


def test_a_file_whose_splits_name_codes_its_categories_lack_is_refused(tmp_path):
    import json

    X, y = planted(n=1500, seed=3)
    SparseBoostRegressor(n_estimators=5, random_state=0).fit(X, y).save_model(tmp_path / "m.json")
    document = json.loads((tmp_path / "m.json").read_text())
    at = next(
        i for i, node in enumerate(document["model"]["trees"][0]["nodes"]) if node.get("categories")
    )
    n_codes = document["fitted"]["categorical"]["categories"][0]["n_codes"]

    def load_edited(codes, kept_categories=n_codes):
        edited = json.loads(json.dumps(document))
        edited["model"]["trees"][0]["nodes"][at]["categories"] = codes
        entry = edited["fitted"]["categorical"]["categories"][0]
        entry["n_codes"], entry["values"] = kept_categories, entry["values"][:kept_categories]
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        return load_model(tmp_path / "edited.json")

    load_edited([0, n_codes - 1])  # codes the column has
    refused = "fitted.categorical gives feature 3 .* sends code"
    with pytest.raises(ValueError, match=refused):
        load_edited([0, n_codes])
    with pytest.raises(ValueError, match=refused):
        load_edited([n_codes - 1], kept_categories=n_codes - 1)
    # n_codes of another JSON type is refused, not read through int() ("4"
    # loaded; 1.5 and true became 1).
    for value in (str(n_codes), n_codes + 0.5, True):
        edited = json.loads(json.dumps(document))
        edited["fitted"]["categorical"]["categories"][0]["n_codes"] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises((TypeError, ValueError), match="n_codes has the wrong type"):
            load_model(tmp_path / "edited.json")


def test_the_model_does_not_depend_on_the_threads():
    X, y = planted(n=2000, seed=4)
    fits = [
        SparseBoostRegressor(n_estimators=20, n_jobs=j, random_state=0).fit(X, y)._model.to_json()
        for j in (1, 2)
    ]
    assert fits[0] == fits[1]


def test_every_kind_of_estimator_takes_categorical_columns():
    X, y = planted(n=1200, seed=5)
    labels = np.where(y > 1.5, "hi", np.where(y > 0.3, "mid", "lo"))
    multiclass = SparseBoostClassifier(n_estimators=10, random_state=0).fit(X, labels)
    assert multiclass.selected_features_[0] == 3
    # Early stopping on an evaluation set with its own (unseen) categories.
    X_val, y_val = planted(n=400, seed=6)
    X_val.loc[:20, "city"] = "unknown"
    stopped = SparseBoostRegressor(n_estimators=200, early_stopping_rounds=3, random_state=0)
    stopped.fit(X, y, eval_set=[(X_val, y_val)])
    assert stopped.best_iteration_ is not None
    # float32 codes.
    codes = X.copy()
    codes["city"] = pd.Categorical(X["city"]).codes.astype(np.float32)
    codes = codes.astype(np.float32)
    f32 = SparseBoostRegressor(n_estimators=10, categorical_features=[3]).fit(codes.to_numpy(), y)
    assert f32.selected_features_[0] == 3
    # Ranking, multitask and forests.
    group = np.full(12, 100)
    ranker = SparseBoostRanker(n_estimators=10, random_state=0).fit(X, np.round(y), group=group)
    assert ranker.selected_features_[0] == 3
    task = np.where(np.arange(1200) % 3 == 0, "a", "b")
    multitask = MultiTaskSparseBoostRegressor(n_estimators=10, random_state=0).fit(X, y, task)
    assert multitask.selected_features_[0] == 3
    np.testing.assert_array_equal(multitask.categorical_features_, [3])
    forest = SparseForestRegressor(n_estimators=10, random_state=0).fit(X, y)
    assert np.argmax(forest.feature_importances_) == 3
    assert forest.score(X, y) > 0.8


def test_the_selectors_that_wrap_a_booster_take_categorical_columns():
    from sparseboost import SparseBoostSelector, SparseBoostSelectorCV, TopKSelector

    X, y = planted(n=1500, seed=7)
    selector = SparseBoostSelector().fit(X, y)
    assert 3 in selector.get_support(indices=True)
    top = TopKSelector(n_features_to_select=2).fit(X, y)
    assert 3 in top.selected_features_
    assert top.predict(X).shape == (1500,)
    cv = SparseBoostSelectorCV(max_selected_features=3, cv=3, order="entry").fit(X, y)
    assert cv.selected_features_[0] == 3
    assert cv.score(X, y) > 0.8
    # Codes in a numpy array, the column named by index.
    codes = X.copy()
    codes["city"] = pd.Categorical(X["city"]).codes.astype(float)
    codes.loc[codes["city"] < 0, "city"] = np.nan
    top = TopKSelector(n_features_to_select=1, categorical_features=[3]).fit(codes.to_numpy(), y)
    assert top.estimator_.categorical_features == [0]


def test_a_selector_at_its_default_takes_the_wrapped_boosters_categorical_columns():
    from sklearn.metrics import r2_score
    from sparseboost import SparseBoostSelector, SparseBoostSelectorCV, TopKSelector

    # An odd/even effect of a 30-code column: split as numbers, a few trees
    # of two leaves cannot find it.
    rng = np.random.default_rng(0)
    code = rng.integers(0, 30, 1000)
    X = np.column_stack([code, rng.normal(size=1000)]).astype(float)
    y = (code % 2) * 5.0 + 0.1 * rng.normal(size=1000)
    frame = pd.DataFrame(X, columns=["code", "x"])
    for data, spec in [(X, [0]), (frame, ["code"])]:
        booster = SparseBoostRegressor(
            n_estimators=30, max_leaves=2, learning_rate=0.5, random_state=0,
            categorical_features=spec,
        )  # fmt: skip
        assert booster.fit(data, y).score(data, y) > 0.99
        for selector in (
            SparseBoostSelectorCV(booster, max_selected_features=2, cv=3),
            TopKSelector(booster, n_features_to_select=2),
            SparseBoostSelector(booster),
        ):
            selector.fit(data, y)
            assert list(selector.categorical_features_) == [0], type(selector).__name__
            assert list(selector.estimator_.categorical_features_) == [0]
            model = selector if hasattr(selector, "predict") else selector.estimator_
            assert r2_score(y, model.predict(data)) > 0.99, type(selector).__name__


def test_categories_of_another_kind_at_predict_are_a_warning():
    # Strings for the numbers a column held in fit match no category: every
    # row would go the unseen way, silently. New categories of the same kind
    # are not warned about (they are expected).
    rng = np.random.default_rng(0)
    code = rng.integers(1, 5, 600)
    X = pd.DataFrame({"c": pd.Categorical(code), "x": rng.normal(size=600)})
    model = SparseBoostRegressor(n_estimators=20, random_state=0).fit(X, code * 1.0)
    with pytest.warns(UserWarning, match="'c' of X holds string values, but its categories in fit"):
        model.predict(X.assign(c=pd.Categorical(code.astype(str))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = model.predict(X.assign(c=pd.Categorical(code.astype(float))))
        np.testing.assert_array_equal(same, model.predict(X))
        model.predict(X.assign(c=pd.Categorical([9] * 600)))


def test_reordered_columns_are_named_before_a_categorical_dtype():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c": pd.Categorical(list("edab") * 50), "x": rng.random(200)})
    model = SparseBoostRegressor(n_estimators=5).fit(frame, (frame.c == "a") * 2 + frame.x)
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.predict(frame[["x", "c"]])


def test_inverse_transform_takes_what_transform_gives_in_either_output():
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame(
        {"a": rng.normal(size=n), "cat": rng.choice(["x", "y", "z"], n), "d": rng.normal(size=n)}
    )
    y = 2 * frame["a"] + 3 * (frame["cat"] == "x") + frame["d"]
    model = SparseBoostRegressor(n_estimators=30, random_state=0).fit(frame, y)
    assert list(model.selected_feature_names_) and "cat" in model.selected_feature_names_
    from_codes = model.inverse_transform(model.transform(frame))
    model.set_output(transform="pandas")
    values = model.transform(frame)
    assert set(values["cat"]) == {"x", "y", "z"}
    np.testing.assert_array_equal(model.inverse_transform(values), from_codes)
