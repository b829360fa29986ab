"""Data layer: schemas and codebooks, and the CSV, ARFF and Parquet readers."""

from __future__ import annotations

import os
from typing import Any

from quercus._lazy import submodule_attributes
from quercus.data.arff_reader import read_arff
from quercus.data.csv_reader import read_csv
from quercus.data.frames import MISSING_STRINGS
from quercus.data.parquet_reader import read_parquet
from quercus.data.schema import Codebook, Dataset, FeatureSpec, Schema, infer_schema
from quercus.data.sources import data_format
from quercus.errors import DataError


def read_data(path: str | os.PathLike, target: str | None = None, **options: Any) -> Dataset:
    """Read a data file by its name: ``.csv`` (also ``.csv.gz``, ``.bz2``, ``.zip``,
    ``.xz``), ``.arff`` or ``.parquet``, with :func:`read_csv`, :func:`read_arff` or
    :func:`read_parquet` and their keyword options (ARFF declares its types, so
    ``categorical=``/``numeric=`` are refused for it; ``delimiter=`` is CSV's only)."""
    kind = data_format(path)
    if kind == "csv":
        return read_csv(path, target, **options)
    options = {k: v for k, v in options.items() if v is not None}
    options.pop("delimiter", None) if kind == "parquet" else None
    if kind == "parquet":
        return read_parquet(path, target, **options)
    for key in ("categorical", "numeric", "delimiter"):
        if options.get(key):
            raise DataError(f"{os.fspath(path)}: {key}= does not apply to an ARFF file "
                            "(its header declares the types)")
        options.pop(key, None)
    return read_arff(path, target, **options)


# every public submodule is an attribute, imported on first use (quercus/_lazy.py)
__getattr__, __dir__ = submodule_attributes(__name__, __path__, globals())
del submodule_attributes

__all__ = [
    "MISSING_STRINGS",
    "Codebook",
    "Dataset",
    "FeatureSpec",
    "Schema",
    "infer_schema",
    "read_arff",
    "read_csv",
    "read_data",
    "read_parquet",
]
