"""Property tests of the command line over generated tables: numeric, integer,
boolean and categorical columns (category codes that look like numbers
among them), missing cells, and column names with spaces, commas, quotes
and accents.

- the same table written as CSV, Parquet and (when numeric) npz gives the
  same selection and the same model, or the same one-line error;
- ``predict`` on the training file equals the saved model applied to the
  generated values, encoded by hand;
- permuting a ``predict`` file's columns, adding columns or repeating one
  the model does not take keeps the predictions; repeating one it takes is
  a clear error;
- every output names only columns of the input.
"""

import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from contract import budget, example, tally, tmp_path
from csv_exact import read_csv_exact
from hypothesis import assume, given, settings
from hypothesis import strategies as st

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from sparseboost.cli import main  # noqa: E402
from sparseboost.cli.encoding import MISSING  # noqa: E402
from sparseboost.persistence import load_input_encoding  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

# Category codes as users have them: words, codes that read as numbers
# (pandas guesses a numeric dtype when a file holds only those), accents.
CATEGORIES = ["a", "b", "x y", "é", "1", "2", "2.5", "10"]
NAME_CHARACTERS = "abcxyz019 _-,.\"'é"
TARGET = "target"


@st.composite
def tables(draw):
    """(frame of feature columns, target values, task, kinds): a table whose
    target depends on its columns."""
    n = draw(st.integers(40, 300), label="rows")
    d = draw(st.integers(1, 5), label="columns")
    names = draw(
        st.lists(
            st.text(NAME_CHARACTERS, min_size=1, max_size=6).filter(
                lambda s: s.strip() and s != TARGET
            ),
            min_size=d,
            max_size=d,
            unique=True,
        ),
        label="names",
    )
    kinds = draw(
        st.lists(
            st.sampled_from(["float", "int", "bool", "category", "category"]),
            min_size=d,
            max_size=d,
        ),
        label="kinds",
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    columns = {}
    for name, kind in zip(names, kinds):
        missing = rng.random(n) < draw(st.sampled_from([0.0, 0.1, 0.3]), label="missing")
        if kind == "float":
            values = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
            values[missing] = np.nan
            column = pd.Series(values)
        elif kind == "int":
            values = rng.integers(-5, 50, n).astype(object)
            values[missing] = None
            column = pd.Series(values, dtype="Int64" if missing.any() else "int64")
        elif kind == "bool":
            values = (rng.random(n) < 0.5).astype(object)
            values[missing] = None
            column = pd.Series(values, dtype="boolean" if missing.any() else "bool")
        else:
            pool = draw(
                st.lists(st.sampled_from(CATEGORIES), min_size=1, max_size=4, unique=True),
                label=f"categories of {name!r}",
            )
            values = rng.choice(pool, n).astype(object)
            values[missing] = None
            column = pd.Series(values, dtype=object)
        columns[name] = column
    frame = pd.DataFrame(columns)
    # Every column carries signal, so that the model takes most of them.
    signal = np.zeros(n)
    for name in names:
        values = _numbers_of(frame[name])
        if np.isfinite(values).any():
            centred = values - np.nanmean(values)
            scale = np.nanstd(centred) or 1.0
            # categories weigh more: the readings of their cells matter most
            weight = 3.0 if frame[name].dtype == object else 1.0
            signal += weight * np.nan_to_num(centred / scale)
    task = draw(st.sampled_from(["regression", "classification"]), label="task")
    noise = rng.normal(0, 0.1, n)
    if task == "regression":
        y = signal * 3 + noise + 0.5  # never all integers
    else:
        y = np.where(signal + noise > 0, "yes", "no").astype(object)
    return frame, y, task, dict(zip(names, kinds))


def _numbers_of(column):
    """A generated column as numbers (categories by their pool index)."""
    if column.dtype == object:
        return np.array(
            [np.nan if v is None else float(CATEGORIES.index(v)) for v in column], dtype=float
        )
    return column.astype("float64").to_numpy(na_value=np.nan)


def write(frame, y, fmt):
    """The table as a file of format ``fmt``; npz only for numeric tables."""
    path = tmp_path(f".{fmt}")
    full = frame.assign(**{TARGET: y})
    if fmt == "csv":
        full.to_csv(path, index=False)
    elif fmt == "parquet":
        full.to_parquet(path, index=False)
    else:
        np.savez(
            path,
            X=np.column_stack([_numbers_of(frame[c]) for c in frame.columns]),
            y=np.asarray(y).astype(str) if np.asarray(y).dtype == object else np.asarray(y),
            feature_names=np.array(list(frame.columns)),
        )
    return path


def run(argv):
    """``sparseboost ...`` in process: (exit status, stderr's last line)."""
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(argv)
    lines = err.getvalue().strip().splitlines()
    return code, lines[-1] if lines else ""


def select(path, fmt):
    out = tmp_path("-out")
    target = [] if fmt == "npz" else ["--target", TARGET]
    code, line = run(["select", path, *target, "--out", out, "--quiet", "--random-state", "3"])
    assert code in (0, 2), line
    if code == 2:
        assert line.startswith("sparseboost: error: "), line
    return code, line, out


def outputs(out):
    """(selected names, model document, metrics) of a select run."""
    with open(os.path.join(out, "selected_features.txt"), encoding="utf-8") as f:
        selected = f.read().split("\n")[:-1]
    with open(os.path.join(out, "model.json"), encoding="utf-8") as f:
        model = json.load(f)
    with open(os.path.join(out, "metrics.json"), encoding="utf-8") as f:
        metrics = json.load(f)
    return selected, model, metrics


def by_hand(frame, encoding):
    """The design matrix of ``frame`` under the saved encoding, built from
    the generated values (not by the command line's reading)."""
    blocks = []
    for column in encoding.columns:
        values = frame[column.name]
        if column.categories is None:
            if values.dtype == object:  # codes that read as numbers
                numbers = [np.nan if v is None else float(v) for v in values]
                blocks.append(np.array(numbers).reshape(-1, 1))
            else:
                blocks.append(values.astype("float64").to_numpy(na_value=np.nan).reshape(-1, 1))
        else:
            # The index of the cell's training category, NaN if unseen.
            keys = [MISSING if v is None or v is pd.NA else str(v) for v in values]
            index = {c: float(i) for i, c in enumerate(column.categories)}
            blocks.append(np.array([index.get(k, np.nan) for k in keys]).reshape(-1, 1))
    X = np.hstack(blocks)
    return X if encoding.model_columns is None else X[:, encoding.model_columns]


def predict_file(model, path):
    out = tmp_path(".csv")
    code, line = run(["predict", model, path, "--out", out])
    return code, line, out


@settings(max_examples=budget(12))
@given(table=tables())
def test_csv_parquet_and_npz_give_the_same_selection(table):
    example()
    frame, y, task, kinds = table
    formats = ["csv", "parquet"]
    if all(k != "category" for k in kinds.values()):
        formats.append("npz")
    runs = {fmt: select(write(frame, y, fmt), fmt) for fmt in formats}
    codes = {fmt: r[0] for fmt, r in runs.items()}
    assert len(set(codes.values())) == 1, runs
    tally(codes["csv"] == 0)
    if codes["csv"] == 2:
        # the same refusal, whatever the file (the path aside)
        assert len({r[1].split(":")[-1] for r in runs.values()}) == 1, runs
        return
    results = {fmt: outputs(r[2]) for fmt, r in runs.items()}
    csv_selected, csv_model, csv_metrics = results["csv"]
    for fmt, (selected, model, metrics) in results.items():
        assert selected == csv_selected, (fmt, selected, csv_selected)
        assert model["model"] == csv_model["model"], fmt
        assert metrics["test_metrics"] == csv_metrics["test_metrics"], fmt


@settings(max_examples=budget(12))
@given(table=tables(), fmt=st.sampled_from(["csv", "parquet"]), data=st.data())
def test_predict_on_the_training_file_equals_the_saved_model(table, fmt, data):
    example()
    frame, y, task, kinds = table
    path = write(frame, y, fmt)
    code, line, out = select(path, fmt)
    tally(code == 0)
    if code:
        return
    model_path = os.path.join(out, "model.json")
    model, encoding = load_input_encoding(model_path)
    # The training file, or some of its rows: pandas may then guess other
    # dtypes (codes '1', '2' without 'x' read as numbers, say).
    # Rows whose category cells are all number-like codes or missing: a
    # file of those reads its category columns as floats.
    categorical = [c for c, k in kinds.items() if k == "category"]
    numeric_like = [
        i
        for i in range(len(frame))
        if all(frame[c].iloc[i] is None or frame[c].iloc[i][0].isdigit() for c in categorical)
    ]
    choices = [
        st.just(list(range(len(frame)))),
        st.lists(st.integers(0, len(frame) - 1), min_size=1, max_size=8, unique=True),
    ]
    if numeric_like:
        choices.append(st.just(numeric_like))
    rows = data.draw(st.one_of(choices), label="rows")
    frame, y = frame.iloc[rows].reset_index(drop=True), y[rows]
    code, line, predictions = predict_file(model_path, write(frame, y, fmt))
    assert code == 0, line
    X = by_hand(frame, encoding)
    got = read_csv_exact(pd, predictions)
    if task == "classification":
        expected = model.predict_proba(X)
        columns = [f"proba_{c}" for c in model.classes_]
        np.testing.assert_array_equal(got[columns].to_numpy(), expected)
        assert list(got["prediction"].astype(str)) == list(
            model.classes_[expected.argmax(axis=1)].astype(str)
        )
    else:
        np.testing.assert_array_equal(got["prediction"].to_numpy(), model.predict(X))


@settings(max_examples=budget(12))
@given(table=tables(), fmt=st.sampled_from(["csv", "parquet", "npz"]), data=st.data())
def test_permuted_or_repeated_predict_columns(table, fmt, data):
    example()
    frame, y, task, kinds = table
    assume(fmt != "npz" or all(k != "category" for k in kinds.values()))
    code, line, out = select(write(frame, y, fmt), fmt)
    tally(code == 0)
    if code:
        return
    model_path = os.path.join(out, "model.json")
    _, encoding = load_input_encoding(model_path)
    used = {c.name for c in encoding.columns} if encoding.columns else set(encoding.feature_names)
    code, line, reference = predict_file(model_path, write(frame, y, fmt))
    assert code == 0, line
    expected = read_csv_exact(pd, reference)

    order = data.draw(st.permutations(list(frame.columns)), label="order")
    changed = frame[order].copy()
    if data.draw(st.booleans(), label="extra column"):
        changed.insert(data.draw(st.integers(0, changed.shape[1]), label="at"), "zz extra", 1.5)
    repeat = data.draw(st.sampled_from([None, *frame.columns]), label="repeat")
    if repeat is not None and fmt != "npz":
        # pandas cannot hold two columns of one name in a frame we write
        # with to_csv/to_parquet; write the repeat under a stand-in name and
        # rename it in the file itself
        changed.insert(0, "\0repeat", frame[repeat])
    path = _write_with_names(changed, y, fmt, {"\0repeat": repeat})
    code, line, result = predict_file(model_path, path)
    if repeat is not None and fmt != "npz" and repeat in used:
        assert code == 2 and f"{repeat!r} appears 2 times" in line, line
        return
    assert code == 0, line
    got = read_csv_exact(pd, result)
    pd.testing.assert_frame_equal(got, expected)


def _write_with_names(frame, y, fmt, renames):
    """``write``, then the stand-in names of ``renames`` replaced by real
    (repeated) names in the file."""
    if fmt == "npz":
        return write(frame, y, fmt)
    if fmt == "csv":
        text = frame.assign(**{TARGET: y}).to_csv(index=False)
        header, body = text.split("\n", 1)
        names = [renames.get(c, c) for c in frame.columns] + [TARGET]
        path = tmp_path(".csv")
        line = pd.DataFrame(columns=names).to_csv(index=False)
        with open(path, "w", encoding="utf-8") as f:
            f.write(line + body)
        return path
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame.assign(**{TARGET: y}), preserve_index=False)
    table = table.rename_columns([renames.get(c, c) for c in table.column_names])
    path = tmp_path(".parquet")
    pq.write_table(table.replace_schema_metadata(None), path)
    return path


