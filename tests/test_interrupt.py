"""Ctrl-C stops a long fit with KeyboardInterrupt; the interpreter lives on."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# Each script prints "fitting", then fits for far longer than the test
# waits, and exits 0 only if the fit ended with KeyboardInterrupt.
FITS = {
    "single-task": "SparseBoostRegressor(n_estimators=100000, learning_rate=0.01).fit(X, y)",
    "multitask": (
        "MultiTaskSparseBoostRegressor(n_estimators=100000, learning_rate=0.01)"
        ".fit(X, y, np.arange(len(y)) % 3)"
    ),
}
SCRIPT = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from sparseboost import MultiTaskSparseBoostRegressor, SparseBoostRegressor
    X = np.random.default_rng(0).random((20000, 200))
    y = X[:, 0] + X[:, 1]
    print("fitting", flush=True)
    start = time.time()
    try:
        {fit}
    except KeyboardInterrupt:
        print(f"interrupted after {{time.time() - start:.1f}}s", flush=True)
        sys.exit(0)
    print("finished without interruption", flush=True)
    sys.exit(1)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("kind", FITS)
def test_ctrl_c_interrupts_a_fit(kind):
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT.format(fit=FITS[kind])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "fitting"
    time.sleep(1.5)
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, (out, err)
    assert "interrupted" in out
