"""The installed ``quercus`` command, end to end, and its one-line errors."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import cli
from quercus.estimator import DecisionTreeClassifier
from quercus.evaluation import cross_validate
from quercus.export import load_model, rules_to_text, tree_to_text

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
COMMAND = Path(sys.executable).parent / "quercus"

WEATHER_ARFF = """\
@relation weather
@attribute outlook {sunny, overcast, rainy}
@attribute temperature numeric
@attribute humidity numeric
@attribute windy {TRUE, FALSE}
@attribute play {yes, no}
@data
sunny,85,85,FALSE,no
sunny,80,90,TRUE,no
overcast,83,86,FALSE,yes
rainy,70,96,FALSE,yes
rainy,68,80,FALSE,yes
rainy,65,70,TRUE,no
overcast,64,65,TRUE,yes
sunny,72,95,FALSE,no
sunny,69,70,FALSE,yes
rainy,75,80,FALSE,yes
sunny,75,70,TRUE,yes
overcast,72,90,TRUE,yes
overcast,81,75,FALSE,yes
rainy,71,91,TRUE,no
"""


@pytest.fixture(scope="module")
def quercus_cmd() -> str:
    if not COMMAND.exists():
        pytest.skip(f"the quercus command is not installed next to {sys.executable}; "
                    "run: pip install -e '.[test]'")
    return str(COMMAND)


def _copy_data(directory: Path) -> Path:
    for name in ("iris.csv", "play_tennis.csv"):
        shutil.copy(BUNDLED / name, directory / name)
    (directory / "weather.arff").write_text(WEATHER_ARFF)
    return directory


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    """A fresh directory with the data files."""
    return _copy_data(tmp_path)


@pytest.fixture(scope="module")
def shared(quercus_cmd, tmp_path_factory) -> Path:
    """One directory for the error cases: data files, bad inputs and two trained models."""
    directory = _copy_data(tmp_path_factory.mktemp("mistakes"))
    (directory / "empty.csv").write_text("")
    (directory / "header.csv").write_text("a,b,species\n")
    (directory / "text.csv").write_text("sepal_length,sepal_width,petal_length,petal_width\n"
                                        "5.1,3.5,long,0.2\n")
    (directory / "foggy.csv").write_text("Outlook,Temperature,Humidity,Wind\n"
                                         "Foggy,Hot,High,Weak\n")
    (directory / "bad.json").write_text(BAD_MODEL)
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--out", "iris.json",
           cwd=directory))
    ok(run(quercus_cmd, "train", "play_tennis.csv", "--target", "PlayTennis", "--out",
           "tennis.json", cwd=directory))
    return directory


def run(cmd: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([cmd, *args], check=False, cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


@pytest.fixture()
def iris_model(quercus_cmd, work) -> Path:
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--out", "iris.json",
           cwd=work))
    return work / "iris.json"


def test_train(quercus_cmd, work):
    out = ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--max-depth", "2",
                 "--out", "m.json", cwd=work))
    assert "Depth: 2, leaves: 3" in out
    assert "Training accuracy: 0.9600" in out
    assert "Fit time:" in out
    model = load_model(work / "m.json")
    assert model.get_params()["max_depth"] == 2
    assert sorted(p.name for p in work.iterdir()) == ["iris.csv", "m.json", "play_tennis.csv",
                                                      "weather.arff"]


def test_train_learner_options(quercus_cmd, work):
    ok(run(quercus_cmd, "train", "play_tennis.csv", "--target", "PlayTennis", "--criterion",
           "entropy", "--min-samples-leaf", "2", "--min-samples-split", "0.3",
           "--max-leaf-nodes", "3", "--ccp-alpha", "0.01", "--out", "t.json", cwd=work))
    params = load_model(work / "t.json").get_params()
    assert params["criterion"] == "entropy"
    assert params["min_samples_leaf"] == 2 and params["min_samples_split"] == 0.3
    assert params["max_leaf_nodes"] == 3 and params["ccp_alpha"] == 0.01


def test_train_categorical_option(quercus_cmd, work):
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--categorical",
           "sepal_width", "--out", "c.json", cwd=work))
    model = load_model(work / "c.json")
    assert model.schema_.feature("sepal_width").kind == "categorical"


def test_show_and_rules(quercus_cmd, work, iris_model):
    model = load_model(iris_model)
    assert ok(run(quercus_cmd, "show", "iris.json", cwd=work)) == tree_to_text(model) + "\n"
    assert ok(run(quercus_cmd, "rules", "iris.json", cwd=work)) == rules_to_text(model) + "\n"
    assert "petal_length <= 2.45: setosa (50)" in tree_to_text(model)


def test_predict_stdout_and_file(quercus_cmd, work, iris_model):
    data = pd.read_csv(work / "iris.csv")
    out = ok(run(quercus_cmd, "predict", "iris.json", "iris.csv", "--proba", cwd=work))
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["prediction", "proba_setosa", "proba_versicolor",
                                   "proba_virginica"]
    assert (table["prediction"] == data["species"]).all()  # a full tree fits iris exactly
    np.testing.assert_allclose(table.iloc[:, 1:].sum(axis=1), 1.0)

    features = data.drop(columns="species")
    features.to_csv(work / "new.csv", index=False)
    ok(run(quercus_cmd, "predict", "iris.json", "new.csv", "--out", "pred.csv", cwd=work))
    written = pd.read_csv(work / "pred.csv")
    assert list(written.columns) == ["prediction"]
    np.testing.assert_array_equal(written["prediction"],
                                  load_model(iris_model).predict(features))
    assert not [p for p in work.iterdir() if p.name.endswith(".tmp")]


def test_predict_with_missing_values(quercus_cmd, work):
    ok(run(quercus_cmd, "train", "play_tennis.csv", "--target", "PlayTennis", "--out",
           "t.json", cwd=work))
    (work / "days.csv").write_text("Outlook,Temperature,Humidity,Wind\n"
                                   "Overcast,Hot,,Weak\nSunny,?,High,Strong\n")
    out = ok(run(quercus_cmd, "predict", "t.json", "days.csv", cwd=work))
    assert out.splitlines() == ["prediction", "Yes", "No"]


def test_arff_train_predict(quercus_cmd, work):
    ok(run(quercus_cmd, "train", "weather.arff", "--target", "play", "--out", "w.json",
           cwd=work))
    out = ok(run(quercus_cmd, "predict", "w.json", "weather.arff", cwd=work))
    assert out.splitlines()[0] == "prediction"
    assert len(out.splitlines()) == 15


def test_eval(quercus_cmd, work):
    out = ok(run(quercus_cmd, "eval", "iris.csv", "--target", "species", "--cv", "5",
                 "--seed", "3", "--max-depth", "3", cwd=work))
    data = quercus.read_csv(work / "iris.csv", "species")
    expected = cross_validate(DecisionTreeClassifier(max_depth=3), data.X, data.y, 5, seed=3)
    assert f"Accuracy: mean {expected.mean:.4f}, std {expected.std:.4f}" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("true \\ predicted"))
    rows = [line.split() for line in lines[header + 1: header + 4]]
    assert [r[0] for r in rows] == ["setosa", "versicolor", "virginica"]
    np.testing.assert_array_equal([[int(v) for v in r[1:]] for r in rows], expected.confusion)


def test_demo(quercus_cmd, work):
    out = ok(run(quercus_cmd, "demo", cwd=work))
    assert "== play_tennis" in out and "== iris" in out
    assert "Outlook = Overcast: Yes (4)" in out
    assert "IF Outlook = Overcast THEN PlayTennis = Yes  (support 4, accuracy 100%)" in out
    data = quercus.datasets.load("iris")
    held = np.arange(150) % 5 == 4
    model = DecisionTreeClassifier().fit(data.X[~held], data.y[~held])
    score = float(np.mean(model.predict(data.X[held]) == data.y[held].to_numpy()))
    assert f"Held-out accuracy: {score:.4f} on 30 rows" in out


def test_python_dash_m(work):
    result = subprocess.run([sys.executable, "-m", "quercus", "--version"], check=False, cwd=work,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.strip() == f"quercus {quercus.__version__}"


@pytest.mark.parametrize("command", [[], ["train"], ["predict"], ["show"], ["rules"], ["eval"],
                                     ["demo"]])
def test_help(quercus_cmd, work, command):
    out = ok(run(quercus_cmd, *command, "--help", cwd=work))
    assert out.startswith("usage: quercus")


BAD_MODEL = '{"format": "quercus-model", "format_version": 1, "estimator"'

MISTAKES = {
    "missing data file": ["train", "absent.csv", "--target", "species", "--out", "m.json"],
    "unknown target": ["train", "iris.csv", "--target", "colour", "--out", "m.json"],
    "unknown extension": ["train", "iris.txt", "--target", "species", "--out", "m.json"],
    "empty data": ["train", "empty.csv", "--target", "species", "--out", "m.json"],
    "header only": ["train", "header.csv", "--target", "species", "--out", "m.json"],
    "max depth 0": ["train", "iris.csv", "--target", "species", "--max-depth", "0",
                    "--out", "m.json"],
    "max depth not a number": ["train", "iris.csv", "--target", "species", "--max-depth",
                               "deep", "--out", "m.json"],
    "negative ccp alpha": ["train", "iris.csv", "--target", "species", "--ccp-alpha", "-1",
                           "--out", "m.json"],
    "no target option": ["train", "iris.csv", "--out", "m.json"],
    "unknown categorical column": ["train", "iris.csv", "--target", "species",
                                   "--categorical", "nope", "--out", "m.json"],
    "unwritable model path": ["train", "iris.csv", "--target", "species", "--out",
                              "no/such/dir/m.json"],
    "text in numeric column": ["predict", "iris.json", "text.csv"],
    "unseen category": ["predict", "tennis.json", "foggy.csv"],
    "missing column": ["predict", "iris.json", "play_tennis.csv"],
    "missing model": ["show", "absent.json"],
    "bad model file": ["rules", "bad.json"],
    "data file as model": ["show", "iris.csv"],
    "bad model for predict": ["predict", "bad.json", "iris.csv"],
    "one fold": ["eval", "iris.csv", "--target", "species", "--cv", "1"],
    "too many folds": ["eval", "iris.csv", "--target", "species", "--cv", "151"],
    "unknown command": ["grow"],
    "no command": [],
    "unknown option": ["show", "iris.json", "--colour"],
}


@pytest.mark.parametrize("case", sorted(MISTAKES))
def test_user_mistakes_print_one_line(quercus_cmd, shared, case):
    result = run(quercus_cmd, *MISTAKES[case], cwd=shared)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("quercus: error: ")
    assert result.stdout == ""
    assert not (shared / "m.json").exists()
    assert not [p for p in shared.iterdir() if p.name.endswith(".tmp")]


def test_error_messages_name_the_culprit(quercus_cmd, shared):
    result = run(quercus_cmd, "predict", "iris.json", "text.csv", cwd=shared)
    assert "text.csv" in result.stderr and "'long'" in result.stderr
    result = run(quercus_cmd, "predict", "tennis.json", "foggy.csv", cwd=shared)
    assert "foggy.csv" in result.stderr and "'Foggy'" in result.stderr
    result = run(quercus_cmd, "show", "absent.json", cwd=shared)
    assert "absent.json" in result.stderr


def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_demo", interrupted)
    assert cli.main(["demo"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_main_returns_2_on_library_errors(capsys, tmp_path):
    assert cli.main(["show", str(tmp_path / "nothing.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: ") and err.count("\n") == 1
