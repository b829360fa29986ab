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


@pytest.mark.parametrize(("fmt", "what"), [("python", "generated code"), ("c", "generated code"),
                                           ("onnx", "ONNX")])
def test_exports_without_surrogates_warn_in_one_line(tmp_path, fmt, what):
    pytest.importorskip("onnx") if fmt == "onnx" else None
    model_from_fixture("vote", "default").save(tmp_path / "m.json")
    result = quercus("export", "m.json", "--format", fmt, "--out", "out.bin", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith(f"quercus: warning: {what} cannot express rpart's "
                                    "surrogate splits")
    assert result.stderr.count("\n") == 1
    pmml = quercus("export", "m.json", "--format", "pmml", "--out", "m.pmml", cwd=tmp_path)
    assert pmml.returncode == 0 and pmml.stderr == ""  # PMML keeps the surrogates


def test_generated_code_sends_missing_values_to_the_heavier_child():
    """Python code of an rpart tree: rows with a missing primary take the child with more
    training rows (where the model would use a surrogate); other rows predict as the model."""
    from quercus.rpart_routing import SurrogatesDropped

    model = model_from_fixture("vote", "default")
    with pytest.warns(SurrogatesDropped):
        source = model.to_source("python")
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 - our own generated code
    X, _ = frame_and_target("vote")
    rows = X.astype(object).where(X.notna(), None).to_numpy().tolist()
    present = X["physician-fee-freeze"].notna().to_numpy()
    expected = model.predict(X)
    got = [namespace["predict"](row) for row in rows]
    assert [g for g, p in zip(got, present) if p] == list(expected[present])
    # the 11 rows missing the root's variable: the heavier child (n 256 vs 178) -> democrat
    assert {g for g, p in zip(got, present) if not p} == {"democrat"}
