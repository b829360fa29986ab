"""Which rows a rule's conditions hold for, and conditions as JSON.

Matching works on the encoded matrix of docs/architecture.md (category codes, NaN for a
missing value). A test on a value is false for a missing value (``x <= 3``, ``x > 3``,
``x = a``, ``x in {a, b}``, ``1 < x <= 3``, ``1 <= x <= 3``), with one exception: the
class-interval tree's ``x outside [1, 3]`` holds for a missing value, because that tree
sends a missing value down its "outside" branch. ``x is missing`` holds exactly for missing
values and ``x is not missing`` for known ones.
"""

from __future__ import annotations

import math

import numpy as np

from .conditions import Condition

__all__ = [
    "atomic_conditions",
    "condition_from_json",
    "condition_mask",
    "condition_to_json",
    "conditions_mask",
]

_PAIR_OPS = ("between", "within", "outside")


def atomic_conditions(conditions: tuple[Condition, ...]) -> tuple[Condition, ...]:
    """Conditions that can be dropped one at a time, equivalent to ``conditions``.

    ``low < x <= high`` becomes ``x > low`` and ``x <= high``; several ``within`` ranges on
    one feature become their intersection (both are false for a missing value). Everything
    else is kept as it is, in order.
    """
    out: list[Condition] = []
    within: dict[str, int] = {}
    for condition in conditions:
        if condition.op == "between":  # (x > low or missing) and (x <= high or missing)
            low, high = condition.value
            out.append(Condition(condition.feature_name, ">", low,
                                 or_missing=condition.or_missing))
            out.append(Condition(condition.feature_name, "<=", high,
                                 or_missing=condition.or_missing))
        elif condition.op == "within" and condition.feature_name in within:
            at = within[condition.feature_name]
            low, high = out[at].value
            new_low, new_high = condition.value
            out[at] = Condition(condition.feature_name, "within",
                                (max(low, new_low), min(high, new_high)))
        else:
            if condition.op == "within":
                within[condition.feature_name] = len(out)
            out.append(condition)
    return tuple(out)


def _codes(condition: Condition, spec) -> np.ndarray:
    values = (condition.value,) if condition.op == "=" else tuple(condition.value)
    if spec.codebook is None:
        raise ValueError(f"condition {condition} tests categories of the numeric feature "
                         f"'{spec.name}'")
    return np.array([spec.codebook.index(v) for v in values], dtype=np.float64)


def condition_mask(condition: Condition, X: np.ndarray, schema) -> np.ndarray:
    """Rows of the encoded matrix ``X`` for which ``condition`` holds (boolean array)."""
    if condition.or_missing:
        spec = schema.feature(condition.feature_name)
        column = X[:, schema.feature_names.index(spec.name)]
        plain = Condition(condition.feature_name, condition.op, condition.value)
        return condition_mask(plain, X, schema) | np.isnan(column)
    spec = schema.feature(condition.feature_name)
    column = X[:, schema.feature_names.index(spec.name)]
    known = ~np.isnan(column)
    op = condition.op
    if op == "missing":
        return ~known
    if op == "not missing":
        return known
    if op in ("=", "in"):
        return np.isin(column, _codes(condition, spec)) & known
    with np.errstate(invalid="ignore"):
        if op == "<=":
            return column <= condition.value
        if op == ">":
            return column > condition.value
        low, high = condition.value
        if op == "between":
            return (column > low) & (column <= high)
        inside = (column >= low) & (column <= high)
    if op == "within":
        return inside
    return ~inside  # "outside", true for a missing value


def conditions_mask(conditions, X: np.ndarray, schema) -> np.ndarray:
    """Rows for which every condition holds (all rows for no condition)."""
    mask = np.ones(X.shape[0], dtype=bool)
    for condition in conditions:
        mask &= condition_mask(condition, X, schema)
    return mask


def _number_to_json(x: float):
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _number_from_json(x) -> float:
    if x in ("inf", "-inf"):
        return float(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"a condition bound must be a number, got {x!r}")
    return float(x)


def _plain(value):
    """A category as a plain JSON value (numpy scalars become Python scalars)."""
    return value.item() if isinstance(value, np.generic) else value


def condition_to_json(condition: Condition) -> dict:
    """``{"feature": name, "op": op, "value": value}``; see :func:`condition_from_json`.

    ``value`` is a number for ``<=`` and ``>``, a category for ``=``, a list of categories
    for ``in``, ``[low, high]`` for ``between``, ``within`` and ``outside``, and null for
    ``missing`` and ``not missing``. Infinite numbers are the strings ``"inf"``/``"-inf"``.
    A condition that a missing value also satisfies has ``"or_missing": true``.
    """
    op, value = condition.op, condition.value
    if op in ("<=", ">"):
        value = _number_to_json(value)
    elif op == "=":
        value = _plain(value)
    elif op == "in":
        value = [_plain(v) for v in value]
    elif op in _PAIR_OPS:
        value = [_number_to_json(v) for v in value]
    else:
        value = None
    out = {"feature": condition.feature_name, "op": op, "value": value}
    if condition.or_missing:  # written only when set: other documents stay as they were
        out["or_missing"] = True
    return out


def condition_from_json(data: dict) -> Condition:
    """The inverse of :func:`condition_to_json`; ValueError on a malformed entry."""
    if not isinstance(data, dict) or not isinstance(data.get("feature"), str):
        raise TypeError(f"a condition must be an object with a feature name, got {data!r}")
    op, value = data.get("op"), data.get("value")
    if op in ("<=", ">"):
        value = _number_from_json(value)
    elif op == "in":
        if not isinstance(value, list):
            raise ValueError(f"an 'in' condition needs a list of categories, got {value!r}")
        value = tuple(value)
    elif op in _PAIR_OPS:
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"a {op!r} condition needs [low, high], got {value!r}")
        value = tuple(_number_from_json(v) for v in value)
    elif op in ("missing", "not missing"):
        value = None
    or_missing = data.get("or_missing", False)
    if not isinstance(or_missing, bool):
        raise TypeError(f"a condition's 'or_missing' must be true or false, got {or_missing!r}")
    return Condition(data["feature"], op, value, or_missing=or_missing)  # ValueError: bad op
