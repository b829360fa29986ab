"""Write a large numeric CSV quickly: ``n_rows`` rows of ``n_features`` values and a class.

Every value is written as ``0.dddddd`` (a uniform draw to six decimals), so a row of 50
features takes 460 bytes and 10,000,000 rows about 4.6 GB. The digits are assembled as
bytes with numpy, a block of rows at a time, so the file is written at disk speed.

The class ``y`` (0, 1 or 2) is a noisy threshold of ``x0 + x1 / 2 - 0.7 x2``: a tree of
depth 10 learns it well, and the other features are noise.

    python tools/make_big_csv.py /tmp/big.csv --rows 10000000 --features 50
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

DIGITS = 6  # decimals per value
BLOCK_ROWS = 200_000


def _block(rng: np.random.Generator, n_rows: int, n_features: int) -> bytes:
    """``n_rows`` CSV lines as bytes: features ``0.dddddd,`` then the class and a newline."""
    ints = rng.integers(0, 10**DIGITS, size=(n_rows, n_features))
    values = ints / 10**DIGITS
    score = values[:, 0] + 0.5 * values[:, 1] - 0.7 * values[:, 2] + 0.15 * rng.standard_normal(n_rows)
    y = np.digitize(score, [0.2, 0.6])
    width = DIGITS + 3  # "0." + digits + ","
    cells = np.empty((n_rows, n_features, width), dtype=np.uint8)
    cells[:, :, 0] = ord("0")
    cells[:, :, 1] = ord(".")
    powers = 10 ** np.arange(DIGITS - 1, -1, -1)
    cells[:, :, 2 : 2 + DIGITS] = (ints[:, :, None] // powers) % 10 + ord("0")
    cells[:, :, -1] = ord(",")
    line = np.empty((n_rows, n_features * width + 2), dtype=np.uint8)
    line[:, :-2] = cells.reshape(n_rows, -1)
    line[:, -2] = y + ord("0")
    line[:, -1] = ord("\n")
    return line.tobytes()


def make_big_csv(path: str, n_rows: int, n_features: int, seed: int = 0) -> None:
    """Write the CSV file ``path`` (header ``x0,...,x{n-1},y``)."""
    rng = np.random.default_rng(seed)
    header = ",".join([f"x{j}" for j in range(n_features)] + ["y"]) + "\n"
    temporary = f"{path}.partial"
    with open(temporary, "wb") as handle:
        handle.write(header.encode())
        handle.writelines(_block(rng, min(BLOCK_ROWS, n_rows - start), n_features)
                          for start in range(0, n_rows, BLOCK_ROWS))
    os.replace(temporary, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="CSV file to write (put it outside the repository)")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    make_big_csv(args.path, args.rows, args.features, args.seed)
    size = os.path.getsize(args.path)
    print(f"{args.path}: {args.rows} rows x {args.features} features, {size / 1e9:.2f} GB, "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
