"""Fit Quercus's histogram CART on a Dask cluster, and predict on Dask collections.

``DecisionTreeClassifier.fit`` comes here when X is a Dask DataFrame or Array (and
``splitter`` is ``"hist"`` or ``"auto"``); Dask is imported only then. The passes:

1. **scan** (a task per partition): row counts, the distinct values that decide column
   kinds and categories, the class labels, and a bottom-k row sample for the bin edges
   (keys hashed from the global row index, so the sample is the same however the data is
   partitioned): one pass when the partition lengths are known beforehand (Parquet
   metadata, array chunks), else a scan and then a sample pass;
2. **bin** (a task per partition, kept on the workers): encode and bin the rows (of the
   partitions the scan kept, when they fit in memory, else read again);
3. **levels**: per tree level, one task per worker counts (node, feature, bin, class)
   over its partitions; the driver sums the integer counts and runs Quercus's own split
   search and tree recorder on them (``quercus.dask._levels``).

The tree equals ``fit(X, y, splitter="hist")`` on one machine given the same bin edges,
byte for byte in the model file, for any partitioning: integer counts add up exactly in any
order, and class weights multiply the sums once, as ``HistSplitter`` does.
"""

from __future__ import annotations

import time
import uuid
from asyncio import CancelledError
from collections.abc import Callable
from contextlib import contextmanager, suppress
from dataclasses import replace
from functools import partial

import numpy as np

from .. import params as P
from ..binning import SAMPLE_ROWS
from ..errors import DataError, QuercusError
from ..learners import CRITERIA, DEFAULT_CRITERION
from ..pruning.cost_complexity import prune
from . import _checkpoint, _regression, _scan, _worker
from ._best_first import grow_best_first
from ._levels import ClusterSplitter, LevelStats, grow_levels

__all__ = [
    "ClusterError",
    "LevelStats",
    "apply",
    "fit",
    "is_dask",
    "predict",
    "predict_proba",
]

LOCAL_ROWS_MAX = 2_000_000
_REFUSAL = ("a Dask collection can only be fitted with algorithm='cart' and splitter='hist' "
            "(or 'auto')")


class ClusterError(QuercusError, RuntimeError):
    """The Dask cluster failed or stopped answering during a fit."""


def is_dask(obj) -> bool:
    """True for a Dask collection (duck typing: Dask is not imported)."""
    return hasattr(obj, "__dask_graph__") and not isinstance(obj, type)


def _timeout_seconds(value) -> float:
    if isinstance(value, str):
        from dask.utils import parse_timedelta

        return float(parse_timedelta(value))
    return float(value)


