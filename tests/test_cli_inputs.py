"""The main job on awkward but ordinary files: columns found by name in
every format, new files read the way the training file was read, no partial
outputs, and errors that name the user's argument. Each test here failed
before the fix it guards (issue 24)."""

import decimal
import json
import os

import numpy as np
import pytest
from csv_exact import read_csv_exact
from sparseboost import SparseBoostRegressor
from sparseboost.cli import main
from sparseboost.persistence import load_input_encoding, load_model

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")
pytest.importorskip("pyarrow")

QUIET = ["--quiet", "--random-state", "0"]


def regression_frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"c{j}": rng.normal(size=n) for j in range(4)})
    frame["y"] = 2 * frame["c0"] + frame["c1"] + rng.normal(0, 0.1, n)
    return frame


def select(tmp_path, data, *extra, out="out"):
    out = tmp_path / out
    code = main(["select", str(data), "--out", str(out), *extra, *QUIET])
    return code, out


def predict(model, data, out):
    return main(["predict", str(model), str(data), "--out", str(out)])


def predictions(path):
    return read_csv_exact(pd, path)["prediction"].to_numpy()


def last_error(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("sparseboost: error: "), err
    return err[-1]


# -- columns by name -----------------------------------------------------------


def test_npz_predict_takes_columns_by_feature_names(tmp_path):
    frame = regression_frame()
    names = ["c0", "c1", "c2", "c3"]
    np.savez(
        tmp_path / "a.npz",
        X=frame[names].to_numpy(),
        y=frame["y"].to_numpy(),
        feature_names=np.array(names),
    )
    code, out = select(tmp_path, tmp_path / "a.npz")
    assert code == 0
    reordered = ["c3", "extra", "c1", "c0", "c2"]
    shuffled = frame.assign(extra=1.0)[reordered].to_numpy()
    np.savez(tmp_path / "b.npz", X=shuffled, feature_names=np.array(reordered))
    assert predict(out / "model.json", tmp_path / "a.npz", tmp_path / "pa.csv") == 0
    assert predict(out / "model.json", tmp_path / "b.npz", tmp_path / "pb.csv") == 0
    np.testing.assert_array_equal(
        predictions(tmp_path / "pa.csv"), predictions(tmp_path / "pb.csv")
    )


def test_npz_predict_without_a_model_column_is_refused(tmp_path, capsys):
    frame = regression_frame()
    names = ["c0", "c1", "c2", "c3"]
    np.savez(
        tmp_path / "a.npz",
        X=frame[names].to_numpy(),
        y=frame["y"].to_numpy(),
        feature_names=np.array(names),
    )
    assert select(tmp_path, tmp_path / "a.npz")[0] == 0
    np.savez(
        tmp_path / "b.npz",
        X=frame[names].to_numpy(),
        feature_names=np.array(["c0", "c1", "c2", "other"]),
    )
    assert predict(tmp_path / "out" / "model.json", tmp_path / "b.npz", tmp_path / "p.csv") == 2
    assert "lack the model's column(s) ['c3']" in last_error(capsys)


def test_predict_refuses_a_repeated_model_column(tmp_path, capsys):
    frame = regression_frame()
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    text = frame.drop(columns="y").assign(first=0.0)[["first", "c0", "c1", "c2", "c3"]]
    (tmp_path / "dup.csv").write_text(text.to_csv(index=False).replace("first", "c0", 1))
    assert predict(out / "model.json", tmp_path / "dup.csv", tmp_path / "p.csv") == 2
    assert "'c0' appears 2 times" in last_error(capsys)
    # a repeated column the model does not take is no ambiguity
    (tmp_path / "ok.csv").write_text(
        frame.assign(z=1.0, w=2.0).to_csv(index=False).replace(",w", ",z")
    )
    assert predict(out / "model.json", tmp_path / "ok.csv", tmp_path / "p.csv") == 0


@pytest.mark.parametrize(
    "header, expected",
    [
        ("c0,c1,c2,c0,y", "'c0' appears 2 times (columns 1, 4)"),
        ("c0,c1,c2,y,y", "'y' appears 2 times"),  # the target would leak as y.1
        ("c0,c1,c2,,y", "column 4 (of 5) has no name"),
        # the one-line error keeps the spaces inside a name
        ("c0,a  b,c2,a  b,y", "'a  b' appears 2 times"),
    ],
)
def test_training_names_must_be_distinct_and_present(tmp_path, capsys, header, expected):
    frame = regression_frame()
    body = frame.to_csv(index=False, header=False)
    (tmp_path / "t.csv").write_text(header + "\n" + body)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 2
    assert expected in last_error(capsys)
    assert not out.exists()


@pytest.mark.parametrize("start", [0, 1])
def test_an_unnamed_first_column_of_row_numbers_is_a_written_index_left_out(tmp_path, start):
    # pandas' to_csv writes its index under an empty name (0, 1, ...), R's
    # write.csv its row names under "" (1, 2, ...): not a feature. The rows
    # are sorted by the target, so a kept index would be selected.
    frame = regression_frame().sort_values("y").reset_index(drop=True)
    frame.index += start
    text = frame.to_csv()
    if start:
        text = '""' + text
    (tmp_path / "t.csv").write_text(text)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["data_shape"]["columns"] == 4
    assert set(metrics["selected_features"]) <= {"c0", "c1", "c2", "c3"}
    assert any("row numbers" in note for note in metrics["notes"])
    assert "Notes on the input" in (out / "report.html").read_text()
    # predict reads the same file (the index column is not the model's)
    assert predict(out / "model.json", tmp_path / "t.csv", tmp_path / "p.csv") == 0


def test_an_unnamed_first_column_of_other_numbers_is_still_an_error(tmp_path, capsys):
    frame = regression_frame()
    frame.index = frame.index + 2  # not 0.. or 1..: not an index to drop unseen
    (tmp_path / "t.csv").write_text(frame.to_csv())
    assert select(tmp_path, tmp_path / "t.csv", "--target", "y")[0] == 2
    assert "column 1 (of 6) has no name" in last_error(capsys)


def test_parquet_with_a_repeated_name_is_refused(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table([pa.array([1.0, 2.0] * 20)] * 3, names=["a", "a", "y"])
    pq.write_table(table, tmp_path / "t.parquet")
    assert select(tmp_path, tmp_path / "t.parquet", "--target", "y")[0] == 2
    assert "'a' appears 2 times" in last_error(capsys)


def test_parquet_index_is_not_a_column(tmp_path):
    frame = regression_frame()
    frame.index = frame.index * 7 + 3  # a stored, non-default index
    frame.to_parquet(tmp_path / "t.parquet")
    code, out = select(tmp_path, tmp_path / "t.parquet", "--target", "y")
    assert code == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["data_shape"]["columns"] == 4


# -- svmlight index base -------------------------------------------------------


def test_svmlight_predict_keeps_the_training_files_index_base(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(1)
    n = 400
    X = rng.random((n, 5)) * (rng.random((n, 5)) < 0.7)
    X[:, 0] = rng.random(n) + 0.1  # feature 0 always present in training
    y = 3 * X[:, 0] + X[:, 2]
    dump_svmlight_file(X, y, str(tmp_path / "train.svm"), zero_based=True)
    # (no budget: the model takes every column, which this test reads back)
    code, out = select(tmp_path, tmp_path / "train.svm", "--n-features", "none")
    assert code == 0
    model, encoding = load_input_encoding(str(out / "model.json"))
    assert encoding.svmlight_zero_based is True
    assert encoding.feature_names == ["x0", "x1", "x2", "x3", "x4"]
    # New rows that happen to lack feature 0: a per-file guess would read
    # them as one-based and shift every feature.
    new = X[:50].copy()
    new[:, 0] = 0.0
    dump_svmlight_file(new, np.zeros(50), str(tmp_path / "new.svm"), zero_based=True)
    assert predict(out / "model.json", tmp_path / "new.svm", tmp_path / "p.csv") == 0
    np.testing.assert_array_equal(predictions(tmp_path / "p.csv"), model.predict(new))


def test_one_based_svmlight_names_the_files_indices(tmp_path, capsys):
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(2)
    X = rng.random((300, 4))
    y = 4 * X[:, 1] + rng.normal(0, 0.05, 300)
    dump_svmlight_file(X, y, str(tmp_path / "train.svm"), zero_based=False)
    # (no budget: the model takes every column, which this test reads back)
    code, out = select(tmp_path, tmp_path / "train.svm", "--n-features", "none")
    assert code == 0
    model, encoding = load_input_encoding(str(out / "model.json"))
    assert encoding.svmlight_zero_based is False
    # file index 2 holds X[:, 1], the signal
    assert (out / "selected_features.txt").read_text().split()[0] == "x2"
    assert predict(out / "model.json", tmp_path / "train.svm", tmp_path / "p.csv") == 0
    np.testing.assert_array_equal(predictions(tmp_path / "p.csv"), model.predict(X))
    # A wider file: the error counts columns as the model names them.
    dump_svmlight_file(np.hstack([X, X]), y, str(tmp_path / "wide.svm"), zero_based=False)
    assert predict(out / "model.json", tmp_path / "wide.svm", tmp_path / "w.csv") == 2
    assert "has columns up to x8, but the model's training file had 4 (x1 to x4)" in (
        capsys.readouterr().err
    )


# -- what a cell means ---------------------------------------------------------


def test_number_like_categories_match_whatever_pandas_guesses(tmp_path):
    rng = np.random.default_rng(3)
    n = 600
    code = rng.choice(["1", "2", "x"], n)
    frame = pd.DataFrame({"code": code, "u": rng.random(n)})
    frame["y"] = np.where(code == "2", 5.0, 0.0) + rng.normal(0, 0.1, n)
    frame.to_csv(tmp_path / "t.csv", index=False)
    code_, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code_ == 0
    # the new file has only numeric codes and a missing one: pandas reads
    # the column as float (2.0)
    new = pd.DataFrame({"code": [2, 1, None, 2], "u": [0.5] * 4})
    new.to_csv(tmp_path / "new.csv", index=False)
    assert pd.read_csv(tmp_path / "new.csv")["code"].dtype == float
    assert predict(out / "model.json", tmp_path / "new.csv", tmp_path / "p.csv") == 0
    same = pd.DataFrame({"code": ["2", "1", "x", "2"], "u": [0.5] * 4})
    same.to_csv(tmp_path / "same.csv", index=False)
    assert predict(out / "model.json", tmp_path / "same.csv", tmp_path / "q.csv") == 0
    got, strings = predictions(tmp_path / "p.csv"), predictions(tmp_path / "q.csv")
    assert got[0] == strings[0] == got[3] and got[1] == strings[1]
    assert got[0] > 4  # '2' was recognised as the category 2


def test_numbers_stored_as_objects_are_numbers(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(4)
    n = 400
    amounts = [decimal.Decimal(f"{v:.2f}") for v in rng.uniform(0, 1000, n)]
    big = [10**25 + int(v) for v in rng.integers(0, 10**6, n)]
    y = np.array([float(a) for a in amounts]) / 100 + rng.normal(0, 0.01, n)
    table = pa.table(
        {
            "amount": pa.array(amounts, pa.decimal128(8, 2)),
            "big": pa.array([str(b) for b in big]),  # numbers as text
            "y": y,
        }
    )
    pq.write_table(table, tmp_path / "t.parquet")
    code, out = (
        main(
            [
                "select",
                str(tmp_path / "t.parquet"),
                "--target",
                "y",
                "--out",
                str(tmp_path / "out"),
                "--random-state",
                "0",
            ]
        ),
        tmp_path / "out",
    )
    assert code == 0
    _, encoding = load_input_encoding(str(out / "model.json"))
    assert [c.categories for c in encoding.columns] == [None, None]
    assert (out / "selected_features.txt").read_text().split()[0] == "amount"
    notes = json.loads((out / "metrics.json").read_text())["notes"]
    assert len(notes) == 1 and "'big'" in notes[0] and "float64" in notes[0]
    assert "note: column 'big'" in capsys.readouterr().err
    # CSV integers beyond 64 bits (pandas keeps them as Python ints)
    frame = pd.DataFrame({"amount": [float(a) for a in amounts], "y": y})
    text = frame.assign(big=[str(b) for b in big]).to_csv(index=False)
    (tmp_path / "t.csv").write_text(text)
    assert pd.read_csv(tmp_path / "t.csv")["big"].dtype == object
    assert (
        main(
            [
                "select",
                str(tmp_path / "t.csv"),
                "--target",
                "y",
                "--out",
                str(tmp_path / "out2"),
                *QUIET,
            ]
        )
        == 0
    )
    _, encoding = load_input_encoding(str(tmp_path / "out2" / "model.json"))
    assert [c.categories for c in encoding.columns] == [None, None]


def test_a_non_number_in_a_numeric_column_is_named(tmp_path, capsys):
    frame = regression_frame()
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    bad = frame.astype(object)
    bad.loc[3, "c1"] = "abc"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert predict(out / "model.json", tmp_path / "bad.csv", tmp_path / "p.csv") == 2
    assert "column 'c1' must be numeric, got 'abc'" in last_error(capsys)


# -- no partial outputs, early checks ------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_file_without_rows_is_a_clear_error(tmp_path, capsys, fmt):
    empty = regression_frame().iloc[:0]
    path = tmp_path / f"e.{fmt}"
    empty.to_csv(path, index=False) if fmt == "csv" else empty.to_parquet(path)
    code, out = select(tmp_path, path, "--target", "y")
    assert code == 2
    assert "has no rows" in last_error(capsys)
    assert not out.exists()


@pytest.mark.parametrize(
    "rows, extra, expected",
    [
        (4, [], "holds out 1 for the test"),  # R² needs 2 test rows
        (3, ["--test-size", "0.5"], "leaves 1 for training"),
        (5, ["--test-size", "0.9"], "leaves 0 for training"),
    ],
)
def test_parts_too_small_fail_before_any_output(tmp_path, capsys, rows, extra, expected):
    out = tmp_path / "out"
    out.mkdir()
    (out / "model.json").write_text("earlier run")
    (out / "mine.txt").write_text("the user's")
    regression_frame(rows).to_csv(tmp_path / "t.csv", index=False)
    code, _ = select(tmp_path, tmp_path / "t.csv", "--target", "y", *extra)
    assert code == 2
    assert expected in last_error(capsys)
    assert sorted(os.listdir(out)) == ["mine.txt", "model.json"]
    assert (out / "model.json").read_text() == "earlier run"


def test_a_failure_after_the_fit_leaves_the_earlier_outputs(tmp_path, monkeypatch, capsys):
    from sparseboost.cli import report

    regression_frame().to_csv(tmp_path / "t.csv", index=False)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    before = {name: (out / name).read_bytes() for name in os.listdir(out)}

    def broken(*args, **kwargs):
        raise ValueError("the report broke")

    monkeypatch.setattr(report, "write_report", broken)
    assert select(tmp_path, tmp_path / "t.csv", "--target", "y", "--test-size", "0.3")[0] == 2
    assert "the report broke" in last_error(capsys)
    assert {name: (out / name).read_bytes() for name in os.listdir(out)} == before
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".sparseboost-out")]


def test_a_fresh_out_folder_appears_only_on_success(tmp_path):
    regression_frame().to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "a" / "b" / "out"
    assert main(["select", str(tmp_path / "t.csv"), "--target", "nope", "--out", str(out)]) == 2
    assert not (tmp_path / "a").exists()
    assert (
        main(["select", str(tmp_path / "t.csv"), "--target", "y", "--out", str(out), *QUIET]) == 0
    )
    assert sorted(os.listdir(out))[:2] == ["correlation.png", "importance.png"]
    assert (out / "metrics.json").exists()


def test_an_undefined_metric_is_null_not_a_broken_json(tmp_path, monkeypatch):
    # metrics.json is written with allow_nan=False: a NaN metric used to
    # fail there after the model and report were written.
    from sparseboost.cli import scoring

    real = scoring._metrics

    def with_nan(*args):
        return {**real(*args), "r2": float("nan")}

    monkeypatch.setattr(scoring, "_metrics", with_nan)
    regression_frame().to_csv(tmp_path / "t.csv", index=False)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["test_metrics"]["r2"] is None
    assert metrics["test_metrics"]["rmse"] > 0


@pytest.mark.parametrize("seed, code", [("4294967295", 0), ("4294967296", 2), ("-1", 2)])
def test_random_state_range_is_checked_before_reading(tmp_path, capsys, seed, code):
    regression_frame().to_csv(tmp_path / "t.csv", index=False)
    argv = [
        "select",
        str(tmp_path / "t.csv"),
        "--target",
        "y",
        "--quiet",
        "--out",
        str(tmp_path / "out"),
        "--random-state",
        seed,
    ]
    assert main(argv) == code
    if code:
        line = last_error(capsys)
        assert "--random-state" in line and "train_test_split" not in line


# -- errors that name the argument ---------------------------------------------


@pytest.mark.parametrize("estimator", ["regression", "ranking"])
def test_validation_fraction_too_large_is_named(estimator):
    from sparseboost import SparseBoostRanker

    X = np.random.default_rng(0).random((6, 2))
    y = np.arange(6) % 2
    if estimator == "regression":
        model = SparseBoostRegressor(early_stopping_rounds=2, validation_fraction=0.9)
        fit = lambda: model.fit(X, y)  # noqa: E731
        units = "of 6 rows holds out 6"
    else:
        model = SparseBoostRanker(early_stopping_rounds=2, validation_fraction=0.5)
        fit = lambda: model.fit(X, y, group=[6])  # noqa: E731
        units = "of 1 queries"
    with pytest.raises(ValueError, match="validation_fraction") as error:
        fit()
    assert units in str(error.value)


def test_input_encoding_task_must_match_the_estimator(tmp_path):
    frame = regression_frame()
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    document = json.loads((out / "model.json").read_text())
    document["input_encoding"]["task"] = "classification"
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(
        ValueError,
        match=r"input_encoding.task is 'classification'.*"
        r"SparseBoostClassifier.*SparseBoostRegressor",
    ):
        load_model(tmp_path / "bad.json")
    assert predict(tmp_path / "bad.json", tmp_path / "t.csv", tmp_path / "p.csv") == 2


def test_old_non_canonical_categories_still_match(tmp_path):
    # A file written before categories were canonical may hold '2.0'.
    rng = np.random.default_rng(6)
    n = 300
    frame = pd.DataFrame({"k": rng.choice(["1", "2", "x"], n), "u": rng.random(n)})
    frame["y"] = (frame["k"] == "2") * 3.0 + rng.normal(0, 0.1, n)
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, out = select(tmp_path, tmp_path / "t.csv", "--target", "y")
    assert code == 0
    document = json.loads((out / "model.json").read_text())
    column = document["input_encoding"]["columns"][0]
    assert column["categories"] == ["1", "2", "x"]
    assert predict(out / "model.json", tmp_path / "t.csv", tmp_path / "p.csv") == 0
    column["categories"] = ["1.0", "2.0", "x"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    assert predict(tmp_path / "old.json", tmp_path / "t.csv", tmp_path / "q.csv") == 0
    np.testing.assert_array_equal(predictions(tmp_path / "p.csv"), predictions(tmp_path / "q.csv"))
    column["categories"] = ["1", "1.0", "x"]
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(ValueError, match=r"columns\[0\].categories must be distinct"):
        load_model(tmp_path / "bad.json")
