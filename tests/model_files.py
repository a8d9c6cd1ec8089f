"""Model files for the property tests (``tests/test_properties_*.py``):
helpers to edit a saved model's JSON, ``ModelFileWorker`` (a child process
that loads model files and calls every method of the loaded estimator),
``check_worker_results`` (the contract for those calls), and a child-process
runner for parameter values that may hang the process.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import numpy as np
from contract import TESTS_DIR, example, names_any, tally, tmp_path

# -- model files ---------------------------------------------------------------


def leaf_paths(doc, prefix=()):
    """Every path (tuple of keys and indices) into a JSON document."""
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += leaf_paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += leaf_paths(v, prefix + (i,))
    return out


def get_path(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def set_path(doc, path, value):
    get_path(doc, path[:-1])[path[-1]] = value


def path_names(path):
    """The names a message may use for the field at ``path``: its keys,
    without a trailing underscore and in the singular (``trees`` -> ``tree``)."""
    names = set()
    for p in path:
        if isinstance(p, str):
            for name in (p, p.rstrip("_")):
                names.add(name)
                if name.endswith("s") and len(name) > 2:
                    names.add(name[:-1])
    return names


# The worker: a child process that loads model files and calls every method
# of the loaded estimator, so that a file that aborts the interpreter (or
# hangs in it) is reported as a failure instead of killing pytest.

_WORKER_CODE = """
import json, sys, warnings, traceback
warnings.simplefilter("ignore")
import numpy as np
import sparseboost

def call(fn):
    try:
        value = fn()
        if hasattr(value, "toarray"):
            value = value.toarray()
        value = np.asarray(value)
        try:
            listed = value.astype(np.float64).tolist()
        except (TypeError, ValueError):
            listed = [str(v) for v in value.ravel().tolist()]
        return {"status": "ok", "value": listed, "dtype": str(value.dtype), "shape": list(value.shape)}
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"status": "raised", "type": type(e).__name__, "module": type(e).__module__,
                "allowed": isinstance(e, (ValueError, TypeError)), "message": str(e)[:600]}

out = sys.stdout
sys.stdout = sys.stderr
for line in sys.stdin:
    request = json.loads(line)
    X = np.asarray(request["X"], dtype=np.float64)
    task = request.get("task")
    results = {}
    holder = {}

    def load():
        holder["est"] = sparseboost.load_model(request["path"])
        return np.zeros(0)

    results["load_model"] = call(load)
    if results["load_model"]["status"] == "ok":
        est = holder["est"]
        args = (X,) if task is None else (X, np.asarray(task))
        results["predict"] = call(lambda: est.predict(*args))
        if hasattr(type(est), "predict_proba"):
            results["predict_proba"] = call(lambda: est.predict_proba(*args))
            results["decision_function"] = call(lambda: est.decision_function(*args))
            results["classes_"] = call(lambda: est.classes_)
        results["feature_importances_"] = call(lambda: est.feature_importances_)
        results["split_importance"] = call(lambda: est.get_feature_importance("split"))
        results["get_support"] = call(lambda: est.get_support())
        results["transform"] = call(lambda: est.transform(X))
        results["selected_features_"] = call(lambda: est.selected_features_)
        results["n_features_in_"] = call(lambda: est.n_features_in_)
        if hasattr(est, "feature_names_in_"):
            results["feature_names_in_"] = call(lambda: est.feature_names_in_)
    out.write("@@" + json.dumps(results) + "\\n")
    out.flush()
"""


class ModelFileWorker:
    """One child Python that answers requests; restarted after a crash or
    a hang (a request that takes longer than ``timeout`` seconds)."""

    def __init__(self, timeout=10.0):
        self.timeout = timeout
        self.proc = None

    def _start(self):
        self.stderr = open(tmp_path(".stderr"), "w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            cwd=TESTS_DIR,
            env={**os.environ, "RUST_BACKTRACE": "0"},
        )

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _stderr_tail(self):
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()[-600:]

    def run(self, path, X, task=None):
        """Results of every call on the model at ``path``, or
        ``{"crash": description}`` if the child died or hung."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        request = {
            "path": path,
            "X": np.asarray(X).tolist(),
            "task": None if task is None else np.asarray(task).tolist(),
        }
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                return {
                    "crash": f"no answer within {self.timeout} s (hung); stderr: {self._stderr_tail()!r}"
                }
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                tail = self._stderr_tail()
                self.proc = None
                return {"crash": f"the interpreter died (exit code {code}); stderr: {tail!r}"}
            if line.startswith("@@"):
                return json.loads(line[2:])


