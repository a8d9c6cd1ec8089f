"""``sparseboost select`` on tables as they come: a string column of
thousands of values as one categorical feature, rows without a target,
identifier and constant columns, dates, ``--drop``, ``--categorical``,
``--costs`` and ``--n-jobs``; and model files written before categories
were native."""

import json

import numpy as np
import pytest
from csv_exact import read_csv_exact
from sparseboost import SparseBoostClassifier, SparseBoostRegressor
from sparseboost.cli import main
from sparseboost.persistence import save_model

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

FAST = ["--quiet", "--random-state", "0"]


def messy(n=3000, seed=0):
    """An id per row, a title of ~2500 values, a city with missing values
    that matters, a date, a constant, a number that matters, and a target
    missing in every 40th row."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": [f"order-{i:05d}" for i in range(n)],
            "title": rng.choice([f"title {i}" for i in range(2500)], n),
            "city": rng.choice(["oslo", "lima", "paris", "rome", None], n),
            "day": pd.Series(pd.date_range("2023-01-01", periods=n, freq="6h")).astype(str),
            "constant": "same",
            "amount": rng.random(n),
        }
    )
    frame["y"] = 2.0 * (frame["city"] == "oslo") + frame["amount"] + 0.1 * rng.random(n)
    frame.loc[::40, "y"] = np.nan
    return frame


def select(tmp_path, frame, *extra):
    frame.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    argv = ["select", str(tmp_path / "data.csv"), "--target", "y", "--out", str(out), *extra]
    code = main(argv + FAST)
    return code, out


def test_a_messy_table_runs_unedited(tmp_path, capsys):
    # "$" twice in a name: matplotlib would read a formula in the report.
    frame = messy().rename(columns={"amount": "amount_$_per_$_unit"})
    code, out = select(tmp_path, frame, "--n-jobs", "2")
    assert code == 0, capsys.readouterr().err
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["data_shape"]["rows_without_target"] == 75
    assert metrics["data_shape"]["rows"] == 3000
    notes = " ".join(metrics["notes"])
    assert "'id' holds a different value in every row" in notes
    assert "'constant' holds one value" in notes
    assert "'day' holds dates" in notes
    selected = (out / "selected_features.txt").read_text().split()
    assert set(selected[:2]) == {"city", "amount_$_per_$_unit"}
    assert metrics["test_metrics"]["r2"] > 0.95
    document = json.loads((out / "model.json").read_text())
    columns = {c["name"]: c for c in document["input_encoding"]["columns"]}
    assert set(columns) == {"title", "city", "day", "amount_$_per_$_unit"}
    assert len(columns["title"]["categories"]) > 1500
    assert columns["day"].get("date") is True
    assert document["input_encoding"]["native_categories"] is True
    report = (out / "report.html").read_text()
    assert "city" in report and "city=" not in report
    # predict applies the stored encoding: unseen and missing categories,
    # a cell that is no date.
    new = frame.drop(columns="y").iloc[:30].copy()
    new.loc[0, "city"] = "tokyo"
    new.loc[1, "title"] = "a title never seen"
    new.loc[2, "day"] = "not a date"
    new.to_csv(tmp_path / "new.csv", index=False)
    predictions = tmp_path / "p.csv"
    argv = ["predict", str(out / "model.json"), str(tmp_path / "new.csv"), "--out"]
    assert main(argv + [str(predictions)]) == 0
    got = read_csv_exact(pd, predictions)["prediction"].to_numpy()
    assert np.isfinite(got).all() and len(got) == 30
    # Oslo's rows predict about 2 more than the others.
    oslo = (new["city"] == "oslo").to_numpy()
    assert got[oslo].mean() - got[~oslo].mean() > 1.5


def test_drop_categorical_costs_and_their_errors(tmp_path, capsys):
    frame = messy(n=1500, seed=1)
    frame["zone"] = np.random.default_rng(2).integers(0, 30, len(frame))
    costs = tmp_path / "costs.csv"
    pd.DataFrame({"column": ["city", "amount"], "cost": [1e9, 0.0]}).to_csv(costs, index=False)
    code, out = select(
        tmp_path,
        frame,
        "--drop",
        "title,id",
        "--categorical",
        "zone",
        "--costs",
        str(costs),
        "--method",
        "gbfs",
        "--mu",
        "0.01",
    )
    assert code == 0, capsys.readouterr().err
    document = json.loads((out / "model.json").read_text())
    columns = {c["name"]: c for c in document["input_encoding"]["columns"]}
    assert "title" not in columns and "id" not in columns
    assert columns["zone"]["categories"] is not None  # integers read as categories
    selected = (out / "selected_features.txt").read_text().split()
    assert "city" not in selected, "city costs too much to pay for"
    assert selected[0] == "amount"
    for extra, message in [
        (["--drop", "nowhere"], "--drop names no column"),
        (["--categorical", "city,nowhere"], "--categorical names no column"),
        (["--costs", str(tmp_path / "missing.csv")], "--costs"),
    ]:
        code, _ = select(tmp_path, frame, *extra)
        assert code == 2
        assert message in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("column,cost\ncity,-1\n")
    assert select(tmp_path, frame, "--costs", str(bad))[0] == 2
    assert "must be a number >= 0" in capsys.readouterr().err
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("nowhere,1\n")
    assert select(tmp_path, frame, "--costs", str(unknown))[0] == 2
    assert "no feature column" in capsys.readouterr().err
    twice = tmp_path / "twice.csv"
    twice.write_text("city,0\namount,1\ncity,5\n")
    assert select(tmp_path, frame, "--costs", str(twice))[0] == 2
    assert "lists 'city' twice" in capsys.readouterr().err
    # Without a header, a first row that names a column is data: its bad
    # cost is an error (it was taken for a header, and the column cost 0).
    comma = tmp_path / "comma.csv"
    comma.write_text('city,"1,5"\namount,0\n')
    assert select(tmp_path, frame, "--costs", str(comma))[0] == 2
    assert "the cost of 'city' is not a number: '1,5'" in capsys.readouterr().err


def test_a_target_missing_everywhere_is_a_clear_error(tmp_path, capsys):
    frame = messy(n=200)
    frame["y"] = np.nan
    assert select(tmp_path, frame)[0] == 2
    assert "the target is missing in every row" in capsys.readouterr().err


def test_a_true_false_target_with_empty_cells_is_two_classes(tmp_path):
    # Its cells were objects (True, False, NaN): once the rows without a
    # target were gone, scikit-learn called them labels of unknown type.
    rng = np.random.default_rng(4)
    x = rng.normal(size=400)
    label = np.where(x + 0.5 * rng.normal(size=400) > 0, "TRUE", "FALSE").astype(object)
    label[::17] = ""
    frame = pd.DataFrame({"x1": x, "x2": rng.normal(size=400), "y": label})
    code, out = select(tmp_path, frame, "--n-features", "2")
    assert code == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["task"] == "classification"
    assert metrics["data_shape"]["rows_without_target"] == 24
    assert metrics["test_metrics"]["auc"] > 0.8


def test_model_files_with_one_hot_categories_still_predict(tmp_path):
    """A file written before categories were native: one 0/1 indicator per
    training category (``native_categories`` absent)."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"u": rng.random(400), "city": rng.choice(["a", "b"], 400)})
    y = np.where((frame["city"] == "a") & (frame["u"] > 0.3), "yes", "no")
    onehot = np.column_stack([frame["u"], frame["city"] == "a", frame["city"] == "b"]).astype(float)
    model = SparseBoostClassifier(n_estimators=10, random_state=0).fit(onehot, y)
    encoding = {
        "task": "classification",
        "target": "y",
        "group": None,
        "columns": [{"name": "u", "categories": None}, {"name": "city", "categories": ["a", "b"]}],
        "feature_names": None,
        "model_columns": None,
        "svmlight_zero_based": None,
    }
    save_model(model, tmp_path / "old.json", input_encoding=encoding)
    frame.to_csv(tmp_path / "new.csv", index=False)
    out = tmp_path / "p.csv"
    assert (
        main(["predict", str(tmp_path / "old.json"), str(tmp_path / "new.csv"), "--out", str(out)])
        == 0
    )
    got = read_csv_exact(pd, out)
    expected = model.predict_proba(onehot)
    np.testing.assert_array_equal(got[[f"proba_{c}" for c in model.classes_]].to_numpy(), expected)