def fit(estimator, X, y, sample_weight=None, *, client=None, sample_rows: int = SAMPLE_ROWS,
        seed: int = 0, local_rows="auto", best_first_batch: int = 64,
        level_timeout="10 minutes", checkpoint=None, resume=None,
        on_level: Callable | None = None, progress: Callable | None = None):
    """Fit ``estimator`` (a ``DecisionTreeClassifier`` or ``DecisionTreeRegressor``) on
    Dask collections X and y.

    Parameters
    ----------
    estimator : DecisionTreeClassifier or DecisionTreeRegressor
        With ``algorithm="cart"`` and ``splitter`` ``"hist"`` or ``"auto"`` (a regressor:
        criterion ``"squared_error"`` or ``"friedman_mse"``).
    X : dask DataFrame or 2-D dask Array (one chunk across the columns)
    y : dask Series or 1-D dask Array, partitioned like X
    sample_weight : None
        Not supported yet on a cluster (``class_weight`` is).
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    sample_rows : int
        Rows sampled for the bin edges (as ``BinMapper``).
    seed : int
        Seed of the sample's row keys.
    local_rows : int or "auto"
        A node that may split and holds at most this many rows has its rows sent to one
        worker, which grows its subtree with the single-machine code (0: never). Auto:
        min(2,000,000, rows / (2 x workers)). The tree is the same either way.
    best_first_batch : int
        With ``max_leaf_nodes`` (best-first growth): candidates whose children are counted
        per round (speculatively; the tree does not depend on it).
    level_timeout : str or float
        Longest wait for any one pass or level (e.g. ``"10 minutes"`` or seconds); past it the
        fit raises ``ClusterError`` instead of hanging.
    checkpoint : path, optional
        Write the growth state there (atomically) after each level, so that a fit whose
        driver or scheduler died can be resumed (level-wise growth; not ``max_leaf_nodes``).
    resume : path, optional
        Continue from a checkpoint: the passes run again (they are deterministic and must
        give the same schema and bins) and growth picks up at the saved level.
    on_level : callable, optional
        Called with a ``LevelStats`` after each level.
    progress : callable, optional
        Called with the share of the rows settled in leaves (0 to 1).

    Returns
    -------
    estimator, fitted: an ordinary tree (save, export, explain all work).
    """
    regression = _is_regressor(estimator)
    if regression:
        _regression.check(estimator, sample_weight)
    else:
        if estimator.algorithm != "cart" or estimator.splitter not in ("hist", "auto"):
            raise ValueError(_REFUSAL)
        if sample_weight is not None:
            raise ValueError("sample_weight is not supported with a Dask X yet; class_weight "
                             "is")
        criterion = (DEFAULT_CRITERION["cart"] if estimator.criterion is None
                     else estimator.criterion)
        P.check_choice("criterion", criterion, CRITERIA["cart"])
    max_bins = P.resolve_max_bins(estimator.max_bins)
    timeout = _timeout_seconds(level_timeout)
    source, names, has_names = _scan.partitions(X, y)
    client = _client(client)
    fit_id = uuid.uuid4().hex[:12]
    batch = max(int(best_first_batch), 1)
    try:
        if regression:
            return _regression.fit_regression(
                estimator, X, y, source, names, has_names, client, fit_id,
                max_bins, sample_rows, seed, local_rows, batch, timeout, on_level, progress,
                checkpoint, resume)
        return _fit(estimator, X, y, source, names, has_names, client, fit_id,
                    criterion, max_bins, sample_rows, seed, local_rows, batch, timeout,
                    on_level, progress, checkpoint, resume)
    finally:
        with suppress(Exception):  # the cluster may be gone: nothing to clean then
            if client.status == "running":
                client.run(_worker.forget, fit_id)


def _is_regressor(estimator) -> bool:
    return getattr(estimator, "_estimator_type", None) == "regressor"


def _client(client):
    if client is not None:
        return client
    try:
        from distributed import get_client

        return get_client()
    except ValueError:
        raise ClusterError("no Dask client: create one (distributed.Client(...)) or pass "
                           "client=") from None


@contextmanager
def _cluster_errors(what: str, timeout: float):
    """Turn what a failing or vanished cluster raises into one-line errors."""
    from distributed import TimeoutError as DaskTimeout

    try:
        yield
    except QuercusError:
        raise
    except (DaskTimeout, TimeoutError):
        raise ClusterError(f"the Dask cluster did not finish {what} within {timeout:g} s") \
            from None
    except (ValueError, KeyError, TypeError, IndexError) as exc:  # the data's, on a worker
        raise DataError(f"{what}: {exc}".replace("\n", " ")) from None
    except (Exception, CancelledError) as exc:  # noqa: BLE001 - killed workers, lost comms
        raise ClusterError(f"the Dask cluster failed during {what}: {type(exc).__name__}: "
                           f"{exc}".replace("\n", " ")) from None