def check_worker_results(results, field_names, n):
    """The contract for the calls on a loaded (possibly corrupted) model:
    each call either raises ValueError/TypeError naming one of
    ``field_names`` (any message if None: a file that is not JSON has no
    field to name) or gives valid outputs. Returns a list of problems."""
    if "crash" in results:
        return [results["crash"]]
    problems = []
    for call, r in results.items():
        if r["status"] == "raised":
            if not r["allowed"]:
                problems.append(f"{call} raised {r['module']}.{r['type']}: {r['message'][:300]!r}")
            elif field_names is not None and not names_any(r["message"], field_names, plural=True):
                problems.append(
                    f"{call} raised {r['type']} naming none of {sorted(field_names)}: "
                    f"{r['message'][:300]!r}"
                )
    if problems or results["load_model"]["status"] != "ok":
        return problems
    ok = {
        k: np.asarray(r["value"])
        for k, r in results.items()
        if r["status"] == "ok" and k != "load_model"
    }
    d = int(ok["n_features_in_"]) if "n_features_in_" in ok else None
    if "predict" in ok:
        p = ok["predict"]
        if p.shape != (n,):
            problems.append(f"predict has shape {p.shape}")
        if "classes_" in ok:
            if not np.all(np.isin(p, ok["classes_"])):
                problems.append(f"predict gives labels outside classes_ {ok['classes_']}: {p[:4]}")
        elif p.dtype.kind != "f" or not np.all(np.isfinite(p)):
            problems.append(f"predict is not finite: {p[:4]}")
    for key in ("decision_function",):
        if key in ok and (ok[key].shape != (n,) or not np.all(np.isfinite(ok[key]))):
            problems.append(f"{key} is not finite or has shape {ok[key].shape}: {ok[key][:4]}")
    if "predict_proba" in ok:
        pp = ok["predict_proba"]
        if (
            pp.shape != (n, 2)
            or not np.all(np.isfinite(pp))
            or not np.all((pp >= 0) & (pp <= 1))
            or not np.all(np.abs(pp.sum(axis=1) - 1) <= 1e-12)
        ):
            problems.append(f"predict_proba is invalid: {pp[:2]}")
    if "classes_" in ok:
        c = results["classes_"]
        if c["shape"] != [2] or len({json.dumps(v) for v in c["value"]}) != 2:
            problems.append(f"classes_ is not 2 distinct labels: {c['value']}")
    for key in ("feature_importances_", "split_importance"):
        if key in ok:
            fi = ok[key]
            if d is not None and fi.shape != (d,):
                problems.append(f"{key} has shape {fi.shape}, n_features_in_ is {d}")
            elif not np.all(np.isfinite(fi)) or not np.all(fi >= 0):
                problems.append(f"{key} is not finite and >= 0: {fi}")
            elif key == "feature_importances_" and not (fi.sum() == 0 or abs(fi.sum() - 1) <= 1e-9):
                problems.append(f"feature_importances_ sums to {fi.sum()}")
    if (
        "feature_names_in_" in results
        and d is not None
        and results["feature_names_in_"]["shape"] != [d]
    ):
        problems.append(
            f"feature_names_in_ has shape {results['feature_names_in_']['shape']}, "
            f"n_features_in_ is {d}"
        )
    if "selected_features_" in ok and d is not None:
        sel = ok["selected_features_"]
        if sel.size and (np.any(sel < 0) or np.any(sel >= d) or len(set(sel.tolist())) != sel.size):
            problems.append(f"selected_features_ {sel} is not distinct indices < {d}")
        if "transform" in ok and ok["transform"].shape != (n, sel.size):
            problems.append(f"transform has shape {ok['transform'].shape}")
    return problems


# -- parameter values that may hang the process (thousands of threads) -------

_PARAMETER_CASE = """
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np
from sparseboost import SparseBoostRegressor
name, value = sys.argv[1], eval(sys.argv[2])
X = np.random.default_rng(0).random((30, 3))
# a constant target: no tree can split, so a huge n_estimators ends at once
y = np.ones(30) if name == "n_estimators" else X[:, 0]
try:
    est = SparseBoostRegressor(n_estimators=2, **{name: value}).fit(X, y)
    p = est.predict(X)
    print("OK", bool(np.all(np.isfinite(p))) and p.shape == (30,))
except (ValueError, TypeError) as e:
    print("REJECTED", type(e).__name__, str(e).replace("\\n", " "))
except BaseException as e:
    print("RAISED", type(e).__module__ + "." + type(e).__name__, str(e).replace("\\n", " "))
"""


def parameter_case_in_subprocess(name, value, timeout=25):
    """Fit and predict a regressor with ``name=eval(value)`` in a child
    process. None if it met the contract (finite predictions within
    ``timeout`` s, or a ValueError/TypeError naming ``name``), else what
    went wrong."""
    example()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PARAMETER_CASE, name, value],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=TESTS_DIR,
            env={**os.environ, "RUST_BACKTRACE": "0"},
        )
    except subprocess.TimeoutExpired:
        return f"{name}={value}: fit + predict did not finish within {timeout} s"
    last = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode != 0:
        return f"{name}={value}: the interpreter died ({done.returncode}): {done.stderr[-500:]}"
    tally(last.startswith("OK"))
    if last.startswith("REJECTED"):
        return (
            None
            if names_any(last, {name})
            else f"{name}={value}: the message does not name {name}: {last}"
        )
    return None if last == "OK True" else f"{name}={value}: {last}"
