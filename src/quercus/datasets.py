"""Small bundled datasets, read from ``quercus/data/bundled/`` with :func:`read_csv`.

========== ====== ============================================================
name       rows   contents
========== ====== ============================================================
iris       150    Fisher's iris (UCI order); 4 numeric features, ``species``
play_tennis 14    Mitchell's play-tennis days; 4 categorical features, ``PlayTennis``
xor        7      Esmeir & Markovitch's xor example; ``A1``..``A4`` categorical, ``label``
seed000    8      the 8 x 4 numeric demo of seed 000; ``x0``..``x3``, integer ``y``
flowers    8      seed 001's flowers: ``flower_type``, ``colour``, ``thorns``,
                  ``fragrance`` (categorical), ``flower``
yinyang    400    points of the unit disk shaped as the yin-yang symbol; ``x``,
                  ``y`` (numeric), ``class`` (``yin`` / ``yang``)
penguins   344    Palmer penguins (R package palmerpenguins, CC0): ``species``
                  from island, bill, flipper, body mass, sex and year; ``NA``
                  in 2 rows of measurements and 11 of ``sex``
airquality 153    New York air quality, May to September 1973 (R's
                  ``datasets::airquality``): ``Month`` from ozone, solar
                  radiation, wind, temperature and day; ``NA`` in 37 ozone and
                  7 solar-radiation values
========== ====== ============================================================

``penguins`` and ``airquality`` were written by R's ``write.csv`` (``NA`` for a missing
value, quoted strings) by ``tools/make_na_datasets.R``; their origin and licence are in
``quercus/data/bundled/README.md``.

``flowers`` was written for Quercus to fit seed 001's story (one Alpine Gentian, one Silver
Thistle, one Edelweiss, two roses, two tulips, one narcissus): the class-interval tree first
separates the Alpine Gentian by its blue colour, then the composite flowers (Silver Thistle
and Edelweiss), which thorns tell apart.

``yinyang`` is written by ``tools/make_yinyang.py`` (fixed seed; see its docstring for the
shape): two classes meeting along an S-shaped curve, to show the axis-parallel boundaries of
a tree (seed 002's Ying-Yang figure; ``quercus plot``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from quercus.data.csv_reader import read_csv
from quercus.data.schema import Dataset
from quercus.errors import DataError


@dataclass(frozen=True)
class _Entry:
    file: str
    target: str
    categorical: tuple[str, ...] = ()


_DATASETS: dict[str, _Entry] = {
    "iris": _Entry("iris.csv", "species"),
    "play_tennis": _Entry("play_tennis.csv", "PlayTennis"),
    "xor": _Entry("xor.csv", "label", ("A1", "A2", "A3", "A4")),
    "seed000": _Entry("seed000.csv", "y"),
    "flowers": _Entry("flowers.csv", "flower"),
    "yinyang": _Entry("yinyang.csv", "class"),
    "penguins": _Entry("penguins.csv", "species"),
    "airquality": _Entry("airquality.csv", "Month"),
}


def names() -> list[str]:
    """Names of the bundled datasets, sorted."""
    return sorted(_DATASETS)


def load(name: str) -> Dataset:
    """Load a bundled dataset.

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    Dataset
        ``X, y, schema`` as :func:`quercus.data.read_csv` returns them, with the
        dataset's target column.

    Raises
    ------
    DataError
        For an unknown name.
    """
    entry = _DATASETS.get(name)
    if entry is None:
        raise DataError(f"unknown dataset {name!r}; datasets are: {', '.join(names())}")
    resource = resources.files("quercus.data").joinpath("bundled", entry.file)
    with resources.as_file(resource) as path:
        return read_csv(path, entry.target, categorical=list(entry.categorical) or None)
