"""A feature budget chosen by cross-validation: the selection path of a
penalised booster (its features in the order they enter), refits on the
first k of them for every budget k, and K-fold CV to choose k.

Each fold runs the whole procedure on its training rows (ordering fit,
then refits), so the CV score of a budget measures selection and fit
together, never features chosen with the fold's held-out rows. CV may also
choose between candidate orders of the same features; see ``order``.
"""

from __future__ import annotations

import numbers
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.dummy import DummyClassifier, DummyRegressor

from . import _cv
from ._base import BaseSparseBoost, FeatureSelectorMixin
from ._cv import _Rows
from ._params import document, renamed_values, table_name
from ._refit import RefitDelegates
from ._training import check_group, fits_apart
from ._validation import (
    check_sample_weight,
    check_target,
    check_X,
    engine_mu,
    naming,
    resolve_n_jobs,
    resolve_seed,
)
from .selectors import WrapsBooster, default_booster, with_categorical

# Rounds without improvement after which a fold's refit stops, when the
# hold-out it is judged on has at least REFIT_STOP_MIN_ROWS rows.
REFIT_PATIENCE = 20
REFIT_STOP_MIN_ROWS = 1000
# Rounds in which no budget's set of first features changed after which the
# unpenalised ranking's fit stops.
RANKING_PATIENCE = 20
# The same for the penalised fit, whose entry order and gain ranking are
# read. A penalty admits features seldom, so the rounds between entries are
# longer: on Adult's training folds the second feature entered 28 rounds
# after the first (benches/results/ranking_settle_penalised.log).
PENALISED_PATIENCE = 30
# Folds add their seconds to ``timings_`` from several threads.
_TIMINGS = threading.Lock()
# How each order ranks the features, from the fits it needs.
_ORDERS = ("entry", "importance", "unpenalised", "stability", "rfe", "permutation", "mu_path")
# The "rfe" order: the unpenalised ranking's first RFE_START_FACTOR x cap
# features, of which each refit drops the weakest RFE_STEP share.
RFE_START_FACTOR = 2
RFE_STEP = 0.25
# The "permutation" order: the first PERMUTATION_FACTOR x cap features of an
# unpenalised fit, each column shuffled PERMUTATION_REPEATS times.
PERMUTATION_FACTOR = 2
PERMUTATION_REPEATS = 5
# The "mu_path" order: penalised fits at these fractions of mu_max, from the
# strongest penalty down (a geometric grid, as glmnet's lambda path).
MU_PATH = (0.5, 0.25, 0.1, 0.05, 0.02)


