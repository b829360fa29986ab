"""The compiled kernels make the trees the numba kernels made (issue 39).

``tools/make_kernel_fixtures.py`` stored, before the kernels moved from numba to Cython,
the model file and the predictions (and class probabilities) of ~40 fits: every learner,
classifier and regressor, on numeric, categorical and missing data, both splitters, data
large enough for the kernels' threads, and Dask. Each case is refitted here; the model
file must be the stored one apart from the Quercus version, and the predictions and
probabilities the stored numbers exactly.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "kernel_fixtures"

_spec = importlib.util.spec_from_file_location("make_kernel_fixtures",
                                               ROOT / "tools" / "make_kernel_fixtures.py")
maker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(maker)

CASES = sorted(path.stem for path in FIXTURES.glob("*.json"))
LOCAL = [case for case in CASES if not maker.CASES[case][3]]
DASK = [case for case in CASES if maker.CASES[case][3]]


def _check(case: str, tmp_path: Path) -> None:
    stored = json.loads((FIXTURES / f"{case}.json").read_text())
    model, rows = maker.fit(case)
    assert maker.model_document(model, tmp_path / "model.json") == stored["model"]
    # through JSON, as stored: NaN and numpy scalars become what the fixture holds
    now = json.loads(json.dumps(maker.outputs(model, rows)))
    assert now["predictions"] == stored["predictions"]
    assert now.get("probabilities") == stored.get("probabilities")


def test_fixtures_cover_every_learner():
    learners = {case.split("_")[0] for case in CASES}
    assert {"cart", "id3", "c45", "interval", "optimal", "rpart", "auto", "reg",
            "dask"} <= learners
    assert len(CASES) == len(maker.CASES)


@pytest.mark.parametrize("case", LOCAL)
def test_same_model_and_predictions(case, tmp_path):
    _check(case, tmp_path)


@pytest.mark.parametrize("case", DASK)
def test_same_model_and_predictions_on_dask(case, client, tmp_path):
    _check(case, tmp_path)
