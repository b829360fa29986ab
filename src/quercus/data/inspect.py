"""``quercus inspect``: what a reader made of a data file, column by column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from quercus.data.frames import canonical
from quercus.data.schema import Dataset

#: Example values shown per column.
EXAMPLES = 4


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _examples(series: pd.Series) -> str:
    present = series.dropna()
    if isinstance(series.dtype, pd.CategoricalDtype):
        counts = present.value_counts(sort=True)
        counts = counts[counts > 0]
        shown = [f"{v} ({c})" for v, c in zip(counts.index[:EXAMPLES], counts.to_numpy())]
        more = len(counts) - EXAMPLES
        return ", ".join(shown) + (f", ... {more} more" if more > 0 else "")
    if present.empty:
        return ""
    values = present.to_numpy(dtype=np.float64)
    firsts = ", ".join(_text(v) for v in pd.unique(values)[:EXAMPLES])
    return f"{firsts} (range {_text(values.min())} .. {_text(values.max())})"


def describe(data: Dataset, name: str = "") -> str:
    """A table of the columns of ``data``: type, missing count, distinct values, examples;
    then the target's classes with their counts.

    Parameters
    ----------
    data : Dataset
        What ``read_csv``, ``read_arff``, ``read_parquet`` returned.
    name : str
        The file, named in the first line.

    Returns
    -------
    str
        Lines ending with a newline.
    """
    X, y, schema = data
    n = len(X)
    rows = [("column", "type", "missing", "distinct", "examples")]
    for spec in schema.features:
        col = X[spec.name]
        missing = int(col.isna().sum())
        distinct = int(col.dropna().nunique())
        rows.append((spec.name, spec.kind, str(missing), str(distinct), _examples(col)))
    width = [max(len(r[j]) for r in rows) for j in range(4)]
    lines = [f"{name}: {n} rows, {schema.n_features} features"
             + (f", target '{schema.target}'" if y is not None else "")]
    for r in rows:
        lines.append("  ".join(r[j].ljust(width[j]) if j == 0 or j == 1 else r[j].rjust(width[j])
                               for j in range(4)) + "  " + r[4])
    if y is not None:
        counts = {canonical(k): int(c) for k, c in y.value_counts(dropna=True).items()}
        listed = ", ".join(f"{_text(v)} ({counts.get(canonical(v), 0)})"
                           for v in schema.classes.values)
        lost = int(y.isna().sum())
        lines.append(f"classes of '{schema.target}' ({len(schema.classes)}): {listed}")
        if lost:
            lines.append(f"{lost} row{'s' if lost != 1 else ''} without a class (missing "
                         f"'{schema.target}'): training leaves {'them' if lost != 1 else 'it'}"
                         " out")
    if schema.na_tokens is not None:
        lines.append("missing-value strings: " + " ".join(repr(t) for t in
                                                           sorted(schema.na_tokens)))
    return "\n".join(line.rstrip() for line in lines) + "\n"
