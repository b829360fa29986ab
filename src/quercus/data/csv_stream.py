"""Read a large CSV file in chunks and bin it as it is read (CART's histogram splitter).

Two passes over the file, each in chunks of ``chunk_rows`` rows parsed by pandas:

1. **scan**: the column types (decided as ``read_csv`` decides them), every category of
   the categorical columns and of the class column, the number of rows, and a uniform
   random sample of ``sample_rows`` rows with a known class (each row draws a random key;
   the sample keeps the smallest keys), from which ``BinMapper`` learns the bin edges;
2. **bin**: every chunk is encoded and binned straight into a preallocated
   (n_features, n_rows) matrix of one byte per value (two when a categorical feature has
   more than 255 categories), next to the class codes.

The float matrix of the whole file never exists: memory is about n_rows x n_features
bytes, plus the sample (sample_rows x n_features x 8 bytes) and one chunk. Rows whose
class is missing are counted but not kept (the learners leave them out). A file of at most
``sample_rows`` such rows gets exactly the bins (and the tree) of an in-memory
``splitter="hist"`` fit; a larger one gets quantiles of its own sample.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..binning import SAMPLE_ROWS, BinMapper
from ..errors import DataError
from ..names import MAX_CLASS_VALUES
from .csv_reader import (
    ROW_NAMES,
    _check_file,
    _looks_numeric,
    _read_header,
    _records,
    _Strings,
    column_list,
)
from .frames import DEFAULT_NA_TOKENS, is_integral, na_tokens, sorted_categories
from .schema import CATEGORICAL, NUMERIC, Codebook, FeatureSpec, Schema
from .sources import READ_ERRORS, find_bad_byte, read_errors

CHUNK_ROWS = 100_000
TASKS = ("classification", "regression", "auto")
# with task="auto", a numeric target with more distinct values than MAX_CLASS_VALUES
# (quercus/names.py: ``quercus train``'s rule) is a regression target

# progress(stage, rows done, total rows or None): stage is "scan" or "bin"
Progress = Callable[[str, int, "int | None"], None]


@dataclass
class BinnedCsv:
    """A CSV file binned while it was read: what ``DecisionTreeClassifier.fit_binned``
    takes (``binned``, ``y``, ``schema``, ``binner``)."""

    binned: np.ndarray  # (n_features, n_known) uint8 or uint16 bins
    y: np.ndarray  # int32 class codes (float64 targets for regression) of the known rows
    schema: Schema
    binner: BinMapper
    n_rows: int  # data rows in the file, those with a missing class included
    task: str = "classification"  # or "regression": y holds numbers, schema no classes


def read_csv_binned(path: str | os.PathLike, target: str, *,
                    categorical: Sequence[str] | None = None,
                    numeric: Sequence[str] | None = None, max_bins: int = 255,
                    sample_rows: int = SAMPLE_ROWS, chunk_rows: int = CHUNK_ROWS,
                    seed: int = 0, progress: Progress | None = None,
                    na_values: Sequence[str] | str | None = None,
                    keep_na: Sequence[str] | str | None = None,
                    task: str = "classification",
                    max_class_values: int = MAX_CLASS_VALUES) -> BinnedCsv:
    """Read a CSV file with a header row in two chunked passes, binning its features.

    Parameters
    ----------
    path : str or path-like
        A comma-separated file, plain or compressed (``.gz``, ``.bz2``, ``.zip``, ``.xz``).
    target : str
        The class column.
    categorical, numeric : list of str, optional
        Columns forced categorical or numeric; otherwise a column is numeric when all its
        non-missing values are numbers (as ``read_csv``).
    max_bins : int
        Bins per numeric feature (``BinMapper``).
    sample_rows : int
        Rows sampled to learn the bin edges.
    chunk_rows : int
        Rows parsed at a time.
    seed : int
        Seed of the sample's random keys.
    progress : callable, optional
        Called after each chunk with the stage, the rows done and the total (once known).
    na_values, keep_na : str or list of str, optional
        Missing-value strings added to, or kept out of, the default set (as ``read_csv``);
        a non-default set is stored in the schema.
    task : {"classification", "regression", "auto"}
        What the target holds: class labels (the default), numbers (``y`` float64, the
        schema without classes, for ``DecisionTreeRegressor.fit_binned``), or, with
        "auto", numbers when every known target is a number and they are fractional or
        more than ``max_class_values`` distinct ones (as ``quercus train`` decides).
        ``BinnedCsv.task`` says which was read.

    Raises
    ------
    DataError
        With a one-line message that starts with the file path.
    """
    name = os.fspath(path)
    _check_file(name)
    header, header_line = _read_header(name, ",")
    if target not in header:
        raise DataError(f"{name}: unknown target column '{target}'; columns are: "
                        f"{column_list(header)}")
    forced = set([categorical] if isinstance(categorical, str) else categorical or ())
    forced_num = set([numeric] if isinstance(numeric, str) else numeric or ())
    for what, cols in (("categorical", forced), ("numeric", forced_num)):
        unknown = sorted(cols - set(header))
        if unknown:
            raise DataError(f"{name}: unknown column '{unknown[0]}' in {what}=; columns "
                            f"are: {', '.join(header)}")
    if forced & forced_num:
        raise DataError(f"{name}: column '{min(forced & forced_num)}' is forced both "
                        "categorical and numeric")
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}")
    tokens = na_tokens(na_values, keep_na)
    file = _File(name, header, chunk_rows, tokens)
    if task == "regression" and target in forced:
        raise DataError(f"{name}: the target '{target}' of a regression is forced "
                        "categorical")
    targets = _Targets(task, max_class_values, target in forced)
    scan = _Scan(file, target, forced, sample_rows, seed, forced_num, targets).run(progress)
    if scan.n_rows == 0:
        raise DataError(f"{name}: no data rows after the header (line {header_line})")
    schema, label_codes, category_codes = scan.schema(target in forced)
    schema = schema.with_na_tokens(tokens)
    if targets.numbers:
        schema = dataclasses.replace(schema, classes=None)
    binner = BinMapper(max_bins, sample_rows=max(sample_rows, 1), seed=seed).fit(
        scan.sample, schema.categorical_mask, schema.n_categories,
        complete=scan.n_known <= sample_rows)
    scan.sample = scan.keys = None  # not needed any more
    binned, y = _bin_pass(file, scan, label_codes, category_codes, binner, progress)
    return BinnedCsv(binned, y, schema, binner, scan.n_rows,
                     "regression" if targets.numbers else "classification")


class _Targets:
    """What the scan learns of the target column: numbers (a regression target, parsed as a
    numeric column) or class labels. With task "auto" the scan starts with labels and
    switches (restarting) once the known targets are numbers that are fractional or more
    than ``max_class_values`` distinct ones, and back to labels for good if a later target
    is not a number."""

    def __init__(self, task: str, max_class_values: int, forced_text: bool):
        self.task, self.max_class_values = task, max_class_values
        self.numbers = task == "regression"
        self.undecided = task == "auto" and not forced_text
        self.distinct: set[float] = set()

    def labels_known(self, labels: _Strings, collected: set[str]) -> np.ndarray:
        """Take one chunk's label strings; returns the rows with a known target. Raises
        _Retype when the labels turn out to be a regression target's numbers."""
        collected.update(labels.values)
        if self.undecided:
            values, bad = labels.numbers()
            if bad >= 0:
                self.undecided = False  # text: class labels
            else:
                self.distinct.update(values.tolist())
                if (len(self.distinct) > self.max_class_values
                        or (values != np.round(values)).any()):
                    self.numbers = True
                    raise _Retype
        return labels.codes >= 0

    def not_numbers(self) -> None:
        """A target that is not a number, with task "auto": class labels after all."""
        self.numbers = self.undecided = False
        raise _Retype


