"""Every parameter is declared once, in ``sparseboost._params``: these tests
fail when a parameter exists in one of {an estimator's signature (what
``get_params`` lists) and defaults, its docstring's Parameters section, the
``TypedDict`` s of ``_core.pyi``, the keys and defaults of the Rust engine's
parameter dicts, docs/parameters.md} and not in another, or says something
else there (a default, a range)."""

import ast
import inspect
import math
import os
import re

import numpy as np
import pytest
import sparseboost
from sklearn.base import BaseEstimator
from sparseboost import _core, _params, _params_markdown

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUB = os.path.join(os.path.dirname(_core.__file__), "_core.pyi")
DOCS = os.path.join(ROOT, "docs", "parameters.md")


def public_estimators():
    classes = [
        getattr(sparseboost, name)
        for name in sparseboost.__all__
        if inspect.isclass(getattr(sparseboost, name))
        and issubclass(getattr(sparseboost, name), BaseEstimator)
    ]
    try:
        from sparseboost import dask
    except ImportError:  # dask is an optional dependency
        return classes
    return classes + [
        getattr(dask, name)
        for name in dask.__all__
        if issubclass(getattr(dask, name), BaseEstimator)
    ]


ESTIMATORS = public_estimators()


# -- the table itself ---------------------------------------------------------


def test_the_table_knows_every_public_estimator():
    assert {cls.__name__ for cls in ESTIMATORS} <= set(_params.estimators())
    if any("Dask" in cls.__name__ for cls in ESTIMATORS):
        assert {cls.__name__ for cls in ESTIMATORS} == set(_params.estimators())


@pytest.mark.parametrize("name", _params.estimators())
def test_an_estimator_has_each_parameter_once(name):
    names = [p.name for p in _params.parameters_of(name)]
    assert len(names) == len(set(names)), names
    for p in _params.parameters_of(name):
        if p.renamed_to is not None:
            assert p.renamed_to in names and p.engine is None, p


@pytest.mark.parametrize("engine", sorted(_params.ENGINES))
def test_an_engine_key_carries_one_parameter_per_estimator(engine):
    for name in _params.ENGINES[engine]:
        keys = list(_params.engine_names(name).values())
        assert len(keys) == len(set(keys)), (name, keys)


# -- signatures and defaults ----------------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_the_signature_is_the_tables(cls):
    """What scikit-learn reads as the parameters (get_params, clone) and
    their defaults."""
    expected = {p.name: p.default for p in _params.parameters_of(cls.__name__)}
    assert set(cls._get_param_names()) == set(expected)
    assert cls().get_params(deep=False) == expected


# -- docstrings -------------------------------------------------------------------


def documented_parameters(doc):
    """(the names in the Parameters section of a numpydoc docstring, the
    section's text) ; ([], "") without one."""
    lines = inspect.cleandoc(doc or "").splitlines()
    if "Parameters" not in lines:
        return [], ""
    start = lines.index("Parameters")
    end = next(
        (
            i
            for i in range(start + 2, len(lines) - 1)
            if lines[i] and re.fullmatch(r"-{3,}", lines[i + 1])
        ),
        len(lines),
    )
    section = lines[start:end]
    names = [line.split(" : ")[0] for line in section[2:] if line and not line.startswith(" ")]
    return names, "\n".join(section).rstrip() + "\n"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_the_docstring_documents_the_tables_parameters(cls):
    names, section = documented_parameters(cls.__doc__)
    assert names == [p.name for p in _params.parameters_of(cls.__name__)]
    assert section == _params.parameters_section(cls.__name__, indent="")


# -- the Rust engine --------------------------------------------------------------


def stub_typed_dict(name):
    with open(STUB, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)}


@pytest.mark.parametrize(
    "engine, typed_dict", [("booster", "BoosterParams"), ("forest", "ForestParams")]
)
def test_the_engine_stub_and_table_have_the_same_keys(engine, typed_dict):
    accepted = set(_core.engine_defaults(engine))
    assert accepted == _params.engine_keys(engine)
    assert stub_typed_dict(typed_dict) == accepted


def test_the_engine_refuses_a_key_it_does_not_list():
    with pytest.raises(ValueError, match="unknown parameter 'max_features'"):
        _core.check_params({"max_features": 3}, 5)


def default_engine_dict(cls):
    """The engine dict that a default ``cls`` passes (seed 0: not drawn)."""
    estimator = cls()
    estimator.n_features_in_ = 3
    return estimator._engine_params(draw_seed=False)