@document  # the Parameters section: sparseboost._params
class SparseBoostSelectorCV(
    WrapsBooster, RefitDelegates, MetaEstimatorMixin, FeatureSelectorMixin, BaseEstimator
):
    """Select features with a penalised booster and choose how many to keep
    by K-fold cross-validation on the training rows.

    For each fold (and once more on all rows) the booster is fitted with
    ``max_selected_features`` as its budget; its features, in the order of
    ``order``, give
    nested candidate sets. A booster without penalty is refitted on the
    first k features for every budget k in ``budgets``, and scored on the
    fold's held-out rows. The budget (and order) with the best mean score,
    or under ``rule="one_se"`` the fewest features within one standard
    error of it, is kept and refitted on all rows.

    Attributes
    ----------
    selected_features_ : ndarray of int
        The kept features, in the chosen order.
    support_ : ndarray of bool, shape ``(n_features_in_,)``
    n_features_ : int
        How many were kept.
    order_ : str
        The chosen order.
    ranking_ : dict of str to ndarray of int
        Each order's ranking on all training rows (at most
        ``max_selected_features`` features).
    fold_rankings_ : list of dict
        Each fold's ``ranking_``, from its training rows.
    cv_results_ : dict of ndarrays
        One entry per (order, budget): ``order``, ``budget``,
        ``n_features`` (mean over folds of the features used: an order may
        rank fewer than the budget), ``mean_test_score``,
        ``std_test_score``, ``split{i}_test_score``, ``rank_test_score``.
    ordering_estimator_ : the penalised booster fitted on all rows,
        stopped once its entry order and gain ranking stood still for 30
        rounds (``PENALISED_PATIENCE``), as the folds' are.
    estimator_ : the booster refitted on the kept columns.
    timings_ : dict
        Seconds spent in ``ordering`` fits and in ``refits``.
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    def __init__(
        self,
        estimator=None,
        *,
        max_selected_features=20,
        max_features=None,
        budgets=None,
        order=("entry", "importance", "unpenalised"),
        cv=5,
        scoring=None,
        rule="best",
        n_subsamples=10,
        random_state=None,
        verbose=0,
        n_jobs=None,
        categorical_features="from_dtype",
    ):
        self.estimator = estimator
        self.max_selected_features = max_selected_features
        self.max_features = max_features
        self.budgets = budgets
        self.order = order
        self.cv = cv
        self.scoring = scoring
        self.rule = rule
        self.n_subsamples = n_subsamples
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    # -- checks ----------------------------------------------------------

    def _orders(self) -> tuple[str, ...]:
        if isinstance(self.order, str):
            orders = (self.order,)
        else:
            try:
                orders = tuple(self.order)
            except TypeError:
                orders = ()
        if not orders or any(not isinstance(o, str) or o not in _ORDERS for o in orders):
            raise ValueError(
                f"order must be one of {', '.join(map(repr, _ORDERS))} or a list of them, "
                f"got {self.order!r}"
            )
        return tuple(dict.fromkeys(orders))

    def _budgets(self, cap: int) -> np.ndarray:
        if self.budgets is None:
            return budget_grid(cap)
        if isinstance(self.budgets, str) and self.budgets == "all":
            return np.arange(1, cap + 1)
        with naming("budgets"):
            given = np.asarray(self.budgets)
            values = np.unique(given)
        bools = given.dtype == bool or any(
            isinstance(v, (bool, np.bool_)) for v in np.asarray(self.budgets, dtype=object).ravel()
        )
        if (
            given.ndim != 1
            or bools
            or values.ndim != 1
            or values.size == 0
            or values.dtype.kind not in "iu"
            or values[0] < 1
            or values[-1] > cap
        ):
            raise ValueError(
                f"budgets must be None, 'all' or ints in [1, {cap}] (max_selected_features, "
                f"at most the number of features), got {self.budgets!r}"
            )
        return values

    def _template(self, y):
        if self.estimator is None:
            return default_booster(y, mu="0.05*mu_max")
        if not isinstance(self.estimator, BaseSparseBoost):
            raise TypeError(
                "estimator must be a SparseBoostRegressor, SparseBoostClassifier or "
                f"SparseBoostRanker (or None), got {self.estimator!r}"
            )
        # The budget is this selector's: the estimator's own, under either
        # spelling, is replaced.
        return clone(self.estimator).set_params(max_features=None)

    # -- fitting ---------------------------------------------------------

    @fits_apart
    def fit(self, X, y, group=None, sample_weight=None):
        """Choose the budget by cross-validation on ``X``, ``y`` and refit
        on the kept features. ``group``: the query sizes, when the
        estimator is a ``SparseBoostRanker`` (the folds keep queries whole).
        ``sample_weight``: non-negative row weights, given to every fit
        (ordering, refits) and to the held-out folds' scores."""
        X = check_X(self, X, reset=True)
        d = X.shape[1]
        budget_name, budget = renamed_values(self, table_name(type(self))).get(
            "max_selected_features", ("max_selected_features", self.max_selected_features)
        )
        if not isinstance(budget, numbers.Integral) or isinstance(budget, bool) or budget < 1:
            raise ValueError(f"{budget_name} must be an int >= 1, got {budget!r}")
        if self.rule not in ("best", "one_se"):
            raise ValueError(f"rule must be 'best' or 'one_se', got {self.rule!r}")
        if (
            not isinstance(self.n_subsamples, numbers.Integral)
            or isinstance(self.n_subsamples, (bool, np.bool_))
            or self.n_subsamples < 1
        ):
            raise ValueError(f"n_subsamples must be an int >= 1, got {self.n_subsamples!r}")
        orders = self._orders()
        cap = min(int(budget), d)
        budgets = self._budgets(cap)
        template = with_categorical(self._template(y), self)
        if template.random_state is None:
            template.set_params(random_state=resolve_seed(self.random_state, True) % 2**32)
        y = check_target(self, y, X.shape[0], labels=is_classifier(template))
        weights = check_sample_weight(sample_weight, X)
        ranking = bool(template._ranking)
        if ranking:
            queries = _cv.query_ids(check_group(group, X.shape[0]))
        elif group is not None:
            raise TypeError("group is taken only with a SparseBoostRanker as the estimator")
        else:
            queries = None
        classifier = is_classifier(template)
        score = _cv.scorer(self.scoring, template, y, classifier=classifier, ranking=ranking)
        folds = _cv.folds(self.cv, y, classifier=classifier, queries=queries, scoring=self.scoring)
        self.timings_ = {"ordering": 0.0, "refits": 0.0}

        # Folds run side by side on the threads of n_jobs (each fit then on
        # its share of them): refits on a few columns use one thread well,
        # and the model of a fit does not depend on its threads.
        threads = resolve_n_jobs(self.n_jobs)
        workers = min(threads, len(folds))
        fold_template = clone(template).set_params(n_jobs=max(1, threads // workers))
        # Python delivers Ctrl-C to the main thread only: the folds in
        # worker threads are stopped through this event, which every fit
        # there reads after each round.
        cancel = threading.Event() if workers > 1 else None

        def run(f):
            started = time.perf_counter()
            train, test = folds[f]
            fold = everything.take(train, cancel)
            held_out = everything.take(test)
            rankings, _ = self._rank(fold_template, fold, orders, cap, score)
            scores = np.full((len(orders), budgets.size), np.nan)
            used = np.zeros((len(orders), budgets.size))
            cache: dict[frozenset, float] = {}
            for o, name in enumerate(orders):
                for b, k in enumerate(budgets):
                    kept = rankings[name][:k]
                    used[o, b] = kept.size
                    key = frozenset(kept.tolist())
                    if key not in cache:
                        model = self._refit(fold_template, fold, kept, in_fold=True)
                        columns = held_out.X[:, np.sort(kept)]
                        cache[key] = held_out.score(score, model, columns)
                    scores[o, b] = cache[key]
            if self.verbose:
                print(
                    f"[SparseBoostSelectorCV] fold {f + 1}/{len(folds)}: "
                    f"{time.perf_counter() - started:.2f} s"
                )
            return rankings, scores, used

        # The orders' rankings on all rows do not depend on the CV: with
        # folds side by side they are one more task among the folds, the
        # first submitted (the longest; the last round of folds would
        # otherwise leave a thread idle).
        everything = _Rows(X, y, queries, weights)

        def rank_everything():
            rows = everything.take(slice(None), cancel)
            return self._rank(fold_template if cancel else template, rows, orders, cap, score)

        if cancel is None:
            done = [run(f) for f in range(len(folds))]
            everything_ranked = rank_everything()
        else:
            with ThreadPoolExecutor(workers) as pool:
                futures = [pool.submit(rank_everything)]
                futures += [pool.submit(run, f) for f in range(len(folds))]
                try:
                    everything_ranked, *done = [future.result() for future in futures]
                except BaseException:
                    cancel.set()
                    pool.shutdown(cancel_futures=True)
                    raise
        self.fold_rankings_ = [rankings for rankings, _, _ in done]
        scores = np.stack([s for _, s, _ in done], axis=2)
        used = np.stack([u for _, _, u in done], axis=2)

        self.cv_results_ = self._results(orders, budgets, scores, used)
        self._check_scores(
            scores, two_classes=classifier and np.unique(y).size == 2, weighted=weights is not None
        )
        o, b = self._choose(scores, used)
        self.ranking_, self.ordering_estimator_ = everything_ranked
        # (A penalty that admits nothing at mu_max > 0 raised in _rank; here
        # no split was possible at all. Without a penalty mu_max_ is None.)
        if self.ordering_estimator_.selected_features_.size == 0:
            warnings.warn(
                f"no split is possible on the {X.shape[0]} rows of X (mu_max = 0: a constant "
                "target, or too few rows for two children of min_samples_leaf="
                f"{template.min_samples_leaf} rows): no feature is selected, and the model "
                "predicts a constant",
                UserWarning,
                stacklevel=2,
            )
        # (Fitted on a fold's share of the threads; it predicts on the
        # estimator's.)
        self.ordering_estimator_.set_params(n_jobs=template.n_jobs)
        self.order_ = orders[o]
        self.selected_features_ = self.ranking_[self.order_][: budgets[b]]
        self.n_features_ = int(self.selected_features_.size)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[self.selected_features_] = True
        self.estimator_ = self._refit(template, everything, self.selected_features_)
        return self

    def _rank(self, template, rows, orders, cap, score):
        """Each order's ranking of at most ``cap`` features, and the
        penalised fit (``score``: the CV's, for the "permutation" order)."""
        started = time.perf_counter()
        budgets = self._budgets(cap)
        penalised = _penalised_fit(template, rows, cap, budgets)
        entry = penalised.selected_features_
        if entry.size == 0 and penalised.mu_max_:
            raise ValueError(
                "the penalised estimator selected no feature (its mu is at or above mu_max="
                f"{penalised.mu_max_}); give it a smaller mu, e.g. mu='0.05*mu_max'"
            )
        if entry.size == 0 and penalised.mu_max_ is None and template.penalty != "none":
            raise ValueError(
                f"the penalised estimator selected no feature at mu={template.mu!r} (a "
                "group-tested fit with an absolute mu does not measure mu_max); give it a "
                "smaller mu, or one relative to mu_max, e.g. mu='0.05*mu_max'"
            )
        extension = self._extend(template, rows, cap, entry)
        rankings = {}
        unpenalised = None
        if "unpenalised" in orders or "rfe" in orders:
            depths = [*budgets, *([RFE_START_FACTOR * cap] if "rfe" in orders else [])]
            _, unpenalised = _ranked_by_gain(template, rows, depths)
        for name in orders:
            # (A bag paid for stays open past the budget: the penalised fit
            # may use more than cap features; a ranking holds at most cap.)
            if name == "entry":
                rankings[name] = np.concatenate([entry, extension])[:cap]
            elif name == "importance":
                ranked = _by_importance(penalised, entry)
                rankings[name] = np.concatenate([ranked, extension])[:cap]
            elif name == "unpenalised":
                rankings[name] = unpenalised[:cap]
            elif name == "rfe":
                start = unpenalised[: RFE_START_FACTOR * cap]
                rankings[name] = self._eliminate(template, rows, start)[:cap]
            elif name == "permutation":
                rankings[name] = self._permutation(template, rows, cap, score)
            elif name == "mu_path":
                rankings[name] = self._mu_path(template, rows, cap, entry, penalised.mu_max_)
            else:
                rankings[name] = self._stability(template, rows, cap, entry)
        self._spent("ordering", started)
        return rankings, penalised

    def _extend(self, template, rows, cap, entry):
        """Features to rank after ``entry`` when the penalised fit admits
        fewer than ``cap``: those that enter fits at smaller mu (each a
        fifth of the last, then no penalty), in the order they enter,
        until ``cap`` are ranked; the path of a penalty falling towards 0,
        as glmnet's path of a falling lambda."""
        if entry.size == 0 or template.penalty == "none":
            return np.array([], dtype=int)
        value, relative = engine_mu(template.mu)
        mus = [f"{value * f!r}*mu_max" if relative else value * f for f in (0.2, 0.04, 0.0)]
        ranked = self._entrants(template, rows, cap, mus, list(entry))
        return np.array(ranked[len(entry) : cap], dtype=int)

    def _entrants(self, template, rows, cap, mus, ranked):
        """``ranked`` followed by the features that enter penalised fits at
        each of ``mus`` in turn, in the order they enter, until ``cap`` are
        ranked."""
        ranked = list(ranked)
        for mu in mus:
            if len(ranked) >= cap:
                break
            model = clone(template).set_params(max_selected_features=cap, mu=mu)
            # Only the entry order is read: once ``cap`` features have
            # entered (none can enter after), the rest of the fit is waste.
            model.set_params(callbacks=[*(template.callbacks or ()), _stop_at(cap)])
            model = rows.fit(model)
            ranked += [f for f in model.selected_features_ if f not in ranked]
        return ranked

    def _eliminate(self, template, rows, features):
        """``features`` ranked by recursive elimination, as scikit-learn's
        ``RFE``: refit a booster without penalty on the survivors (stopped
        early, as a fold's refits), drop the weakest ``RFE_STEP`` share of
        them by the refit's gain importance, and repeat down to one. The
        last survivor ranks first; each dropped batch ranks behind the
        later ones, by its importance in the refit that dropped it. Unlike
        a ranking from one fit on everything, a feature whose gain a
        stronger, redundant one took in that fit is judged again once the
        weaker features around it are gone."""
        survivors = np.asarray(features)
        dropped = []
        while survivors.size > 1:
            model = self._fit_plain(template, rows, survivors, in_fold=True)
            # The refit's columns are the survivors in ascending order.
            ordered = np.sort(survivors)
            by_gain = _by_importance(model, np.arange(ordered.size))
            ranked = ordered[by_gain]
            n_drop = max(1, int(np.ceil(RFE_STEP * survivors.size)))
            dropped.append(ranked[-n_drop:])
            survivors = ranked[:-n_drop]
        return np.concatenate([survivors, *reversed(dropped)]).astype(int)

    def _permutation(self, template, rows, cap, score):
        """Features by permutation importance, as scikit-learn's
        ``permutation_importance``: an unpenalised fit on ``rows`` less a
        ``validation_fraction`` hold-out (stratified; whole queries for a
        ranking); its first ``PERMUTATION_FACTOR`` x ``cap`` features by
        gain, ranked by the mean drop of ``score`` on the hold-out when the
        feature's column is shuffled (``PERMUTATION_REPEATS`` times; equal
        drops keep the gain order). Unlike gain, it does not credit a
        feature for splits that fit noise in the training rows."""
        rng = np.random.default_rng(resolve_seed(self.random_state, False))
        classifier = is_classifier(template)
        # (Held is None with one row or query: the drops are then all 0.)
        inner, held = rows.split(template.validation_fraction, rng, stratify=classifier)
        depth = PERMUTATION_FACTOR * cap
        model, ranking = _ranked_by_gain(template, inner, [depth])
        gain = model.get_feature_importance("gain")
        candidates = ranking[:depth]
        candidates = candidates[gain[candidates] > 0]
        try:
            drops = _permutation_drops(model, held, candidates, score, rng, PERMUTATION_REPEATS)
        except ValueError:
            # The hold-out cannot be scored (AUC on rows of one class, a
            # class too rare to stratify, raises in older scikit-learn and
            # is NaN in newer): the gain order stands.
            drops = np.zeros(candidates.size)
        return candidates[np.argsort(-drops, kind="stable")][:cap]

    def _mu_path(self, template, rows, cap, entry, mu_max):
        """Features by the strongest penalty under which they are still
        selected: penalised fits at each ``MU_PATH`` fraction of ``mu_max``
        (each stopped once ``cap`` features have entered), the features new
        at each in the order they enter; then ``entry``. A feature that
        pays a strong penalty carries more than one that pays only a weak
        one, as a lasso path ranks its variables. (The fractions are given
        relative, so each fit measures mu_max on these rows: the
        ``mu_max`` of a group-tested fit with an absolute mu is None,
        unmeasured. With ``mu_max`` 0 no split is possible, and without a
        penalty there is no path: the entry order stands.)"""
        no_path = template.penalty == "none" or mu_max == 0
        mus = [] if no_path else [f"{fraction!r}*mu_max" for fraction in MU_PATH]
        ranked = self._entrants(template, rows, cap, mus, [])
        ranked += [f for f in entry if f not in ranked]
        return np.array(ranked[:cap], dtype=int)

    def _stability(self, template, rows, cap, entry):
        """Features by how often penalised fits on half the rows (half the
        queries of a ranking) select them; ties (and features never
        selected) by entry order."""
        rng = np.random.default_rng(resolve_seed(self.random_state, False))
        d = rows.X.shape[1]
        counts = np.zeros(d)
        for _ in range(self.n_subsamples):
            half = rows.half(rng)
            if is_classifier(template) and np.unique(half.y).size < 2:
                continue
            model = half.fit(clone(template).set_params(max_selected_features=cap))
            counts[model.selected_features_] += 1
        position = np.full(d, d)
        position[entry] = np.arange(entry.size)
        ranked = np.lexsort((position, -counts))
        return ranked[(counts[ranked] > 0) | (position[ranked] < d)][:cap]

    def _refit(self, template, rows, kept, *, in_fold=False):
        """The booster without penalty on the ``kept`` columns of ``rows``.
        ``in_fold``: a fold's refit stops early on a hold-out of its own
        training rows (``validation_fraction``) when that hold-out has at
        least ``REFIT_STOP_MIN_ROWS`` rows, unless the estimator sets
        ``early_stopping_rounds``. On fewer rows the stopping round is
        noise: stopped on their 8-39 held-out rows, the refits of Arcene's
        and Dorothea's folds lost up to 0.10 AUC at the budgets CV chose
        (benches/results/selection_quality_refits_run_all_rounds.log)."""
        started = time.perf_counter()
        model = self._fit_plain(template, rows, kept, in_fold=in_fold)
        self._spent("refits", started)
        return model

    def _fit_plain(self, template, rows, kept, *, in_fold):
        """``_refit`` without counting its time (the "rfe" order's refits
        are part of the ordering)."""
        columns = rows.X[:, np.sort(kept)]
        if kept.size == 0:
            # No split is possible at all (mu_max = 0: too few rows, say):
            # the model of no feature predicts the prior, as the booster's
            # base score would.
            model = (DummyClassifier if is_classifier(template) else DummyRegressor)()
            model.fit(columns, rows.y, sample_weight=rows.weights)
        else:
            model = clone(template).set_params(penalty="none", mu=0.0, max_selected_features=None)
            model.set_params(feature_costs=None, feature_bags=None)
            held_out = np.ceil(template.validation_fraction * rows.y.size)
            stop = in_fold and template.early_stopping_rounds is None
            if stop and held_out >= REFIT_STOP_MIN_ROWS:
                model.set_params(early_stopping_rounds=REFIT_PATIENCE)
            model = rows.fit(with_categorical(model, self, kept), columns)
        return model

    def _spent(self, kind: str, started: float):
        """Add the seconds since ``started`` to ``timings_[kind]`` (summed
        over the folds that run side by side)."""
        with _TIMINGS:
            self.timings_[kind] += time.perf_counter() - started

    def _results(self, orders, budgets, scores, used) -> dict:
        n_folds = scores.shape[2]
        flat = scores.reshape(-1, n_folds)
        mean = flat.mean(axis=1)
        results = {
            "order": np.repeat(np.array(orders), budgets.size),
            "budget": np.tile(budgets, len(orders)),
            "n_features": used.reshape(-1, n_folds).mean(axis=1),
            "mean_test_score": mean,
            "std_test_score": flat.std(axis=1),
        }
        for i in range(n_folds):
            results[f"split{i}_test_score"] = flat[:, i]
        # Rank 1 is the best; equal means share the lowest rank; NaN means
        # rank last.
        key = -_nan_last(mean)
        results["rank_test_score"] = np.searchsorted(np.sort(key), key) + 1
        return results

    def _check_scores(self, scores, *, two_classes: bool, weighted: bool):
        """A fold's score may be NaN (AUC of a held-out fold without one of
        two classes; a scorer's own NaN). As in scikit-learn's
        GridSearchCV, such candidates rank last, with a warning; when every
        candidate has one there is nothing to choose from."""
        nan = np.isnan(scores).any(axis=2)
        if not nan.any():
            return
        hint = (
            two_classes
            * (
                "; with two classes, AUC needs both in every held-out fold (an int cv "
                "stratifies them and lowers the folds to the rarer class's rows)"
            )
            + weighted * "; a held-out fold whose sample_weight sums to 0 has no score"
        )
        if nan.all():
            raise ValueError(
                f"every cross-validation score is NaN under scoring={self.scoring!r} and "
                f"cv={self.cv!r}: there is no budget to choose{hint}"
            )
        warnings.warn(
            f"{int(nan.sum())} of {nan.size} (order, budget) candidates have a NaN "
            f"cross-validation score under scoring={self.scoring!r} and cv={self.cv!r}; "
            f"they rank last{hint}",
            UserWarning,
            stacklevel=3,
        )

    def _choose(self, scores, used) -> tuple[int, int]:
        """(order, budget) indices: the best mean, or the fewest features
        within one standard error of it (candidates with a NaN fold score
        never)."""
        mean = _nan_last(scores.mean(axis=2))
        o, b = np.unravel_index(np.argmax(mean), mean.shape)
        if self.rule == "best":
            return int(o), int(b)
        n_folds = scores.shape[2]
        se = scores[o, b].std() / np.sqrt(n_folds)
        within = mean >= mean[o, b] - se
        size = np.where(within, used.mean(axis=2), np.inf)
        # Fewest features; among those, the best mean.
        candidates = np.argwhere(size == size.min())
        best = max(candidates, key=lambda ob: mean[tuple(ob)])
        return int(best[0]), int(best[1])


def _permutation_drops(model, held, features, score, rng, repeats: int) -> np.ndarray:
    """The mean drop of ``score`` on the ``held`` rows when each of
    ``features`` has its column shuffled (``repeats`` draws of ``rng``)."""
    drops = np.zeros(len(features))
    if held is None:
        return drops
    base = held.score(score, model)
    if not np.isfinite(base):  # e.g. AUC (NaN) on rows of one class
        return drops
    for i, feature in enumerate(features):
        for _ in range(repeats):
            shuffled = _shuffle_column(held.X, feature, rng.permutation(held.y.size))
            drops[i] += base - held.score(score, model, shuffled)
    return drops / repeats


def _shuffle_column(X, feature: int, order):
    """``X`` with row i of column ``feature`` taken from row ``order[i]``
    (dense or sparse; ``X`` is not changed)."""
    if sp.issparse(X):
        shuffled = X.tocsc(copy=True)
        start, end = shuffled.indptr[feature], shuffled.indptr[feature + 1]
        # The stored value of row r moves to the row i with order[i] == r.
        moved_to = np.argsort(order)
        shuffled.indices[start:end] = moved_to[shuffled.indices[start:end]]
        shuffled.has_sorted_indices = False
        shuffled.sort_indices()
        return shuffled.tocsr()
    shuffled = np.array(X, copy=True)
    shuffled[:, feature] = shuffled[order, feature]
    return shuffled


def _stop_at(cap: int):
    """A callback that stops a fit once ``cap`` features are in use."""

    def stop(report) -> bool:
        return report.n_features >= cap

    return stop


def _penalised_fit(template, rows, cap, depths):
    """The penalised booster on ``rows`` with at most ``cap`` features. Only
    its entry order and its gain ranking of the first k entered features,
    for k in ``depths``, are read: the fit stops once they stand still
    (``PENALISED_PATIENCE``; a fit that admits fewer than ``cap`` features
    is not waited for to fill them: the extension fits at smaller mu do)."""
    d = rows.X.shape[1]
    settled = _stop_when_settled(d, depths, PENALISED_PATIENCE, full=False)
    model = clone(template).set_params(max_selected_features=cap)
    model.set_params(callbacks=[*(template.callbacks or ()), settled])
    model = rows.fit(model)
    # It is kept (``ordering_estimator_``) and may be pickled: the caller's
    # callbacks only.
    return model.set_params(callbacks=template.callbacks)


def _ranked_by_gain(template, rows, depths):
    """A booster without penalty on ``rows`` and all their features by its
    gain importance. Only the ranking's first k features for k in
    ``depths`` are read, and they settle long before the loss does: the
    fit stops once they stand still (``RANKING_PATIENCE``). (Stopped early
    on a hold-out of the rows instead, the unpenalised ranking lost
    0.03-0.08 AUC on Arcene and Dorothea:
    benches/results/selection_quality_issue28_*; the rounds the prefixes
    take to settle: benches/results/ranking_settle.log.)"""
    d = rows.X.shape[1]
    settled = _stop_when_settled(d, [min(k, d) for k in depths], RANKING_PATIENCE)
    plain = clone(template).set_params(penalty="none", max_selected_features=None)
    plain.set_params(callbacks=[*(template.callbacks or ()), settled])
    model = rows.fit(plain)
    return model, _by_importance(model, np.arange(d))


def _stop_when_settled(d: int, depths, patience: int, *, full: bool = True):
    """A callback that stops a fit once the set of its first k features
    by gain importance (ties by index, as ``_by_importance``) has not
    changed for ``patience`` rounds, for every k in ``depths``, and (if
    ``full``) the deepest is full, else at least one feature is used. Read
    from the rounds' splits, as the importances grow."""
    gains = np.zeros(d)
    last = [None, 0]  # the prefix sets, and the rounds they have stood

    def stop(report) -> bool:
        np.add.at(gains, report.split_features, report.split_gains)
        used = np.flatnonzero(gains)
        ranked = used[np.argsort(-gains[used], kind="stable")]
        prefixes = tuple(frozenset(ranked[:k].tolist()) for k in depths)
        last[1] = last[1] + 1 if prefixes == last[0] else 0
        last[0] = prefixes
        return last[1] >= patience and ranked.size >= (max(depths) if full else 1)

    return stop


def _nan_last(mean: np.ndarray) -> np.ndarray:
    """``mean`` with NaN as -inf, which every comparison puts last."""
    return np.where(np.isnan(mean), -np.inf, mean)


def budget_grid(cap: int) -> np.ndarray:
    """The default budgets up to ``cap``: 1, 2, 3, 5, 8, then 13, 20, 30,
    50, 80 times each power of ten (about 1.6 times the last each step),
    and ``cap`` itself. A CV curve over k is flat near its best, so the
    grid loses little and scores 7 budgets instead of 20 up to 20."""
    grid = [1, 2, 3, 5, 8]
    scale = 1
    while grid[-1] < cap:
        grid += [v * scale for v in (13, 20, 30, 50, 80)]
        scale *= 10
    return np.array(sorted({v for v in grid if v < cap} | {cap}))


def _by_importance(model, features):
    """``features`` sorted by their gain importance in ``model`` (equal
    importances keep the order of ``features``)."""
    importances = model.get_feature_importance("gain")[features]
    return features[np.argsort(-importances, kind="stable")]
