"""``report.html`` and its four plots (PNG files beside it, referenced by
relative path so the folder can be moved or zipped whole):

1. the selection path: features used and the validation metric after each
   round of the fit;
2. the validation metric against K, for unpenalised boosters refitted on the
   first K original columns to enter, beside the K most important columns
   (total gain) of an unpenalised booster on all columns (LightGBM-style
   top-K, with sparseboost's own booster so LightGBM is not needed);
3. pairwise |correlation| of the selected columns beside that of the top-K
   columns (as in the GT-GBM paper's Figure 3);
4. the gain importances of the selected columns.

Refits are kept cheap (K at most ``MAX_K``, small trees) so that the report
costs seconds, not minutes.
"""

from __future__ import annotations

import html
import os

import numpy as np

from . import methods
from .scoring import headline, headline_value

MAX_K = 20
# Small trees for the refits of plot 2: the curves compare feature sets, not
# tuned models.
REFIT = {"n_estimators": 60, "max_leaves": 7, "learning_rate": 0.15, "penalty": "none"}
PLOTS = ("selection_path.png", "metric_vs_k.png", "correlation.png", "importance.png")
CITATION = (
    "Madelon: I. Guyon, S. Gunn, A. Ben-Hur, G. Dror. Result analysis of the NIPS 2003 "
    "feature selection challenge. NIPS 2004. UCI Machine Learning Repository, CC BY 4.0."
)


def write_report(out, summary, encoding, fitted, parts, history, progress, budget):
    import matplotlib

    matplotlib.use("Agg")
    # Column names are text: "$" in one is no formula.
    with matplotlib.rc_context({"text.parse_math": False}):
        _write_report(out, summary, encoding, fitted, parts, history, progress, budget)