def encode(frame):
    from sparseboost.cli.encoding import Encoding

    features = frame.drop(columns="y", errors="ignore")
    encoding = Encoding.fit(features, task="regression", target="y", group=None)
    return encoding, encoding.transform(features)


def test_dates_in_every_spelling_give_their_own_year_month_and_day(tmp_path):
    import datetime

    from sparseboost.cli import readers

    days = [datetime.date(2024, 1, 1) + datetime.timedelta(days=int(k)) for k in range(0, 360, 7)]
    want = np.array([[d.year, d.month, d.day, d.weekday()] for d in days], dtype=float)
    n = len(days)
    spellings = {
        # pyarrow reads a Parquet DATE as Python dates (see below).
        "python dates": days,
        # A time on some cells only: pandas 2 would take one format from
        # the first cell and lose the others.
        "some with a time": [
            d.isoformat() + (" 13:45" if k % 2 == 0 else "") for k, d in enumerate(days)
        ],
        # Offsets that change with daylight saving: the date as written.
        "offsets across DST": [
            f"{d.isoformat()}T00:30:00{'+02:00' if 4 <= d.month <= 10 else '+01:00'}" for d in days
        ],
        "zulu": [f"{d.isoformat()}T23:59:59.5Z" for d in days],
        # PostgreSQL's timestamptz: hour-only offsets ("Mixed timezones").
        "hour offsets": [
            f"{d.isoformat()} 10:00:00{'+02' if 4 <= d.month <= 10 else '+01'}" for d in days
        ],
    }
    for name, cells in spellings.items():
        frame = pd.DataFrame({"when": cells, "y": np.arange(n, dtype=float)})
        encoding, X = encode(frame)
        assert encoding.columns[0].date, name
        np.testing.assert_array_equal(X, want, err_msg=name)
        assert len(encoding.notes) == 1, (name, encoding.notes)
    # The same dates as a Parquet DATE column, through the reader.
    frame = pd.DataFrame({"when": days, "y": np.arange(n, dtype=float)})
    frame.to_parquet(tmp_path / "dates.parquet")
    encoding, X = encode(readers.read(str(tmp_path / "dates.parquet"), target="y").frame)
    assert encoding.columns[0].date
    np.testing.assert_array_equal(X, want)