def _gather(client, futures, timeout: float, what: str):
    """Results of ``futures``, or a one-line ClusterError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    with _cluster_errors(what, timeout):
        return [f.result(timeout=max(deadline - time.monotonic(), 0.001)) for f in futures]


def _prepare(estimator, X, y, source, names, client, max_bins, sample_rows, seed, timeout,
             regression=False):
    """The scan and the sample: (schema, binner, number of known rows, scan summaries,
    ``bin(function, *args)``: futures of ``function(X_part, y_part, *args)`` per partition).

    One pass over the source when its partition lengths are known before reading it
    (Parquet metadata, an array's chunks, or counted when it is persisted): each task scans
    its partition and keeps its bottom-k rows as read, and the whole partition too when the
    source takes at most ``KEEP_SHARE`` of the workers' memory, so that binning does not
    read it again. The rows whose keys are below ``_scan.early_key`` come back with the
    scan: almost always they hold the sample, which then needs no round of its own.
    Otherwise the scan finds the lengths and a second pass samples."""
    columns = _scan.value_columns(X, names, estimator.categorical_features)
    k = max(int(sample_rows), 1)
    if source.lengths is None and source.in_memory:  # counting persisted rows costs no read
        source = replace(source, lengths=tuple(_gather(
            client, client.compute(source.tasks(_scan.row_count)), timeout, "the scan")))
    infer = partial(_scan.infer, X, y, names, columns=columns,
                    categorical_features=estimator.categorical_features, regression=regression)
    if source.lengths is not None:
        starts = np.concatenate([[0], np.cumsum(source.lengths)])[:-1]
        keep = _fits_in_memory(client, X, y, sum(source.lengths))
        early = _scan.early_key(k, sum(source.lengths))
        sampled = client.compute(source.tasks(_scan.scan_sample, columns, regression, seed, k,
                                              keep, early, each=[(int(s),) for s in starts]))
        heads = _gather(client, client.map(_scan.summary_and_keys, sampled, pure=False),
                        timeout, "the scan")
        described = [h[0] for h in heads]
        _check_rows(described, source.lengths)
        schema = infer(described=described)
        keys, n_known = [h[1] for h in heads], sum(h[2] for h in heads)
        _require_known(n_known, regression)
        cut = _scan.threshold(keys, k)
        if early is None or (cut is not None and cut <= early):  # the sample came back
            rows = [_scan.early_rows(h[3], schema, cut) for h in heads]
            binner, binning = _binner_and_binning(client, rows, n_known, schema, max_bins,
                                                  k, seed, source, keep, sampled)
            return schema, binner, n_known, described, binning
        pick = partial(_scan.encoded_at_most, schema=schema)
    else:
        describe = _scan.describe_regression if regression else _scan.describe
        described = _gather(client, client.compute(source.tasks(describe, columns)), timeout,
                            "the scan")
        _check_rows(described, None)
        schema = infer(described=described)
        starts = np.concatenate([[0], np.cumsum([d["rows"] for d in described])])[:-1]
        # the sample stays on the workers; only keys, then the rows below the k-th, come back
        sampled = client.compute(source.tasks(_scan.sample, schema, each=[
            (int(s), seed, k, regression) for s in starts]))
        keys = _gather(client, client.map(_scan.keys_of, sampled, pure=False), timeout,
                       "the sample")
        n_known = sum(_gather(client, client.map(_known_of, sampled, pure=False), timeout,
                              "the sample"))
        pick = _scan.rows_at_most
        _require_known(n_known, regression)
    cut = _scan.threshold(keys, k)
    rows = _gather(client, client.map(pick, sampled, threshold=cut, pure=False), timeout,
                   "the sample")
    binner, binning = _binner_and_binning(client, rows, n_known, schema, max_bins, k, seed,
                                          source, source.lengths is not None and keep,
                                          sampled)
    return schema, binner, n_known, described, binning


def _require_known(n_known: int, regression: bool) -> None:
    if n_known == 0:
        raise DataError("no training rows with a known "
                        + ("target" if regression else "class label"))


def _binner_and_binning(client, rows: list, n_known: int, schema, max_bins: int, k: int,
                        seed: int, source, kept: bool, sampled: list):
    """The bin edges from the sample's rows, and ``binning(function, *args)``: futures of
    ``function(X_part, y_part, *args)`` per partition, on the partitions the scan kept
    (``kept``) or read again."""
    binner = _scan.fit_binner(np.concatenate(rows), n_known, schema, max_bins, k, seed)
    if kept:
        def binning(function, *args):
            return client.map(_scan.on_kept, sampled, function=function, args=args,
                              pure=False)
    else:
        def binning(function, *args):
            return client.compute(source.tasks(function, *args))
    return binner, binning


#: share of the workers' memory limits below which the scan keeps the source's partitions
KEEP_SHARE = 0.25


def _fits_in_memory(client, X, y, n_rows: int) -> bool:
    """Whether X and y, as pandas or numpy partitions, take at most ``KEEP_SHARE`` of the
    workers' memory limits (estimated: 8 bytes a number, 64 a text or object cell)."""
    dtypes = list(X.dtypes) if hasattr(X, "dtypes") else [X.dtype] * X.shape[1]
    dtypes.append(y.dtype)
    cell = sum(8 if isinstance(d, np.dtype) and d.kind in "biufM" else 64 for d in dtypes)
    limits = [w.get("memory_limit") or 0
              for w in client.scheduler_info(n_workers=-1)["workers"].values()]
    return bool(limits) and min(limits) > 0 and n_rows * cell <= KEEP_SHARE * sum(limits)


def _check_rows(described: list[dict], lengths) -> None:
    """One-line errors for partitions of X and y that do not line up, or no rows at all."""
    for i, d in enumerate(described):
        if d["rows"] != d["labels_rows"]:
            raise DataError(f"partition {i} of X has {d['rows']} rows but y's has "
                            f"{d['labels_rows']}: y must be partitioned like X")
        if lengths is not None and d["rows"] != lengths[i]:
            raise DataError(f"partition {i} of X has {d['rows']} rows but its metadata "
                            f"says {lengths[i]}")
    if sum(d["rows"] for d in described) == 0:
        raise DataError("X has no rows")


def _fit(estimator, X, y, source, names, has_names, client, fit_id, criterion,
         max_bins, sample_rows, seed, local_rows, batch, timeout, on_level, progress,
         checkpoint, resume):
    schema, binner, n_known, _, binning = _prepare(estimator, X, y, source, names, client,
                                                   max_bins, sample_rows, seed, timeout)
    # 2. bin: one persisted task per partition, recomputable from its source
    parts = binning(_worker.bin_partition, schema, binner)
    del binning  # kept partitions are released once binned
    class_counts = np.zeros(len(schema.classes), dtype=np.int64)
    label_counts = client.map(_label_counts, parts, n_classes=len(schema.classes),
                              pure=False)
    any_missing = False
    for c, missing in _gather(client, label_counts, timeout, "binning"):
        class_counts += c
        any_missing |= missing
    # 3. levels
    n_classes = len(schema.classes)
    factor = _class_factors(estimator.class_weight, class_counts, schema.classes.values)
    settings = estimator._settings(n_known, np.zeros(0), False, criterion, schema)
    if settings.max_features is not None or estimator.monotonic_cst is not None:
        raise ValueError("max_features and monotonic_cst are not supported "
                         "on a Dask cluster yet; fit without them or on one machine")
    options = {"categorical_mask": schema.categorical_mask,
               "n_categories": schema.n_categories, "n_classes": n_classes,
               "criterion": criterion, "min_samples_leaf": settings.rules.min_samples_leaf,
               "min_weight_leaf": settings.rules.min_weight_leaf}
    splitter = ClusterSplitter(binner, factor, **options)
    total_weight = float((class_counts * factor).sum())
    shape = (schema.n_features, binner.missing_bin_ + 1, n_classes)
    apart = (binner, options, total_weight, factor, n_classes)
    tree = _grow(client, parts, fit_id, splitter, settings.rules, n_classes, class_counts,
                 total_weight, shape, apart, n_known, local_rows, batch, timeout, on_level,
                 progress, checkpoint, resume, _fingerprint(schema, binner, estimator))
    estimator.tree_ = prune(tree, settings.ccp_alpha)
    _count_missing(client, parts, estimator.tree_, binner, schema, timeout, any_missing)
    estimator._set_fitted(schema, has_names)
    return estimator


def _grow(client, parts, fit_id, splitter, rules, n_classes, root, total_weight, shape,
          apart_args, n_known, local_rows, batch, timeout, on_level, progress, checkpoint,
          resume, fingerprint):
    """Grow the tree from the binned partitions: level-wise rounds (or best-first ones
    with ``max_leaf_nodes``), nodes of at most ``local_rows`` rows grown apart on a worker
    (``apart_args``: what ``_worker.grow_apart`` needs besides the rows)."""
    if rules.max_leaf_nodes is not None:
        if checkpoint is not None or resume is not None:
            raise ValueError("checkpoint= and resume= work with level-wise growth, not with "
                             "max_leaf_nodes")
        rounds = iter(range(1 << 62))

        def best_first_round(table, requests, n_hists):
            number = next(rounds)
            what = f"best-first round {number}"
            with _cluster_errors(what, timeout):
                futures = _worker_tasks(client, parts, _owners(client, parts),
                                        f"quercus-best-{fit_id}-{number}",
                                        _worker.best_first_counts, fit_id, table, requests,
                                        n_hists, shape)
            total = np.zeros((n_hists,) + shape, dtype=np.int64)
            for part_counts in _gather(client, futures, timeout, what):
                total += part_counts
            return total

        return grow_best_first(splitter, rules, n_classes, root, total_weight,
                               best_first_round, q=batch, progress=progress)

    apart = []  # futures of subtrees grown on one worker each
    apart_load: dict = {}  # worker -> rows of the subtrees handed to it

    def count_round(level, tables, hist_of_slot, n_hists, local_of_slot, local_rules,
                    local_sizes):
        total = np.zeros((n_hists,) + shape, dtype=np.int64)
        with _cluster_errors(f"level {level}", timeout):
            owners = _owners(client, parts)
            futures = [] if not n_hists else _worker_tasks(
                client, parts, owners, f"quercus-level-{fit_id}-{level}",
                _worker.level_counts, fit_id, level, tables, hist_of_slot, n_hists, shape)
            if local_rules:
                rows = _worker_tasks(client, parts, owners, f"quercus-apart-{fit_id}-{level}",
                                     _worker.rows_apart, fit_id, level, tables, local_of_slot)
                apart.extend(_grow_apart_tasks(client, rows, local_rules, local_sizes,
                                               apart_load, owners, *apart_args))
        for part_counts in _gather(client, futures, timeout, f"level {level}"):
            total += part_counts
        return total

    def finish_local():
        trees = {}
        for result in _gather(client, apart, timeout, "the subtrees grown apart"):
            trees.update(result)
        return trees

    if local_rows == "auto":
        n_workers = max(len(client.scheduler_info(n_workers=-1)["workers"]), 1)
        local_rows = min(LOCAL_ROWS_MAX, n_known // (2 * n_workers))
    state = None if resume is None else _checkpoint.load(resume, fingerprint)
    save = None if checkpoint is None else partial(_checkpoint.save, checkpoint, fingerprint)
    return grow_levels(splitter, rules, n_classes, root, total_weight, count_round,
                       on_level=on_level, progress=progress,
                       local_rows=int(min(local_rows, n_known)), finish_local=finish_local,
                       save=save, state=state)


def _count_missing(client, parts, tree, binner, schema, timeout: float,
                   any_missing: bool) -> None:
    """``tree.n_missing`` summed over the partitions (integers: any partitioning gives the
    one-machine counts); None without a pass when no partition has a missing value."""
    if not any_missing:
        tree.n_missing = None
        return
    futures = client.map(_worker.missing_counts_of, parts, tree=tree, binner=binner,
                         categorical_mask=schema.categorical_mask, pure=False)
    total = None
    for counts in _gather(client, futures, timeout, "the missing-value counts"):
        if counts is not None:
            total = counts if total is None else total + counts
    tree.n_missing = total


def _fingerprint(schema, binner, estimator, extra: str = "") -> bytes:
    """What a checkpoint must have been made with: the schema, the bin edges and the
    parameters (not local_rows nor the cluster: the tree does not depend on them)."""
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps(schema.to_json(), sort_keys=True, default=str).encode())
    digest.update(extra.encode())
    for edges in binner.edges_:
        digest.update(np.ascontiguousarray(edges).tobytes())
    digest.update(repr(sorted(estimator.get_params().items())).encode())
    return digest.digest()


def _known_of(sampled: tuple) -> int:
    return sampled[2]


def _label_counts(part: dict, n_classes: int) -> tuple:
    return np.bincount(part["y"], minlength=n_classes).astype(np.int64), part["missing"]


def _class_factors(class_weight, counts: np.ndarray, classes) -> np.ndarray:
    """``params.class_weight_factors`` per class, from the class counts."""
    if isinstance(class_weight, str) and class_weight == "balanced":
        counts = counts.astype(float)
        present = counts > 0
        factor = np.ones(counts.shape[0])
        factor[present] = int(counts.sum()) / (np.count_nonzero(present) * counts[present])
        return factor
    return P.class_weight_factors(class_weight, np.arange(len(classes), dtype=np.int32),
                                  classes)


def _grow_apart_tasks(client, row_futures, local_rules, sizes, load, owners, binner, options,
                      total_weight, factor, n_classes) -> list:
    """One task per bucket of rows: it gathers the bucket's rows from every worker's
    ``rows_apart`` and grows its subtree with the single-machine code. Largest first, each
    on the worker with the fewest rows handed out so far (``load``, updated; other workers
    allowed), behind the level tasks, which go first."""
    workers = sorted(w for w in owners if w is not None)
    futures = []
    for b in sorted(local_rules, key=lambda b: (-sizes.get(b, 0), b)):
        picks = [client.submit(_worker.rows_for, f, [b], pure=False, priority=1)
                 for f in row_futures]
        worker = min(workers, key=lambda w: (load.get(w, 0), w)) if workers else None
        if worker is not None:
            load[worker] = load.get(worker, 0) + sizes.get(b, 0)
        futures.append(client.submit(_worker.grow_apart, [b], {b: local_rules[b]}, binner,
                                     options, total_weight, factor, n_classes, *picks,
                                     workers=None if worker is None else [worker],
                                     allow_other_workers=True, pure=False))
    return futures


def _owners(client, parts) -> dict:
    """{worker: indices of the partitions it holds} by the current worker map (None: a
    partition nobody holds, being recomputed: spread over the workers)."""
    who = client.who_has(parts)
    lost = [i for i, fut in enumerate(parts) if not who.get(fut.key)]
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"]) if lost else []
    owned: dict = {}
    for i, fut in enumerate(parts):
        holders = sorted(who.get(fut.key, ()))
        owner = holders[0] if holders else (workers[i % len(workers)] if workers else None)
        owned.setdefault(owner, []).append(i)
    return owned


def _worker_tasks(client, parts, owners, name, function, *args) -> list:
    """One task per worker, ``function(*args, indices, *partitions)``, over the partitions
    it holds (``owners``; other workers are allowed, so a lost worker's share runs
    elsewhere), ahead of queued subtrees grown apart."""
    futures = []
    for worker, indices in sorted(owners.items(), key=lambda item: str(item[0])):
        futures.append(client.submit(
            function, *args, indices, *[parts[i] for i in indices],
            workers=None if worker is None else [worker], allow_other_workers=True,
            pure=False, priority=1, key=f"{name}-{len(futures)}-{uuid.uuid4().hex[:8]}"))
    return futures


def _map(estimator, X, method: str):
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd

    estimator._check_fitted()
    if isinstance(X, dd.DataFrame):
        if method == "predict_proba":
            meta = pd.DataFrame({i: np.zeros(0) for i in range(estimator.n_classes_)})
            return X.map_partitions(_proba_frame, estimator, meta=meta).to_dask_array()
        dtype = _dtype(estimator, method)
        return X.map_partitions(_series, estimator, method, meta=pd.Series([], dtype=dtype))
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise DataError(f"X must be a 2-D Dask array; got {X.ndim} dimension(s)")
        X = X.rechunk({1: -1}) if X.numblocks[1] != 1 else X
        if method == "predict_proba":
            return X.map_blocks(_block, estimator, method, dtype=np.float64,
                                chunks=(X.chunks[0], (estimator.n_classes_,)))
        dtype = _dtype(estimator, method)
        return X.map_blocks(_block, estimator, method, dtype=dtype, drop_axis=1)
    raise DataError(f"expected a Dask DataFrame or Array; got {type(X).__name__}")


def _dtype(estimator, method: str):
    if method == "apply":
        return np.int64
    return np.float64 if _is_regressor(estimator) else estimator.classes_.dtype


def _series(part, estimator, method):
    import pandas as pd

    return pd.Series(getattr(estimator, method)(part), index=part.index)


def _proba_frame(part, estimator):
    import pandas as pd

    return pd.DataFrame(estimator.predict_proba(part), index=part.index)


def _block(block, estimator, method):
    return getattr(estimator, method)(block)


def predict(estimator, X):
    """Predicted classes (a regressor's values) of a Dask X: a Dask Series (DataFrame X) or
    Array (Array X)."""
    return _map(estimator, X, "predict")


def predict_proba(estimator, X):
    """Class probabilities of a Dask X: a Dask Array (n_rows, n_classes)."""
    return _map(estimator, X, "predict_proba")


def apply(estimator, X):
    """Leaf ids of a Dask X: a Dask Series or Array."""
    return _map(estimator, X, "apply")