class _File:
    """The CSV file read in chunks with ``read_csv``'s options; ragged rows are errors."""

    def __init__(self, name: str, header: list[str], chunk_rows: int,
                 tokens: frozenset[str] = DEFAULT_NA_TOKENS):
        self.name, self.header, self.chunk_rows = name, header, chunk_rows
        self.tokens = tokens
        self.checked = False  # the whole file was checked for ragged rows

    def chunks(self, text: set[str]) -> Iterator[pd.DataFrame]:
        """Chunks of the data rows; the columns in ``text`` stay strings."""
        try:
            reader = pd.read_csv(self.name, sep=",", header=0, names=self.header,
                                 index_col=False, skipinitialspace=True,
                                 encoding="utf-8", keep_default_na=False,
                                 na_values=sorted(self.tokens), dtype=dict.fromkeys(text, str),
                                 chunksize=self.chunk_rows)
            with reader:
                while True:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always", pd.errors.ParserWarning)
                        chunk = next(reader, None)
                    if chunk is None:
                        return
                    if caught or (len(chunk) and chunk.iloc[:, -1].isna().any()):
                        self._check_ragged()
                    yield chunk
        except UnicodeDecodeError as exc:
            raise find_bad_byte(self.name) or DataError(
                f"{self.name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except READ_ERRORS as exc:  # e.g. a damaged compressed file
            raise read_errors(self.name, exc) from None
        except pd.errors.ParserError as exc:
            self._check_ragged()
            message = " ".join(str(exc).split())
            raise DataError(f"{self.name}: cannot parse the file ({message})") from None

    def _check_ragged(self) -> None:
        """Name the first row with the wrong number of fields (a missing last value looks
        like a short row to pandas, so the file is read once more, only the first time)."""
        if self.checked:
            return
        want = len(self.header)
        for line, row in _records(self.name, ","):
            if len(row) != want:
                raise DataError(f"{self.name}: line {line} has {len(row)} fields, "
                                f"expected {want}")
        self.checked = True


class _Retype(Exception):
    """Columns turned out to hold text: scan again, reading them as strings."""


def _numbers(column: pd.Series, tokens: frozenset[str]) -> np.ndarray | None:
    """The column as float64 (NaN for missing), or None if a value is not a number."""
    if column.dtype.kind in "iuf":
        return column.to_numpy(dtype=np.float64)
    if column.dtype != object:  # e.g. bool: True/False are categories, as in read_csv
        return None
    strings = _Strings(column, tokens)
    values, bad = strings.numbers()
    return strings.as_floats(values) if bad < 0 else None


def _reject_infinity(name: str, column: str, values: np.ndarray, rows_before: int) -> None:
    """DataError naming the file, line and column of the first infinite value, as the
    in-memory reader refuses it (the header is line 1)."""
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        line = rows_before + int(infinite[0]) + 2
        raise DataError(f"{name}, line {line}, column '{column}': {values[infinite[0]]} is not "
                        "allowed (numeric values must be finite; leave the cell empty or write "
                        "? for a missing value)")


class _Scan:
    """Pass 1: types, categories, row counts and the sample of known-class rows."""

    def __init__(self, file: _File, target: str, forced: set[str], sample_rows: int,
                 seed: int, forced_num: set[str] | None = None,
                 targets: _Targets | None = None):
        self.file, self.target, self.seed = file, target, seed
        self.targets = targets or _Targets("classification", MAX_CLASS_VALUES, True)
        self.forced_num = forced_num or set()
        self.tokens = file.tokens
        self.features = [c for c in file.header if c not in (target, ROW_NAMES)]
        self.text = forced | {target}
        self.sample_rows = sample_rows

    def run(self, progress: Progress | None) -> _Scan:
        while True:
            try:
                self._once(progress)
                return self
            except _Retype:
                continue

    def _once(self, progress: Progress | None) -> None:
        rng = np.random.default_rng(self.seed)
        if self.targets.numbers:
            self.text.discard(self.target)
        else:
            self.text.add(self.target)
        self.n_rows = self.n_known = 0
        self.categories = {c: set() for c in self.features if c in self.text}
        self.labels: set[str] = set()
        self.keys = np.empty(0)
        self.sample = np.empty((0, len(self.features)))
        for chunk in self.file.chunks(self.text):
            if self.targets.numbers:
                known = ~np.isnan(self._target_numbers(chunk))
            else:
                known = self.targets.labels_known(_Strings(chunk[self.target], self.tokens),
                                                  self.labels)
            X = np.full((len(chunk), len(self.features)), np.nan)
            retype = []
            for j, col in enumerate(self.features):
                if col in self.text:
                    self.categories[col].update(_Strings(chunk[col], self.tokens).values)
                    continue
                values = _numbers(chunk[col], self.tokens)
                if values is None and col in self.forced_num:
                    self._not_a_number(chunk, col)
                if values is None:
                    retype.append(col)
                else:
                    _reject_infinity(self.file.name, col, values, self.n_rows)
                    X[:, j] = values
            if retype:
                self.text.update(retype)
                raise _Retype
            self.n_rows += len(chunk)
            self.n_known += int(known.sum())
            self._add_to_sample(X[known], rng.random(int(known.sum())))
            if progress is not None:
                progress("scan", self.n_rows, None)

    def _target_numbers(self, chunk: pd.DataFrame) -> np.ndarray:
        """The chunk's targets as numbers (NaN for missing); a target that is no number is
        an error with task "regression" and makes them class labels with "auto"."""
        values = _numbers(chunk[self.target], self.tokens)
        if values is None and self.targets.task == "regression":
            self._not_a_number(chunk, self.target)
        if values is None:
            self.targets.not_numbers()
        _reject_infinity(self.file.name, self.target, values, self.n_rows)
        return values

    def _not_a_number(self, chunk: pd.DataFrame, col: str) -> None:
        """DataError at the first value of a column forced numeric that is no number."""
        strings = _Strings(chunk[col], self.tokens)
        _, bad = strings.numbers()
        row = int(np.flatnonzero(strings.codes == bad)[0])
        line = -1
        for i, (number, _) in enumerate(_records(self.file.name, ",")):
            if i == self.n_rows + row + 1:
                line = number
                break
        raise DataError(f"{self.file.name}, line {line}, column '{col}': "
                        f"{strings.values[bad]!r} is not a number")

    def _add_to_sample(self, X: np.ndarray, keys: np.ndarray) -> None:
        """Keep the ``sample_rows`` rows with the smallest keys seen so far."""
        room = self.sample_rows - self.keys.size
        if room > 0:
            self.keys = np.concatenate([self.keys, keys[:room]])
            self.sample = np.concatenate([self.sample, X[:room]])
            X, keys = X[room:], keys[room:]
        if keys.size == 0 or self.keys.size == 0:
            return
        candidates = np.flatnonzero(keys < self.keys.max())
        if candidates.size == 0:
            return
        size = self.keys.size
        merged = np.concatenate([self.keys, keys[candidates]])
        kept = np.zeros(merged.size, dtype=bool)
        kept[np.argpartition(merged, size - 1)[:size]] = True
        leaving, incoming = np.flatnonzero(~kept[:size]), np.flatnonzero(kept[size:])
        self.keys[leaving] = keys[candidates[incoming]]
        self.sample[leaving] = X[candidates[incoming]]

    def schema(self, labels_as_strings: bool) -> tuple[Schema, dict, dict]:
        """The schema, and the code of each label string and of each category string."""
        features, category_codes = [], {}
        for col in self.features:
            if col in self.text:
                book = Codebook(tuple(sorted_categories(self.categories[col])))
                category_codes[col] = {value: code for code, value in enumerate(book.values)}
                features.append(FeatureSpec(col, CATEGORICAL, book))
            else:
                features.append(FeatureSpec(col, NUMERIC))
        classes, label_codes = _classes(sorted(self.labels), labels_as_strings)
        return Schema(tuple(features), self.target, classes), label_codes, category_codes


def _classes(strings: list[str], as_strings: bool) -> tuple[Codebook, dict]:
    """The class codebook of the label strings (numbers when they all are, as read_csv
    reads them) and each string's class code."""
    numbers = [_looks_numeric(s) for s in strings]
    if as_strings or any(n is None for n in numbers):
        book = Codebook(tuple(sorted_categories(strings)))
        return book, {s: book.values.index(s) for s in strings}
    values = np.array(numbers, dtype=np.float64)
    if is_integral(values):
        values = values.astype(np.int64)
    distinct = np.unique(values)
    book = Codebook(tuple(v.item() for v in distinct))
    codes = np.searchsorted(distinct, values)
    return book, {s: int(c) for s, c in zip(strings, codes)}


def _codes(strings: _Strings, codes_of: dict, name: str) -> np.ndarray:
    """The code of every row's string (-1 for missing)."""
    try:
        lookup = np.array([codes_of[v] for v in strings.values] + [-1], dtype=np.int64)
    except KeyError:
        raise DataError(f"{name}: the file changed while it was read") from None
    return lookup[strings.codes]


def _bin_pass(file: _File, scan: _Scan, label_codes: dict, category_codes: dict,
              binner: BinMapper, progress: Progress | None) -> tuple[np.ndarray, np.ndarray]:
    """Pass 2: encode and bin every chunk into the preallocated matrix."""
    n_features = len(scan.features)
    numbers = scan.targets.numbers
    binned = np.empty((n_features, scan.n_known), dtype=binner.dtype_)
    y = np.empty(scan.n_known, dtype=np.float64 if numbers else np.int32)
    changed = DataError(f"{file.name}: the file changed while it was read")
    done = rows = 0
    for chunk in file.chunks(scan.text):
        if numbers:
            classes = _numbers(chunk[scan.target], scan.tokens)
            if classes is None:
                raise changed
            known = ~np.isnan(classes)
        else:
            classes = _codes(_Strings(chunk[scan.target], scan.tokens), label_codes,
                             file.name)
            known = classes >= 0
        n = int(known.sum())
        if done + n > scan.n_known:
            raise changed
        X = np.empty((n, n_features))
        for j, col in enumerate(scan.features):
            if col in category_codes:
                codes = _codes(_Strings(chunk[col], scan.tokens), category_codes[col],
                               file.name)[known]
                X[:, j] = np.where(codes >= 0, codes, np.nan)
                continue
            values = _numbers(chunk[col], scan.tokens)
            if values is None:
                raise changed
            X[:, j] = values[known]
        binned[:, done : done + n] = binner.transform(X)
        y[done : done + n] = classes[known]
        done, rows = done + n, rows + len(chunk)
        if progress is not None:
            progress("bin", rows, scan.n_rows)
    if done != scan.n_known or rows != scan.n_rows:
        raise changed
    return binned, y
