"""How soon the unpenalised ranking's prefixes settle (the basis of
``SparseBoostSelectorCV``'s ``RANKING_PATIENCE``).

On the first of 5 stratified folds of each data set's training rows, one
booster without penalty (the selection_quality protocol: 300 trees,
learning rate 0.05, 15 leaves) is fitted, and its features are ranked by
gain importance after every round. For each patience P, the round at which
no prefix (first k features, k in 1, 2, 3, 5, 8, 13, 20) has changed for P
rounds is printed, with how many features each prefix then shares with the
prefix after all rounds. Run from the project root::

    python benches/ranking_settle.py
    python benches/ranking_settle.py --penalised

``--penalised``: the same for the penalised ordering fit (mu="0.05*mu_max",
at most 20 features), whose entry order and gain ranking of the entered
features are read. Its prefixes need not fill (a penalty may admit fewer
than 20 features), so the rule is only that none has changed for P rounds.
Also printed: how many of the features that entered in all rounds had
entered by the stop.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import sparseboost as sb
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from selection_quality import PROTOCOL, splits  # noqa: E402

DEPTHS = (1, 2, 3, 5, 8, 13, 20)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="madelon,dexter,adult,arcene,dorothea")
    parser.add_argument("--patiences", default="10,20,30,50")
    parser.add_argument("--penalised", action="store_true")
    args = parser.parse_args()
    if args.penalised:
        return penalised(args)
    for name in args.datasets.split(","):
        X, y, _, _ = splits(name)[0][0]
        train, _ = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
        model = sb.SparseBoostClassifier(**PROTOCOL, penalty="none", random_state=0)
        model.fit(X[train], y[train])
        gains = per_round_gains(model, X.shape[1])
        ranked = [ranking(g) for g in np.cumsum(gains, axis=0)]
        print(f"{name}: {X[train].shape[0]} x {X.shape[1]}, {len(ranked)} rounds", flush=True)
        print_stops(ranked, args.patiences, full=True)


def penalised(args):
    for name in args.datasets.split(","):
        X, y, _, _ = splits(name)[0][0]
        train, _ = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
        rounds = []

        def record(report):
            rounds.append((np.asarray(report.split_features), np.asarray(report.split_gains)))
            return False

        model = sb.SparseBoostClassifier(
            **PROTOCOL, mu="0.05*mu_max", max_selected_features=DEPTHS[-1], random_state=0
        )
        model.set_params(callbacks=[record]).fit(X[train], y[train])
        gains = np.zeros((len(rounds), X.shape[1]))
        for r, (features, split_gains) in enumerate(rounds):
            np.add.at(gains[r], features, split_gains)
        ranked = [ranking(g) for g in np.cumsum(gains, axis=0)]
        entered = model.selected_features_
        print(
            f"{name}: {X[train].shape[0]} x {X.shape[1]}, {len(ranked)} rounds, "
            f"{entered.size} features entered",
            flush=True,
        )
        print_stops(ranked, args.patiences, full=False, entered=entered.size)


def print_stops(ranked, patiences, *, full, entered=None):
    """For each patience: where the rule stops, and how many features each
    prefix then shares with the last round's (with ``entered``: how many
    of the fit's entered features had entered by the stop)."""
    final = ranked[-1]
    for patience in (int(p) for p in patiences.split(",")):
        stop = settled_round(ranked, patience, full=full)
        if stop is None:
            print(f"  P={patience}: no stop")
            continue
        shared = [len(set(ranked[stop][:k]) & set(final[:k])) for k in DEPTHS]
        depths = ",".join(map(str, DEPTHS))
        if entered is None:
            print(
                f"  P={patience}: stops after {stop + 1} rounds; shared with the last "
                f"round's prefixes at k={depths}: {shared}"
            )
        else:
            print(
                f"  P={patience}: stops after {stop + 1} rounds, {ranked[stop].size} of "
                f"{entered} entered; gain prefixes shared with the last round's at "
                f"k={depths}: {shared}"
            )


def per_round_gains(model, d):
    """(rounds, d): each round's split gains per feature, from the model file."""
    trees = json.loads(model._model.to_json())["trees"]
    gains = np.zeros((max(t["round"] for t in trees) + 1, d))
    for tree in trees:
        for node in tree["nodes"]:
            if not node["is_leaf"]:
                gains[tree["round"], node["feature"]] += node["gain"]
    return gains


def ranking(gain):
    """Features with gain, by gain (ties by index)."""
    used = np.flatnonzero(gain)
    return used[np.argsort(-gain[used], kind="stable")]


def settled_round(ranked, patience, full=True):
    """The first round at which every prefix has stood for ``patience``
    rounds and (``full``) the deepest is full (the selector's rule), or None."""
    last, since = None, 0
    for r, order in enumerate(ranked):
        prefixes = tuple(frozenset(order[:k].tolist()) for k in DEPTHS)
        since = since + 1 if prefixes == last else 0
        last = prefixes
        if since >= patience and (order.size >= DEPTHS[-1] or not full) and order.size:
            return r
    return None


if __name__ == "__main__":
    main()
