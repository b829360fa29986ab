"""Read a Weka ARFF file into a :class:`~quercus.data.schema.Dataset`.

Supported: ``@relation``; ``@attribute`` of type ``numeric``/``real``/``integer``,
nominal ``{a, b, 'c d'}`` and ``string``; single- or double-quoted names and values with
backslash escapes; ``?`` for a missing value; ``%`` comments anywhere; keywords in any
case; dense rows (an optional trailing ``{weight}`` is ignored) and sparse rows
``{0 x, 3 y}``. ``date`` and ``relational`` attributes are rejected. A value ``?``, quoted
or not, is missing (a declared nominal value ``'?'`` is dropped), and so are the other
strings of :data:`~quercus.data.frames.MISSING_STRINGS` (``NA``, ``NaN``, ...) unless kept
with ``keep_na=``; ``na_values=`` adds more.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from quercus.data import arff_fast
from quercus.data.frames import DEFAULT_NA_TOKENS, is_integral, na_tokens, show
from quercus.data.schema import CATEGORICAL, NUMERIC, Codebook, Dataset, FeatureSpec, Schema
from quercus.errors import DataError

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0"}
_NAME = re.compile(r"[^\s{]+")
_NUMERIC_TYPES = ("numeric", "real", "integer")
_OMITTED = object()


@dataclass
class _Attribute:
    name: str
    kind: str  # "numeric", "nominal" or "string"
    values: tuple[str, ...] | None
    line: int


class _Parser:
    """Line-level ARFF tokenizer; every error names the file and the line."""

    def __init__(self, name: str, tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> None:
        self.name, self.tokens = name, tokens

    def fail(self, line: int, message: str) -> DataError:
        return DataError(f"{self.name}, line {line}: {message}")

    def quoted(self, text: str, start: int, line: int) -> tuple[str, int]:
        """Read the quoted string opening at ``text[start]``; return (value, end)."""
        quote, i, out = text[start], start + 1, []
        while i < len(text):
            ch = text[i]
            if ch == "\\" and i + 1 < len(text):
                out.append(_ESCAPES.get(text[i + 1], text[i + 1]))
                i += 2
            elif ch == quote:
                return "".join(out), i + 1
            else:
                out.append(ch)
                i += 1
        raise self.fail(line, f"unterminated quoted string {show(text[start:])}")

    def strip_comment(self, text: str, line: int) -> str:
        """Drop a ``%`` comment that is not inside quotes."""
        if "%" not in text:
            return text
        if "'" not in text and '"' not in text:
            return text[: text.index("%")]
        i = 0
        while i < len(text):
            if text[i] in "'\"":
                i = self.quoted(text, i, line)[1]
            elif text[i] == "%":
                return text[:i]
            else:
                i += 1
        return text

    def split(self, text: str, line: int) -> list[str]:
        """Split on commas outside quotes; pieces keep their quotes."""
        if "'" not in text and '"' not in text:
            return text.split(",")
        pieces, start, i = [], 0, 0
        while i < len(text):
            ch = text[i]
            if ch in "'\"":
                i = self.quoted(text, i, line)[1]
            elif ch == ",":
                pieces.append(text[start:i])
                start = i = i + 1
            else:
                i += 1
        pieces.append(text[start:])
        return pieces

    def value(self, piece: str, line: int) -> str | None:
        """Unquote one stripped piece; a missing-value token is None."""
        piece = piece.strip()
        if piece[:1] in ("'", '"'):
            text, end = self.quoted(piece, 0, line)
            if piece[end:].strip():
                raise self.fail(line, f"unexpected text after quoted value {show(piece)}")
            return None if text in self.tokens else text
        return None if piece in self.tokens else piece

    def attribute(self, text: str, line: int) -> _Attribute:
        """Parse the part of an ``@attribute`` line after the keyword."""
        rest = text.strip()
        if rest[:1] in ("'", '"'):
            attr, pos = self.quoted(rest, 0, line)
        else:
            match = _NAME.match(rest)
            if match is None:
                raise self.fail(line, "@attribute without a name")
            attr, pos = match.group(), match.end()
        kind_text = rest[pos:].strip()
        if kind_text.startswith("{"):
            if not kind_text.endswith("}"):
                raise self.fail(line, f"attribute '{attr}': nominal values must end with '}}'")
            # a missing token such as '?' (even quoted) reads as missing: not a category
            pieces = self.split(kind_text[1:-1], line)
            values = [v for v in (self.value(p, line) for p in pieces) if v is not None]
            if not values:
                raise self.fail(line, f"attribute '{attr}' declares no nominal values")
            if len(set(values)) != len(values):
                dup = next(v for v in values if values.count(v) > 1)
                raise self.fail(
                    line, f"attribute '{attr}': nominal value {show(dup)} declared twice"
                )
            return _Attribute(attr, "nominal", tuple(values), line)  # type: ignore[arg-type]
        word = kind_text.split()[0].lower() if kind_text else ""
        if word in _NUMERIC_TYPES:
            return _Attribute(attr, "numeric", None, line)
        if word == "string":
            return _Attribute(attr, "string", None, line)
        if word in ("date", "relational"):
            raise self.fail(line, f"attribute '{attr}' has type {word}, which is unsupported")
        raise self.fail(line, f"attribute '{attr}' has unknown type {show(kind_text)}")

    def row(self, text: str, line: int, attrs: list[_Attribute]) -> list[str | None]:
        """Values of one data row, dense or sparse."""
        n_attrs = len(attrs)
        if text.startswith("{"):
            return self.sparse(text, line, attrs)
        pieces = self.split(text, line)
        if len(pieces) == n_attrs + 1 and re.fullmatch(r"\s*\{[^}]*\}\s*", pieces[-1]):
            pieces.pop()  # instance weight
        if len(pieces) != n_attrs:
            raise self.fail(line, f"row has {len(pieces)} values, expected {n_attrs}")
        if "'" not in text and '"' not in text:  # fast path: nothing to unquote
            tokens = self.tokens
            return [None if (v := p.strip()) in tokens else v for p in pieces]
        return [self.value(p, line) for p in pieces]

    def sparse(self, text: str, line: int, attrs: list[_Attribute]) -> list[str | None]:
        """A sparse row; an omitted value is 0 (numeric) or the first declared value."""
        n_attrs = len(attrs)
        body = text.strip()
        close = body.rfind("}")
        if close < 0:
            raise self.fail(line, "sparse row without a closing '}'")
        out: list[Any] = [a.values[0] if a.values else _OMITTED for a in attrs]
        inner = body[1:close]
        for piece in self.split(inner, line) if inner.strip() else []:
            parts = piece.strip().split(None, 1)
            if len(parts) != 2 or not parts[0].isdigit():
                raise self.fail(line, f"sparse entry {show(piece.strip())} is not 'index value'")
            index = int(parts[0])
            if index >= n_attrs:
                raise self.fail(line, f"sparse index {index} out of range for {n_attrs} attributes")
            out[index] = self.value(parts[1], line)
        for attr, value in zip(attrs, out):
            if value is _OMITTED and attr.kind == "string":
                raise self.fail(line, f"sparse row omits string attribute '{attr.name}'")
        return [("0" if v is _OMITTED else v) for v in out]


def _read_bytes(name: str) -> bytes:
    if not os.path.exists(name):
        raise DataError(f"{name}: no such file")
    if os.path.isdir(name):
        raise DataError(f"{name}: is a directory, not an ARFF file")
    try:
        with open(name, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise DataError(f"{name}: cannot read the file ({exc.strerror})") from None


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _read_lines(name: str) -> list[str]:
    return _decode(_read_bytes(name)).splitlines()


def _header(parser: _Parser, lines: list[str]) -> tuple[list[_Attribute], int | None]:
    """The attributes declared before ``@data`` and the index of the ``@data`` line (None
    when there is none)."""
    attrs: list[_Attribute] = []
    for index, raw in enumerate(lines):
        number = index + 1
        text = parser.strip_comment(raw, number).strip()
        if not text:
            continue
        keyword = text.split(None, 1)[0].lower()
        if keyword == "@relation":
            continue
        if keyword.startswith("@attribute"):
            attr = parser.attribute(text[len("@attribute") :], number)
            if any(a.name == attr.name for a in attrs):
                raise parser.fail(number, f"duplicate attribute name '{attr.name}'")
            attrs.append(attr)
        elif keyword == "@data":
            if not attrs:
                raise parser.fail(number, "@data before any @attribute")
            return attrs, index
        else:
            raise parser.fail(number, f"expected @relation, @attribute or @data, got {show(text)}")
    return attrs, None


def _parse(name: str, tokens: frozenset[str] = DEFAULT_NA_TOKENS,
           lines: list[str] | None = None,
           ) -> tuple[list[_Attribute], list[list[str | None]], list[int]]:
    """Attributes, rows of raw values and the line number of each row."""
    parser = _Parser(name, tokens)
    if lines is None:
        lines = _read_lines(name)
    attrs, at = _header(parser, lines)
    if at is None:
        raise DataError(
            f"{name}: no @data section" if attrs else f"{name}: not an ARFF file (no @attribute)"
        )
    rows: list[list[str | None]] = []
    row_lines: list[int] = []
    for number in range(at + 2, len(lines) + 1):
        text = parser.strip_comment(lines[number - 1], number).strip()
        if text:
            rows.append(parser.row(text, number, attrs))
            row_lines.append(number)
    if not rows:
        raise DataError(f"{name}: no data rows after @data")
    return attrs, rows, row_lines


class _Columns:
    """Turns the parsed rows into typed columns; errors name file, line and attribute."""

    def __init__(self, name: str, attrs: list[_Attribute], rows: list, lines: list[int]) -> None:
        self.name, self.attrs = name, {a.name: a for a in attrs}
        self.lines = lines
        self.raw = {a.name: np.array(col, dtype=object) for a, col in zip(attrs, zip(*rows))}

    def fail(self, pos: int, attr: str, message: str) -> DataError:
        return DataError(f"{self.name}, line {self.lines[pos]}, attribute '{attr}': {message}")

    def floats(self, attr: str) -> np.ndarray:
        col = self.raw[attr]
        try:  # fast path: every value present and a plain number
            return col.astype(np.float64)
        except (TypeError, ValueError):
            pass
        parsed = pd.to_numeric(pd.Series(col, dtype=object), errors="coerce")
        nums = np.array(parsed.to_numpy(dtype=np.float64, na_value=np.nan))
        bad = np.isnan(nums) & pd.notna(col)
        for pos in np.flatnonzero(bad):
            try:
                nums[pos] = float(col[pos])
            except ValueError:
                raise self.fail(int(pos), attr, f"{show(col[pos])} is not a number") from None
        return nums

    def finite(self, attr: str) -> np.ndarray:
        """A numeric feature: ``floats``, or DataError at its first infinite value."""
        nums = self.floats(attr)
        infinite = np.isinf(nums)
        if infinite.any():
            pos = int(np.flatnonzero(infinite)[0])
            raise self.fail(pos, attr, f"{nums[pos]} is not allowed (numeric values must be "
                                       "finite; ? is a missing value)")
        return nums

    def nominal(self, attr: str) -> pd.Categorical:
        """Declared values in declared order; a value outside them is an error."""
        declared = self.attrs[attr].values or ()
        col = self.raw[attr]
        categories = pd.Index(list(declared), dtype=object)
        codes = categories.get_indexer(col)
        bad = (codes < 0) & pd.notna(col)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            listed = ", ".join(declared)
            raise self.fail(
                pos, attr, f"{show(col[pos])} is not one of the declared values {{{listed}}}"
            )
        return pd.Categorical.from_codes(codes, categories=categories)

    def strings(self, attr: str) -> pd.Categorical:
        """A string attribute: categories are the sorted distinct values."""
        col = self.raw[attr]
        values = sorted({v for v in pd.unique(col) if v is not None})
        return pd.Categorical(col, categories=pd.Index(values, dtype=object))

    def categorical(self, attr: str) -> pd.Categorical:
        if self.attrs[attr].kind == "nominal":
            return self.nominal(attr)
        return self.strings(attr)

    def labels(self, attr: str) -> tuple[pd.Series, Codebook]:
        """The class column and its codebook."""
        if self.attrs[attr].kind == "numeric":
            nums = self.floats(attr)
            present = nums[~np.isnan(nums)]
            if is_integral(nums):
                missing = np.isnan(nums)
                ints = np.where(missing, 0, nums).astype(np.int64)
                y = pd.Series(pd.arrays.IntegerArray(ints, missing) if missing.any() else ints)
                return y.rename(attr), Codebook(tuple(int(v) for v in np.unique(present)))
            return pd.Series(nums, name=attr), Codebook(tuple(float(v) for v in np.unique(present)))
        cat = self.categorical(attr)
        return pd.Series(cat, name=attr), Codebook(tuple(cat.categories))


class _Unavailable(Exception):
    """The fast path lacks what a caller asked for; the careful parser reads the file."""


class _RawView(dict):
    """The raw values of categorical-typed columns, made on first use: the strings, None
    where missing (what the careful parser gives)."""

    def __init__(self, typed: dict[str, Any]) -> None:
        super().__init__()
        self.typed = typed

    def __missing__(self, attr: str) -> np.ndarray:
        col = self.typed[attr]
        if isinstance(col, np.ndarray):  # a parsed number has lost its text
            raise _Unavailable(attr)
        values = np.asarray(col.categories, dtype=object)[np.maximum(col.codes, 0)]
        values[col.codes < 0] = None
        self[attr] = values
        return values


class _TypedColumns(_Columns):
    """:class:`_Columns` over the fast path's typed columns (float64 arrays for numbers,
    categoricals of the raw strings otherwise); the rest is the careful code on raw values."""

    def __init__(self, name: str, attrs: list[_Attribute], columns: list, lines: list[int]
                 ) -> None:
        self.name, self.attrs, self.lines = name, {a.name: a for a in attrs}, lines
        self.typed = {a.name: col for a, col in zip(attrs, columns)}
        self.raw = _RawView(self.typed)

    def floats(self, attr: str) -> np.ndarray:
        col = self.typed[attr]
        return col if isinstance(col, np.ndarray) else super().floats(attr)

    def _recoded(self, attr: str, categories: pd.Index) -> pd.Categorical | None:
        col = self.typed[attr]
        if isinstance(col, np.ndarray):
            raise _Unavailable(attr)
        remap = categories.get_indexer(pd.Index(col.categories, dtype=object))
        if (remap < 0).any():
            return None
        codes = np.asarray(col.codes, dtype=np.int64)
        if remap.size == 0:  # every value missing: nothing to recode
            return pd.Categorical.from_codes(np.full(codes.shape, -1), categories=categories)
        codes = np.where(codes < 0, -1, remap[np.maximum(codes, 0)])
        return pd.Categorical.from_codes(codes, categories=categories)

    def nominal(self, attr: str) -> pd.Categorical:
        declared = self.attrs[attr].values or ()
        cat = self._recoded(attr, pd.Index(list(declared), dtype=object))
        return super().nominal(attr) if cat is None else cat  # the careful error

    def strings(self, attr: str) -> pd.Categorical:
        values = sorted(self.typed[attr].categories)
        cat = self._recoded(attr, pd.Index(values, dtype=object))
        assert cat is not None
        return cat


def _fast_columns(name: str, raw: bytes, tokens: frozenset[str],
                  schema: Schema | None) -> tuple[list[_Attribute], _Columns] | None:
    """The attributes and typed columns of a file whose data section the fast path reads
    (:mod:`quercus.data.arff_fast`), else None."""
    parts = arff_fast.split_header(raw)
    if parts is None:
        return None
    lines = _decode(parts[0]).splitlines()
    try:
        attrs, at = _header(_Parser(name, tokens), lines)
    except DataError:
        return None
    if at != len(lines) - 1:
        return None
    raw_strings = set() if schema is None else {s.name for s in schema.features
                                                if s.is_categorical}
    kinds = [("string", None) if a.name in raw_strings else (a.kind, a.values) for a in attrs]
    parsed = arff_fast.dense_columns(parts[1], kinds, tokens)
    if parsed is None:
        return None
    columns, data_lines = parsed
    return attrs, _TypedColumns(name, attrs, columns, (data_lines + len(lines) + 1).tolist())


def read_arff(
    path: str | os.PathLike, target: str | None = None, *, schema: Schema | None = None,
    na_values: Sequence[str] | str | None = None, keep_na: Sequence[str] | str | None = None,
) -> Dataset:
    """Read an ARFF file.

    Parameters
    ----------
    path : str or path-like
    target : str, optional
        Name of the class attribute (default: the last attribute; with ``schema``, the
        schema's target if the file has it).
    schema : Schema, optional
        Type the columns by this schema: numeric features must hold numbers, categorical
        features are returned as raw strings (object dtype), the target is optional.
    na_values, keep_na : str or list of str, optional
        Strings added to, or kept out of, the missing-value set ``MISSING_STRINGS``
        (``?``, ``NA``, ``NaN``, an empty value, ...), as in ``read_csv``.

    Returns
    -------
    Dataset
        Numeric attributes as float64 columns, nominal attributes as pandas categoricals
        with the declared values in declared order (string attributes: sorted values); a
        nominal target gives a categorical ``y`` and the declared class order.

    Raises
    ------
    DataError
        With a one-line message naming the file and, for a bad line, the line number.
    """
    name = os.fspath(path)
    tokens = na_tokens(na_values, keep_na, None if schema is None else schema.missing_tokens)
    raw = _read_bytes(name)
    fast = _fast_columns(name, raw, tokens, schema)
    if fast is not None:
        try:
            return _dataset(name, *fast, tokens, schema, target)
        except (DataError, _Unavailable):
            pass  # the careful parser words the error
    attrs, rows, lines = _parse(name, tokens, _decode(raw).splitlines())
    return _dataset(name, attrs, _Columns(name, attrs, rows, lines), tokens, schema, target)


def _dataset(name: str, attrs: list[_Attribute], cols: _Columns, tokens: frozenset[str],
             schema: Schema | None, target: str | None) -> Dataset:
    names = [a.name for a in attrs]
    if schema is not None:
        return _with_schema(cols, names, schema, target)
    if target is None:
        target = names[-1]
    if target not in cols.attrs:
        raise DataError(
            f"{name}: unknown target attribute '{target}'; attributes are: {', '.join(names)}"
        )
    data: dict[str, Any] = {}
    features = []
    for attr in names:
        if attr == target:
            continue
        if cols.attrs[attr].kind == "numeric":
            data[attr] = cols.finite(attr)
            features.append(FeatureSpec(attr, NUMERIC))
        else:
            data[attr] = cat = cols.categorical(attr)
            features.append(FeatureSpec(attr, CATEGORICAL, _codebook(name, attr, cat)))
    X = pd.DataFrame(data, index=pd.RangeIndex(len(cols.lines)))
    y, classes = cols.labels(target)
    schema = Schema(tuple(features), target, classes, tokens)
    if schema.na_tokens is not None:
        X.attrs["na_tokens"] = schema.na_tokens
    return Dataset(X, y, schema)


def _codebook(name: str, attr: str, cat: pd.Categorical) -> Codebook:
    try:
        return Codebook(tuple(cat.categories))
    except DataError as exc:
        raise DataError(f"{name}, attribute '{attr}': {exc}") from None


def _with_schema(cols: _Columns, names: list[str], schema: Schema, target: str | None) -> Dataset:
    data: dict[str, Any] = {}
    absent = [spec.name for spec in schema.features if spec.name not in cols.attrs]
    if absent:
        noun = "attribute" if len(absent) == 1 else "attributes"
        listed = ", ".join(f"'{name}'" for name in absent[:20])
        raise DataError(f"{cols.name}: missing {noun} {listed} required by the schema")
    for spec in schema.features:
        if spec.is_categorical:
            data[spec.name] = pd.Series(cols.raw[spec.name], dtype=object)
        else:
            data[spec.name] = cols.finite(spec.name)
    X = pd.DataFrame(data, index=pd.RangeIndex(len(cols.lines)))
    if target is None and schema.target in cols.attrs:
        target = schema.target
    if target is None:
        return Dataset(X, None, schema)
    if target not in cols.attrs:
        raise DataError(
            f"{cols.name}: unknown target attribute '{target}'; attributes are: {', '.join(names)}"
        )
    y, classes = cols.labels(target)
    if schema.target != target:
        schema = schema.with_target(
            target, schema.classes if schema.classes is not None else classes
        )
    return Dataset(X, y, schema)
