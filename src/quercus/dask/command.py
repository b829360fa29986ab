"""``quercus train DATA --scheduler ADDRESS``: read Parquet or CSV files with Dask and fit on
a cluster (``tcp://host:8786``) or on a local one (``local:N``, N worker processes)."""

from __future__ import annotations

import glob
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.csv_reader import _looks_numeric
from ..data.frames import MISSING_STRINGS, is_integral
from ..errors import DataError, QuercusError
from ..export.model_file import save_model
from . import fit
from ._levels import LevelStats

CONNECT_SECONDS = 10


def connect(address: str):
    """A Client for ``tcp://host:port`` (or any scheduler address), or a LocalCluster's for
    ``local`` / ``local:N``; returns (client, cluster or None)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as error:
        raise QuercusError(f"--scheduler needs Dask: pip install 'quercus[dask]' ({error})") \
            from None
    if address == "local" or address.startswith("local:"):
        text = address.partition(":")[2] or "2"
        if not text.isdigit() or int(text) < 1:
            raise QuercusError(f"--scheduler local:N needs a worker count N >= 1; got {address!r}")
        cluster = LocalCluster(n_workers=int(text), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout=CONNECT_SECONDS), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise QuercusError(f"cannot reach the Dask scheduler at {address} within "
                           f"{CONNECT_SECONDS} s ({type(exc).__name__})") from None


def _clean(value) -> str | None:
    text = value.strip() if isinstance(value, str) else None
    return None if text is None or text in MISSING_STRINGS else text


def _strip(column: pd.Series) -> pd.Series:
    """Stripped strings, None where ``read_csv`` sees a missing value."""
    return pd.Series([_clean(v) for v in column.to_numpy(dtype=object)], index=column.index,
                     dtype=object)


def _numeric_columns(part: pd.DataFrame) -> dict:
    """Per column: whether every non-missing value of this partition spells a number."""
    out = {}
    for col in part.columns:
        values = {v for v in _strip(part[col]) if v is not None}
        out[col] = all(_looks_numeric(v) is not None for v in values)
    return out


def _typed(part: pd.DataFrame, numeric: dict, target: str, int_labels: bool) -> pd.DataFrame:
    """The partition typed as ``read_csv`` types the whole file: numbers as float64 (an
    integer-valued class column as Int64), the rest as stripped strings (None: missing)."""
    columns = {}
    for col in part.columns:
        text = _strip(part[col])
        if numeric[col]:
            nums = pd.Series([np.nan if v is None else _looks_numeric(v) for v in text],
                             index=part.index, dtype=float)
            if col == target and int_labels:
                nums = nums.astype("Int64")
            columns[col] = nums
        else:
            columns[col] = text.astype(object)
    return pd.DataFrame(columns, index=part.index)


def read(path: str, target: str, categorical: list[str], blocksize="64MB"):
    """X and y as Dask collections; CSV typed column by column as ``read_csv`` does (a
    column is numeric only if every block's values are numbers)."""
    import dask.dataframe as dd

    files = sorted(glob.glob(path)) or [path]
    suffix = Path(files[0]).suffix.lower()
    missing = [f for f in files if not Path(f).exists()]
    if missing:
        raise DataError(f"{missing[0]}: No such file or directory")
    if suffix == ".parquet" or Path(files[0]).is_dir():
        frame = dd.read_parquet(files if len(files) > 1 else files[0])
    elif suffix == ".csv":
        raw = dd.read_csv(files, dtype=str, keep_default_na=False, na_filter=False,
                          blocksize=blocksize)
        flags = raw.map_partitions(lambda p: pd.DataFrame([_numeric_columns(p)]),
                                   meta={c: bool for c in raw.columns}).compute()
        numeric = {c: bool(flags[c].all()) and c not in categorical for c in raw.columns}
        int_labels = False
        if numeric.get(target):
            labels = raw[target].map_partitions(
                lambda s: pd.Series([is_integral(
                    _typed(s.to_frame(), {target: True}, target, False)[target].to_numpy())]),
                meta=(target, bool)).compute()
            int_labels = bool(labels.all())
        meta = _typed(raw._meta, numeric, target, int_labels)
        frame = raw.map_partitions(_typed, numeric, target, int_labels, meta=meta)
    else:
        raise DataError(f"{path}: unknown data format '{suffix or path}'; --scheduler reads "
                        f".parquet and .csv files")
    if target not in frame.columns:
        raise DataError(f"{path}: unknown target column '{target}'; columns are: "
                        f"{', '.join(map(str, frame.columns))}")
    return frame.drop(columns=[target]), frame[target]


def regression_reason(args, y) -> str | None:
    """Why the Dask target ``y`` is a regression target (None: classes), by the rules of
    ``cli_regression.regression_reason``: ``--task``, else a numeric target with fractional
    values or more than MAX_CLASS_VALUES distinct values (one pass over y)."""
    import dask

    from ..cli_regression import MAX_CLASS_VALUES

    task = getattr(args, "task", None)
    if task == "classification":
        return None
    dtype = y.dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if not numeric:
        if task == "regression":
            raise QuercusError(f"{args.data}: --task regression needs a numeric target; "
                               f"'{args.target}' holds values that are not numbers")
        return None
    if task == "regression":
        return "--task regression"
    known = y.dropna().astype(float)
    fractional, distinct = dask.compute((known != known.round()).any(), known.nunique())
    if fractional:
        return f"target '{args.target}' is numeric with fractional values"
    if distinct > MAX_CLASS_VALUES:
        return f"target '{args.target}' is numeric with {distinct} distinct values"
    return None


def _on_histograms(model, args):
    """CART on histograms: without ``--splitter`` the default exact search is read as hist
    (an exact search does not run on a cluster); a given ``--splitter exact`` is refused."""
    if model.algorithm != "cart" or (model.splitter == "exact"
                                     and getattr(args, "splitter_given", False)):
        raise QuercusError("--scheduler needs --algorithm cart and --splitter hist (or "
                           "auto)")
    if model.splitter == "exact":
        model.set_params(splitter="hist")
    return model


def _regressor(args):
    """The regressor of a cluster fit (``_on_histograms``)."""
    from ..cli_regression import regressor

    if args.algorithm == "auto" and getattr(args, "given_algorithm", None) is None:
        args.algorithm = "cart"
    if args.algorithm != "cart":
        raise QuercusError("--scheduler needs --algorithm cart for a regression tree")
    return _on_histograms(regressor(args), args)


def train_on_cluster(args, model) -> int:
    """The ``train`` command with ``--scheduler``: fit, write the model, print a summary;
    one line per tree level on stderr. A numeric target (``regression_reason``) trains a
    ``DecisionTreeRegressor`` instead of ``model``."""
    if args.stream:
        raise QuercusError("--scheduler and --stream cannot be combined")
    checkpoint, resume = getattr(args, "checkpoint", None), getattr(args, "resume", None)
    if (checkpoint or resume) and model.max_leaf_nodes is not None:
        raise QuercusError("--checkpoint and --resume work with level-wise growth, not with "
                           "--max-leaf-nodes")
    if resume and not Path(resume).is_file():
        raise DataError(f"{resume}: No such checkpoint file")
    client, cluster = connect(args.scheduler)
    try:
        start = time.perf_counter()
        X, y = read(args.data, args.target, list(args.categorical or []))
        reason = regression_reason(args, y)
        model = _regressor(args) if reason is not None else _on_histograms(model, args)
        if Path(args.data).suffix.lower() != ".csv" and args.categorical:
            model.set_params(categorical_features=list(args.categorical))

        def on_level(stats: LevelStats) -> None:
            print(f"level {stats.level}: {stats.nodes} nodes, {stats.histograms} histograms, "
                  f"{stats.bytes_per_worker / 2**20:.1f} MB per worker, "
                  f"{stats.seconds:.2f} s", file=sys.stderr, flush=True)

        try:
            fit(model, X, y, client=client, on_level=on_level, checkpoint=checkpoint,
                resume=resume)
        except DataError as error:
            raise DataError(f"{args.data}: {error}") from error
        seconds = time.perf_counter() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    save_model(model, args.out)
    tree = model.tree_
    n = int(tree.n_node_samples[0])
    if reason is not None:
        print(f"Regression tree: {reason} (--task classification to force classes)")
        print(f"Trained on {n} rows with a known target, {model.n_features_in_} features "
              f"(cart, {model.criterion}, hist, on Dask {args.scheduler})")
        print(f"Depth: {model.get_depth()}, leaves: {model.get_n_leaves()}")
        print(f"Fit time: {seconds:.3f} s (reading included)")
        print(f"Model written to {args.out}")
        return 0
    print(f"Trained on {n} rows with a known class, {model.n_features_in_} features, "
          f"{model.n_classes_} classes (cart, hist, on Dask {args.scheduler})")
    print(f"Depth: {model.get_depth()}, leaves: {model.get_n_leaves()}")
    print(f"Fit time: {seconds:.3f} s (reading included)")
    print(f"Model written to {args.out}")
    return 0
