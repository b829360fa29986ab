"""Checking and resolving the estimator's hyper-parameters (done once, in ``fit``)."""

from __future__ import annotations

import math
import struct
from numbers import Integral, Real

import numpy as np

from .errors import DataError

_MIN_NODE_BYTES = 64  # a node takes at least this much in the flat arrays


def _fail(name: str, expected: str, value) -> None:
    raise ValueError(f"{name} must be {expected}; got {value!r}")


def check_choice(name: str, value, choices) -> str:
    if value not in choices:
        _fail(name, "one of " + ", ".join(repr(c) for c in choices), value)
    return value


def resolve_count(name: str, value, n_rows: int, *, minimum: int) -> int:
    """An int >= minimum, or a float fraction of n_rows (rounded up)."""
    expected = f"an int in the range [{minimum}, inf) or a float in the range (0.0, 1.0]"
    if isinstance(value, bool):
        _fail(f"the {name!r} parameter", expected, value)
    if isinstance(value, Integral):
        if value < minimum:
            _fail(f"the {name!r} parameter", expected, value)
        return int(value)
    if isinstance(value, Real) and 0.0 < value <= 1.0:
        return max(max(1, minimum), math.ceil(value * n_rows))
    _fail(f"the {name!r} parameter", expected, value)


def resolve_max_depth(value) -> int:
    if value is None:
        return np.iinfo(np.int32).max
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        _fail("max_depth", "None or an int >= 1", value)
    return int(value)


