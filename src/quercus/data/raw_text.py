"""Columns of a data file as the text written in it, for ``quercus predict --keep``.

The typed readers turn ``007`` into the number 7; a column copied into a predictions file
must stay as the file wrote it. CSV fields are read as strings, with the CSV reader's
delimiter, encoding and header (quotes removed, leading blanks skipped, nothing treated as
missing); ARFF values are unquoted and a missing value (``?``) becomes an empty string.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pandas as pd

from quercus.data.arff_reader import _parse
from quercus.data.csv_reader import detect_delimiter
from quercus.data.parquet_reader import _frame as _parquet_frame
from quercus.data.sources import data_format
from quercus.errors import DataError

__all__ = ["ALL", "read_text_columns"]

ALL = "all"  # keep every column, in the file's order


def read_text_columns(path: str | os.PathLike, columns: Sequence[str]) -> pd.DataFrame:
    """The named columns of a data file (CSV, plain or compressed, ARFF or Parquet) as strings (object dtype), in the order
    given; ``["all"]`` names every column in the file's order.

    Raises
    ------
    DataError
        A column the file does not have (one line naming it and the file's columns), or
        a file name of no known data format.
    """
    name = os.fspath(path)
    header, read = _READERS[data_format(name)](name)
    wanted = list(header) if list(columns) == [ALL] else list(dict.fromkeys(columns))
    absent = [c for c in wanted if c not in header]
    if ALL in absent:
        raise DataError(f"{name}: --keep {ALL} copies every column; give it alone")
    if absent:
        noun = "column" if len(absent) == 1 else "columns"
        listed = ", ".join(f"'{c}'" for c in absent)
        raise DataError(f"{name}: no {noun} {listed} to keep; columns are: {', '.join(header)}")
    return read(wanted)


def _csv(name: str):
    delimiter = detect_delimiter(name)
    header = pd.read_csv(name, sep=delimiter, nrows=0, encoding="utf-8-sig",
                         skipinitialspace=True)
    names = [str(c).strip() for c in header.columns]

    def read(wanted: list[str]) -> pd.DataFrame:
        frame = pd.read_csv(name, sep=delimiter, header=0, names=names, index_col=False,
                            usecols=wanted, dtype=str, keep_default_na=False, na_filter=False,
                            skipinitialspace=True, encoding="utf-8-sig")
        return frame[wanted].astype(object)

    return names, read


def _arff(name: str):
    attrs, rows, _ = _parse(name, frozenset({"?"}))  # ARFF's own missing mark only
    names = [a.name for a in attrs]

    def read(wanted: list[str]) -> pd.DataFrame:
        position = {n: j for j, n in enumerate(names)}
        return pd.DataFrame({c: pd.Series(["" if row[position[c]] is None
                                           else row[position[c]] for row in rows],
                                          dtype=object) for c in wanted})

    return names, read


def _parquet(name: str):
    frame = _parquet_frame(name)
    names = list(frame.columns)

    def read(wanted: list[str]) -> pd.DataFrame:
        return pd.DataFrame({c: pd.Series(["" if pd.isna(v) else str(v) for v in frame[c]],
                                          dtype=object) for c in wanted})

    return names, read


_READERS = {"csv": _csv, "arff": _arff, "parquet": _parquet}
