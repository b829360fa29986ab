"""What ``to_source`` checks before generating: the function name and the ranges of
numeric values the generated code accepts."""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["check_name", "feature_ranges", "resolve_ranges"]

_C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_C_RESERVED = frozenset((
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary",
    "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
    "_Thread_local", "bool", "true", "false", "isnan", "isinf", "isfinite", "NAN", "INFINITY",
    "main",
))
_PY_RESERVED = frozenset({"math", "FEATURES", "CLASSES", "TARGET"})


def feature_ranges(model, X) -> list[tuple[float, float] | None]:
    """Per feature, the ``(min, max)`` of a numeric feature over the rows of X (missing
    values ignored), None for a categorical feature or a column with no value."""
    encoded = model.schema_.encode(X)
    out: list[tuple[float, float] | None] = []
    for j, spec in enumerate(model.schema_.features):
        column = encoded[:, j]
        column = column[~np.isnan(column)]
        if spec.is_categorical or column.size == 0:
            out.append(None)
        else:
            out.append((float(column.min()), float(column.max())))
    return out


def resolve_ranges(model, ranges) -> list[tuple[float, float] | None]:
    schema = model.schema_
    n = schema.n_features
    if ranges is None:
        return [None] * n
    out: list = [None] * n
    if isinstance(ranges, Mapping):
        items = []
        for key, value in ranges.items():
            index = (schema.feature_names.index(schema.feature(key).name)
                     if isinstance(key, str) else int(key))
            if not 0 <= index < n:
                raise ValueError(f"ranges: feature index {key!r} out of range for {n} features")
            items.append((index, value))
    elif isinstance(ranges, Sequence) and not isinstance(ranges, (str, bytes)):
        if len(ranges) != n:
            raise ValueError(f"ranges: expected one entry per feature ({n}), got {len(ranges)}")
        items = list(enumerate(ranges))
    else:
        raise TypeError("ranges must be a mapping {feature: (low, high)} or a sequence with "
                        "one (low, high) or None per feature")
    for index, value in items:
        if value is None:
            continue
        spec = schema.features[index]
        if spec.is_categorical:
            raise ValueError(f"ranges: feature {spec.name!r} is categorical; its codebook is "
                             "its range")
        try:
            low, high = value
            low = -math.inf if low is None else float(low)
            high = math.inf if high is None else float(high)
        except (TypeError, ValueError):
            raise ValueError(f"ranges: feature {spec.name!r}: expected (low, high), got "
                             f"{value!r}") from None
        if math.isnan(low) or math.isnan(high) or low > high:
            raise ValueError(f"ranges: feature {spec.name!r}: bad range ({low!r}, {high!r})")
        out[index] = (low, high)
    return out


def check_name(name, language: str) -> None:
    if not isinstance(name, str) or not name.isascii():
        raise ValueError(f"function_name must be an ASCII identifier; got {name!r}")
    if language == "python":
        if not name.isidentifier() or keyword.iskeyword(name) or name in _PY_RESERVED:
            raise ValueError(f"function_name {name!r} is not a usable Python function name")
    elif not _C_IDENTIFIER.match(name) or name in _C_RESERVED:
        raise ValueError(f"function_name {name!r} is not a usable C function name")