def test_a_columns_day_and_month_order_is_decided_once_and_kept_for_predict(tmp_path):
    # Each cell was read on its own: 22.07.2024 day first (no 22nd month)
    # but 06.05.2023 month first, the 5th of June, in the same column.
    import datetime

    from sparseboost.cli.encoding import Encoding

    days = [datetime.date(2023, 1, 1) + datetime.timedelta(days=int(k)) for k in range(0, 700, 9)]
    want = np.array([[d.year, d.month, d.day, d.weekday()] for d in days], dtype=float)
    for fmt, day_first in (
        ("%d.%m.%Y", True),
        ("%d/%m/%Y", True),
        ("%m/%d/%Y", False),
        ("%Y-%m-%d", False),
    ):
        cells = [d.strftime(fmt) for d in days]
        frame = pd.DataFrame({"when": cells, "y": np.arange(len(days), dtype=float)})
        encoding, X = encode(frame)
        assert encoding.columns[0].day_first is day_first, fmt
        np.testing.assert_array_equal(X, want, err_msg=fmt)
        # A later file of dates that leave the order open (the 1st to the
        # 12th) is read in the training file's order, through the model file.
        model = SparseBoostRegressor()
        model.n_features_in_ = 4  # (what from_dict checks the encoding against)
        again = Encoding.from_dict(json.loads(json.dumps(encoding.to_dict())), model)
        ambiguous = [d for d in days if d.day <= 12]
        later = pd.DataFrame({"when": [d.strftime(fmt) for d in ambiguous]})
        expected = np.array([[d.year, d.month, d.day, d.weekday()] for d in ambiguous], float)
        np.testing.assert_array_equal(again.transform(later), expected, err_msg=fmt)
    # A later file whose date column holds numbers (20240131, an Excel
    # serial) or no date at all is an error naming it (it was read as
    # missing, silently); text among dates is a missing date, as in training.
    for cells, bad in (
        ([days[0].strftime(fmt), 20240131], 20240131),
        ([45402, None], 45402),
        (["unknown", "n/a"], "unknown"),
    ):
        with pytest.raises(ValueError, match=f"column 'when' held dates in training, got {bad!r}"):
            again.transform(pd.DataFrame({"when": cells}))
    parts = again.transform(
        pd.DataFrame({"when": [days[0].strftime(fmt), "unknown", "2024-02-31"]})
    )
    assert np.isfinite(parts[0]).all() and np.isnan(parts[1:]).all()
    # Dots alone, with no day above 12, read day first (as in Europe).
    encoding, X = encode(pd.DataFrame({"when": ["01.02.2024", "03.04.2024"], "y": [0.0, 1.0]}))
    assert encoding.columns[0].day_first and X[0, 1] == 2


