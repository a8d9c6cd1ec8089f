"""``sparseboost select`` and ``sparseboost predict`` on small files made
here: CSV, Parquet and svmlight, with a string column and missing values."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from csv_exact import read_csv_exact
from sparseboost import SparseBoostRegressor
from sparseboost.cli import main
from sparseboost.cli.encoding import MISSING, Encoding
from sparseboost.persistence import load_input_encoding

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FAST = ["--quiet", "--random-state", "0"]


def make_frame(n=600, seed=0):
    """``signal`` and the string column ``city`` carry the target; noise
    columns, one with NaN, and some missing cities."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"noise{j}": rng.normal(size=n) for j in range(6)})
    frame["signal"] = rng.normal(size=n)
    city = rng.choice(["paris", "oslo", "lima"], size=n).astype(object)
    city[rng.random(n) < 0.05] = None
    frame["city"] = city
    frame.loc[rng.random(n) < 0.1, "noise0"] = np.nan
    score = 2.0 * frame["signal"] + 1.5 * (frame["city"] == "oslo") + rng.normal(0, 0.3, n)
    return frame, score.to_numpy()


def outputs_ok(out):
    """The four outputs exist and parse; returns (selected names, metrics)."""
    names = (out / "selected_features.txt").read_text().split("\n")[:-1]
    metrics = json.loads((out / "metrics.json").read_text())
    assert json.loads((out / "model.json").read_text())["format"] == "sparseboost"
    page = (out / "report.html").read_text()
    images = re.findall(r"<img src='([^']+)'", page)
    assert len(images) == 4
    for image in images:
        assert (out / image).read_bytes()[:8] == PNG_MAGIC
    assert metrics["n_selected"] == len(names) == len(set(names))
    return names, metrics


def select_on_labelled_csv(tmp_path):
    """``sparseboost select`` on a CSV whose target is a string label; returns
    the frame and the output folder."""
    frame, score = make_frame()
    frame["label"] = np.where(score > 0, "yes", "no")
    frame.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    argv = ["select", str(tmp_path / "data.csv"), "--target", "label", "--out", str(out)]
    # No budget: the model takes every encoded column (the tests read them).
    assert main(argv + ["--n-features", "none"] + FAST) == 0
    return frame, out


def test_csv_classification_names_original_columns(tmp_path, capsys):
    frame, out = select_on_labelled_csv(tmp_path)
    # The summary line gives the whole job's time, which metrics.json records.
    summary = capsys.readouterr().out.splitlines()[0]
    total = json.loads((out / "metrics.json").read_text())["total_seconds"]
    assert f"selected in {total:.1f} s" in summary, summary
    names, metrics = outputs_ok(out)
    assert names[0] == "signal"
    assert "city" in names  # once, by its name, not as city=oslo
    assert set(names) <= set(frame.columns) - {"label"}
    assert metrics["task"] == "classification"
    assert metrics["split_search"] in ("exhaustive", "group_testing")
    assert metrics["test_metrics"]["auc"] > 0.9
    assert "city" in (out / "report.html").read_text()


def test_predict_round_trip_matches_the_estimator(tmp_path):
    frame, out = select_on_labelled_csv(tmp_path)
    new = frame.drop(columns="label").iloc[:50].copy()
    new.loc[new.index[0], "city"] = "tokyo"  # never seen: NaN, sent right
    new.to_csv(tmp_path / "new.csv", index=False)
    predictions = tmp_path / "p.csv"
    model_path = str(out / "model.json")
    assert main(["predict", model_path, str(tmp_path / "new.csv"), "--out", str(predictions)]) == 0
    got = read_csv_exact(pd, predictions)

    # The encoding written by hand: every column in its place, city as the
    # index of its training category (sorted, <missing> last), NaN unseen.
    model, encoding = load_input_encoding(model_path)
    categories = ["lima", "oslo", "paris", MISSING]
    city = new["city"].fillna(MISSING)
    codes = [float(categories.index(c)) if c in categories else np.nan for c in city]
    X = new.assign(city=codes)[[c.name for c in encoding.columns]].to_numpy(float)
    assert np.isnan(X[0, list(new.columns).index("city")])
    assert [c.categories for c in encoding.columns if c.categories] == [categories]
    assert list(model.categorical_features_) == encoding.categorical_indices()
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(got[[f"proba_{c}" for c in model.classes_]].to_numpy(), proba)
    assert list(got["prediction"]) == list(model.classes_[proba.argmax(axis=1)])


