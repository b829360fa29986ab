"""Write the bundled ``yinyang`` data set: two classes shaped as the yin-yang symbol.

Usage: ``python tools/make_yinyang.py [OUT.csv]`` (default:
``src/quercus/data/bundled/yinyang.csv``).

400 points are drawn uniformly in the unit disk with ``numpy.random.default_rng(2)``,
rounded to 3 decimals, and labelled by ``yinyang_class`` on the rounded coordinates:

* inside the disk of radius 0.5 around (0, 0.5): ``yin``, except its eye
  (radius 0.15 around the same centre), which is ``yang``;
* inside the lower one around (0, -0.5): ``yang``, except its eye, ``yin``;
* elsewhere: ``yin`` on the left (x < 0), ``yang`` on the right.

The classes meet along an S-shaped curve, which no single threshold follows: the data set
shows the axis-parallel boundaries a decision tree draws (seed 002's Ying-Yang figure).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

N_POINTS = 400
SEED = 2
EYE = 0.15
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "src/quercus/data/bundled/yinyang.csv"


def yinyang_class(x: float, y: float) -> str:
    """The class of a point of the unit disk: ``"yin"`` or ``"yang"``."""
    upper = x * x + (y - 0.5) ** 2
    lower = x * x + (y + 0.5) ** 2
    if upper <= EYE * EYE:
        return "yang"
    if lower <= EYE * EYE:
        return "yin"
    if upper <= 0.25:
        return "yin"
    if lower <= 0.25:
        return "yang"
    return "yin" if x < 0 else "yang"


def make(n: int = N_POINTS, seed: int = SEED) -> list[tuple[float, float, str]]:
    """``n`` labelled points, uniform in the unit disk."""
    rng = np.random.default_rng(seed)
    radius = np.sqrt(rng.uniform(0.0, 1.0, size=n))
    angle = rng.uniform(0.0, 2.0 * np.pi, size=n)
    xs = np.round(radius * np.cos(angle), 3)
    ys = np.round(radius * np.sin(angle), 3)
    points = [(float(x) + 0.0, float(y) + 0.0) for x, y in zip(xs, ys)]  # no -0.0
    return [(x, y, yinyang_class(x, y)) for x, y in points]


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else DEFAULT_OUT
    lines = ["x,y,class"] + [f"{x:.3f},{y:.3f},{label}" for x, y, label in make()]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} points written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
