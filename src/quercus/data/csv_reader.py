"""Read a CSV file with a header row into a :class:`~quercus.data.schema.Dataset`.

pandas' C parser reads the file (numbers are typed there, which keeps a million-row file
fast); string columns are then factorised once, so stripping, missing-value detection and
type decisions loop over distinct values, not rows. The slow, exact ``csv`` module only
runs on the error path, to find the line a message should name.

Missing values are the strings of :data:`~quercus.data.frames.MISSING_STRINGS` (pandas'
default set plus ``?``), changed with ``na_values=``/``keep_na=``. A nameless first
column whose values are all distinct (R's ``write.csv`` writes its row names so) is left
out.
"""

from __future__ import annotations

import csv
import os
import re
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from quercus.data.frames import DEFAULT_NA_TOKENS, is_integral, na_tokens, show
from quercus.data.inference import type_warnings
from quercus.data.schema import CATEGORICAL, NUMERIC, Codebook, Dataset, FeatureSpec, Schema
from quercus.data.sources import READ_ERRORS, find_bad_byte, open_text, read_errors
from quercus.errors import DataError

ROW_NAMES = ""  # the name of a nameless first column: R's row names, left out


def read_csv(
    path: str | os.PathLike,
    target: str | None = None,
    *,
    categorical: Sequence[str] | None = None,
    numeric: Sequence[str] | None = None,
    schema: Schema | None = None,
    delimiter: str | None = None,
    na_values: Sequence[str] | str | None = None,
    keep_na: Sequence[str] | str | None = None,
) -> Dataset:
    """Read a CSV file whose first row names the columns.

    Parameters
    ----------
    path : str or path-like
        A ``.csv`` file, or one compressed as ``.gz``, ``.bz2``, ``.zip`` or ``.xz``.
    target : str, optional
        Name of the class column (default: none; with ``schema``, the schema's target
        if the file has it).
    categorical, numeric : list of str, optional
        Columns forced categorical or numeric. Otherwise a column is numeric when all
        its non-missing values are numbers. A column read as categorical although most
        of its values are numbers, or with more distinct values than half its rows (from
        20 rows on), gives a ``UserWarning`` saying what to do.
    schema : Schema, optional
        Type the columns by this schema (new data for a trained model): numeric columns
        must hold numbers, categorical columns stay raw strings (object dtype).
    delimiter : str, optional
        One character. By default a comma, unless the header row holds no comma and splits
        on ``;``, a tab or ``|`` (see :func:`detect_delimiter`). In a ``;``-separated file
        a decimal comma (``1,5``) is read as a decimal point, as spreadsheets write it.
    na_values : str or list of str, optional
        More strings that stand for a missing value, besides ``MISSING_STRINGS`` (the
        default set of pandas' ``read_csv``: ``NA``, ``N/A``, ``NaN``, ``nan``, ``null``,
        ``NULL``, ``None``, ``#N/A``, an empty cell, ... plus ``?``), in every column, the
        target's included. With ``schema``, added to the schema's set.
    keep_na : str or list of str, optional
        Strings of that set to read as real values (e.g. a category called ``NA``).

    Returns
    -------
    Dataset
        ``X`` (numeric columns float64, categorical columns pandas categoricals with the
        codebook's values as categories), ``y`` (or None; rows whose class is missing
        are kept here, and the learners leave them out) and the schema, which records a
        non-default set of missing-value strings (``X.attrs["na_tokens"]`` too, so that a
        model fitted on ``X`` reads new data the same way).

    Raises
    ------
    DataError
        With a one-line message that starts with the file path.
    """
    name = os.fspath(path)
    if schema is not None and (categorical or numeric):
        raise DataError(f"{name}: give either schema= or categorical=/numeric=, not both")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise DataError(f"{name}: the delimiter must be one character, got {show(delimiter)}")
    _check_file(name)
    base = schema.missing_tokens if schema is not None else None
    tokens = na_tokens(na_values, keep_na, base)
    if delimiter is None:
        delimiter = detect_delimiter(name)
    header, header_line = _read_header(name, delimiter)
    if schema is not None and target is None and schema.target in header:
        target = schema.target
    if target is not None and target not in header:
        raise DataError(f"{name}: unknown target column '{target}'; columns are: "
                        f"{column_list(header)}")
    forced_cat = _override_set(name, header, categorical, "categorical")
    forced_num = _override_set(name, header, numeric, "numeric")
    both = forced_cat & forced_num
    if both:
        raise DataError(f"{name}: column '{min(both)}' is forced both categorical and numeric")
    reader = _Reader(name, header, header_line, delimiter, tokens)
    if schema is not None:
        return reader.with_schema(schema, target)
    data = reader.infer(target, forced_cat, forced_num)
    for message in type_warnings(name, data.X, forced_cat):
        warnings.warn(message, UserWarning, stacklevel=2)
    return data


