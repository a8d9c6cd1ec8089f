"""save_model/load_model and pickle give back identical predictions."""

import json
import os
import pickle
import stat

import numpy as np
import pytest
import sparseboost
from sparseboost import SparseBoostClassifier, SparseBoostRegressor


@pytest.fixture(params=["regressor", "classifier"])
def fitted(request, synthetic_regression):
    X, y, X_test, _ = synthetic_regression
    X = X.copy()
    X[::5, 3] = np.nan
    if request.param == "regressor":
        model = SparseBoostRegressor(n_estimators=20, random_state=0).fit(X, y)
    else:
        labels = np.where(y > np.median(y), "high", "low")
        model = SparseBoostClassifier(n_estimators=20, random_state=0).fit(X, labels)
    return model, X_test


def outputs(model, X):
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    return model.predict(X)


def test_save_and_load_give_identical_predictions(fitted, tmp_path):
    model, X_test = fitted
    path = tmp_path / "model.json"
    model.save_model(path)
    loaded = sparseboost.load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(outputs(loaded, X_test), outputs(model, X_test))
    np.testing.assert_array_equal(loaded.predict(X_test), model.predict(X_test))
    np.testing.assert_array_equal(loaded.feature_importances_, model.feature_importances_)
    document = json.loads(path.read_text())
    assert (
        document["format"] == "sparseboost" and document["model"]["format"] == "sparseboost-model"
    )


def test_pickle_gives_identical_predictions(fitted):
    model, X_test = fitted
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(outputs(clone, X_test), outputs(model, X_test))
    engine = pickle.loads(pickle.dumps(model._model))
    assert engine.to_json() == model._model.to_json()


def test_feature_names_survive_a_save(tmp_path, synthetic_regression):
    pd = pytest.importorskip("pandas")
    X, y, _, _ = synthetic_regression
    frame = pd.DataFrame(X, columns=[f"col{j}" for j in range(X.shape[1])])
    model = SparseBoostRegressor(n_estimators=5).fit(frame, y)
    model.save_model(tmp_path / "m.json")
    loaded = sparseboost.load_model(tmp_path / "m.json")
    assert list(loaded.feature_names_in_) == list(model.feature_names_in_)


def test_unfitted_or_foreign_files_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="fitted"):
        SparseBoostRegressor().save_model(tmp_path / "x.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "lightgbm"}))
    with pytest.raises(ValueError, match="not a sparseboost model"):
        sparseboost.load_model(bad)


@pytest.mark.parametrize(
    "key, value",
    [
        ("best_iteration_", float("-inf")),
        ("best_iteration_", -1),
        ("best_iteration_", 2.5),
        ("best_iteration_", True),
        ("best_iteration_", 3),
        ("best_iteration_", 10**30),
        ("best_score_", float("nan")),
        ("best_score_", "0.3"),
        ("best_score_", 10**400),
    ],
)
def test_bad_best_iteration_fields_are_named(tmp_path, synthetic_regression, key, value):
    # Found by the long hypothesis profile: best_iteration_ = -inf raised
    # OverflowError instead of a ValueError naming the field.
    X, y, _, _ = synthetic_regression
    model = SparseBoostRegressor(n_estimators=3).fit(X, y, eval_set=[(X, y)])
    path = tmp_path / "model.json"
    model.save_model(path)
    document = json.loads(path.read_text())
    assert document["fitted"]["best_iteration_"] == 2
    document["fitted"][key] = value
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=f"fitted.{key}"):
        sparseboost.load_model(path)


def test_a_regressor_file_with_several_outputs_is_named(tmp_path, synthetic_regression):
    # Squared error may have several outputs in the engine (a forest's class
    # indicators); a regressor file must still have one.
    X, y, _, _ = synthetic_regression
    path = tmp_path / "model.json"
    SparseBoostRegressor(n_estimators=3).fit(X, y).save_model(path)
    document = json.loads(path.read_text())
    document["model"]["n_outputs"] = 2
    document["model"]["base_score"] = [0.0, 0.0]
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="n_outputs"):
        sparseboost.load_model(path)


def test_version_1_model_files_still_load(synthetic_regression):
    # A version 1 engine model: one output, base_score a number, trees
    # without "output".
    X, y, X_test, _ = synthetic_regression
    model = SparseBoostRegressor(n_estimators=5, random_state=0).fit(X, y)
    document = json.loads(model._model.to_json())
    assert document["version"] == 3 and document["n_outputs"] == 1
    document["version"] = 1
    document["base_score"] = document["base_score"][0]
    del document["n_outputs"]
    for tree in document["trees"]:
        del tree["output"]
        del tree["round"]
    old = sparseboost._core.Model.from_json(json.dumps(document))
    assert np.array_equal(old.predict_raw(X_test, 1), model._model.predict_raw(X_test, 1))
    # A version 1 file cannot claim several outputs.
    document["trees"][0]["output"] = 1
    with pytest.raises(ValueError, match=r"trees\[0\].output"):
        sparseboost._core.Model.from_json(json.dumps(document))