def test_versions_are_no_dates_and_impossible_dates_are_counted():
    rng = np.random.default_rng(0)
    versions = [
        f"{rng.integers(1, 4)}.{rng.integers(0, 12)}.{rng.integers(10, 40)}" for _ in range(60)
    ]
    encoding, _ = encode(pd.DataFrame({"version": versions, "y": rng.random(60)}))
    assert not encoding.columns[0].date and encoding.columns[0].categories
    cells = ["2024-01-31", "2024-02-31", "2024-03-01", None] * 10
    encoding, X = encode(pd.DataFrame({"when": cells, "y": rng.random(40)}))
    assert encoding.columns[0].date
    assert np.isnan(X[1::4, 0]).all() and np.isfinite(X[0::4, 0]).all()
    assert any("10 of its 30 cells spell no date" in note for note in encoding.notes), (
        encoding.notes
    )
    # A marker for a missing date ("?") among the dates leaves a date column
    # (it became a categorical column of date strings, without a note).
    cells = [f"2024-01-{day:02d}" for day in range(1, 29)] * 2 + ["?"]
    encoding, X = encode(pd.DataFrame({"when": cells, "y": rng.random(57)}))
    assert encoding.columns[0].date
    assert np.isnan(X[-1]).all() and np.isfinite(X[:-1]).all()
    assert any("1 of its 57 cells spell no date" in note for note in encoding.notes)


def test_text_columns_of_numbers_get_a_note():
    rng = np.random.default_rng(1)
    x = rng.integers(-30, 30, 200) * 111.1  # values repeat: no identifier
    spellings = {
        "missing as ?": np.where(np.arange(200) % 10 == 0, "?", x.round(1).astype(str)),
        "separators": [f"{v:,.1f}" for v in x],
        "percent": [f"{v / 100:.1f}%" for v in x],
    }
    for name, cells in spellings.items():
        encoding, _ = encode(pd.DataFrame({"x": cells, "y": x}))
        assert encoding.columns[0].categories, name
        assert any("look like numbers" in note for note in encoding.notes), (name, encoding.notes)
    words = np.where(np.arange(200) % 2 == 0, "red", "blue")
    encoding, _ = encode(pd.DataFrame({"x": words, "y": x}))
    assert encoding.notes == []