def test_parquet_regression_by_subprocess(tmp_path):
    pytest.importorskip("pyarrow")
    frame, score = make_frame(seed=1)
    frame["y"] = score
    frame.to_parquet(tmp_path / "data.parquet")
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "sparseboost", "select", str(tmp_path / "data.parquet")]
        + ["--target", "y", "--out", str(out), "--method", "gbfs", "--n-features", "4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    names, metrics = outputs_ok(out)
    assert metrics["task"] == "regression" and metrics["method"] == "gbfs"
    assert names[0] == "signal" and "city" in names
    assert metrics["test_metrics"]["r2"] > 0.8
    assert "features=" in run.stderr  # the progress bar's tail


def engine_takes_sparse():
    import scipy.sparse as sp

    try:
        SparseBoostRegressor(n_estimators=1).fit(sp.csr_matrix(np.eye(40)), np.arange(40.0))
    except (TypeError, ValueError):
        return False
    return True


@pytest.mark.skipif(not engine_takes_sparse(), reason="the engine does not take sparse X yet")
def test_svmlight_stays_sparse_and_predicts(tmp_path, monkeypatch):
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(2)
    n, d = 500, 40
    X = (rng.random((n, d)) < 0.1) * rng.integers(1, 5, (n, d))
    y = (X[:, 3] > 0).astype(int) ^ (rng.random(n) < 0.05)
    dump_svmlight_file(X, y, str(tmp_path / "data.svm"))
    seen = []
    fit = SparseBoostRegressor.fit.__globals__["BaseSparseBoost"]._fit

    def spy(self, X, *args, **kwargs):
        seen.append(type(X).__name__)
        return fit(self, X, *args, **kwargs)

    monkeypatch.setattr(fit.__globals__["BaseSparseBoost"], "_fit", spy)
    out = tmp_path / "out"
    assert main(["select", str(tmp_path / "data.svm"), "--out", str(out)] + FAST) == 0
    names, _ = outputs_ok(out)
    assert names[0] == "x3"
    assert seen[0] == "csr_matrix"
    p = tmp_path / "p.csv"
    assert (
        main(["predict", str(out / "model.json"), str(tmp_path / "data.svm"), "--out", str(p)]) == 0
    )
    assert len(pd.read_csv(p)) == n


def test_a_string_column_is_one_categorical_feature_and_dates_one_bag():
    rng = np.random.default_rng(3)
    n = 4000
    frame = pd.DataFrame(
        {
            "city": rng.choice(["a", "b", "c"], n),
            "when": pd.Series(pd.date_range("2021-01-01", periods=n, freq="h")).astype(str),
            "u": rng.random(n),
        }
    )
    y = 10.0 * (frame["city"] == "a") + 1.0 * (frame["city"] == "b")
    encoding = Encoding.fit(frame, task="regression", target="y", group=None)
    X = encoding.transform(frame)
    assert encoding.encoded_names() == [
        "city",
        "when.year",
        "when.month",
        "when.day",
        "when.weekday",
        "u",
    ]
    np.testing.assert_array_equal(encoding.bags(), [0, 1, 1, 1, 1, 2])
    assert encoding.categorical_indices() == [0]
    np.testing.assert_array_equal(X[:3, 0], [["a", "b", "c"].index(v) for v in frame.city[:3]])
    np.testing.assert_array_equal(X[0, 1:5], [2021, 1, 1, 4])  # a Friday
    model = SparseBoostRegressor(
        categorical_features=encoding.categorical_indices(), n_estimators=5, random_state=0
    ).fit(X, y)
    assert model.selected_features_[0] == 0
    assert encoding.original_order(model.selected_features_)[0] == "city"


def test_default_runs_on_embedded_madelon(tmp_path):
    out = tmp_path / "out"
    assert main(["--out", str(out), "--quiet"]) == 0
    names, metrics = outputs_ok(out)
    assert metrics["data_shape"]["rows"] == 2600 and metrics["data_shape"]["columns"] == 500
    assert metrics["test_metrics"]["auc"] > 0.75
    assert "Guyon" in (out / "report.html").read_text()


def bad_model(tmp_path):
    frame, score = make_frame(n=200)
    frame["y"] = score
    frame.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "m"
    assert main(["select", str(tmp_path / "d.csv"), "--target", "y", "--out", str(out)] + FAST) == 0
    document = json.loads((out / "model.json").read_text())
    document["input_encoding"]["columns"][0]["categories"] = [1, 2]
    (out / "model.json").write_text(json.dumps(document))
    return ["predict", str(out / "model.json"), str(tmp_path / "d.csv")]


@pytest.mark.parametrize(
    "case, expected",
    [
        ("missing_file", "no such file"),
        ("unreadable", "cannot be read as parquet"),
        ("unknown_type", "unknown file type"),
        ("missing_target", "--target 'nope': no such column"),
        ("one_value", "the target has one value"),
        ("unknown_method", "--method must be one of"),
        ("bad_test_size", "--test-size"),
        ("bad_mu", "--mu must be"),
        ("bad_model_field", "input_encoding.columns[0].categories"),
        # 60 rows leave 36 fit rows, too few for two leaves of 20: the same
        # error whether CV chooses the budget or the user gives it.
        ("few_rows_auto", "selected no feature: no split is possible, the 36 fit rows"),
        ("few_rows_k", "selected no feature: no split is possible, the 36 fit rows"),
        ("drop_target", "--drop names the target column 'y'"),
        ("group_not_ranking", "--group gives query ids, which only --task ranking takes"),
        ("float_relevance", "ranking (--group) needs the target to hold relevance labels"),
        ("one_fit_query", "the fit rows (what the test and validation splits leave) hold 1 query"),
        # Before the fit: a 1-row class stopped the job after it, by the seed.
        ("rare_class", "the target's classes {'rare': 1} have fewer than 3 rows"),
        # Named by its row in the file, not in the fit part the engine saw.
        ("relevance_31", "relevance labels 0 to 30; row 6 (from 1, the header not counted)"),
    ],
)
def test_errors_are_one_line_exit_2(tmp_path, capsys, case, expected):
    frame, score = make_frame(n=100)
    frame["y"] = score
    csv = str(tmp_path / "d.csv")
    frame.to_csv(csv, index=False)
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    (tmp_path / "d.xyz").write_text("1,2\n")
    frame.assign(y=1.0).to_csv(tmp_path / "one.csv", index=False)
    frame.iloc[:60].to_csv(tmp_path / "few.csv", index=False)
    ranked = str(tmp_path / "ranked.csv")
    frame.assign(q=np.arange(len(frame)) // 10).to_csv(ranked, index=False)
    rare = str(tmp_path / "rare.csv")
    frame.assign(
        y=np.where(np.arange(len(frame)) == 7, "rare", np.where(score > 0, "a", "b"))
    ).to_csv(rare, index=False)
    high = str(tmp_path / "high.csv")
    relevance = np.arange(len(frame)) % 3
    relevance[5] = 31
    frame.assign(y=relevance, q=np.arange(len(frame)) // 10).to_csv(high, index=False)
    three = str(tmp_path / "three.csv")
    frame.assign(y=np.arange(len(frame)) % 3, q=np.arange(len(frame)) % 3).to_csv(
        three, index=False
    )
    argv = {
        "missing_file": ["select", str(tmp_path / "absent.csv"), "--target", "y"],
        "unreadable": ["select", str(tmp_path / "bad.parquet"), "--target", "y"],
        "unknown_type": ["select", str(tmp_path / "d.xyz"), "--target", "y"],
        "missing_target": ["select", csv, "--target", "nope"],
        "one_value": ["select", str(tmp_path / "one.csv"), "--target", "y"],
        "unknown_method": ["select", csv, "--target", "y", "--method", "lasso"],
        "bad_test_size": ["select", csv, "--target", "y", "--test-size", "2"],
        "bad_mu": ["select", csv, "--target", "y", "--mu", "lots"],
        "bad_model_field": None,
        "few_rows_auto": ["select", str(tmp_path / "few.csv"), "--target", "y"],
        "few_rows_k": ["select", str(tmp_path / "few.csv"), "--target", "y", "--n-features", "2"],
        "drop_target": ["select", csv, "--target", "y", "--drop", "y"],
        "group_not_ranking": ["select", ranked, "--target", "y", "--group", "q"]
        + ["--task", "regression"],
        "float_relevance": ["select", ranked, "--target", "y", "--group", "q"],
        "one_fit_query": ["select", three, "--target", "y", "--group", "q"],
        "rare_class": ["select", rare, "--target", "y"],
        "relevance_31": ["select", high, "--target", "y", "--group", "q"],
    }[case]
    if argv is None:
        argv = bad_model(tmp_path)
        capsys.readouterr()
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    lines = capsys.readouterr().err.splitlines()
    # One error line, last; before it at most progress stage lines (and the
    # rounds' bar of a fit that started).
    assert lines[-1].startswith("sparseboost: error: ") and expected in lines[-1]
    progress = [line for line in lines[:-1] if line.startswith("[") or "round/s]" in line]
    assert all(not line for line in lines[:-1] if line not in progress)


def test_errors_by_subprocess_have_no_traceback(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "sparseboost", "select", str(tmp_path / "absent.csv")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr.startswith("sparseboost: error: DATA") and run.stderr.count("\n") == 1


def test_missing_extra_names_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    frame, score = make_frame(n=100)
    frame["y"] = score
    frame.to_csv(tmp_path / "d.csv", index=False)
    assert main(["select", str(tmp_path / "d.csv"), "--target", "y", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "matplotlib" in err and "sparseboost[cli]" in err


def test_demo_subcommand_still_runs(capsys):
    assert main(["demo", "--n-samples", "500", "--n-features", "10", "--n-estimators", "5"]) == 0
    assert "synthetic regression" in capsys.readouterr().out


def test_the_budget_is_chosen_by_cv_by_default_and_recorded(tmp_path):
    frame, score = make_frame(n=800, seed=4)
    frame["label"] = (score > 0).astype(int)
    frame.to_csv(tmp_path / "data.csv", index=False)
    base = ["select", str(tmp_path / "data.csv"), "--target", "label"]

    out = tmp_path / "auto"
    assert main(base + ["--out", str(out)] + FAST) == 0
    names, metrics = outputs_ok(out)
    budget = metrics["budget"]
    assert budget["chosen_by"] == "cv" and budget["rule"] == "one_se"
    assert budget["scoring"] == "roc_auc" and budget["folds"] == 5
    ks = [row["k"] for row in budget["cv"]]
    assert ks == [1, 2, 3, 5, 8]  # the grid up to the 8 feature columns
    assert budget["k"] in ks and metrics["n_selected"] <= budget["k"]
    assert names[:2] in (["signal", "city"], ["city", "signal"])
    # One SE: no smaller budget is within one standard error of the best.
    means = np.array([row["mean"] for row in budget["cv"]])
    stds = np.array([row["std"] for row in budget["cv"]])
    best = int(np.argmax(means))
    within = means >= means[best] - stds[best] / np.sqrt(5)
    assert budget["k"] == ks[int(np.argmax(within))]
    assert metrics["parameters"]["n_features"] == "auto"

    out = tmp_path / "user"
    assert main(base + ["--out", str(out), "--n-features", "1"] + FAST) == 0
    names, metrics = outputs_ok(out)
    assert metrics["budget"] == {"chosen_by": "user", "k": 1} and len(names) == 1

    out = tmp_path / "none"
    assert main(base + ["--out", str(out), "--n-features", "none"] + FAST) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["budget"]["k"] is None
    # mu as given and as a number: agbm's default, and gbfs's 0.05*mu_max.
    record = metrics["parameters"]
    assert record["mu_max"] > 0 and record["mu_value"] == record["mu"]
    out = tmp_path / "gbfs"
    argv = base + ["--out", str(out), "--n-features", "none", "--method", "gbfs"]
    assert main(argv + FAST) == 0
    record = json.loads((out / "metrics.json").read_text())["parameters"]
    assert record["mu"] == "0.05*mu_max"
    assert record["mu_value"] == pytest.approx(0.05 * record["mu_max"], rel=1e-12)
    assert main(base + ["--out", str(out), "--n-features", "many"]) == 2


def test_with_a_cv_budget_the_model_takes_the_columns_cv_kept(tmp_path):
    frame, score = make_frame(n=800, seed=5)
    frame["y"] = score
    frame.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    assert (
        main(["select", str(tmp_path / "data.csv"), "--target", "y", "--out", str(out)] + FAST) == 0
    )
    names, metrics = outputs_ok(out)
    assert metrics["budget"]["chosen_by"] == "cv" and len(names) == metrics["budget"]["k"]
    model, encoding = load_input_encoding(str(out / "model.json"))
    assert model.n_features_in_ == len(encoding.model_columns) == len(names)
    new = frame.drop(columns="y").iloc[:40]
    new.to_csv(tmp_path / "new.csv", index=False)
    p = tmp_path / "p.csv"
    assert (
        main(["predict", str(out / "model.json"), str(tmp_path / "new.csv"), "--out", str(p)]) == 0
    )
    X = encoding.transform(new)[:, encoding.model_columns]
    np.testing.assert_array_equal(read_csv_exact(pd, p)["prediction"].to_numpy(), model.predict(X))


def test_drop_and_categorical_find_columns_whose_header_has_spaces(tmp_path):
    frame, score = make_frame(n=300)
    frame = frame.rename(columns={frame.columns[0]: f" {frame.columns[0]} "})
    frame["y"] = score
    frame.to_csv(tmp_path / "d.csv", index=False)
    name = frame.columns[0].strip()
    out = tmp_path / "o"
    argv = ["select", str(tmp_path / "d.csv"), "--target", "y", "--drop", name, "--out", str(out)]
    assert main(argv + FAST) == 0
    assert f" {name} " not in (out / "selected_features.txt").read_text().splitlines()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_outputs_have_the_modes_a_plain_write_gives(tmp_path):
    # Staged in private temporary places: the folder was 0700 and model.json
    # 0600 whatever the umask, unreadable to the account that predicts.
    import os
    import stat

    old = os.umask(0o022)
    try:
        _, out = select_on_labelled_csv(tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    for name in ("model.json", "metrics.json", "report.html"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o644, name


def select_on_scores(tmp_path, options):
    """``sparseboost select`` with ``options`` on a CSV whose target is the
    score; returns the parameters of ``metrics.json`` and the report."""
    frame, score = make_frame()
    frame["y"] = score
    frame.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "out"
    argv = ["select", str(tmp_path / "d.csv"), "--target", "y", "--out", str(out)]
    assert main(argv + options + FAST) == 0
    parameters = json.loads((out / "metrics.json").read_text())["parameters"]
    return parameters, (out / "report.html").read_text()


def test_the_report_gives_a_relative_mu_and_its_value(tmp_path):
    # "mu (resolved)" showed "0.05*mu_max", the value it resolved to nowhere.
    metrics, page = select_on_scores(tmp_path, ["--method", "gbfs", "--n-features", "none"])
    assert metrics["mu"] == "0.05*mu_max" and metrics["mu_value"] > 0
    assert f"<th>mu (resolved)</th><td>0.05*mu_max = {metrics['mu_value']:.4g}</td>" in page


def test_the_report_says_why_a_group_tested_fit_has_no_mu_max(tmp_path):
    # Group testing with an absolute mu does not measure mu_max (it would
    # scan every feature at the root): the report says so, not "—".
    options = ["--method", "gt", "--n-features", "3", "--mu", "0.01"]
    metrics, page = select_on_scores(tmp_path, options)
    assert metrics["mu_max"] is None and metrics["mu_value"] == 0.01
    assert "<th>mu_max</th><td>not measured (group testing with an absolute mu)</td>" in page


@pytest.mark.parametrize(
    "scoring, label, sign",
    [
        ("neg_root_mean_squared_error", "CV rmse (lower is better)", -1),
        ("neg_log_loss", "CV log loss (lower is better)", -1),
        ("roc_auc", "CV roc_auc (higher is better)", 1),
    ],
)
def test_the_reports_cv_panel_shows_an_error_as_the_error(scoring, label, sign):
    # scikit-learn's neg_ scores are errors negated: the panel shows the
    # RMSE a user reads elsewhere in the report, not -RMSE.
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sparseboost.cli.budget import Budget
    from sparseboost.cli.report import _cv_panel

    cv = [{"order": "entry", "k": k, "mean": m, "std": 0.1} for k, m in ((1, -3.0), (2, -2.0))]
    budget = Budget("cv", 2, cv=cv, order="entry", rule="one_se", folds=5, scoring=scoring)
    fig, ax = plt.subplots()
    _cv_panel(ax, budget)
    assert ax.get_ylabel() == label
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [sign * -3.0, sign * -2.0])
    plt.close(fig)
