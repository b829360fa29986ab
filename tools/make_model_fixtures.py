"""Write the model-file fixtures of tests/test_model_compat.py: one model per learner, saved
by the Quercus that runs this script, with the predictions that Quercus made.

    python tools/make_model_fixtures.py                 # this checkout, every case
    python tools/make_model_fixtures.py --commit f692692 --cases cart_vote

Files go to ``tests/data/model_files/v<format_version>/``: ``<case>.json`` (the model file)
and ``<case>.expected.json`` (who wrote it, the rows, and the predicted classes and
probabilities for them). With ``--commit REV`` the source tree of that commit is extracted
to a temporary directory (``git archive``, which changes nothing in this checkout) and the
script runs again on it, so the fixture is written, and its predictions made, by that
older version; the case names get the suffix ``_REV``. A commit whose package depends on
numba (up to ecb7f86) runs with numba, which must then be installed in the interpreter
running this script (``pip install numba``; the current tree does not use it), and with a
numba cache of its own; a commit with Cython kernels has them compiled in the temporary
directory first (``setup.py build_ext --inplace``: Cython and a C compiler).

Fixtures are history: a later version must load them and reproduce their predictions, so
they are added, never regenerated (existing files are kept unless ``--force``). When the
format version changes, run this script again to add the new version's directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARFF = ROOT / "tests" / "data" / "arff"
OUT = ROOT / "tests" / "data" / "model_files"

# case -> (ARFF data set, drop rows with missing values?, estimator parameters)
CASES = {
    "cart_vote": ("vote", False, {"criterion": "entropy"}),
    "cart_credit": ("credit-g", False, {"max_depth": 6, "class_weight": "balanced"}),
    "cart_hist": ("diabetes", False, {"splitter": "hist", "max_bins": 16, "max_depth": 6}),
    "id3": ("breast-cancer", True, {"algorithm": "id3"}),
    "c45": ("labor", False, {"algorithm": "c45"}),
    "c45_soybean": ("soybean", False, {"algorithm": "c45", "laplace": True}),
    "interval": ("iris", False, {"algorithm": "interval"}),
}


def _plain(value):
    """A JSON value for one cell or label (numpy scalars and NaN become plain values)."""
    if hasattr(value, "item"):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def _rows(X, at_most: int = 150) -> list[list]:
    """At most ``at_most`` rows spread over the data set, then variants of the first 30 of
    them: every third cell missing, and numbers scaled by 1.13 (so that some rows leave
    the training ranges)."""
    step = -(-len(X) // at_most)
    rows = [[_plain(v) for v in row] for row in X.iloc[::step].astype(object)
            .itertuples(index=False)]
    for row in rows[:30]:
        rows.append([None if j % 3 == 1 else v for j, v in enumerate(row)])
        if any(isinstance(v, float) for v in row):
            rows.append([v * 1.13 if isinstance(v, float) else v for v in row])
    return rows


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def write_case(case: str, name: str, commit: str, force: bool) -> Path:
    """Fit case ``case`` with the importable quercus and write ``name``'s two files."""
    import pandas as pd

    import quercus
    from quercus.export.model_file import FORMAT_VERSION

    data, complete, params = CASES[case]
    X, y, _ = quercus.read_arff(ARFF / f"{data}.arff")
    if complete:
        keep = X.notna().all(axis=1).to_numpy()
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    directory = OUT / f"v{FORMAT_VERSION}"
    directory.mkdir(parents=True, exist_ok=True)
    model_path = directory / f"{name}.json"
    expected_path = directory / f"{name}.expected.json"
    if not force and (model_path.exists() or expected_path.exists()):
        raise SystemExit(f"{model_path} exists; fixtures are kept (use --force to replace)")
    model = quercus.DecisionTreeClassifier(**params).fit(X, y)
    model.save(model_path)
    columns = [str(c) for c in X.columns]
    rows = json.loads(json.dumps(_rows(X)))  # exactly what the test will read back
    frame = pd.DataFrame(rows, columns=columns)
    document = json.loads(model_path.read_text())
    expected = {
        "written_by": {"quercus_version": document["quercus_version"], "commit": commit,
                       "format_version": document["format_version"]},
        "data": f"tests/data/arff/{data}.arff" + (" (rows without missing values)"
                                                   if complete else ""),
        "params": params,
        "columns": columns,
        "rows": rows,
        "predictions": [_plain(v) for v in model.predict(frame)],
        "probabilities": model.predict_proba(frame).tolist(),
    }
    expected_path.write_text(json.dumps(expected) + "\n")
    return model_path


def _run_at_commit(commit: str, cases: list[str], force: bool) -> None:
    """Extract ``commit``'s source, build it if it has compiled kernels, and run this script
    on it (a numba build with a numba cache of its own)."""
    full = _git("rev-parse", commit)
    paths = _git("ls-tree", "--name-only", full, "--", "src", "setup.py", "pyproject.toml",
                 "README.md").split()
    with tempfile.TemporaryDirectory() as temp:
        archive = subprocess.run(["git", "archive", full, *paths], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", temp], input=archive, check=True)
        tree = Path(temp)
        env = {**os.environ, "PYTHONPATH": str(tree / "src")}
        project = tree / "pyproject.toml"
        dependencies = (tomllib.loads(project.read_text())["project"].get("dependencies", [])
                        if project.exists() else [])
        if any(d.replace(" ", "").startswith("numba") for d in dependencies):
            if importlib.util.find_spec("numba") is None:
                raise SystemExit(f"{commit} runs its kernels with numba: pip install numba")
            env["NUMBA_CACHE_DIR"] = str(tree / "numba_cache")
        if any((tree / "src" / "quercus" / "_kernels").glob("*.pyx")):
            print(f"building {commit}'s compiled kernels", file=sys.stderr)
            subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=temp,
                           check=True, stdout=subprocess.DEVNULL)
        command = [sys.executable, __file__, "--as-commit", full[:7], "--cases", *cases]
        subprocess.run(command + (["--force"] if force else []), cwd=temp, env=env,
                       check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--commit", help="write the fixtures with this commit's source")
    parser.add_argument("--as-commit", help=argparse.SUPPRESS)  # set by --commit's rerun
    parser.add_argument("--force", action="store_true", help="replace existing fixtures")
    args = parser.parse_args()
    if args.commit:
        _run_at_commit(args.commit, args.cases, args.force)
        return
    if args.as_commit:
        commit, suffix = args.as_commit, f"_{args.as_commit}"
    else:
        dirty = _git("status", "--porcelain", "--untracked-files=no", "src")
        commit, suffix = _git("rev-parse", "--short", "HEAD") + ("+changes" if dirty else ""), ""
    import quercus

    print(f"quercus {quercus.__file__} ({commit})")
    for case in args.cases:
        print("wrote", write_case(case, case + suffix, commit, args.force))


if __name__ == "__main__":
    main()