def test_infinite_cells_and_nested_columns_are_errors_that_name_the_column(tmp_path):
    from sparseboost.cli import readers

    ratio = np.ones(50)
    ratio[7] = np.inf
    with pytest.raises(
        ValueError, match=r"column 'ratio' holds 1 infinite value\(s\), the first in row 8"
    ):
        encode(pd.DataFrame({"ratio": ratio, "x": np.arange(50.0), "y": ratio}))
    with pytest.raises(ValueError, match="column 'ratio' holds 1 infinite"):
        encode(pd.DataFrame({"ratio": np.where(ratio > 1, "inf", "1.5"), "y": ratio}))
    frame = pd.DataFrame({"tags": [[k % 3, 1] for k in range(50)], "y": ratio})
    frame.to_parquet(tmp_path / "nested.parquet")
    data = readers.read(str(tmp_path / "nested.parquet"), target="y")
    with pytest.raises(ValueError, match="column 'tags' holds nested values"):
        encode(data.frame)


def test_the_least_squares_methods_name_the_columns_with_missing_cells(tmp_path, capsys):
    frame = messy(n=300).drop(columns=["title", "day", "id", "constant"])
    frame["city"] = frame["city"].astype("category").cat.codes.astype(float)
    frame.loc[5, "amount"] = np.nan
    for method in ("linear", "twopass"):
        code, _ = select(tmp_path, frame.dropna(subset=["y"]), "--method", method)
        assert code == 2
        assert f"--method {method} needs a value in every cell, but column(s) ['amount']" in (
            capsys.readouterr().err
        )


def test_a_group_column_with_empty_cells_is_named(tmp_path, capsys):
    # It failed with "'<' not supported between instances of 'float' and
    # 'str'" or scikit-learn's "Input groups contains NaN".
    rng = np.random.default_rng(0)
    for ids in (
        np.repeat([f"q{i}" for i in range(60)], 10).astype(object),
        np.repeat(np.arange(60.0), 10),
    ):
        ids[[5, 77]] = None if ids.dtype == object else np.nan
        frame = pd.DataFrame({"x": rng.normal(size=600), "qid": ids, "y": rng.integers(0, 3, 600)})
        assert select(tmp_path, frame, "--group", "qid", "--n-features", "1")[0] == 2
        assert "--group 'qid' is missing in 2 row(s), the first in row 6" in capsys.readouterr().err