# Engine values that differ from the engine's defaults by design: the
# estimator's own loss, the core count that the engine's n_threads=0 stands
# for, the forest classifier's "sqrt", the multitask boosters' mu (they pay
# mu_group and mu_task instead).
BY_DESIGN = {
    "SparseBoostClassifier": {"objective"},
    "SparseBoostRanker": {"objective"},
    "SparseForestClassifier": {"max_features"},
    "MultiTaskSparseBoostClassifier": {"objective", "mu"},
    "MultiTaskSparseBoostRegressor": {"mu"},
}
ENGINE_CLASSES = [
    (cls, engine)
    for cls in ESTIMATORS
    for engine, names in _params.ENGINES.items()
    if cls.__name__ in names and "Dask" not in cls.__name__
]


@pytest.mark.parametrize("cls, engine", ENGINE_CLASSES, ids=lambda c: getattr(c, "__name__", c))
def test_the_engine_defaults_are_the_estimators(cls, engine):
    rust = _core.engine_defaults(engine)
    python = default_engine_dict(cls)
    skip = BY_DESIGN.get(cls.__name__, set()) | {"n_threads"}
    differ = {k: (v, rust[k]) for k, v in python.items() if k not in skip and rust[k] != v}
    assert differ == {}, "key: (Python, Rust)"


def probes(p):
    """(values inside, values outside) the interval range of ``p``."""
    low_bracket, low, high, high_bracket = _params.INTERVAL.match(p.range).groups()
    integer = p.type.startswith("int")
    low, high = float(low), float(high)
    step = 1 if integer else 1e-9
    as_value = int if integer else float
    inside, outside = [], []
    if low_bracket == "[":
        inside.append(as_value(low))
        outside.append(as_value(low - step))
    else:
        outside.append(as_value(low))
        inside.append(as_value(low + step))
    if math.isinf(high):
        if not integer:
            outside.append(high)
    elif high_bracket == "]":
        inside.append(as_value(high))
        outside.append(as_value(high + step))
    else:
        outside.append(as_value(high))
        inside.append(as_value(high - step))
    return inside, outside


BOOSTER_RANGES = [
    p
    for p in _params.parameters_of("SparseBoostRegressor")
    + _params.parameters_of("SparseBoostRanker")
    if p.engine is not None and _params.INTERVAL.match(p.range)
]


@pytest.mark.parametrize(
    "p", list({p.name: p for p in BOOSTER_RANGES}.values()), ids=lambda p: p.name
)
def test_the_engine_enforces_a_boosters_range(p):
    base = default_engine_dict(sparseboost.SparseBoostRanker)
    inside, outside = probes(p)
    for value in inside:
        _core.check_params({**base, p.engine: value}, 3)
    for value in outside:
        with pytest.raises(ValueError, match=p.name):
            _core.check_params({**base, p.engine: value}, 3)


FOREST_RANGES = [
    p
    for p in _params.parameters_of("SparseForestRegressor")
    if p.engine is not None and _params.INTERVAL.match(p.range)
]


@pytest.mark.parametrize("p", FOREST_RANGES, ids=lambda p: p.name)
def test_the_engine_enforces_a_forests_range(p):
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    targets = np.ascontiguousarray(X[:, :1].T * 2)
    base = default_engine_dict(sparseboost.SparseForestRegressor)
    base["n_estimators"] = 2
    inside, outside = probes(p)
    for value in inside:
        _core.fit_forest(X, targets, None, {**base, p.engine: value})
    for value in outside:
        with pytest.raises(ValueError, match=p.name):
            _core.fit_forest(X, targets, None, {**base, p.engine: value})


def test_every_unprobed_engine_range_is_known():
    """A new engine parameter's range is an interval (probed above) unless
    it is listed here."""
    unprobed = {
        p.name
        for p in _params.PARAMS
        if p.engine is not None and p.range and not _params.INTERVAL.match(p.range)
    }
    assert unprobed == {"colsample_bytree", "mu", "feature_costs", "random_state", "max_features"}


# -- docs/parameters.md ------------------------------------------------------------


def test_docs_parameters_md_is_the_tables():
    with open(DOCS, encoding="utf-8") as f:
        committed = f.read()
    assert committed == _params_markdown.markdown(), (
        "regenerate it: python -m sparseboost._params_markdown > docs/parameters.md"
    )