def test_trees_record_their_rounds_and_version_2_files_still_load():
    # Softmax's class trees of a round need not cover every class, so the
    # rounds are recorded, not inferred from the outputs.
    rng = np.random.default_rng(0)
    X = rng.random((600, 4))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [0.4, 0.8])
    model = SparseBoostClassifier(n_estimators=6, random_state=0).fit(X, y)
    document = json.loads(model._model.to_json())
    rounds = [(t["round"], t["output"]) for t in document["trees"]]
    assert rounds == sorted(rounds) and rounds[0] == (0, 0) and rounds[-1][0] == 5
    # A file written before rounds were recorded (version 2) still loads.
    for tree in document["trees"]:
        del tree["round"]
    document["version"] = 2
    old = sparseboost._core.Model.from_json(json.dumps(document))
    np.testing.assert_array_equal(old.predict_raw(X, 1), model._model.predict_raw(X, 1))
    # Rounds must never decrease, and a round's outputs increase.
    document = json.loads(model._model.to_json())
    document["trees"][1]["round"] = 0
    document["trees"][1]["output"] = 0
    with pytest.raises(
        ValueError, match=r"trees\[1\] \(round 0, output 0\) must follow trees\[0\]"
    ):
        sparseboost._core.Model.from_json(json.dumps(document))
    document = json.loads(model._model.to_json())
    del document["trees"][2]["round"]
    with pytest.raises(ValueError, match="every tree must have a round, or none"):
        sparseboost._core.Model.from_json(json.dumps(document))


@pytest.mark.parametrize(
    "labels, classes, dtype",
    [
        (np.array(["no", "yes"]), ["no", "yes"], "<U1"),  # truncated to n/y
        (np.array([0, 1]), [0.5, 1.7], "<i8"),  # fractions cut
        (np.array([0, 1]), [0, 7], "|b1"),  # 7 read as True
        (np.array([0, 1]), [0, 1], "|b1"),  # ints read as bools
        (np.array([1.0, 2.0]), [1.0, float("nan")], "<f8"),
    ],
)
def test_labels_a_dtype_would_change_are_refused(tmp_path, labels, classes, dtype):
    # A model file is untrusted: labels its declared dtype cannot hold
    # loaded as other labels, and the model predicted those.
    rng = np.random.default_rng(0)
    X = rng.random((200, 3))
    y = labels[(X[:, 0] > 0.5).astype(int)]
    path = tmp_path / "model.json"
    SparseBoostClassifier(n_estimators=3).fit(X, y).save_model(path)
    assert sparseboost.load_model(path).classes_.tolist() == labels.tolist()
    document = json.loads(path.read_text())
    document["fitted"]["classes_"], document["fitted"]["classes_dtype"] = classes, dtype
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="fitted.classes_"):
        sparseboost.load_model(path)


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c.update(dtype="<U2"),  # oslo, lima, rome -> os, li, ro
        lambda c: c.update(values=c["values"][:-1] + [float("nan")], dtype="<f8"),
        lambda c: c.update(values=[0.5, 1.5, 2.5], dtype="<i8"),
    ],
    ids=["truncated", "nan", "cut"],
)
def test_categories_a_dtype_would_change_are_refused(tmp_path, edit):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    city = np.array(["oslo", "lima", "rome"])[rng.integers(0, 3, 300)]
    X = pd.DataFrame({"city": city, "u": rng.random(300)})
    y = (city == "lima") + 0.1 * rng.random(300)
    path = tmp_path / "model.json"
    SparseBoostRegressor(n_estimators=5, penalty="none").fit(X, y).save_model(path)
    document = json.loads(path.read_text())
    edit(document["fitted"]["categorical"]["categories"][0])
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="fitted.categorical"):
        sparseboost.load_model(path)


def test_duplicate_feature_names_in_a_file_are_named(tmp_path):
    # fit refuses duplicate column names; a file that has them loaded, and
    # the model then refused its own training frame as "unseen" columns.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.random((100, 3)), columns=["a", "b", "c"])
    path = tmp_path / "model.json"
    SparseBoostRegressor(n_estimators=3).fit(X, X["a"]).save_model(path)
    document = json.loads(path.read_text())
    document["fitted"]["feature_names_in_"] = ["a", "a", "c"]
    path.write_text(json.dumps(document))
    with pytest.raises(
        ValueError, match=r"fitted.feature_names_in_ names a column more than once: \['a'\]"
    ):
        sparseboost.load_model(path)


def test_more_category_codes_than_max_bins_says_so(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    city = np.array(["oslo", "lima", "rome", "kyiv"])[rng.integers(0, 4, 300)]
    X = pd.DataFrame({"u": rng.random(300), "city": city})
    path = tmp_path / "model.json"
    SparseBoostRegressor(n_estimators=3, penalty="none").fit(X, X["u"]).save_model(path)
    document = json.loads(path.read_text())
    document["params"]["max_bins"] = 2
    path.write_text(json.dumps(document))
    with pytest.raises(
        ValueError, match="feature 1 4 category codes, more than params.max_bins = 2"
    ):
        sparseboost.load_model(path)


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_a_saved_file_has_the_mode_a_plain_write_gives(tmp_path, synthetic_regression):
    # Written through a private temporary file: the model was 0600 whatever
    # the umask, and saving over a 0644 file made it 0600.
    X, y, _, _ = synthetic_regression
    model = SparseBoostRegressor(n_estimators=2).fit(X, y)
    old = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.json"
        model.save_model(fresh)
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
        kept = tmp_path / "kept.json"
        kept.write_text("{}")
        kept.chmod(0o604)
        model.save_model(kept)
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604
    finally:
        os.umask(old)