def _write_report(out, summary, encoding, fitted, parts, history, progress, budget):
    import matplotlib.pyplot as plt

    task = summary["task"]
    metric, higher = headline(task)
    origins = np.asarray(encoding.origins(), dtype=object)
    selected_cols = encoding.original_order(fitted.selected)
    X_fit, y_fit, g_fit = parts["fit"]

    progress.stage("report: unpenalised booster for the top-K comparison")
    plain = methods.fit_booster(
        task,
        X_fit,
        y_fit,
        g_fit,
        None,
        random_state=summary["parameters"]["random_state"],
        **{**REFIT, "n_estimators": 100},
    )
    plain_gain = _by_column(plain.get_feature_importance("gain"), origins)
    top_cols = [c for c in sorted(plain_gain, key=lambda c: -plain_gain[c]) if plain_gain[c] > 0]

    k_max = min(MAX_K, max(len(selected_cols), 1))
    curves = {}
    for label, order in (("selection order", selected_cols), ("top-K by gain", top_cols)):
        ks, values = [], []
        for k in range(1, min(k_max, len(order)) + 1):
            columns = np.flatnonzero(np.isin(origins, order[:k]))
            values.append(_refit_score(task, parts, columns, summary))
            ks.append(k)
        curves[label] = (ks, values)
        progress.stage(f"report: {label} refits done (K up to {len(ks)})")

    fig, ax = plt.subplots(figsize=(7, 4))
    rounds = [r.round + 1 for r in history]
    ax.step(rounds, [r.n_features for r in history], where="post", color="tab:blue")
    ax.set_xlabel("round")
    ax.set_ylabel("features used", color="tab:blue")
    # A count: whole ticks, from 0 (a path that starts with 6 features
    # would otherwise read as starting from none).
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(bottom=0, top=max([r.n_features for r in history], default=0) + 1)
    values = [_first_metric(r.eval) for r in history]
    if any(v is not None for v in values):
        twin = ax.twinx()
        twin.plot(rounds, values, color="tab:orange")
        twin.set_ylabel(f"validation {_first_name(history)}", color="tab:orange")
    ax.set_title(
        "Selection path"
        + (
            ""
            if fitted.model_columns is None
            else " (the booster refitted on the selected columns)"
        )
    )
    _save(fig, out, PLOTS[0])

    if budget.chosen_by == "cv":
        fig, (cv_ax, ax) = plt.subplots(1, 2, figsize=(12, 4))
        _cv_panel(cv_ax, budget)
    else:
        fig, ax = plt.subplots(figsize=(7, 4))
    for label, (ks, vals) in curves.items():
        ax.plot(ks, vals, marker="o", label=label)
    ax.set_xlabel("K (original columns)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel(
        f"validation {metric}" + (" (higher is better)" if higher else " (lower is better)")
    )
    ax.set_title("Unpenalised refits on the first K columns")
    ax.legend()
    _save(fig, out, PLOTS[1])

    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, (label, cols) in zip(
        axes, (("selected", selected_cols[:k_max]), ("top-K by gain", top_cols[:k_max]))
    ):
        # Encoded columns in the list's order (entry or importance order).
        columns = np.concatenate(
            [np.flatnonzero(origins == c) for c in cols] or [np.zeros(0, np.intp)]
        )[:MAX_K]
        names = [encoding.encoded_names()[j] for j in columns]
        image = ax.imshow(_abs_correlation(X_fit, columns), vmin=0, vmax=1, cmap="viridis")
        ax.set_title(f"|correlation|, {label} ({len(columns)})")
        ax.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
        ax.set_yticks(range(len(names)), names, fontsize=7)
    fig.colorbar(image, ax=axes, shrink=0.8)
    _save(fig, out, PLOTS[2], tight=False)

    gains = _by_column(
        fitted.model.get_feature_importance("gain", normalize=True),
        origins if fitted.model_columns is None else origins[fitted.model_columns],
    )
    shown = selected_cols[:40]
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.25 * len(shown) + 1)))
    ax.barh(range(len(shown)), [gains.get(c, 0.0) for c in shown], color="tab:green")
    ax.set_yticks(range(len(shown)), shown, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("share of the model's total gain")
    ax.set_title("Gain importance of the selected columns (entry order)")
    _save(fig, out, PLOTS[3])

    with open(os.path.join(out, "report.html"), "w", encoding="utf-8") as f:
        f.write(_html(summary, curves, metric))


_ERROR_NAMES = {"root_mean_squared_error": "rmse", "log_loss": "log loss"}


def _cv_panel(ax, budget):
    """The CV mean ± one standard error against K, per order, and the
    chosen K."""
    labels = {"entry": "selection order", "unpenalised": "top-K by gain"}
    # scikit-learn's "neg_" scorers are errors negated so that higher is
    # better: shown as the error itself, as the validation panel is.
    name, sign = budget.scoring, 1.0
    if name.startswith("neg_"):
        name, sign = _ERROR_NAMES.get(name[4:], name[4:]), -1.0
    for order in dict.fromkeys(r["order"] for r in budget.cv):
        rows = [r for r in budget.cv if r["order"] == order]
        ks = [r["k"] for r in rows]
        mean = sign * np.array([r["mean"] for r in rows])
        se = np.array([r["std"] for r in rows]) / np.sqrt(budget.folds)
        ax.errorbar(ks, mean, yerr=se, marker="o", capsize=3, label=labels.get(order, order))
    ax.axvline(budget.k, color="tab:red", linestyle="--", label=f"chosen K = {budget.k}")
    ax.set_xlabel("K (encoded columns)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel(f"CV {name} ({'higher' if sign > 0 else 'lower'} is better)")
    ax.set_title(f"{budget.folds}-fold CV on the fit rows (mean ± 1 SE, rule {budget.rule})")
    ax.legend()


def _refit_score(task, parts, columns, summary):
    """The headline validation metric of a small unpenalised booster on
    ``columns``."""
    X_fit, y_fit, g_fit = parts["fit"]
    X_val, y_val, g_val = parts["validation"]
    model = methods.fit_booster(
        task,
        X_fit[:, columns],
        y_fit,
        g_fit,
        None,
        random_state=summary["parameters"]["random_state"],
        **REFIT,
    )
    return headline_value(task, model, X_val[:, columns], y_val, g_val)


def _by_column(values, origins) -> dict:
    """Per-encoded-column values summed per original column."""
    total = {}
    for name, v in zip(origins, values):
        total[name] = total.get(name, 0.0) + float(v)
    return total


def _abs_correlation(X, columns) -> np.ndarray:
    """|Pearson correlation| of a few columns; only they are densified. A
    missing value is replaced by its column's mean (it adds no covariance);
    a constant column correlates 0 with others."""
    block = X[:, columns]
    block = np.asarray(block.toarray() if hasattr(block, "toarray") else block, dtype=float)
    if block.shape[1] == 0:
        return np.zeros((0, 0))
    means = np.nanmean(np.where(np.isnan(block), np.nan, block), axis=0)
    block = np.where(np.isnan(block), np.nan_to_num(means), block)
    centred = block - block.mean(axis=0)
    norms = np.sqrt((centred**2).sum(axis=0))
    norms[norms == 0] = np.inf
    corr = (centred.T @ centred) / np.outer(norms, norms)
    np.fill_diagonal(corr, 1.0)
    return np.abs(corr)


def _first_metric(evals):
    for metrics in evals.values():
        for value in metrics.values():
            return value
    return None


def _first_name(history):
    for metrics in history[0].eval.values() if history else []:
        for name in metrics:
            return name
    return "metric"


def _save(fig, out, name, tight=True):
    if tight:
        fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=100)
    import matplotlib.pyplot as plt

    plt.close(fig)


def _mu_text(parameters) -> str:
    """μ as given and, when given relative to μ_max, the value it resolved
    to (``0.05*mu_max = 7.857``)."""
    mu, value = parameters["mu"], parameters.get("mu_value")
    if mu is None:
        return "none (the model has no penalty)"
    if value is None or not isinstance(mu, str):
        return _fmt(mu)
    return f"{mu} = {_fmt(value)}"


def _mu_max_text(parameters, split_search) -> str:
    """μ_max, or why the fit did not measure it."""
    mu_max = parameters["mu_max"]
    if mu_max is None and parameters["mu"] is not None and split_search == "group_testing":
        return "not measured (group testing with an absolute mu)"
    return _fmt(mu_max)


def _html(summary, curves, metric) -> str:
    e = html.escape
    p = summary["parameters"]
    shape = summary["data_shape"]
    rows = "".join(
        f"<tr><th>{e(str(k))}</th><td>{e(_fmt(v))}</td></tr>"
        for k, v in [
            ("data", summary["data"]),
            ("task", summary["task"]),
            ("method", summary["method"]),
            ("split search used", summary["split_search"]),
            ("mu (resolved)", _mu_text(p)),
            ("mu_max", _mu_max_text(p, summary["split_search"])),
            ("--n-features", p["n_features"]),
            ("budget K", _budget_text(summary.get("budget"))),
            ("--test-size", p["test_size"]),
            ("--random-state", p["random_state"]),
            (
                "rows × columns",
                f"{summary['data_shape']['rows']} × {summary['data_shape']['columns']}"
                f" ({summary['data_shape']['encoded_columns']} encoded)",
            ),
            (
                "fit / validation / test rows",
                f"{shape['fit_rows']} / {shape['validation_rows']} / {shape['test_rows']}",
            ),
            ("fit time", f"{summary['fit_seconds']:.2f} s"),
        ]
    )
    test = "".join(
        f"<tr><th>{e(k)}</th><td>{e(_fmt(v))}</td></tr>" for k, v in summary["test_metrics"].items()
    )
    selected = "".join(f"<li><code>{e(n)}</code></li>" for n in summary["selected_features"])
    cite = f"<p class='cite'>{e(CITATION)}</p>" if "Madelon" in summary["data"] else ""
    # What the reading changed (columns left out, rows without a target):
    # the same notes as stderr and metrics.json.
    notes = "".join(f"<li>{e(note)}</li>" for note in summary.get("notes", []))
    notes = f"<h2>Notes on the input</h2><ul>{notes}</ul>" if notes else ""
    figures = [
        ("Selection path: features used and validation metric after each round", PLOTS[0]),
        (
            ("The CV curve that chose K, and v" if summary["budget"]["chosen_by"] == "cv" else "V")
            + f"alidation {metric} against K: the selection order beside top-K by gain",
            PLOTS[1],
        ),
        ("Pairwise |correlation|: selected columns beside top-K-by-gain columns", PLOTS[2]),
        ("Gain importance of the selected columns", PLOTS[3]),
    ]
    images = "".join(
        f"<figure><img src='{name}' alt='{e(caption)}'><figcaption>{e(caption)}</figcaption>"
        "</figure>"
        for caption, name in figures
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sparseboost select report</title>
<style>
body {{ font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin-bottom: 1em; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: left; }}
th {{ background: #f4f4f4; }}
ol {{ columns: 4; }}
figure {{ margin: 1.5em 0; }} img {{ max-width: 100%; }}
figcaption {{ color: #555; font-size: 0.9em; }}
.cite {{ font-size: 0.85em; color: #555; }}
</style></head><body>
<h1>sparseboost select</h1>
<h2>Run</h2><table>{rows}</table>
{cite}
{notes}
<h2>Test metrics</h2><table>{test}</table>
<h2>Selected columns ({summary["n_selected"]}, in entry order)</h2><ol>{selected}</ol>
{images}
</body></html>
"""


def _budget_text(record) -> str:
    if not record or record["k"] is None:
        return "none (the penalty alone decides)"
    how = {"cv": "chosen by CV", "user": "given", "default": "the default for this method"}
    return f"{record['k']} ({how[record['chosen_by']]})"


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "—" if value is None else str(value)
