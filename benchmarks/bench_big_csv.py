"""Peak memory and wall time of ``quercus train`` on a big CSV file, streamed.

Generates the CSV (``tools/make_big_csv.py``: 10,000,000 rows x 50 numeric features and a
3-class target, about 4.5 GB) unless it exists, then runs, under GNU time,

    quercus train BIG.csv --target y --splitter hist --max-depth 10 --out BIG.json

which reads the file in chunks, binning as it reads (docs/large_files.md), and prints the
command's own report with the peak resident memory ("Maximum resident set size") and the
wall time. Needs /usr/bin/time (Debian: apt-get install time).

    python benchmarks/bench_big_csv.py --path /tmp/big.csv            # ~5 GB in /tmp
    python benchmarks/bench_big_csv.py --rows 1000000 --delete        # a smaller run
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from make_big_csv import make_big_csv

LIMIT_GIB = 8.0


def _quercus() -> str:
    command = Path(sys.executable).parent / "quercus"
    if not command.exists():
        sys.exit(f"no quercus command next to {sys.executable}; run: pip install -e .")
    return str(command)


def run(path: str, rows: int, features: int, max_depth: int, extra: list[str]) -> dict:
    """Generate the file if missing, train on it under /usr/bin/time -v, return figures."""
    if shutil.which("time") is None and not Path("/usr/bin/time").exists():
        sys.exit("needs GNU time (/usr/bin/time); Debian: apt-get install time")
    if not os.path.exists(path):
        print(f"generating {path} ({rows} rows x {features} features) ...", flush=True)
        make_big_csv(path, rows, features)
    out = str(Path(path).with_suffix(".json"))
    command = ["/usr/bin/time", "-v", _quercus(), "train", path, "--target", "y",
               "--splitter", "hist", "--max-depth", str(max_depth), "--out", out, *extra]
    print("$ " + " ".join(command[2:]), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    print(done.stdout, end="")
    if done.returncode != 0:
        sys.exit(f"quercus train failed ({done.returncode}):\n{done.stderr}")
    rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)",
                     done.stderr)[1]
    seconds = sum(float(part) * 60**i for i, part in enumerate(reversed(wall.split(":"))))
    os.remove(out)
    return {"size_gb": os.path.getsize(path) / 1e9, "peak_gib": rss_kib / 2**20,
            "wall_s": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="/tmp/quercus_big.csv",
                        help="the CSV file (generated if missing; default: %(default)s)")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--max-depth", type=int, default=10)
    parser.add_argument("--delete", action="store_true", help="delete the CSV file after")
    parser.add_argument("extra", nargs="*", help="more options for quercus train (after --)")
    args = parser.parse_args(argv)
    try:
        figures = run(args.path, args.rows, args.features, args.max_depth, args.extra)
    finally:
        if args.delete and os.path.exists(args.path):
            os.remove(args.path)
    verdict = "under" if figures["peak_gib"] < LIMIT_GIB else "OVER"
    print(f"\nfile: {figures['size_gb']:.2f} GB; peak resident memory: "
          f"{figures['peak_gib']:.2f} GiB ({verdict} {LIMIT_GIB:g} GiB); "
          f"wall time: {figures['wall_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