#: Delimiters tried, in order, when the header row holds no comma.
OTHER_DELIMITERS = (";", "\t", "|")


def detect_delimiter(path: str | os.PathLike) -> str:
    """The delimiter of a CSV file: a comma, unless the first non-blank line holds none
    and one of ``;``, tab, ``|`` splits it (the one that splits it into most fields)."""
    name = os.fspath(path)
    try:
        with open_text(name, errors="replace") as fh:
            first = ""
            for _ in range(1000):  # skip blank lines; read at most 1 MiB of one line
                first = fh.readline(1 << 20)
                if first.strip() or not first:
                    break
    except (*READ_ERRORS, DataError, ValueError):
        return ","  # reading the file again names the error
    if "," in first:
        return ","
    counts = [(first.count(d), -i, d) for i, d in enumerate(OTHER_DELIMITERS)]
    count, _, best = max(counts)
    return best if count > 0 else ","


def _check_file(name: str) -> None:
    if not os.path.exists(name):
        raise DataError(f"{name}: no such file")
    if os.path.isdir(name):
        raise DataError(f"{name}: is a directory, not a CSV file")


def _records(name: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number, fields) of every non-blank record, the header included."""
    try:
        with open_text(name, newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter, skipinitialspace=True)
            previous = 0
            for row in reader:
                start, previous = previous + 1, reader.line_num
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                yield start, row
    except UnicodeDecodeError as exc:
        raise find_bad_byte(name) or DataError(
            f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise DataError(f"{name}: cannot parse the file ({exc})") from None
    except (*READ_ERRORS, ValueError) as exc:  # e.g. a damaged compressed file
        raise read_errors(name, exc) from None


def column_list(header: list[str]) -> str:
    """The header's column names for a message, without R's nameless row-names column."""
    return ", ".join(header[1:] if header and header[0] == ROW_NAMES else header)


def _read_header(name: str, delimiter: str) -> tuple[list[str], int]:
    for line, row in _records(name, delimiter):
        names = [field.strip() for field in row]
        seen: set[str] = set()
        for pos, col in enumerate(names, 1):
            if not col and pos == 1 and len(names) > 1:
                continue  # R's row names (write.csv): left out
            if not col:
                raise DataError(f"{name}: line {line}: column {pos} of the header has no name")
            if col in seen:
                raise DataError(f"{name}: line {line}: duplicate column name '{col}'")
            seen.add(col)
        return names, line
    raise DataError(f"{name}: the file is empty (no header row)")


def _override_set(name: str, header: list[str], cols: Sequence[str] | None, what: str) -> set[str]:
    if cols is None:
        return set()
    if isinstance(cols, str):
        cols = [cols]
    for col in cols:
        if col not in header:
            raise DataError(
                f"{name}: unknown column '{col}' in {what}=; columns are: {', '.join(header)}"
            )
    return set(cols)


_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+(?:[eE][+-]?[0-9]+)?")


def _looks_numeric(text: str, decimal_comma: bool = False) -> float | None:
    """The number a stripped CSV string spells, or None; with ``decimal_comma``, ``1,5``
    is 1.5 too (a ``;``-separated file, as a spreadsheet writes it in many locales)."""
    if "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    if decimal_comma and _DECIMAL_COMMA.fullmatch(text):
        return float(text.replace(",", "."))
    return None


class _Strings:
    """A column of strings factorised: ``values[codes]`` with code -1 for missing."""

    def __init__(self, col: pd.Series, tokens: frozenset[str] = DEFAULT_NA_TOKENS,
                 decimal_comma: bool = False) -> None:
        self.decimal_comma = decimal_comma
        codes, uniques = pd.factorize(col)
        stripped = [str(u).strip() for u in uniques]
        stripped = [None if s in tokens else s for s in stripped]
        recode, values = pd.factorize(pd.Series(stripped, dtype=object))
        self.codes = np.append(recode, -1)[codes]
        self.values: list[str] = [str(v) for v in values]

    def numbers(self) -> tuple[np.ndarray, int]:
        """(float value of each distinct string, index of the first non-number or -1)."""
        nums = np.empty(len(self.values), dtype=np.float64)
        for i, text in enumerate(self.values):
            number = _looks_numeric(text, self.decimal_comma)
            if number is None:
                return nums, i
            nums[i] = number
        return nums, -1

    def as_floats(self, nums: np.ndarray) -> np.ndarray:
        return np.append(nums, np.nan)[self.codes]

    def as_objects(self) -> np.ndarray:
        lut = np.empty(len(self.values) + 1, dtype=object)
        lut[:-1] = self.values
        lut[-1] = None
        return lut[self.codes]

    def as_categorical(self) -> tuple[pd.Categorical, Codebook]:
        order = sorted(range(len(self.values)), key=self.values.__getitem__)
        rank = np.empty(len(order) + 1, dtype=np.int64)
        rank[order] = np.arange(len(order))
        rank[-1] = -1
        book = Codebook(tuple(self.values[i] for i in order))
        cats = pd.Index(list(book.values), dtype=object)
        return pd.Categorical.from_codes(rank[self.codes], categories=cats), book


class _Reader:
    """One CSV file: the typed frame, raw strings on demand, line numbers for errors."""

    def __init__(self, name: str, header: list[str], header_line: int, delimiter: str,
                 tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> None:
        self.name, self.header, self.delimiter = name, header, delimiter
        self.tokens = tokens
        self.frame = self._read_frame(header_line)
        if header[0] == ROW_NAMES and not self.frame.iloc[:, 0].is_unique:
            raise DataError(f"{name}: line {header_line}: column 1 of the header has no name "
                            "(and its values repeat, so it is not R's row names)")
        self._raw: dict[str, pd.Series] = {}

    def _pandas(self, **kw: Any) -> pd.DataFrame:
        try:
            return pd.read_csv(
                self.name,
                sep=self.delimiter,
                header=0,
                names=self.header,
                index_col=False,
                skipinitialspace=True,
                low_memory=False,
                encoding="utf-8-sig",
                **kw,
            )
        except UnicodeDecodeError as exc:
            raise find_bad_byte(self.name) or DataError(
                f"{self.name}: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
        except READ_ERRORS as exc:  # e.g. a damaged compressed file
            raise read_errors(self.name, exc) from None
        except pd.errors.ParserError as exc:
            self._raise_ragged()
            msg = " ".join(str(exc).split())
            raise DataError(f"{self.name}: cannot parse the file ({msg})") from None

    def _read_frame(self, header_line: int) -> pd.DataFrame:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            frame = self._pandas(keep_default_na=False, na_values=sorted(self.tokens))
        if caught or (len(frame) and frame.iloc[:, -1].isna().any()):
            self._raise_ragged()
        if len(frame) == 0:
            raise DataError(f"{self.name}: no data rows after the header (line {header_line})")
        return frame

    def _raise_ragged(self) -> None:
        want = len(self.header)
        for line, row in _records(self.name, self.delimiter):
            if len(row) != want:
                raise DataError(f"{self.name}: line {line} has {len(row)} fields, expected {want}")

    def line_of(self, row: int) -> int:
        """File line of the data row with 0-based position ``row``."""
        records = _records(self.name, self.delimiter)
        next(records)
        for i, (line, _) in enumerate(records):
            if i == row:
                return line
        return -1

    def strings(self, col: str) -> _Strings:
        """The raw strings of a column (read again as text when pandas typed it)."""
        series = self.frame[col]
        if not pd.api.types.is_string_dtype(series.dtype) or series.dtype == object:
            if col not in self._raw:
                raw = self._pandas(usecols=[col], dtype=str, keep_default_na=False, na_filter=False)
                self._raw[col] = raw[col]
            series = self._raw[col]
        return _Strings(series, self.tokens, self.delimiter == ";")

    def is_number_column(self, col: str) -> bool:
        return self.frame[col].dtype.kind in "iuf"

    def floats(self, col: str, strict: bool) -> np.ndarray | None:
        """The column as float64; None (auto) or DataError (strict) if not all numbers."""
        if self.is_number_column(col):
            return self.frame[col].to_numpy(dtype=np.float64)
        strings = self.strings(col)
        nums, bad = strings.numbers()
        if bad < 0:
            return strings.as_floats(nums)
        if not strict:
            return None
        row = int(np.flatnonzero(strings.codes == bad)[0])
        raise DataError(
            f"{self.name}, line {self.line_of(row)}, column '{col}': "
            f"{show(strings.values[bad])} is not a number"
        )

    def finite(self, col: str, nums: np.ndarray) -> np.ndarray:
        """The numeric feature column, or DataError at its first infinite value."""
        infinite = np.isinf(nums)
        if infinite.any():
            row = int(np.flatnonzero(infinite)[0])
            raise DataError(
                f"{self.name}, line {self.line_of(row)}, column '{col}': {nums[row]} is not "
                "allowed (numeric values must be finite; leave the cell empty or write ? "
                "for a missing value)"
            )
        return nums

    def labels(self, col: str, as_strings: bool, strict: bool) -> pd.Series:
        """The target column: numbers (int when integer-valued) or strings."""
        nums = None if as_strings else self.floats(col, strict)
        if nums is None:
            return pd.Series(self.strings(col).as_objects(), name=col, dtype=object)
        if is_integral(nums):
            missing = np.isnan(nums)
            ints = np.where(missing, 0, nums).astype(np.int64)
            if missing.any():
                return pd.Series(pd.arrays.IntegerArray(ints, missing), name=col)
            return pd.Series(ints, name=col)
        return pd.Series(nums, name=col)

    def infer(self, target: str | None, forced_cat: set[str], forced_num: set[str]) -> Dataset:
        columns: dict[str, Any] = {}
        features = []
        for col in self.header:
            if col == target or col == ROW_NAMES:
                continue
            nums = None if col in forced_cat else self.floats(col, col in forced_num)
            if nums is not None:
                columns[col] = self.finite(col, nums)
                features.append(FeatureSpec(col, NUMERIC))
            else:
                cat, book = self.strings(col).as_categorical()
                columns[col] = cat
                features.append(FeatureSpec(col, CATEGORICAL, book))
        X = pd.DataFrame(columns, index=pd.RangeIndex(len(self.frame)))
        y = classes = None
        if target is not None:
            y = self.labels(target, target in forced_cat, target in forced_num)
            classes = _classes(y)
        schema = Schema(tuple(features), target, classes, self.tokens)
        if schema.na_tokens is not None:
            X.attrs["na_tokens"] = schema.na_tokens
        return Dataset(X, y, schema)

    def with_schema(self, schema: Schema, target: str | None) -> Dataset:
        columns: dict[str, Any] = {}
        absent = [spec.name for spec in schema.features if spec.name not in self.header]
        if absent:
            noun = "column" if len(absent) == 1 else "columns"
            listed = ", ".join(f"'{name}'" for name in absent[:20])
            raise DataError(f"{self.name}: missing {noun} {listed} required by the schema")
        for spec in schema.features:
            if spec.is_categorical:
                columns[spec.name] = pd.Series(self.strings(spec.name).as_objects(), dtype=object)
            else:
                columns[spec.name] = self.finite(spec.name, self.floats(spec.name, strict=True))
        X = pd.DataFrame(columns, index=pd.RangeIndex(len(self.frame)))
        y = None
        if target is not None:
            y = self.labels(target, as_strings=_all_strings(schema.classes), strict=False)
            if schema.target != target:
                classes = schema.classes if schema.classes is not None else _classes(y)
                schema = schema.with_target(target, classes)
        return Dataset(X, y, schema)


def _all_strings(classes: Codebook | None) -> bool:
    return (
        classes is not None and len(classes) > 0 and all(isinstance(v, str) for v in classes.values)
    )


def _classes(y: pd.Series) -> Codebook:
    if y.dtype == object:
        values = pd.unique(y.dropna())
        return Codebook(tuple(sorted(str(v) for v in values)))
    values = np.unique(y.dropna().to_numpy(dtype=np.float64 if y.dtype.kind == "f" else np.int64))
    return Codebook(tuple(v.item() for v in values))
