"""The test metrics ``sparseboost select`` reports for each task, and the
one number its plots compare models by."""

from __future__ import annotations

import numpy as np


def test_metrics(task, model, X, y, groups) -> dict:
    """AUC, accuracy and log-loss (classification), RMSE and R²
    (regression) or NDCG@10 (ranking; ``groups`` are query sizes). A
    metric that is undefined on these rows is None (JSON null), never NaN."""
    metrics = _metrics(task, model, X, y, groups)
    return {k: v if v is not None and np.isfinite(v) else None for k, v in metrics.items()}


def _metrics(task, model, X, y, groups) -> dict:
    from sklearn.metrics import accuracy_score, log_loss, mean_squared_error, r2_score

    if task == "regression":
        predicted = model.predict(X)
        return {
            "rmse": float(np.sqrt(mean_squared_error(y, predicted))),
            "r2": float(r2_score(y, predicted)),
        }
    if task == "ranking":
        return {"ndcg@10": ndcg(y, model.predict(X), groups, 10)}
    proba = model.predict_proba(X)
    classes = model.classes_
    metrics = {
        "accuracy": float(accuracy_score(y, classes[np.argmax(proba, axis=1)])),
        "log_loss": float(log_loss(y, proba, labels=classes)),
    }
    metrics["auc"] = auc(y, proba, classes)
    return metrics


def auc(y, proba, classes):
    """ROC AUC (one-vs-rest, macro, for more than 2 classes); None when the
    rows hold a single class."""
    from sklearn.metrics import roc_auc_score

    if len(np.unique(y)) < 2:
        return None
    if len(classes) == 2:
        return float(roc_auc_score(y == classes[1], proba[:, 1]))
    try:
        return float(roc_auc_score(y, proba, multi_class="ovr", labels=classes))
    except ValueError:  # a class absent from these rows
        return None


def ndcg(y, scores, sizes, k) -> float:
    """Mean NDCG@k over the queries (LightGBM's convention: gain 2^l − 1,
    a query without relevant rows counts 1)."""
    values, start = [], 0
    for size in sizes:
        labels = np.asarray(y[start : start + size], dtype=float)
        order = np.argsort(-scores[start : start + size], kind="stable")
        start += size
        discount = 1.0 / np.log2(np.arange(2, min(k, size) + 2))
        ideal = np.sum((2 ** np.sort(labels)[::-1][:k] - 1) * discount)
        got = np.sum((2 ** labels[order][:k] - 1) * discount)
        values.append(1.0 if ideal == 0 else got / ideal)
    return float(np.mean(values))


def headline(task) -> tuple:
    """The metric the plots show, and whether higher is better."""
    return {"regression": ("rmse", False), "ranking": ("ndcg@10", True)}.get(task, ("auc", True))


def headline_value(task, model, X, y, groups):
    """That metric for ``model`` on the rows (falls back to accuracy for a
    classification whose AUC is undefined)."""
    metrics = test_metrics(task, model, X, y, groups)
    name, _ = headline(task)
    value = metrics.get(name)
    return metrics["accuracy"] if value is None else value
