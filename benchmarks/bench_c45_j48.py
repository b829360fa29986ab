"""C4.5 fitting time of Quercus against Weka's J48 on the same ARFF file, side by side.

Usage: python benchmarks/bench_c45_j48.py [--rows 100000] [--features 20] [--repeats 3]
           [--weka /usr/share/java/weka.jar]

Generates the synthetic data set of tools/make_j48_fixtures.py (--big), then times
- J48 (default options -C 0.25 -M 2): "Time taken to build model" as Weka reports it, and
  the wall time of the whole java command (JVM start, parsing, building, and the
  evaluation on the training data that Weka always does);
- Quercus: ``DecisionTreeClassifier(algorithm="c45").fit`` on the parsed file, and the wall
  time of read_arff + fit;
and checks that both print the identical tree. Needs Java and Weka for the J48 column
(Debian: apt-get install weka); without them only Quercus is timed.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import quercus
from quercus.export.j48 import tree_to_j48

ROOT = Path(__file__).resolve().parents[1]


def make_data(path: Path, rows: int, features: int) -> Path:
    spec = importlib.util.spec_from_file_location("fixtures", ROOT / "tools" /
                                                  "make_j48_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_big(path, rows, features)


def time_j48(jar: str, path: Path, repeats: int):
    builds, walls, tree = [], [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = subprocess.run(["java", "-cp", jar, "weka.classifiers.trees.J48", "-t", str(path),
                              "-no-cv"], capture_output=True, text=True, check=True).stdout
        walls.append(time.perf_counter() - start)
        builds.append(float(re.search(r"Time taken to build model: ([\d.]+)", out).group(1)))
        begin = out.index("J48 pruned tree")
        end = out.index("\n", out.index("Size of the tree", begin))
        tree = out[begin:end + 1]
    return statistics.median(builds), statistics.median(walls), tree


def time_quercus(path: Path, repeats: int):
    fits, walls, model = [], [], None
    for _ in range(repeats):
        start = time.perf_counter()
        X, y, _ = quercus.read_arff(path)
        read = time.perf_counter()
        model = quercus.DecisionTreeClassifier(algorithm="c45").fit(X, y)
        done = time.perf_counter()
        fits.append(done - read)
        walls.append(done - start)
    return statistics.median(fits), statistics.median(walls), model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--weka", default="/usr/share/java/weka.jar")
    args = parser.parse_args()
    X, y, _ = quercus.read_arff(ROOT / "tests" / "data" / "arff" / "iris.arff")
    quercus.DecisionTreeClassifier(algorithm="c45").fit(X, y)  # load the numba cache
    with tempfile.TemporaryDirectory() as tmp:
        path = make_data(Path(tmp) / "big.arff", args.rows, args.features)
        q_fit, q_wall, model = time_quercus(path, args.repeats)
        have_weka = shutil.which("java") and Path(args.weka).exists()
        if have_weka:
            j_build, j_wall, j_tree = time_j48(args.weka, path, args.repeats)
    print(f"C4.5 on {args.rows:,} x {args.features} numeric rows, 3 classes, "
          f"median of {args.repeats} runs")
    print(f"{'':28}{'J48':>10}{'Quercus':>10}{'ratio':>8}")
    if not have_weka:
        print(f"{'fit (s)':28}{'-':>10}{q_fit:>10.2f}{'-':>8}   (no Java/Weka here)")
        return
    print(f"{'build / fit (s)':28}{j_build:>10.2f}{q_fit:>10.2f}{j_build / q_fit:>8.1f}")
    print(f"{'whole command (s)':28}{j_wall:>10.2f}{q_wall:>10.2f}{j_wall / q_wall:>8.1f}")
    same = tree_to_j48(model) == j_tree
    print(f"identical tree text: {'yes' if same else 'NO'} "
          f"({model.get_n_leaves()} leaves, {model.tree_.n_nodes} nodes)")


if __name__ == "__main__":
    main()