@settings(max_examples=budget(12))
@given(table=tables(), fmt=st.sampled_from(["csv", "parquet"]), data=st.data())
def test_every_output_names_only_input_columns(table, fmt, data):
    example()
    frame, y, task, kinds = table
    # sometimes with a header the command line must refuse: a repeated or
    # empty name (pandas would invent 'a.1' or 'Unnamed: 1')
    flaw = data.draw(st.sampled_from([None, None, "repeat", "empty", "target"]), label="flaw")
    renames = {}
    if flaw is not None:
        victim = frame.columns[0]
        stand_in = {"repeat": frame.columns[-1], "empty": "", "target": TARGET}[flaw]
        if flaw == "repeat" and frame.shape[1] == 1:
            stand_in = victim
            frame = frame.assign(**{"\0copy": frame[victim]})
            victim = "\0copy"
        renames = {victim: stand_in}
    path = _write_with_names(frame, y, fmt, renames)
    code, line, out = select(path, fmt)
    if flaw is not None:
        assert code == 2, "a flawed header was accepted"
        assert ("appears 2 times" in line) or ("has no name" in line), line
        assert not os.path.exists(out)
        tally(False)
        return
    tally(code == 0)
    if code:
        return
    names = set(frame.columns)
    selected, model, metrics = outputs(out)
    assert set(selected) <= names
    assert set(metrics["selected_features"]) == set(selected)
    encoded = [c["name"] for c in model["input_encoding"]["columns"]]
    # The input's columns in their order, less those left out (one value,
    # an identifier), each of which a note names.
    assert encoded == [c for c in frame.columns if c in encoded]
    for left_out in set(frame.columns) - set(encoded):
        assert any(f"column {left_out!r}" in note for note in metrics["notes"]), left_out
    with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
        report = f.read()
    assert "Unnamed:" not in report
