"""
The command line: ``sparseboost select`` and its report
=======================================================

``sparseboost select DATA --target COL`` is the library's main job for
people who have a table rather than a Python pipeline: it reads a CSV,
Parquet, svmlight or NumPy file, encodes its columns (categorical ones
included), chooses the number of features by 5-fold cross-validation on
the training rows, fits the model, and writes the selected columns, the
model, the test metrics and an HTML report with four figures.

This example writes a small CSV to a temporary folder, runs the command
in-process through :func:`sparseboost.cli.main` (the same as running
``sparseboost select ...`` or ``python -m sparseboost select ...`` in a
shell), and reads back ``metrics.json`` and one of the report's figures.
"""

# %%
# A small table
# -------------
# 3000 rows: 30 numeric columns of which 5 carry signal, a categorical
# ``region`` column that shifts the odds, an identifier column we tell the
# command to drop, and the binary target ``churned``.
import json
import os
import shutil
import tempfile

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sparseboost.cli
from sklearn.datasets import make_classification

X, y = make_classification(
    n_samples=3000, n_features=30, n_informative=5, n_redundant=0, shuffle=False, random_state=0
)
rng = np.random.default_rng(0)
table = pd.DataFrame(X, columns=[f"num_{j:02d}" for j in range(30)])
regions = np.array(["north", "south", "east", "west"])
# region "south" makes churn more likely, "north" less
region = np.where(
    y == 1,
    rng.choice(regions, 3000, p=[0.1, 0.5, 0.2, 0.2]),
    rng.choice(regions, 3000, p=[0.5, 0.1, 0.2, 0.2]),
)
table.insert(0, "region", region)
table.insert(0, "customer_id", [f"C{i:05d}" for i in range(3000)])
table["churned"] = y

workdir = tempfile.mkdtemp(prefix="sparseboost-example-")
csv_path = os.path.join(workdir, "customers.csv")
table.to_csv(csv_path, index=False)
print(table.head(3).iloc[:, :6])

# %%
# Running the command
# -------------------
# ``--quiet`` turns off the progress bar; ``--n-jobs 2`` caps the threads.
# The command prints a three-line summary and returns the exit status (0
# on success, 2 with a one-line ``sparseboost: error: ...`` otherwise).
# We run it from the temporary folder, with relative paths.
previous_dir = os.getcwd()
os.chdir(workdir)
try:
    status = sparseboost.cli.main(
        [
            "select",
            "customers.csv",
            "--target",
            "churned",
            "--drop",
            "customer_id",
            "--n-jobs",
            "2",
            "--random-state",
            "0",
            "--out",
            "out",
            "--quiet",
        ]
    )
finally:
    os.chdir(previous_dir)
out = os.path.join(workdir, "out")
print("exit status:", status)
print("files written:", sorted(os.listdir(out)))

# %%
# What ``metrics.json`` records
# -----------------------------
with open(os.path.join(out, "metrics.json"), encoding="utf-8") as f:
    metrics = json.load(f)
print(
    "task:",
    metrics["task"],
    "| method:",
    metrics["method"],
    "| split search:",
    metrics["split_search"],
)
print(
    "rows (fit / validation / test):",
    metrics["data_shape"]["fit_rows"],
    metrics["data_shape"]["validation_rows"],
    metrics["data_shape"]["test_rows"],
)
print(
    "budget chosen by",
    metrics["budget"]["chosen_by"],
    "->",
    metrics["budget"]["k"],
    "features, rule",
    metrics["budget"]["rule"],
)
print("selected, in entry order:", metrics["selected_features"])
print("test metrics:", {k: round(v, 4) for k, v in metrics["test_metrics"].items()})

# %%
# The CV budget curve from ``metrics.json``
# -----------------------------------------
# ``budget.cv`` holds the mean and standard deviation of the 5-fold CV
# score (ROC AUC here) for each budget k; the rule kept the fewest
# features within one standard error of the best.
cv = pd.DataFrame(metrics["budget"]["cv"])
folds = metrics["budget"]["folds"]
cv["se"] = cv["std"] / np.sqrt(folds)
print(cv.round(4).to_string(index=False))

fig, ax = plt.subplots(figsize=(7, 4))
ax.errorbar(cv["k"], cv["mean"], yerr=cv["se"], marker="o", capsize=3, label="CV mean ± SE")
top = cv.loc[cv["mean"].idxmax()]
ax.axhline(top["mean"] - top["se"], color="grey", linestyle=":", label="best mean − one SE")
chosen = cv.loc[cv["k"] == metrics["budget"]["k"]].iloc[0]
ax.plot(
    chosen["k"],
    chosen["mean"],
    "*",
    color="black",
    markersize=15,
    zorder=3,
    label=f"chosen: {metrics['budget']['k']} features",
)
ax.set_xscale("log")
ax.set_xticks(cv["k"], [str(k) for k in cv["k"]])
ax.set_xlabel("budget k")
ax.set_ylabel(f"{folds}-fold CV {metrics['budget']['scoring']}")
ax.set_title("sparseboost select: budget chosen by CV")
ax.legend(loc="lower right")
fig.tight_layout()

# %%
# One of the report's figures
# ---------------------------
# ``report.html`` embeds four PNGs written beside it; here is the second,
# the validation metric of boosters refitted on the first K features to
# enter, beside the K most important features of an unpenalised booster.
image = plt.imread(os.path.join(out, "metric_vs_k.png"))
height, width = image.shape[:2]
fig, ax = plt.subplots(figsize=(10, 10 * height / width))
ax.imshow(image)
ax.set_axis_off()
ax.set_title("metric_vs_k.png from the report")
fig.tight_layout()

shutil.rmtree(workdir)

# %%
# Conclusions
# -----------
# The command dropped the identifier, kept ``region`` as one categorical
# feature, and chose its budget by cross-validation on the training rows:
# 8 features, the fewest whose CV AUC is within one standard error of the
# best. Those 8 are the five informative numeric columns (``num_00`` to
# ``num_04``: the data were made with ``shuffle=False``), ``region`` and two
# noise columns. The test metrics are those of the final model on the
# held-out quarter of the rows.
plt.show()
