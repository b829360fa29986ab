#!/usr/bin/env python3
"""Regenerate the Weka J48 / Id3 reference fixtures in tests/data/j48/.

Quercus reproduces Weka 3.6's J48 (C4.5) and Id3.  The test suite must not
need Java, so this script runs the real Weka once and stores only Weka's
*outputs* (tree text and per-row predictions) as fixture files.  No Weka
source code is used or copied; Weka is only run as an external program.

Requirements (only to regenerate, not to run the tests):
    apt-get install -y weka        # Debian package 3.6.14, /usr/share/java/weka.jar

Usage:
    python3 tools/make_j48_fixtures.py            # write tests/data/j48/*
    python3 tools/make_j48_fixtures.py --check    # only verify existing fixtures
    python3 tools/make_j48_fixtures.py --big      # make the 100k x 20 benchmark
                                                  # file in /tmp and time J48 on it

Files written per data set NAME and variant VARIANT (e.g. J48, J48-U, Id3):
    NAME.VARIANT.txt              tree block exactly as Weka prints it
    NAME.VARIANT.predictions.csv  row, actual, predicted, one column per class
and tests/data/j48/MANIFEST.json with every command line and the versions.

Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARFF_DIR = Path("tests/data/arff")  # relative to ROOT; commands run with cwd=ROOT
OUT_DIR = Path("tests/data/j48")
DEFAULT_JAR = "/usr/share/java/weka.jar"

J48 = "weka.classifiers.trees.J48"
ID3 = "weka.classifiers.trees.Id3"

ALL_DATASETS = [
    "iris",
    "weather.nominal",
    "weather.numeric",
    "contact-lenses",
    "labor",
    "vote",
    "breast-cancer",
    "diabetes",
    "glass",
    "ionosphere",
    "soybean",
    "credit-g",
    "segment-challenge",
]

VARIANT_DATASETS = [
    "iris",
    "weather.numeric",
    "labor",
    "vote",
    "breast-cancer",
    "diabetes",
    "soybean",
]

ID3_DATASETS = ["weather.nominal", "contact-lenses"]

# (file-name suffix, classifier class, Weka options, data sets)
VARIANTS: list[tuple[str, str, list[str], list[str]]] = [
    ("J48", J48, [], ALL_DATASETS),
    ("J48-U", J48, ["-U"], VARIANT_DATASETS),
    ("J48-B", J48, ["-B"], VARIANT_DATASETS),
    ("J48-R", J48, ["-R", "-N", "3"], VARIANT_DATASETS),
    ("J48-S", J48, ["-S"], VARIANT_DATASETS),
    ("J48-M5", J48, ["-M", "5"], VARIANT_DATASETS),
    ("J48-C0.1", J48, ["-C", "0.1"], VARIANT_DATASETS),
    ("J48-A", J48, ["-A"], VARIANT_DATASETS),
    ("Id3", ID3, [], ID3_DATASETS),
]

# Weka's number formatting does not depend on the locale in practice, but pin
# it anyway so a regeneration on another machine prints the same text.
JAVA_ENV_OVERRIDES = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}


# --------------------------------------------------------------------------
# Minimal ARFF header reading (class labels, data row count)
# --------------------------------------------------------------------------

def _split_nominal(spec: str) -> list[str]:
    """Split the inside of an ARFF nominal spec {a, 'b c', d} into labels.

    Quoted labels keep their content exactly (backslash escapes resolved);
    unquoted labels are stripped of surrounding whitespace.
    """
    labels: list[str] = []
    buf: list[str] = []
    quoted = False
    quote: str | None = None
    i = 0
    while i < len(spec):
        ch = spec[i]
        if quote:
            if ch == "\\" and i + 1 < len(spec):
                buf.append(spec[i + 1])
                i += 1
            elif ch == quote:
                quote = None
            else:
                buf.append(ch)
        elif ch in "'\"" and not "".join(buf).strip():
            quote, quoted, buf = ch, True, []
        elif ch == ",":
            labels.append("".join(buf) if quoted else "".join(buf).strip())
            buf, quoted = [], False
        elif not quoted:
            buf.append(ch)
        i += 1
    if buf or quoted:
        labels.append("".join(buf) if quoted else "".join(buf).strip())
    return labels


def read_arff_info(path: Path) -> dict:
    """Return {'relation', 'class_labels', 'n_rows'} (class = last attribute)."""
    attrs: list[str] = []
    n_rows = 0
    relation = None
    in_data = False
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith("%"):
                continue
            if in_data:
                n_rows += 1
                continue
            low = line.lower()
            if low.startswith("@relation"):
                relation = line[len("@relation"):].strip()
            elif low.startswith("@attribute"):
                attrs.append(line)
            elif low.startswith("@data"):
                in_data = True
    last = attrs[-1]
    lb, rb = last.find("{"), last.rfind("}")
    if lb < 0 or rb < lb:
        raise ValueError(f"{path}: class attribute is not nominal: {last!r}")
    return {
        "relation": relation,
        "class_labels": _split_nominal(last[lb + 1:rb]),
        "n_rows": n_rows,
    }


# --------------------------------------------------------------------------
# Running Weka
# --------------------------------------------------------------------------

def java_env() -> dict:
    env = dict(os.environ)
    env.update(JAVA_ENV_OVERRIDES)
    return env


def run(cmd: list[str]) -> str:
    proc = subprocess.run(
        cmd, cwd=ROOT, env=java_env(), capture_output=True
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
            + proc.stderr.decode("utf-8", "replace")
        )
    # newline="" semantics: keep the text exactly (Weka prints '\n' on Linux).
    return proc.stdout.decode("utf-8")


def extract_j48_tree(out: str) -> str:
    """From the 'J48 pruned tree' / 'J48 unpruned tree' line through 'Size of the tree'."""
    lines = out.split("\n")
    start = next(
        i for i, ln in enumerate(lines) if ln in ("J48 pruned tree", "J48 unpruned tree")
    )
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Size of the tree"))
    return "\n".join(lines[start:end + 1]) + "\n"


def extract_id3_tree(out: str) -> str:
    """From the 'Id3' header line through the last tree line (before 'Time taken')."""
    lines = out.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln == "Id3")
    stop = next(
        i for i in range(start, len(lines)) if lines[i].startswith("Time taken to build model")
    )
    end = stop - 1
    while end > start and lines[end].strip() == "":
        end -= 1
    return "\n".join(lines[start:end + 1]) + "\n"


# A prediction line of Weka 3.6 '-p 0 -distribution', e.g.
#      6     2:good      1:bad   +   *0.625,0.375
#      1 1:'build w 1:build wi       *1,0,0,0,0,0,0
# inst# is right-aligned (width 6); 'actual' and 'predicted' are "index:label"
# right-aligned in 10 characters and TRUNCATED to 10 characters (labels may
# contain spaces, 'actual' keeps ARFF quotes, 'predicted' does not), then
# '+' marks a misclassified row, then the comma-separated distribution with
# '*' before the predicted class's probability.  A missing actual class is
# printed as "1:?" (the index is meaningless).
# 'predicted' (and '+', '*') come from the classifier's classifyInstance,
# the numbers from distributionForInstance.  For J48 -A (Laplace) these can
# disagree: the starred value is then not the largest printed probability
# (e.g. soybean rows with missing values).  The '=== Error on training
# data ===' summary of the -no-cv run instead counts the argmax of the
# distribution, so its error count can differ from the number of '+' rows.
PRED_RE = re.compile(
    r"^\s*(?P<inst>\d+) (?P<actual>.{10}) (?P<pred>.{10}) +(?P<err>\+?) +(?P<dist>\S+) *$"
)
INDEX_RE = re.compile(r"^\s*(?P<idx>\d+):(?P<label>.*)$")


def parse_predictions(out: str, labels: list[str]) -> list[dict]:
    lines = out.split("\n")
    hdr = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("inst#"))
    rows: list[dict] = []
    for ln in lines[hdr + 1:]:
        if not ln.strip():
            break
        m = PRED_RE.match(ln)
        if not m:
            raise ValueError(f"unparsed prediction line: {ln!r}")
        am, pm = INDEX_RE.match(m["actual"]), INDEX_RE.match(m["pred"])
        if not am or not pm:
            raise ValueError(f"unparsed actual/predicted: {ln!r}")
        actual = "?" if am["label"] == "?" else labels[int(am["idx"]) - 1]
        predicted = "?" if pm["label"] == "?" else labels[int(pm["idx"]) - 1]
        dist = m["dist"].split(",")
        if len(dist) != len(labels):
            raise ValueError(f"distribution has {len(dist)} values, {len(labels)} classes: {ln!r}")
        starred = [j for j, d in enumerate(dist) if d.startswith("*")]
        if predicted != "?" and starred != [labels.index(predicted)]:
            raise ValueError(f"'*' marker does not match predicted class: {ln!r}")
        rows.append(
            {
                "inst": int(m["inst"]),
                "actual": actual,
                "predicted": predicted,
                "error": m["err"] == "+",
                "dist": [d.lstrip("*") for d in dist],
            }
        )
    for k, r in enumerate(rows):
        if r["inst"] != k + 1:
            raise ValueError(f"instance numbers not sequential at row {k}: {r['inst']}")
    return rows


def predictions_csv(rows: list[dict], labels: list[str]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["row", "actual", "predicted", *labels])
    for r in rows:
        w.writerow([r["inst"] - 1, r["actual"], r["predicted"], *r["dist"]])
    return buf.getvalue()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def weka_version(java: str, jar: str) -> str:
    out = run([java, "-cp", jar, "weka.core.Version"])
    return out.strip().splitlines()[0].strip()


def java_version(java: str) -> str:
    proc = subprocess.run([java, "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc.stdout.decode("utf-8", "replace").strip()


def debian_weka_version() -> str | None:
    if not shutil.which("dpkg-query"):
        return None
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "weka"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    return proc.stdout.decode().strip() or None


# --------------------------------------------------------------------------
# Main fixture generation and checks
# --------------------------------------------------------------------------

def java_display(java: str) -> str:
    return "java" if java == "java" or Path(java).name == "java" else java


def generate(java: str, jar: str) -> None:
    out_dir = ROOT / OUT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    fixtures = []
    for suffix, clazz, opts, datasets in VARIANTS:
        for name in datasets:
            arff = ARFF_DIR / f"{name}.arff"
            info = read_arff_info(ROOT / arff)
            base = [java, "-cp", jar, clazz, "-t", str(arff)]
            tree_cmd = base + ["-no-cv"] + opts
            pred_cmd = base + ["-T", str(arff), "-p", "0", "-distribution"] + opts
            show = lambda c: " ".join([java_display(java)] + c[1:])

            print(f"{name:20s} {suffix:9s}", end=" ", flush=True)
            out = run(tree_cmd)
            tree = extract_id3_tree(out) if clazz == ID3 else extract_j48_tree(out)
            m_inc = re.search(r"^Incorrectly Classified Instances\s+(\d+)", out, re.MULTILINE)
            eval_errors = int(m_inc.group(1)) if m_inc else None
            tree_file = OUT_DIR / f"{name}.{suffix}.txt"
            with open(ROOT / tree_file, "w", encoding="utf-8", newline="") as fh:
                fh.write(tree)

            out = run(pred_cmd)
            rows = parse_predictions(out, info["class_labels"])
            pred_file = OUT_DIR / f"{name}.{suffix}.predictions.csv"
            with open(ROOT / pred_file, "w", encoding="utf-8", newline="") as fh:
                fh.write(predictions_csv(rows, info["class_labels"]))
            n_err = sum(r["error"] for r in rows)
            print(f"rows={len(rows)} '+' errors={n_err} summary errors={eval_errors}")

            common = {
                "dataset": str(arff),
                "dataset_sha256": sha256(ROOT / arff),
                "classifier": clazz,
                "options": opts,
                "n_rows": info["n_rows"],
                "class_labels": info["class_labels"],
            }
            fixtures.append(
                {
                    "file": tree_file.name,
                    "kind": "tree",
                    "command": show(tree_cmd),
                    "summary_training_errors": eval_errors,
                    **common,
                }
            )
            fixtures.append(
                {
                    "file": pred_file.name,
                    "kind": "predictions",
                    "command": show(pred_cmd),
                    "marked_errors": n_err,
                    **common,
                }
            )

    manifest = {
        "description": (
            "Reference outputs of Weka 3.6 J48 and Id3, produced by tools/make_j48_fixtures.py. "
            "Only Weka's printed outputs are stored, no Weka code. Commands were run with the "
            "repository root as working directory."
        ),
        "weka_version": weka_version(java, jar),
        "weka_debian_package": debian_weka_version(),
        "weka_jar": jar,
        "java_version": java_version(java),
        "environment": JAVA_ENV_OVERRIDES,
        "formats": {
            "tree": (
                "J48: the lines from 'J48 pruned tree' (or 'J48 unpruned tree' for -U) through "
                "'Size of the tree : \\t<n>' exactly as printed (trailing spaces and tabs kept), "
                "each line ending in '\\n'. Id3: the lines from the 'Id3' header through the "
                "last tree line (before 'Time taken to build model'), same convention."
            ),
            "errors": (
                "tree entries: summary_training_errors = 'Incorrectly Classified Instances' of the "
                "-no-cv run (argmax of the distribution); predictions entries: marked_errors = "
                "rows marked '+' in the -p output (classifyInstance). They differ only for "
                "soybean J48-A."
            ),
            "predictions": (
                "CSV: row (0-based training row in file order), actual (full class label, '?' "
                "if missing), predicted (full class label), then one column per class label in "
                "ARFF order holding Weka's printed probability from '-p 0 -distribution' "
                "(at most 3 decimals, trailing zeros dropped, '*' marker removed). The model "
                "is trained on the whole file (-t FILE) and tested on the same file (-T FILE). "
                "'predicted' is Weka's classifyInstance (the starred class in -p output); the "
                "probabilities are distributionForInstance. With J48 -A (Laplace) the two can "
                "disagree (predicted is not always the argmax of the printed probabilities)."
            ),
        },
        "fixtures": fixtures,
    }
    with open(ROOT / OUT_DIR / "MANIFEST.json", "w", encoding="utf-8", newline="") as fh:
        json.dump(manifest, fh, indent=2)
        fh.write("\n")


def check() -> int:
    """Verify fixtures: non-empty, prediction rows == ARFF data rows."""
    manifest = json.loads((ROOT / OUT_DIR / "MANIFEST.json").read_text(encoding="utf-8"))
    problems = 0
    for fx in manifest["fixtures"]:
        path = ROOT / OUT_DIR / fx["file"]
        if not path.exists() or path.stat().st_size == 0:
            print(f"EMPTY/MISSING {path}")
            problems += 1
            continue
        if fx["kind"] == "predictions":
            info = read_arff_info(ROOT / fx["dataset"])
            with open(path, encoding="utf-8", newline="") as fh:
                rows = list(csv.reader(fh))
            header, body = rows[0], rows[1:]
            if header != ["row", "actual", "predicted", *info["class_labels"]]:
                print(f"BAD HEADER {path}: {header}")
                problems += 1
            if len(body) != info["n_rows"]:
                print(f"ROW COUNT {path}: {len(body)} != {info['n_rows']}")
                problems += 1
            if [int(r[0]) for r in body] != list(range(len(body))):
                print(f"ROW NUMBERS {path}")
                problems += 1
        else:
            text = path.read_text(encoding="utf-8")
            if fx["classifier"] == J48 and "Size of the tree" not in text.splitlines()[-1]:
                print(f"TREE BLOCK {path}")
                problems += 1
    print(f"checked {len(manifest['fixtures'])} fixtures, {problems} problem(s)")
    return 1 if problems else 0


# --------------------------------------------------------------------------
# Large synthetic data set for timing (--big)
# --------------------------------------------------------------------------

def make_big(path: Path, n_rows: int = 100_000, n_features: int = 20, seed: int = 0) -> Path:
    """Write a numeric classification ARFF (and a CSV twin) with random.Random(seed).

    Features x0..x{n-1}: mixture of uniform and Gaussian columns, 6 decimals.
    Class (a/b/c) depends on a few features, with 10% label noise, so that the
    tree has real structure.  The same seed always gives the same bytes.
    """
    rng = random.Random(seed)
    csv_path = path.with_suffix(".csv")
    with open(path, "w", encoding="ascii", newline="\n") as fa, open(
        csv_path, "w", encoding="ascii", newline="\n"
    ) as fc:
        fa.write(f"@relation quercus_big_{n_rows}x{n_features}_seed{seed}\n\n")
        fa.writelines(f"@attribute x{j} numeric\n" for j in range(n_features))
        fa.write("@attribute class {a,b,c}\n\n@data\n")
        fc.write(",".join([f"x{j}" for j in range(n_features)] + ["class"]) + "\n")
        for _ in range(n_rows):
            x = [rng.random() if j % 2 == 0 else rng.gauss(0.0, 1.0) for j in range(n_features)]
            score = x[0] + 0.5 * x[1] - x[2] * x[3] + (0.3 if x[4] > 0.7 else 0.0)
            if score < 0.3:
                y = "a"
            elif score < 0.9:
                y = "b"
            else:
                y = "c"
            if rng.random() < 0.10:
                y = rng.choice("abc")
            row = ",".join(f"{v:.6f}" for v in x) + "," + y + "\n"
            fa.write(row)
            fc.write(row)
    return path


def big(java: str, jar: str, path: Path, n_rows: int, n_features: int) -> None:
    t0 = time.perf_counter()
    make_big(path, n_rows, n_features)
    print(f"generated {path} (+ {path.with_suffix('.csv')}) in {time.perf_counter() - t0:.1f} s")
    cmd = [java, "-cp", jar, J48, "-t", str(path), "-no-cv"]
    print("timing:", " ".join(cmd))
    t0 = time.perf_counter()
    out = run(cmd)
    wall = time.perf_counter() - t0
    for ln in out.splitlines():
        if ln.startswith(("Number of Leaves", "Size of the tree", "Time taken", "Correctly")):
            print("  " + ln.replace("\t", " "))
    print(f"wall time (JVM start + load + build + evaluate on training data): {wall:.2f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--java", default="java")
    ap.add_argument("--weka-jar", default=DEFAULT_JAR)
    ap.add_argument("--check", action="store_true", help="only verify existing fixtures")
    ap.add_argument("--big", action="store_true", help="make the large timing data set and time J48")
    ap.add_argument("--big-path", default="/tmp/quercus_big_100k.arff")
    ap.add_argument("--big-rows", type=int, default=100_000)
    ap.add_argument("--big-features", type=int, default=20)
    args = ap.parse_args(argv)

    if args.check:
        return check()
    if args.big:
        big(args.java, args.weka_jar, Path(args.big_path), args.big_rows, args.big_features)
        return 0
    if not Path(args.weka_jar).exists():
        print(f"Weka jar not found: {args.weka_jar} (apt-get install -y weka)", file=sys.stderr)
        return 2
    generate(args.java, args.weka_jar)
    return check()


if __name__ == "__main__":
    sys.exit(main())
