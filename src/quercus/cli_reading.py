"""The ``quercus`` command's reading of data files: the read itself with the reading options
every command that reads data takes (``cli_parser.reading_options``; warnings printed as
``quercus: warning: ...`` lines), leaving out rows without a class, and ``quercus inspect``."""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from .data import Dataset, Schema, read_data
from .data.sources import data_format
from .errors import QuercusError


def read_file(path: str, target: str | None = None, *, schema: Schema | None = None,
              args: argparse.Namespace | None = None, warn: bool = False) -> Dataset:
    """Read DATA by its name (.csv, compressed CSV, .arff or .parquet) with the reading
    options of ``args`` (--na-values, --keep-na-token, --categorical, --numeric). With
    ``warn``, type-inference warnings are printed as ``quercus: warning: ...`` lines."""
    options = {"na_values": getattr(args, "na_values", None) or None,
               "keep_na": getattr(args, "keep_na", None) or None}
    if schema is not None:
        options["schema"] = schema
    elif data_format(path) != "arff":  # ARFF: --categorical goes to the estimator
        options["categorical"] = getattr(args, "categorical", None) or None
        options["numeric"] = getattr(args, "numeric", None) or None
    elif getattr(args, "numeric", None):
        raise QuercusError(f"{path}: --numeric does not apply to an ARFF file (its header "
                           "declares the types)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        data = read_data(path, target, **options)
    for warning in caught:
        if warn and issubclass(warning.category, UserWarning):
            print(f"quercus: warning: {warning.message}", file=sys.stderr)
    return data


def labelled_rows(path: str, data: Dataset) -> Dataset:
    """The rows whose class is known; one line on stderr says how many were left out."""
    known = data.y.notna().to_numpy()
    if known.all() or not known.any():  # none known: the learner says so
        return data
    lost = int((~known).sum())
    print(f"quercus: warning: {path}: left out {lost} of {len(known)} rows whose target "
          f"'{data.schema.target}' is missing; counts below are of the {int(known.sum())} "
          "rows used", file=sys.stderr)
    X = data.X.iloc[np.flatnonzero(known)].reset_index(drop=True)
    y = data.y.iloc[np.flatnonzero(known)].reset_index(drop=True)
    return Dataset(X, y, data.schema)


def cmd_inspect(args: argparse.Namespace) -> int:
    from .data.inspect import describe

    data = read_file(args.data, args.target, args=args, warn=True)
    sys.stdout.write(describe(data, args.data))
    return 0