def resolve_max_leaf_nodes(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 2:
        _fail("max_leaf_nodes", "None or an int >= 2", value)
    address_space = 2 ** (8 * struct.calcsize("P"))
    if (2 * value - 1) * _MIN_NODE_BYTES > address_space:
        raise MemoryError(f"max_leaf_nodes={value} allows a tree of {2 * value - 1} nodes, "
                          f"more than this machine can address")
    return int(value)


def check_non_negative(name: str, value, *, upper: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not value >= 0.0:
        _fail(name, "a float >= 0", value)
    if upper is not None and value > upper:
        _fail(name, f"a float in [0, {upper}]", value)
    return float(value)


def resolve_sample_weight(sample_weight, n_rows: int) -> np.ndarray:
    """Weights as float64, one per row, finite and non-negative (ones when None)."""
    if sample_weight is None:
        return np.ones(n_rows)
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:  # scikit-learn's TypeError and words
        raise TypeError(f"Input should have at least 1 dimension i.e. satisfy "
                        f"`len(x.shape) > 0`, got scalar `{weights!r}` instead.")
    if weights.ndim != 1:
        raise DataError(f"sample_weight must be 1-D (one weight per row); got an array of "
                        f"shape {weights.shape}")
    if weights.shape[0] != n_rows:
        raise DataError(f"sample_weight has {weights.shape[0]} values for {n_rows} rows")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise DataError("sample_weight must be finite and non-negative")
    return weights


def class_weight_factors(class_weight, y_codes: np.ndarray, classes) -> np.ndarray:
    """Per-row multipliers for ``class_weight`` (None, "balanced" or {label: weight})."""
    n_classes = len(classes)
    if class_weight is None:
        return np.ones(y_codes.shape[0])
    if isinstance(class_weight, str):
        check_choice("class_weight", class_weight, ["balanced"])
        counts = np.bincount(y_codes, minlength=n_classes).astype(float)
        present = counts > 0
        per_class = np.ones(n_classes)
        per_class[present] = y_codes.shape[0] / (np.count_nonzero(present) * counts[present])
        return per_class[y_codes]
    if isinstance(class_weight, dict):
        per_class = np.ones(n_classes)
        lookup = {str(c): i for i, c in enumerate(classes)}
        for label, weight in class_weight.items():
            key = str(label.item() if hasattr(label, "item") else label)
            if key not in lookup:
                raise DataError(f"class_weight names the unknown class {label!r}")
            per_class[lookup[key]] = float(weight)
        return per_class[y_codes]
    _fail("class_weight", "None, 'balanced' or a dict", class_weight)


def resolve_max_bins(value) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or not 2 <= value <= 65535:
        _fail("max_bins", "an int in [2, 65535]", value)
    return int(value)


def check_random_state(value) -> np.random.RandomState:
    """A ``numpy.random.RandomState`` as scikit-learn takes ``random_state``: None (numpy's
    global generator), an int seed, or a RandomState used as it is."""
    if value is None:
        return np.random.mtrand._rand
    if isinstance(value, Integral) and not isinstance(value, bool):
        if not 0 <= value < 2**32:
            _fail("random_state", "None, an int in [0, 2**32 - 1] or a RandomState", value)
        return np.random.RandomState(int(value))
    if isinstance(value, np.random.RandomState):
        return value
    _fail("random_state", "None, an int or a numpy.random.RandomState", value)


def resolve_max_features(value, n_features: int) -> int:
    """Number of features searched at each node: ``max_features`` as scikit-learn reads it
    (None: all; int; float fraction, at least 1; "sqrt" or "log2" of the feature count)."""
    if value is None:
        return n_features
    if isinstance(value, str):
        check_choice("max_features", value, ["sqrt", "log2"])
        count = math.sqrt(n_features) if value == "sqrt" else math.log2(n_features)
        return max(1, int(count))
    if isinstance(value, bool):
        _fail("max_features", "None, an int >= 1, a float in (0, 1], 'sqrt' or 'log2'", value)
    if isinstance(value, Integral):
        if value < 1:
            _fail("max_features", "None, an int >= 1, a float in (0, 1], 'sqrt' or 'log2'",
                  value)
        return int(value)  # more than n_features is refused by the caller
    if isinstance(value, Real) and 0.0 < value <= 1.0:
        return max(1, int(value * n_features))
    _fail("max_features", "None, an int >= 1, a float in (0, 1], 'sqrt' or 'log2'", value)


def resolve_monotonic_cst(value, n_features: int) -> np.ndarray | None:
    """``monotonic_cst`` as an int8 array of -1/0/1 per feature, or None (no constraint)."""
    if value is None:
        return None
    cst = np.asarray(value)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {cst.shape} but the input data X has "
                         f"{n_features} features")
    if cst.dtype.kind not in "iuf" or not np.all(np.isin(cst, (-1, 0, 1))):
        unexpected = sorted({str(v) for v in cst.ravel().tolist() if v not in (-1, 0, 1)})
        raise ValueError(f"monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                         f"got {', '.join(unexpected)}")
    return cst.astype(np.int8)


def _optional_int(name: str, value, minimum: int):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        _fail(name, f"None or an int >= {minimum}", value)
    return int(value)


def resolve_optimal_options(model, max_depth: int, min_samples_leaf: int):
    """The optimal learner's options from the estimator's parameters (docs/optimal.md)."""
    from .growing.optimal import OptimalOptions

    if max_depth >= np.iinfo(np.int32).max:
        max_depth = 3  # the optimal learner's default depth
    if max_depth > 30:
        _fail("max_depth", "at most 30 for algorithm='optimal'", max_depth)
    max_subset = model.max_subset_categories
    if isinstance(max_subset, bool) or not isinstance(max_subset, Integral) \
            or not 1 <= max_subset <= 16:
        _fail("max_subset_categories", "an int in [1, 16]", max_subset)
    time_limit = model.time_limit
    if time_limit is not None:
        time_limit = check_non_negative("time_limit", time_limit)
        if time_limit <= 0:
            _fail("time_limit", "None or a float > 0 (seconds)", model.time_limit)
    return OptimalOptions(
        max_depth=int(max_depth),
        max_splits=_optional_int("max_splits", model.max_splits, 0),
        split_penalty=check_non_negative("split_penalty", model.split_penalty),
        min_samples_leaf=int(min_samples_leaf),
        numeric=check_choice("numeric", model.numeric, ["exact", "bins"]),
        max_bins=resolve_max_bins(model.max_bins),
        categorical=check_choice("categorical", model.categorical, ["subset", "one_vs_rest"]),
        max_subset_categories=int(max_subset),
        missing=check_choice("missing", model.missing, ["learn", "false"]),
        time_limit=time_limit,
        max_gap=check_non_negative("max_gap", model.max_gap))


# the values ``prune`` takes, by algorithm (None everywhere: no pruning by cross-validation)
PRUNE_CHOICES = {"c45": ("cv",), "rpart": ("min", "1se"), "cart": ("min", "1se")}


def check_prune(prune, algorithm: str, pruning=True, reduced_error_pruning=False,
                confidence=0.25) -> str | None:
    """``prune`` is None or one of the algorithm's choices (returned); "cv" (C4.5) needs
    J48's pessimistic pruning with the default confidence, which it replaces."""
    if prune is None:
        return None
    choices = PRUNE_CHOICES.get(algorithm)
    if choices is None:
        raise ValueError(f"prune={prune!r} is not available for algorithm={algorithm!r}")
    if not isinstance(prune, str) or prune not in choices:
        expected = " or ".join(repr(c) for c in (None, *choices))
        raise ValueError(f"prune must be {expected} for algorithm={algorithm!r}; got "
                         f"{prune!r}")
    if algorithm != "c45":
        return prune
    if not pruning or reduced_error_pruning:
        raise ValueError("prune='cv' chooses the confidence of pessimistic pruning; it needs "
                         "pruning=True and reduced_error_pruning=False")
    if confidence != 0.25:
        raise ValueError("prune='cv' chooses the confidence itself; leave confidence at 0.25")
    return prune


def resolve_lookahead(value) -> bool | str:
    """``lookahead`` as the class-interval grower takes it: a bool, or "listing"."""
    if isinstance(value, str):
        if value != "listing":
            _fail("lookahead", "False, True or 'listing'", value)
        return "listing"
    return bool(value)
