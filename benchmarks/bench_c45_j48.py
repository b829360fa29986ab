"""C4.5 fitting time of Quercus against Weka's J48 on the same ARFF file, side by side.

Usage: python benchmarks/bench_c45_j48.py [--rows 100000] [--features 20] [--repeats 3]
           [--weka /usr/share/java/weka.jar] [--compare OLD_SRC]

Generates the synthetic data set of tools/make_j48_fixtures.py (--big), then times
- J48 (default options -C 0.25 -M 2): "Time taken to build model" as Weka reports it, and
  the wall time of the whole java command (JVM start, parsing, building, and the
  evaluation on the training data that Weka always does);
- Quercus: ``DecisionTreeClassifier(algorithm="c45").fit`` on the parsed file, read_arff
  alone, read_arff + fit in this process, and the whole command
  ``quercus train big.arff --target class --algorithm c45 --out m.json`` in a fresh process
  (after one untimed run, in which Python writes the bytecode of the modules the command
  imports, as pip does when it installs the package);
and checks that both print the identical tree. Two more rows show what any such command
costs before it reads a byte: a fresh process that imports quercus and makes a first
kernel call (Python, numpy and one compiled extension module loaded: the floor of every
command), and the whole command on the 150 rows of iris.arff (the floor plus pandas,
C4.5's modules, the training accuracy and the model file). J48's whole command over the
first is the most any command could reach. ``--compare OLD_SRC`` also times read_arff
and the whole command of another source tree (a ``src`` directory that imports as it is: a
built checkout's, or the ``git archive`` of a commit from before the compiled kernels, with
numba installed) in the same run, rows marked "old". J48 and Quercus take turns in
every repeat, so that load from other jobs hits both alike; the figures are medians. Needs Java and Weka for the J48 column
(Debian: apt-get install weka); without them only Quercus is timed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
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


def time_j48(jar: str, path: Path) -> tuple[float, float, str]:
    start = time.perf_counter()
    out = subprocess.run(["java", "-cp", jar, "weka.classifiers.trees.J48", "-t", str(path),
                          "-no-cv"], capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - start
    build = float(re.search(r"Time taken to build model: ([\d.]+)", out).group(1))
    begin = out.index("J48 pruned tree")
    end = out.index("\n", out.index("Size of the tree", begin))
    return build, wall, out[begin:end + 1]


def time_quercus(path: Path):
    start = time.perf_counter()
    X, y, _ = quercus.read_arff(path)
    read = time.perf_counter()
    model = quercus.DecisionTreeClassifier(algorithm="c45").fit(X, y)
    done = time.perf_counter()
    return read - start, done - read, done - start, model


READ_SNIPPET = ("import sys, time; start = time.perf_counter(); import quercus; "
                "imported = time.perf_counter(); quercus.read_arff(sys.argv[1]); "
                "print(time.perf_counter() - imported)")


def time_old_read(src: str, path: Path) -> float:
    """read_arff of another source tree, in a fresh process (the import not counted)."""
    out = subprocess.run([sys.executable, "-c", READ_SNIPPET, str(path)], check=True,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": src})
    return float(out.stdout.split()[-1])


def time_command(path: Path, src: str) -> float:
    """Wall time of ``quercus train`` on the file, whole process, with ``src`` imported."""
    command = [sys.executable, "-m", "quercus", "train", str(path), "--target", "class",
               "--algorithm", "c45", "--out", str(path.with_suffix(".json"))]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=path.parent,
                   env={**os.environ, "PYTHONPATH": src})
    return time.perf_counter() - start


FLOOR_SNIPPET = ("import numpy as np, quercus; "
                 "from quercus._kernels._splits import count_nonfinite_rows; "
                 "count_nonfinite_rows(np.zeros((1, 1)))")


def time_floor(src: str) -> float:
    """Wall time of a fresh process importing quercus and calling one compiled kernel."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", FLOOR_SNIPPET], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": src})
    return time.perf_counter() - start


def time_small_command(src: str, tmp: Path) -> float:
    """Wall time of the C4.5 command on iris.arff, whole process."""
    command = [sys.executable, "-m", "quercus", "train",
               str(ROOT / "tests" / "data" / "arff" / "iris.arff"), "--target", "class",
               "--algorithm", "c45", "--out", str(tmp / "iris.json")]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": src})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--weka", default="/usr/share/java/weka.jar")
    parser.add_argument("--compare", metavar="OLD_SRC",
                        help="also time read_arff and the command of this source tree")
    args = parser.parse_args()
    X, y, _ = quercus.read_arff(ROOT / "tests" / "data" / "arff" / "iris.arff")
    # untimed: the modules a C4.5 fit imports on first use, and first touches of memory
    quercus.DecisionTreeClassifier(algorithm="c45").fit(X, y)
    src = str(Path(quercus.__file__).resolve().parents[1])
    have_weka = bool(shutil.which("java")) and Path(args.weka).exists()
    times: dict[str, list[float]] = {}

    def keep(name: str, value: float) -> None:
        times.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as tmp:
        path = make_data(Path(tmp) / "big.arff", args.rows, args.features)
        time_command(path, src)  # untimed: Python writes the command's modules' bytecode
        time_small_command(src, Path(tmp))
        if args.compare:
            time_command(path, args.compare)
        model, j_tree = None, None
        for _ in range(args.repeats):
            if have_weka:
                build, wall, j_tree = time_j48(args.weka, path)
                keep("j48 build", build)
                keep("j48 wall", wall)
            read, fit, both, model = time_quercus(path)
            keep("read", read)
            keep("fit", fit)
            keep("read+fit", both)
            keep("command", time_command(path, src))
            keep("floor", time_floor(src))
            keep("small command", time_small_command(src, Path(tmp)))
            if args.compare:
                keep("old read", time_old_read(args.compare, path))
                keep("old command", time_command(path, args.compare))
    med = {name: statistics.median(values) for name, values in times.items()}
    load = os.getloadavg()
    print(f"C4.5 on {args.rows:,} x {args.features} numeric rows, 3 classes, "
          f"median of {args.repeats} runs (load average {load[0]:.1f})")
    print(f"{'':44}{'J48':>10}{'Quercus':>10}{'ratio':>8}")
    j_build, j_wall = med.get("j48 build"), med.get("j48 wall")

    def row(label: str, j: float | None, q: float) -> None:
        ratio = f"{j / q:>8.1f}" if j is not None else f"{'-':>8}"
        j_text = f"{j:>10.2f}" if j is not None else f"{'-':>10}"
        print(f"{label:44}{j_text}{q:>10.2f}{ratio}")

    row("build / fit (s)", j_build, med["fit"])
    row("read_arff (s)", None, med["read"])
    row("read_arff + fit, in process (s)", j_wall, med["read+fit"])
    row("whole command (s)", j_wall, med["command"])
    row("  import quercus + a first kernel call (s)", j_wall, med["floor"])
    row("  the command on iris.arff (s)", j_wall, med["small command"])
    if args.compare:
        row("  old read_arff (s)", None, med["old read"])
        row("  old whole command (s)", j_wall, med["old command"])
    print("ratio: J48's time / Quercus's time; J48's whole java command against each "
          "(quercus train ... --algorithm c45 --out m.json: a fresh process)")
    if not have_weka:
        print("(no Java/Weka here: J48 not timed)")
        return
    same = tree_to_j48(model) == j_tree
    print(f"identical tree text: {'yes' if same else 'NO'} "
          f"({model.get_n_leaves()} leaves, {model.tree_.n_nodes} nodes)")


if __name__ == "__main__":
    main()