def test_a_decimal_target_is_numbers(tmp_path):
    # A Parquet decimal128 target came as Decimal objects: --task auto took
    # half-step ratings for classes, and failed.
    import decimal

    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    rating = np.clip(np.round(2 * (2.5 + x + 0.3 * rng.normal(size=300))) / 2, 0.5, 5.0)
    table = pa.table(
        {
            "x": x,
            "noise": rng.normal(size=300),
            "y": pa.array([decimal.Decimal(str(v)) for v in rating], pa.decimal128(3, 1)),
        }
    )
    pq.write_table(table, tmp_path / "ratings.parquet")
    out = tmp_path / "out"
    argv = ["select", str(tmp_path / "ratings.parquet"), "--target", "y", "--out", str(out)]
    assert main(argv + ["--n-features", "1", *FAST]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["task"] == "regression" and metrics["test_metrics"]["r2"] > 0.5


def test_every_class_is_in_the_fit_validation_and_test_parts():
    # 30 classes of 3 rows and one of 40 passed the 3-rows check, but a
    # stratified split rounds a rare class's share: the fit lacked classes
    # that validation held (the job failed for seeds 0 and 1), or the test
    # part lacked some (AUC null).
    from sparseboost.cli.select import VALIDATION_FRACTION
    from sparseboost.cli.splitting import split_rows

    labels = np.array([f"c{i}" for i in range(30) for _ in range(3)] + ["big"] * 40)
    for seed in range(4):
        train, test = split_rows("classification", labels, None, 0.25, seed)
        fit, val = split_rows(
            "classification",
            labels[train],
            None,
            VALIDATION_FRACTION,
            seed + 1,
            part="the training part",
        )
        for part in (test, train[fit], train[val]):
            assert set(labels[part]) == set(labels), seed
        assert sorted(np.r_[train[fit], train[val], test]) == list(range(labels.size))
    # A split that holds every class already is the one it was.
    plain = np.repeat(["a", "b"], 50)
    from sklearn.model_selection import train_test_split

    expected = train_test_split(np.arange(100), test_size=0.25, random_state=3, stratify=plain)
    for got, want in zip(split_rows("classification", plain, None, 0.25, 3), expected):
        np.testing.assert_array_equal(got, want)


def test_damaged_compressed_files_are_one_line_errors(tmp_path, capsys):
    # .xz and .zip raised LZMAError and BadZipFile: a traceback.
    for ext in ("gz", "bz2", "xz", "zip"):
        path = tmp_path / f"data.csv.{ext}"
        path.write_bytes(b"this is no compressed file at all\n" * 4)
        assert (
            main(["select", str(path), "--target", "y", "--out", str(tmp_path / "o"), *FAST]) == 2
        )
        assert f"DATA '{path}' cannot be read as csv" in capsys.readouterr().err


def test_bad_targets_and_cells_are_named_by_their_row_in_the_file(tmp_path, capsys):
    # Rows without a target above them were not counted, and an infinite
    # target was met only after fitting, in scikit-learn's words.
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x1": rng.normal(size=200), "y": rng.normal(size=200)})
    frame.loc[[1, 2, 3], "y"] = np.nan  # left out
    for column, value, message in (
        ("y", np.inf, "the target holds 1 infinite value(s), the first in row 10 "),
        ("y", -6.76e199, "row 10 (from 1, the header not counted) holds -6.76e+199"),
        ("x1", np.inf, "column 'x1' holds 1 infinite value(s), the first in row 10 "),
    ):
        bad = frame.copy()
        bad.loc[9, column] = value
        assert select(tmp_path, bad, "--n-features", "1")[0] == 2
        err = capsys.readouterr().err
        assert message in err, err
    assert "DATA '" in err  # the file named


def test_a_file_of_another_separator_is_named_as_such(tmp_path, capsys):
    # European Excel writes ";" and decimal commas, and may start with a
    # "sep=" line: the error blamed the header's names.
    for text, message in (
        ("Alter;Einkommen;y\n20;1000,00;ja\n30;2000,50;nein\n", "header is one field holding ';'"),
        ("sep=,\nx1,y\n1,2\n3,4\n", "starts with Excel's 'sep=' line"),
    ):
        path = tmp_path / "excel.csv"
        path.write_text(text)
        assert (
            main(["select", str(path), "--target", "y", "--out", str(tmp_path / "o"), *FAST]) == 2
        )
        assert message in capsys.readouterr().err


def test_a_name_with_a_line_break_is_one_line_of_selected_features(tmp_path):
    # Excel breaks long header cells over two lines (quoted): the name was
    # written over two lines, as two names.
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    frame = pd.DataFrame({"Income\n(USD)": x, "x2": rng.normal(size=300), "y": 3 * x})
    code, out = select(tmp_path, frame, "--n-features", "1")
    assert code == 0
    assert (out / "selected_features.txt").read_text().splitlines() == ["Income\\n(USD)"]
    assert json.loads((out / "metrics.json").read_text())["selected_features"] == ["Income\n(USD)"]


def test_a_literal_missing_marker_is_named():
    # "<missing>" names missing cells in the model file: a value spelled so
    # failed at saving (names nothing), or merged with later missing cells.
    from sparseboost.cli.encoding import MISSING

    frame = pd.DataFrame({"status": ["ok", MISSING, None, "late"] * 10, "y": np.arange(40.0)})
    with pytest.raises(ValueError, match=f"column 'status' holds the value '{MISSING}'"):
        encode(frame)


def test_warnings_are_one_line_and_quiet_under_quiet(tmp_path, capsys):
    # The estimators' and libraries' warnings came with Python's source
    # line, also under --quiet.
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x1": rng.normal(size=200), "y": rng.normal(size=200)})
    frame.to_csv(tmp_path / "noise.csv", index=False)
    argv = ["select", str(tmp_path / "noise.csv"), "--target", "y", "--mu", "0.99"]
    assert main([*argv, "--out", str(tmp_path / "a"), "--quiet"]) == 2
    assert capsys.readouterr().err.count("\n") == 1  # the error, only
    assert main([*argv, "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "sparseboost: warning: no feature can pay the penalty" in err
    assert "UserWarning" not in err and "return model.fit" not in err, err


def test_predict_names_an_out_folder_that_does_not_exist(tmp_path, capsys):
    model = tmp_path / "model.json"
    model.write_text("{}")
    out = tmp_path / "nowhere" / "p.csv"
    assert main(["predict", str(model), str(tmp_path / "new.csv"), "--out", str(out)]) == 2
    assert f"--out '{out}': no such folder" in capsys.readouterr().err


def test_selectors_refuse_costs_and_record_their_default_count(tmp_path, capsys):
    # --costs reached the penalised boosters only: the selectors read and
    # dropped it. --n-features none cut their selection at 10 columns while
    # the record said there was no budget.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 30))
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(30)])
    frame["y"] = X[:, :15].sum(axis=1)
    costs = tmp_path / "costs.csv"
    costs.write_text("f0,1000000\n")
    for method in ("topk", "linear"):
        code, _ = select(tmp_path, frame, "--method", method, "--costs", str(costs))
        assert code == 2
        assert "--costs applies to the penalised methods" in capsys.readouterr().err
        code, out = select(tmp_path, frame, "--method", method, "--n-features", "none")
        assert code == 0
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["budget"]["chosen_by"] == "default"
        assert metrics["budget"]["k"] == metrics["n_selected"] == 10


def test_a_bad_relevance_label_is_named_by_its_row(tmp_path, capsys):
    rng = np.random.default_rng(0)
    for label in (0.5, -1, "high"):
        y = rng.integers(0, 3, 200).astype(object)
        y[7] = label
        frame = pd.DataFrame(
            {"x": rng.normal(size=200), "qid": np.repeat(np.arange(20), 10), "y": y}
        )
        assert select(tmp_path, frame, "--group", "qid", "--n-features", "1")[0] == 2
        assert f"row 8 (from 1, the header not counted) holds {label!r}" in capsys.readouterr().err


def test_a_model_file_whose_encoding_contradicts_its_booster_is_refused(tmp_path):
    # Only the encoded width was checked: a numeric column given categories,
    # a shortened category list, one-hot instead of native categories, or
    # reordered model columns each predicted otherwise, silently.
    from sparseboost.persistence import load_input_encoding

    rng = np.random.default_rng(1)
    color = rng.choice(list("abcd"), 400)
    frame = pd.DataFrame(
        {
            "f0": rng.normal(size=400),
            "f1": rng.normal(size=400),
            "color": color,
            "y": rng.normal(size=400) + (color == "a") * 3 + np.arange(400) / 400,
        }
    )
    code, out = select(tmp_path, frame, "--n-features", "none")
    assert code == 0
    document = json.loads((out / "model.json").read_text())
    load_input_encoding(out / "model.json")  # as written: accepted
    columns = document["input_encoding"]["columns"]
    color_at = next(i for i, c in enumerate(columns) if c["name"] == "color")
    numeric_at = next(i for i, c in enumerate(columns) if c["categories"] is None)
    edits = {
        "numeric made categorical": lambda d: d["input_encoding"]["columns"][numeric_at].update(
            categories=["a", "b"]
        ),
        "categories shortened": lambda d: d["input_encoding"]["columns"][color_at].update(
            categories=d["input_encoding"]["columns"][color_at]["categories"][:-1]
        ),
        "not native": lambda d: d["input_encoding"].update(native_categories=False),
    }
    for name, edit in edits.items():
        edited = json.loads(json.dumps(document))
        edit(edited)
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(ValueError, match="input_encoding"):
            load_input_encoding(tmp_path / "edited.json")
