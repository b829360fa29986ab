"""Say what type inference did when it may not be what the user meant.

Two cases give one warning line each (the readers raise them as ``UserWarning``; the
command line prints them as ``quercus: warning: ...``):

* a column read as categorical although most of its values are numbers: a few tokens
  such as ``unknown`` or ``-`` kept it from being numeric;
* a categorical column with more distinct values than half its rows (from
  :data:`MIN_ROWS` rows on): an identifier or free text, on which a tree can only
  memorise rows.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

#: Fewer rows than this never give the "many distinct values" warning.
MIN_ROWS = 20
#: Tokens named in a warning, most frequent first.
SHOWN = 5


def _number(text: str) -> bool:
    if "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _quote(token: str) -> str:
    """A token as a shell argument: bare when it is plain, else single-quoted."""
    if token and all(c.isalnum() or c in "._-/#" for c in token) and token[0] != "-":
        return token
    return "'" + token.replace("'", "'\\''") + "'"


def type_warnings(name: str, X: pd.DataFrame, forced: Iterable[str] = ()) -> list[str]:
    """The warning lines for the categorical columns of a frame just read.

    Parameters
    ----------
    name : str
        The file, named at the start of each line.
    X : DataFrame
        The features as read (categorical columns are pandas categoricals).
    forced : iterable of str
        Columns the user made categorical: never warned about.

    Returns
    -------
    list of str
    """
    forced = set(forced)
    out = []
    n_rows = len(X)
    for col in X.columns:
        series = X[col]
        if col in forced or not isinstance(series.dtype, pd.CategoricalDtype):
            continue
        counts = series.value_counts(sort=True)
        counts = counts[counts > 0]
        present = int(counts.sum())
        if present == 0:
            continue
        labels = [str(v) for v in counts.index]
        numeric = np.array([_number(v) for v in labels], dtype=bool)
        in_numbers = int(counts.to_numpy()[numeric].sum())
        if in_numbers * 2 > present and in_numbers < present:
            others = [(v, int(c)) for v, c, n in zip(labels, counts.to_numpy(), numeric) if not n]
            listed = ", ".join(f"{v!r} ({c} row{'s' if c != 1 else ''})"
                               for v, c in others[:SHOWN])
            more = f" and {len(others) - SHOWN} more" if len(others) > SHOWN else ""
            tokens = " ".join(_quote(v) for v, _ in others[:SHOWN])
            out.append(f"{name}: column '{col}' was read as categorical although {in_numbers} "
                       f"of its {present} values are numbers; the others are {listed}{more}. "
                       f"If they mean a missing value, read with --na-values {tokens} "
                       f"(Python: na_values=) and --numeric {_quote(str(col))}; "
                       f"to keep it categorical, --categorical {_quote(str(col))}")
        elif n_rows >= MIN_ROWS and len(counts) * 2 > n_rows:
            examples = ", ".join(repr(v) for v in labels[:3])
            out.append(f"{name}: column '{col}' is categorical with {len(counts)} distinct "
                       f"values in {n_rows} rows (e.g. {examples}): a tree can only memorise "
                       "rows with it; leave it out of the data if it is an identifier or free "
                       f"text (--categorical {_quote(str(col))} keeps it and this warning "
                       "quiet)")
    return out
