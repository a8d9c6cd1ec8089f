"""The task a target asks for, and the held-out rows: a test set (and a
validation set from the training rows) that is stratified by class for
classification and made of whole queries for ranking."""

from __future__ import annotations

import dataclasses
import decimal

import numpy as np

from .._validation import MAX_INTEGER_CLASSES
from .errors import CliError


def resolve_task(task: str, y, has_groups: bool, file_rows=None) -> str:
    """``--task auto``: ranking with query ids, else classification for a
    non-numeric target or one of few integer values, else regression."""
    values = np.asarray(y)
    missing = _missing(values)
    if missing.any():
        raise CliError(f"the target has {int(missing.sum())} missing value(s); drop those rows")
    distinct = np.unique(values.astype(str) if values.dtype == object else values)
    if len(distinct) < 2:
        raise CliError(
            f"the target has one value ({distinct[0].item()!r}); there is nothing to predict"
        )
    if task == "ranking" and not has_groups:
        raise CliError("--task ranking needs query ids: --group COL (or qid: in an svmlight file)")
    if task not in ("auto", "ranking") and has_groups:
        raise CliError(f"--group gives query ids, which only --task ranking takes, not {task}")
    if task == "ranking" or (task == "auto" and has_groups):
        _check_relevance(values, file_rows)
        return "ranking"
    if task == "auto":
        numeric = values.dtype.kind in "iuf"
        integral = numeric and (
            values.dtype.kind in "iu" or bool(np.all(values == np.round(values)))
        )
        few = integral and len(distinct) <= MAX_INTEGER_CLASSES
        task = "regression" if numeric and not few else "classification"
    if task == "regression":
        _check_regression_target(values, file_rows)
    return task


def _file_row(position: int, file_rows) -> int:
    """The file's row (from 1, the header not counted) of the target's
    value at ``position``."""
    return int(position if file_rows is None else file_rows[position]) + 1


def _check_regression_target(values, file_rows) -> None:
    """Numbers within squared error's range, checked here so that an error
    names the file's row (the engine's would name one of the fit part's)."""
    from .._core import MAX_ABS_TARGET

    if values.dtype.kind not in "iuf":
        return  # (the fit names what is no number)
    beyond = np.flatnonzero(np.abs(values.astype(np.float64)) > MAX_ABS_TARGET)
    if beyond.size:
        row = int(beyond[0])
        raise CliError(
            f"regression takes targets within ±{MAX_ABS_TARGET:g}; row "
            f"{_file_row(row, file_rows)} (from 1, the header not counted) holds "
            f"{values[row]:g}, and {beyond.size} rows in all are beyond it (rescale the target)"
        )


def _check_relevance(values, file_rows=None) -> None:
    """A ranking target: relevance labels 0, 1, 2, ... up to LambdaRank's
    largest (its gains are 2^label - 1), checked here so that an error
    names the file's row, not one of the fit part's."""
    import pandas as pd

    from .._core import MAX_RELEVANCE

    numeric = values.dtype.kind in "iuf"
    numbers = values if numeric else pd.to_numeric(pd.Series(values), errors="coerce").to_numpy()
    bad = np.flatnonzero(np.isnan(numbers) | (numbers < 0) | (numbers != np.round(numbers)))
    if not numeric and bad.size == 0:
        bad = np.arange(len(values))  # numbers written as text: still no labels
    if bad.size:
        row = int(bad[0])
        value = values[row].item() if isinstance(values[row], np.generic) else values[row]
        raise CliError(
            "ranking (--group) needs the target to hold relevance labels 0, 1, 2, ...; row "
            f"{_file_row(row, file_rows)} (from 1, the header not counted) holds "
            f"{value!r}, and {bad.size} rows in all hold no such label"
        )
    above = np.flatnonzero(values > MAX_RELEVANCE)
    if above.size:
        row = int(above[0])
        raise CliError(
            f"ranking (--group) takes relevance labels 0 to {MAX_RELEVANCE:g}; row "
            f"{_file_row(row, file_rows)} "
            f"(from 1, the header not counted) holds {values[row]:g}, and {above.size} rows "
            f"in all are above {MAX_RELEVANCE:g}"
        )


def drop_missing_targets(data):
    """``data`` without its rows whose target is missing, and how many
    there were (a ranking file's query ids stay with their rows)."""
    if data.y is None:
        return data, 0
    values = np.asarray(data.y)
    if values.dtype.kind == "f" and np.isinf(values).any():
        rows = np.flatnonzero(np.isinf(values))
        raise CliError(
            f"the target holds {rows.size} infinite value(s), the first in row {rows[0] + 1} "
            "(from 1, the header not counted); give finite numbers, or leave the cell empty "
            "to leave the row out"
        )
    missing = _missing(values)
    if not missing.any():
        return dataclasses.replace(data, y=_inferred(data.y)), 0
    keep = ~missing
    if not keep.any():
        raise CliError("the target is missing in every row; there is nothing to predict")
    frame = None if data.frame is None else data.frame[keep]
    X = None if data.X is None else data.X[np.flatnonzero(keep)]
    groups = None if data.groups is None else data.groups[keep]
    y = _inferred(data.y[keep])
    rows = np.flatnonzero(keep)
    kept = dataclasses.replace(data, frame=frame, X=X, y=y, groups=groups, file_rows=rows)
    return kept, int(missing.sum())


def _inferred(values):
    """An object array's values in their own dtype once its missing cells
    are gone (TRUE/FALSE with empty cells were objects: bools as bool,
    numbers as numbers), as pandas reads a column without them; decimals
    (a Parquet decimal128 target) as float64, as a decimal feature is."""
    if values.dtype != object:
        return values
    import pandas as pd

    if len(values) and all(isinstance(v, decimal.Decimal) for v in values):
        return values.astype(np.float64)
    return pd.Series(values).infer_objects().to_numpy()


