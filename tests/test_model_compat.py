"""Model files stay loadable: the fixtures under tests/data/model_files/ were written by
earlier versions of Quercus (tools/make_model_fixtures.py), one directory per format
version, with the predictions the writing version made. This version must load every one
and reproduce those predictions; a file of a newer format version is refused clearly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus import ModelFileError, load_model
from quercus.export.model_file import FORMAT_VERSION

FIXTURES = Path(__file__).resolve().parent / "data" / "model_files"
EXPECTED = sorted(FIXTURES.glob("v*/*.expected.json"))


def _model_path(expected: Path) -> Path:
    return expected.with_name(expected.name.replace(".expected.json", ".json"))


def test_every_format_version_has_fixtures_of_every_learner():
    for version in range(1, FORMAT_VERSION + 1):
        directory = FIXTURES / f"v{version}"
        models = [json.loads(p.read_text()) for p in directory.glob("*.json")
                  if not p.name.endswith(".expected.json")]
        assert all(m["format_version"] == version for m in models)
        learners = {(m["params"].get("algorithm", "cart"), m["params"].get("splitter", "exact"))
                    for m in models}
        assert {("cart", "exact"), ("cart", "hist"), ("id3", "exact"), ("c45", "exact"),
                ("interval", "exact")} <= learners, directory
    assert len(EXPECTED) >= 5


@pytest.mark.parametrize("expected_path", EXPECTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_loads_and_predicts_as_when_it_was_written(expected_path):
    expected = json.loads(expected_path.read_text())
    model = load_model(_model_path(expected_path))
    rows = pd.DataFrame(expected["rows"], columns=expected["columns"])
    predicted = [None if v is None else (v.item() if hasattr(v, "item") else v)
                 for v in model.predict(rows)]
    assert predicted == expected["predictions"]
    np.testing.assert_allclose(model.predict_proba(rows), expected["probabilities"],
                               rtol=1e-12, atol=1e-15)
    assert model.get_params()["algorithm"] == expected["params"].get("algorithm", "cart")


def test_fixtures_cover_missing_values_and_unclassified_rows():
    """The fixture rows exercise the routes that changed most: missing values (every
    learner) and rows outside every class range (the class-interval tree)."""
    for expected_path in EXPECTED:
        expected = json.loads(expected_path.read_text())
        assert any(v is None for row in expected["rows"] for v in row), expected_path.name
    interval = json.loads((FIXTURES / "v1" / "interval.expected.json").read_text())
    assert None in interval["predictions"]


def test_the_oldest_fixture_predates_arrays_added_later():
    """cart_vote_f692692.json comes from the first commit with model files: its tree has
    no 'empty' or interval arrays and its params lack the later parameters, yet it loads
    and gets the current defaults."""
    path = FIXTURES / "v1" / "cart_vote_f692692.json"
    document = json.loads(path.read_text())
    assert "empty" not in document["tree"] and "interval_high" not in document["tree"]
    assert "splitter" not in document["params"]
    model = load_model(path)
    assert model.splitter == "exact" and not model.tree_.empty.any()


@pytest.fixture()
def newer_file(tmp_path) -> Path:
    document = json.loads((FIXTURES / "v1" / "cart_vote.json").read_text())
    document["format_version"] = FORMAT_VERSION + 1
    document["quercus_version"] = "99.0.0"
    path = tmp_path / "from_the_future.json"
    path.write_text(json.dumps(document))
    return path


def test_newer_format_version_is_refused_naming_file_and_versions(newer_file):
    with pytest.raises(ModelFileError) as caught:
        load_model(newer_file)
    message = str(caught.value)
    assert str(newer_file) in message
    assert f"format version {FORMAT_VERSION + 1}" in message
    assert f"reads format version {FORMAT_VERSION}" in message
    assert "99.0.0" in message and "newer" in message and "\n" not in message


def test_newer_format_version_is_one_line_from_the_command_line(newer_file):
    result = subprocess.run([sys.executable, "-m", "quercus", "show", str(newer_file)],
                            check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quercus: error: ")
    assert str(newer_file) in lines[0] and f"version {FORMAT_VERSION + 1}" in lines[0]


@pytest.mark.parametrize("version", [0, "1", None, 1.5])
def test_unknown_format_version_is_refused(tmp_path, version):
    document = json.loads((FIXTURES / "v1" / "cart_vote.json").read_text())
    document["format_version"] = version
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="format version"):
        load_model(path)
