"""The fast path of the ARFF reader: a plain dense data section parsed by pandas' C parser.

A data section qualifies when it is ASCII without quotes, comments, braces (sparse rows,
instance weights), spaces, tabs or other control characters (a ``\\r`` only before
``\\n``), every non-blank line has exactly one value per attribute, and no missing-value
token is itself a number. Such a section reads the same split on commas as the careful
line parser of :mod:`quercus.data.arff_reader` reads it, so pandas gives the same values:
numbers as Python's ``float`` parses them, nominal and string values as the same strings.
Anything else, and any failure on the way, returns None and the careful parser reads the
file (and words every error message).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import numpy as np
import pandas as pd

#: the @data line in its plainest form (other forms go to the careful parser)
DATA_LINE = re.compile(rb"^@data[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
_ALLOWED = bytes(c for c in range(0x21, 0x7F) if chr(c) not in "'\"%{}") + b"\r\n"
#: pandas before 3.0 rounds long decimals by its own parser unless asked for Python's
_FLOATS: dict[str, Any] = ({"float_precision": "round_trip"}
                           if int(pd.__version__.split(".")[0]) < 3 else {})


def split_header(raw: bytes) -> tuple[bytes, bytes] | None:
    """The bytes up to and including the first plain ``@data`` line, and the rest."""
    match = DATA_LINE.search(raw)
    if match is None or raw[match.end():match.end() + 1] != b"\n":
        return None
    return raw[:match.end() + 1], raw[match.end() + 1:]


def _numeric_token(tokens: frozenset[str]) -> bool:
    """Whether a token reads as a number (pandas would also match it by value)."""
    for token in tokens:
        try:
            value = float(token)
        except ValueError:
            continue
        if not np.isnan(value):
            return True
    return False


def _row_lines(data: bytes, n_attrs: int) -> np.ndarray | None:
    """The 0-based line of every non-blank line of ``data``, or None unless each has
    exactly ``n_attrs`` values."""
    blank = data.startswith((b"\n", b"\r\n")) or b"\n\n" in data or (
        b"\r" in data and b"\n\r\n" in data)
    if not blank:
        # no blank line: the first line's count, the total and pandas' refusal of a long
        # row later on (a short row would need a long one to make up the total) suffice
        n_lines = data.count(b"\n") + (not data.endswith(b"\n"))
        first = data[:data.find(b"\n")] if b"\n" in data else data
        if first.count(b",") != n_attrs - 1 or data.count(b",") != n_lines * (n_attrs - 1):
            return None
        return np.arange(n_lines)
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)
    if data[-1:] != b"\n":
        ends = np.append(ends, len(data))
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts
    if b"\r" in data:
        lengths = lengths - (buf[np.maximum(ends - 1, 0)] == 13)
    commas = np.searchsorted(np.flatnonzero(buf == 44), ends)
    per_line = np.diff(np.concatenate(([0], commas)))
    filled = lengths > 0
    if not filled.any() or (per_line[filled] != n_attrs - 1).any() or per_line[~filled].any():
        return None
    return np.flatnonzero(filled)


def _plain_words(values: tuple[str, ...] | None) -> bool:
    """Whether pandas keeps these values as strings in a ``category`` column (it turns
    numbers and true/false into numbers and booleans)."""
    if not values:
        return False
    for value in values:
        if value.lower() in ("true", "false"):
            return False
        try:
            float(value)
        except ValueError:
            continue
        return False
    return True


def _categorical(column: pd.Series) -> pd.Categorical | None:
    """The column's strings as a categorical (missing: -1), None if pandas changed them."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        return cat if pd.api.types.is_string_dtype(cat.categories.dtype) else None
    codes, uniques = pd.factorize(column.to_numpy(dtype=object))
    if not all(isinstance(v, str) for v in uniques):
        return None
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=object))


def dense_columns(data: bytes, kinds: list[tuple[str, tuple[str, ...] | None]],
                  tokens: frozenset[str]) -> tuple[list[Any], np.ndarray] | None:
    """Parse a plain data section: one float64 array (kind ``numeric``) or categorical of
    the raw strings (other kinds; missing values are -1 codes) per attribute, given as
    (kind, declared values), and the 0-based line of each row within ``data``; None when
    the section does not qualify."""
    if not data.isascii() or data.translate(None, _ALLOWED) or _numeric_token(tokens):
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    lines = _row_lines(data, len(kinds))
    if lines is None:
        return None
    numeric = [i for i, (kind, _) in enumerate(kinds) if kind == "numeric"]
    dtypes = {i: np.float64 if kind == "numeric" else "category" if _plain_words(values)
              else object for i, (kind, values) in enumerate(kinds)}
    try:
        frame = pd.read_csv(
            io.BytesIO(data), header=None, names=list(range(len(kinds))), dtype=dtypes,
            index_col=False, na_values=sorted(tokens), keep_default_na=False,
            quoting=csv.QUOTE_NONE, skip_blank_lines=True, engine="c", **_FLOATS)
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError):
        return None
    if len(frame) != len(lines):
        return None
    columns = [frame[i].to_numpy(dtype=np.float64) if kind == "numeric"
               else _categorical(frame[i]) for i, (kind, _) in enumerate(kinds)]
    if any(col is None for col in columns):
        return None
    if any(((columns[i] == 0.0) | (columns[i] == 1.0)).any() for i in numeric):
        lowered = data.lower()  # pandas reads true/false as 1/0, Python's float refuses them
        if b"true" in lowered or b"false" in lowered:
            return None
    return columns, lines
