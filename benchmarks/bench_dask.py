"""Quercus on Dask against one process, on synthetic data written as Parquet files.

The data: ``--rows`` rows in ``--parts`` Parquet files under ``--path``; ``--features``
standard-normal features (features 10-14 rounded to one decimal so values repeat), a
3-class label from a noisy linear score of features 0-5. Each configuration is timed alone:

* one process: ``pd.read_parquet`` then ``DecisionTreeClassifier(splitter="hist").fit``
  (OpenMP threads on all cores), reading not timed;
* Dask: a LocalCluster of W worker processes x 1 thread, ``fit`` on
  ``dd.read_parquet`` (reading, the scan, binning and the levels all timed), with the
  per-level lines of ``on_level``; each worker's peak resident memory during the timed fit
  (Linux's VmHWM, reset before it);
* ``--warm``: each timed fit is the second one of its process or cluster (Quercus's
  modules already imported, here and on the workers); without it both are the first;
* ``--persist``: the Dask fit reads a frame persisted in the workers' memory beforehand
  (reading not timed, as Spark's fit reads its cached data);
* ``--spark``: Spark MLlib's DecisionTreeClassifier on the same files, local[2] with a
  16 GB heap, when pyspark and Java are present (fit only; session start and caching
  reported apart).

    python benchmarks/bench_dask.py --rows 1000000 --depths 8 12 --workers 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import pandas as pd


def write_data(path: str, rows: int, parts: int, features: int, seed: int = 0) -> None:
    if os.path.isdir(path) and len(os.listdir(path)) == parts:
        return
    os.makedirs(path, exist_ok=True)
    weights = np.random.default_rng(12345).normal(size=(6, 3))
    for i in range(parts):
        n = rows // parts + (i < rows % parts)
        rng = np.random.default_rng([seed, i])
        X = rng.normal(size=(n, features))
        X[:, 10:15] = np.round(X[:, 10:15], 1)
        score = X[:, :6] @ weights + rng.normal(scale=1.5, size=(n, 3))
        frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(features)])
        frame["label"] = np.argmax(score, axis=1).astype(np.float64)
        frame.to_parquet(os.path.join(path, f"part-{i:03d}.parquet"))


def _reset_peak_rss() -> bool:
    """Start the process's peak resident memory afresh (Linux: ``clear_refs`` 5), so that
    a worker's peak is its fit's, not what it inherited from the process it was forked
    from (the benchmark's own, which may have held a one-process fit's data)."""
    try:
        with open("/proc/self/clear_refs", "w") as file:
            file.write("5")
    except OSError:
        return False
    return True


def _peak_rss_mb() -> float:
    """Peak resident memory since ``_reset_peak_rss`` (Linux's VmHWM), else since start."""
    try:
        with open("/proc/self/status") as file:
            for line in file:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one_process(path: str, depth: int, warm: bool = False) -> dict:
    from quercus import DecisionTreeClassifier

    frame = pd.read_parquet(path)
    X, y = frame.drop(columns="label"), frame["label"]
    if warm:  # an untimed fit first: the modules a fit imports on first use
        DecisionTreeClassifier(splitter="hist", max_depth=depth).fit(X, y)
    began = time.perf_counter()
    est = DecisionTreeClassifier(splitter="hist", max_depth=depth).fit(X, y)
    return {"fit_s": round(time.perf_counter() - began, 2), "nodes": est.tree_.n_nodes}


def on_dask(path: str, depth: int, workers: int, local_rows, warm: bool = False,
            persist: bool = False) -> dict:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    from quercus import DecisionTreeClassifier
    from quercus.dask import fit

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        frame = dd.read_parquet(path)
        if persist:
            frame = frame.persist()
            wait(frame)
        if warm:  # an untimed fit first: the workers have imported Quercus
            fit(DecisionTreeClassifier(splitter="hist", max_depth=depth),
                frame.drop(columns="label"), frame["label"], client=client,
                local_rows=local_rows)
        levels = []
        est = DecisionTreeClassifier(splitter="hist", max_depth=depth)
        client.run(_reset_peak_rss)
        began = time.perf_counter()
        fit(est, frame.drop(columns="label"), frame["label"], client=client,
            local_rows=local_rows, on_level=levels.append)
        seconds = time.perf_counter() - began
        rss = client.run(_peak_rss_mb)
    return {"fit_s": round(seconds, 2), "nodes": est.tree_.n_nodes,
            "levels": [{"level": s.level, "nodes": s.nodes, "hists": s.histograms,
                        "apart": s.apart, "MB": round(s.bytes_per_worker / 2**20, 1),
                        "s": round(s.seconds, 3)} for s in levels],
            "peak_rss_mb_per_worker": sorted(round(v) for v in rss.values())}


#: Spark's heap (local mode: the driver's), enough to cache 10M x 50 rows as vectors
SPARK_MEMORY = "16g"


def on_spark(path: str, depths: list[int]) -> dict:
    from pyspark.ml.classification import DecisionTreeClassifier
    from pyspark.ml.feature import VectorAssembler
    from pyspark.sql import SparkSession

    began = time.perf_counter()
    spark = (SparkSession.builder.master("local[2]").appName("quercus-bench")
             .config("spark.driver.memory", SPARK_MEMORY)
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    out = {"session_s": round(time.perf_counter() - began, 2), "version": spark.version}
    frame = spark.read.parquet(path)
    features = [c for c in frame.columns if c != "label"]
    data = VectorAssembler(inputCols=features, outputCol="features").transform(frame) \
        .select("features", "label").cache()
    began = time.perf_counter()
    data.count()
    out["load_cache_s"] = round(time.perf_counter() - began, 2)
    for depth in depths:
        began = time.perf_counter()
        model = DecisionTreeClassifier(maxDepth=depth, maxBins=256, seed=0).fit(data)
        out[f"depth_{depth}"] = {"fit_s": round(time.perf_counter() - began, 2),
                                 "nodes": model.numNodes}
    spark.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--path", default="/tmp/quercus_bench_dask")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--depths", type=int, nargs="+", default=[8, 12])
    ap.add_argument("--workers", type=int, nargs="+", default=[2])
    ap.add_argument("--local-rows", default="auto",
                    help="quercus.dask.fit's local_rows ('auto' or a number; 0: never)")
    ap.add_argument("--spark", action="store_true", help="also time Spark MLlib local[2]")
    ap.add_argument("--persist", action="store_true",
                    help="Dask reads a frame persisted in the workers' memory (reading "
                         "not timed, as Spark's fit reads its cached data)")
    ap.add_argument("--warm", action="store_true",
                    help="time a second fit (of the same process, on the same cluster), "
                         "after an untimed one: no start-up costs")
    args = ap.parse_args()
    path = f"{args.path}_{args.rows}x{args.features}"
    write_data(path, args.rows, args.parts, args.features)
    local_rows = args.local_rows if args.local_rows == "auto" else int(args.local_rows)
    load = os.getloadavg()[0]
    results = {"rows": args.rows, "features": args.features, "warm": args.warm,
               "persist": args.persist, "load_before": round(load, 2)}
    for depth in args.depths:
        results[f"one_process_depth_{depth}"] = one_process(path, depth, args.warm)
        for workers in args.workers:
            results[f"dask_{workers}w_depth_{depth}"] = on_dask(path, depth, workers,
                                                                local_rows, args.warm,
                                                                args.persist)
        print(json.dumps({k: v for k, v in results.items() if str(depth) in k}), flush=True,
              file=sys.stderr)
    if args.spark:
        try:
            results["spark_local2"] = on_spark(path, args.depths)
        except ImportError as error:
            results["spark_local2"] = f"not run: {error}"
    results["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