def _missing(values) -> np.ndarray:
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype == object:
        import pandas as pd

        return np.asarray(pd.isna(values), dtype=bool)
    return np.zeros(len(values), dtype=bool)


# The fewest rows (queries, for ranking) each part may have: the test
# metrics need 2 rows (R², AUC); the fit and its validation part need 1.
MIN_TEST_ROWS = 2

# A classification target's rows per class: one each for the fit, the
# validation and the test part.
ROWS_PER_CLASS = 3


def split_rows(task, y, groups, fraction, seed, *, part="DATA") -> tuple:
    """Row indices ``(kept, held_out)``, ``fraction`` of the rows (or of
    the queries) held out. ``part`` names what is split (the data for the
    test set, the training part for the validation set); a split that would
    leave a part too small fails, before anything is fitted."""
    from sklearn.model_selection import GroupShuffleSplit, train_test_split

    n = len(y)
    rows = np.arange(n)
    unit = "queries" if task == "ranking" else "rows"
    units = len(np.unique(groups)) if task == "ranking" else n
    # scikit-learn's sizes: ceil(fraction * n) held out, the rest kept.
    held = int(np.ceil(fraction * units))
    if part == "DATA":
        least_held, least_kept = (1 if task == "ranking" else MIN_TEST_ROWS), 2
        if held < least_held or units - held < least_kept:
            raise CliError(
                f"DATA has {units} {unit}: --test-size {fraction:g} holds out {held} for the "
                f"test and leaves {units - held} for training, which need {least_held} and "
                f"{least_kept} (fit and validation) or more; add {unit} or change --test-size"
            )
    elif held < 1 or units - held < 1:
        raise CliError(
            f"{part} has {units} {unit}: the validation fraction {fraction:g} holds out "
            f"{held} and leaves {units - held} to fit, which need 1 or more each; add {unit} "
            "or lower --test-size"
        )
    if task == "ranking":
        splitter = GroupShuffleSplit(n_splits=1, test_size=fraction, random_state=seed)
        return next(splitter.split(rows, groups=groups))
    stratify = None
    if task == "classification":
        labels = np.asarray(y).astype(str)
        classes, counts = np.unique(labels, return_counts=True)
        if part == "DATA":
            _check_rows_per_class(classes, counts)
        # Stratifying needs 2 rows per class, and room for every class in
        # both parts; otherwise plain shuffling.
        if counts.min() >= 2 and len(counts) <= held <= n - len(counts):
            stratify = labels
    kept, held_rows = train_test_split(
        rows, test_size=fraction, random_state=seed, stratify=stratify
    )
    if task == "classification" and counts.min() >= 2:
        # Every class in both parts (and twice in the training part, which
        # is split again): stratifying rounds a rare class's share, and may
        # leave it out of one (the fit then lacked a class that validation
        # held, or the test part one of the classes).
        in_kept = 2 if part == "DATA" else 1
        if not _holds_every_class(labels, classes, kept, in_kept, held_rows):
            kept, held_rows = _every_class_in_both(labels, classes, held, in_kept, seed)
    return kept, held_rows


def _holds_every_class(labels, classes, kept, in_kept, held) -> bool:
    kept_counts = np.unique(labels[kept], return_counts=True)
    return (
        len(kept_counts[0]) == len(classes)
        and kept_counts[1].min() >= in_kept
        and len(np.unique(labels[held])) == len(classes)
    )


def _every_class_in_both(labels, classes, held, in_kept, seed) -> tuple:
    """``(kept, held_out)``: a row of each class held out and ``in_kept``
    kept (each class has that many more), the other rows shuffled into
    the ``held`` held out (at least one per class) and the rest."""
    rng = np.random.default_rng(seed)
    first_held, first_kept, rest = [], [], []
    for c in classes:
        rows = rng.permutation(np.flatnonzero(labels == c))
        first_held.append(rows[:1])
        first_kept.append(rows[1 : 1 + in_kept])
        rest.append(rows[1 + in_kept :])
    rest = rng.permutation(np.concatenate(rest))
    more = max(0, min(held - len(classes), rest.size))
    held_rows = np.sort(np.concatenate([*first_held, rest[:more]]))
    kept = np.sort(np.concatenate([*first_kept, rest[more:]]))
    return kept, held_rows


def _check_rows_per_class(classes, counts) -> None:
    """Every class (``classes``, with their row ``counts``) needs a row in
    each of the fit, validation and test parts. With fewer, the fit could
    lack a class that the validation or test rows hold, and the job would
    stop after the fit with a message from inside the metrics (or not, by
    the seed)."""
    rare = {str(label): int(c) for label, c in zip(classes, counts) if c < ROWS_PER_CLASS}
    if rare:
        listed = ", ".join(f"{label!r}: {c}" for label, c in sorted(rare.items())[:5])
        more = f" and {len(rare) - 5} more" if len(rare) > 5 else ""
        raise CliError(
            f"the target's classes {{{listed}}}{more} have fewer than {ROWS_PER_CLASS} rows; "
            "every class needs one in the fit, validation and test parts: drop their rows, "
            "merge them into another class, or use --task regression"
        )


def query_order(groups) -> tuple:
    """A row order that makes each query's rows consecutive (stable), and
    the query sizes in that order (the rankers' ``group``)."""
    _, first, inverse = np.unique(groups, return_index=True, return_inverse=True)
    # Queries in the order they first appear, rows within a query as given.
    rank = np.argsort(np.argsort(first))[inverse]
    order = np.argsort(rank, kind="stable")
    sizes = np.bincount(rank)
    return order, sizes[sizes > 0].astype(np.intp)
