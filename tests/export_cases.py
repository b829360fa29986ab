"""Data sets and algorithms that the ONNX and PMML exports are checked on: numeric,
categorical, with missing values, for every algorithm that accepts the data."""

from __future__ import annotations

from pathlib import Path

from quercus import datasets, read_arff

ARFF = Path(__file__).parent / "data" / "arff"

CASES = [
    ("iris", "cart"), ("iris", "c45"), ("iris", "interval"),
    ("play_tennis", "cart"), ("play_tennis", "id3"), ("play_tennis", "c45"),
    ("play_tennis", "interval"),
    ("vote", "cart"), ("vote", "c45"), ("vote", "interval"),
    ("breast-cancer", "cart"), ("breast-cancer", "c45"), ("breast-cancer", "interval"),
    ("labor", "cart"), ("labor", "c45"), ("labor", "interval"),
    ("soybean", "cart"), ("soybean", "c45"),
    ("play_tennis", "optimal"), ("vote", "optimal"), ("breast-cancer", "optimal"),
]


def load(name: str):
    """(X, y) of a bundled data set or of an ARFF file under tests/data/arff."""
    if name in ("iris", "play_tennis"):
        X, y, _ = datasets.load(name)
        return X, y
    data = read_arff(ARFF / f"{name}.arff")
    return data.X, data.y
