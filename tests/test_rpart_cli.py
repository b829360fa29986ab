"""``quercus show --format rpart`` and ``quercus cp`` on saved rpart models, through the
command line, against R's print(fit) and printcp(fit)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from rpart_records_from_json import fit_text, frame_and_target, model_from_fixture
from test_rpart_text import block

from quercus import DecisionTreeClassifier


def quercus(*args, cwd):
    return subprocess.run([sys.executable, "-m", "quercus", *args], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize(("dataset", "fit"), [("vote", "default"), ("credit-g", "loss"),
                                              ("soybean", "default")])
def test_show_and_cp_print_like_r(tmp_path, dataset, fit):
    model_from_fixture(dataset, fit).save(tmp_path / "m.json")
    shown = quercus("show", "m.json", "--format", "rpart", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    text = fit_text(dataset, fit)
    assert shown.stdout == block(text, "print(fit)") + "\n"
    cp = quercus("cp", "m.json", cwd=tmp_path)
    assert cp.returncode == 0, cp.stderr
    ours, expected = cp.stdout.rstrip("\n").split("\n"), block(text, "printcp(fit)").split("\n")
    assert ours[2] == "DecisionTreeClassifier(algorithm='rpart')"
    call_end = expected.index("Variables actually used in tree construction:") - 1
    assert ours[3:] == expected[call_end:]
    written = quercus("cp", "m.json", "--out", "cp.txt", cwd=tmp_path)
    assert written.returncode == 0 and (tmp_path / "cp.txt").read_text() == cp.stdout


def test_models_without_a_cp_table_are_refused(tmp_path):
    X, y = frame_and_target("kyphosis")
    DecisionTreeClassifier(algorithm="c45").fit(X, y).save(tmp_path / "c45.json")
    cp = quercus("cp", "c45.json", cwd=tmp_path)
    assert cp.returncode == 2 and cp.stdout == ""
    assert cp.stderr == ("quercus: error: c45.json has no cp table (a c45 model); rpart "
                         "models have one\n")
    shown = quercus("show", "c45.json", "--format", "rpart", cwd=tmp_path)
    assert shown.returncode == 2
    assert shown.stderr.count("\n") == 1 and "rpart trees only" in shown.stderr
