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
from quercus import cli, cli_commands
from quercus.estimator import DecisionTreeClassifier
from quercus.evaluation import cross_validate
from quercus.export import load_model, rules_to_text, tree_to_text

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
TEST_DATA = Path(__file__).parent / "data"
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


def _copy_arff(directory: Path, *names: str) -> None:
    for name in names:
        shutil.copy(TEST_DATA / "arff" / f"{name}.arff", directory / f"{name}.arff")


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
    (directory / "gaps.csv").write_text("Outlook,Wind,PlayTennis\nSunny,Weak,No\n"
                                        "Rain,,Yes\nOvercast,Strong,Yes\n")
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--algorithm", "cart",
           "--out", "iris.json", cwd=directory))
    ok(run(quercus_cmd, "train", "play_tennis.csv", "--target", "PlayTennis", "--algorithm",
           "cart", "--out", "tennis.json", cwd=directory))
    ok(run(quercus_cmd, "train", "weather.arff", "--target", "play", "--algorithm", "c45",
           "--out", "weather_c45.json", cwd=directory))
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
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--algorithm", "cart",
           "--out", "iris.json", cwd=work))
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


# -- ID3 and C4.5 ----------------------------------------------------------------------------
def test_train_reports_algorithm_and_resolved_criterion(quercus_cmd, work):
    _copy_arff(work, "weather.nominal")
    nominal = ["weather.nominal.arff", "--target", "play"]
    cases = [  # (arguments, printed, stored algorithm, stored criterion)
        (["iris.csv", "--target", "species", "--algorithm", "cart"], "(cart, gini)", "cart",
         None),
        (["iris.csv", "--target", "species", "--criterion", "entropy"], "(cart, entropy)",
         "cart", "entropy"),
        (["weather.arff", "--target", "play", "--algorithm", "c45"], "(c45, gain_ratio)",
         "c45", None),
        ([*nominal, "--algorithm", "id3"], "(id3, entropy)", "id3", None),
        ([*nominal, "--algorithm", "id3", "--criterion", "gain_ratio"], "(id3, gain_ratio)",
         "id3", "gain_ratio"),
    ]
    for args, printed, algorithm, criterion in cases:
        out = ok(run(quercus_cmd, "train", *args, "--out", "m.json", cwd=work))
        assert out.splitlines()[0].endswith(printed), out
        params = load_model(work / "m.json").get_params()
        assert (params["algorithm"], params["criterion"]) == (algorithm, criterion)
        assert params["min_samples_leaf"] is None  # the algorithm's default (1 or 2)


def test_show_j48_reproduces_weka(quercus_cmd, work):
    _copy_arff(work, "iris")
    out = ok(run(quercus_cmd, "train", "iris.arff", "--target", "class", "--algorithm", "c45",
                 "--out", "iris_c45.json", cwd=work))
    assert "(c45, gain_ratio)" in out
    expected = (TEST_DATA / "j48" / "iris.J48.txt").read_text()
    assert ok(run(quercus_cmd, "show", "iris_c45.json", "--format", "j48", cwd=work)) == expected
    model = load_model(work / "iris_c45.json")
    text = ok(run(quercus_cmd, "show", "iris_c45.json", cwd=work))
    assert text == ok(run(quercus_cmd, "show", "iris_c45.json", "--format", "text",
                          cwd=work)) == tree_to_text(model) + "\n"
    assert "petalwidth <= 0.6: Iris-setosa (50)" in text


def test_show_id3_reproduces_weka(quercus_cmd, work):
    _copy_arff(work, "contact-lenses", "weather.nominal")
    for name, target in (("contact-lenses", "contact-lenses"), ("weather.nominal", "play")):
        ok(run(quercus_cmd, "train", f"{name}.arff", "--target", target, "--algorithm", "id3",
               "--out", "id3.json", cwd=work))
        expected = (TEST_DATA / "j48" / f"{name}.Id3.txt").read_text()
        assert ok(run(quercus_cmd, "show", "id3.json", "--format", "id3", cwd=work)) == expected


@pytest.mark.parametrize("name, target, options, variant", [
    ("labor", "class", ["--no-pruning"], "J48-U"),
    ("breast-cancer", "Class", ["--no-subtree-raising"], "J48-S"),
    ("diabetes", "class", ["--min-samples-leaf", "5"], "J48-M5"),
    ("soybean", "class", ["--confidence", "0.1"], "J48-C0.1"),
])
def test_c45_options_reproduce_weka(quercus_cmd, work, name, target, options, variant):
    _copy_arff(work, name)
    ok(run(quercus_cmd, "train", f"{name}.arff", "--target", target, "--algorithm", "c45",
           *options, "--out", "m.json", cwd=work))
    expected = (TEST_DATA / "j48" / f"{name}.{variant}.txt").read_text()
    assert ok(run(quercus_cmd, "show", "m.json", "--format", "j48", cwd=work)) == expected


def test_c45_options_are_stored_and_used(quercus_cmd, work):
    _copy_arff(work, "labor")
    ok(run(quercus_cmd, "train", "labor.arff", "--target", "class", "--algorithm", "c45",
           "--confidence", "0.1", "--no-pruning", "--no-subtree-raising", "--laplace",
           "--min-samples-leaf", "3", "--max-depth", "2", "--out", "l.json", cwd=work))
    model = load_model(work / "l.json")
    params = model.get_params()
    assert params["confidence"] == 0.1
    assert params["pruning"] is False and params["subtree_raising"] is False
    assert params["laplace"] is True and params["min_samples_leaf"] == 3
    assert params["max_depth"] == 2 and model.get_depth() <= 2
    X, y, _ = quercus.read_arff(work / "labor.arff")
    same = DecisionTreeClassifier(algorithm="c45", confidence=0.1, pruning=False,
                                  subtree_raising=False, laplace=True, min_samples_leaf=3,
                                  max_depth=2).fit(X, y)
    out = ok(run(quercus_cmd, "predict", "l.json", "labor.arff", "--proba", cwd=work))
    table = pd.read_csv(io.StringIO(out))
    np.testing.assert_array_equal(table["prediction"], same.predict(X))
    np.testing.assert_allclose(table[["proba_bad", "proba_good"]].to_numpy(),
                               same.predict_proba(X), rtol=1e-12)
    assert "J48 unpruned tree" in ok(run(quercus_cmd, "show", "l.json", "--format", "j48",
                                         cwd=work))


def test_defaults_train_unchanged_cart(quercus_cmd, work):
    # --algorithm cart is today's default estimator; without --algorithm, train uses auto
    # (tests/test_auto.py) unless a learner option is given
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--algorithm", "cart",
           "--out", "m.json", cwd=work))
    params = load_model(work / "m.json").get_params()
    assert params == DecisionTreeClassifier().get_params()
    ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--min-samples-split",
           "3", "--out", "m.json", cwd=work))
    params = load_model(work / "m.json").get_params()
    assert params == DecisionTreeClassifier(min_samples_split=3).get_params()


def test_c45_show_and_rules_on_soybean(quercus_cmd, work):
    _copy_arff(work, "soybean")
    ok(run(quercus_cmd, "train", "soybean.arff", "--target", "class", "--algorithm", "c45",
           "--out", "s.json", cwd=work))
    model = load_model(work / "s.json")
    text = ok(run(quercus_cmd, "show", "s.json", cwd=work))
    assert text == tree_to_text(model) + "\n"
    assert "|   |   |   seed-size = lt-norm: bacterial-pustule (3.23, 61.9%)" in text
    assert "|   canker-lesion = brown: bacterial-blight (0)" in text
    rules = ok(run(quercus_cmd, "rules", "s.json", cwd=work))
    assert rules == rules_to_text(model) + "\n"
    assert len(rules.splitlines()) == model.get_n_leaves() - int(model.tree_.empty.sum())


def test_eval_c45_and_id3(quercus_cmd, work):
    _copy_arff(work, "weather.nominal")
    for algorithm, extra in (("c45", ["--laplace"]), ("id3", ["--criterion", "gain_ratio"])):
        out = ok(run(quercus_cmd, "eval", "weather.nominal.arff", "--target", "play", "--cv",
                     "3", "--algorithm", algorithm, *extra, cwd=work))
        X, y, _ = quercus.read_arff(work / "weather.nominal.arff")
        params = {"laplace": True} if algorithm == "c45" else {"criterion": "gain_ratio"}
        expected = cross_validate(DecisionTreeClassifier(algorithm=algorithm, **params), X, y,
                                  3, seed=0)
        assert f"Accuracy: mean {expected.mean:.4f}, std {expected.std:.4f}" in out


def test_show_format_errors_name_the_algorithm(quercus_cmd, shared):
    result = run(quercus_cmd, "show", "iris.json", "--format", "j48", cwd=shared)
    assert result.returncode == 2
    assert "C4.5" in result.stderr and "'cart'" in result.stderr
    result = run(quercus_cmd, "show", "weather_c45.json", "--format", "id3", cwd=shared)
    assert "ID3" in result.stderr and "'c45'" in result.stderr
    result = run(quercus_cmd, "train", "iris.csv", "--target", "species", "--algorithm", "id3",
                 "--out", "m.json", cwd=shared)
    assert "ID3 needs categorical features" in result.stderr
    assert "c45" in ok(run(quercus_cmd, "train", "--help", cwd=shared))


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
    "id3 on a numeric column": ["train", "iris.csv", "--target", "species", "--algorithm",
                                "id3", "--out", "m.json"],
    "id3 with missing values": ["train", "gaps.csv", "--target", "PlayTennis", "--algorithm",
                                "id3", "--out", "m.json"],
    "id3 eval on a numeric column": ["eval", "weather.arff", "--target", "play",
                                     "--algorithm", "id3", "--cv", "2"],
    "criterion of another algorithm": ["train", "weather.arff", "--target", "play",
                                       "--algorithm", "c45", "--criterion", "gini",
                                       "--out", "m.json"],
    "gain ratio for cart": ["train", "iris.csv", "--target", "species", "--criterion",
                            "gain_ratio", "--out", "m.json"],
    "unknown criterion": ["train", "iris.csv", "--target", "species", "--criterion",
                          "purity", "--out", "m.json"],
    "unknown algorithm": ["train", "iris.csv", "--target", "species", "--algorithm", "c50",
                          "--out", "m.json"],
    "confidence too large": ["train", "weather.arff", "--target", "play", "--algorithm",
                             "c45", "--confidence", "1.5", "--out", "m.json"],
    "confidence zero": ["eval", "weather.arff", "--target", "play", "--algorithm", "c45",
                        "--confidence", "0"],
    "confidence not a number": ["train", "weather.arff", "--target", "play", "--confidence",
                                "high", "--out", "m.json"],
    "no-pruning takes no value": ["train", "weather.arff", "--target", "play",
                                  "--no-pruning", "yes", "--out", "m.json"],
    "j48 format of a cart model": ["show", "iris.json", "--format", "j48"],
    "id3 format of a cart model": ["show", "tennis.json", "--format", "id3"],
    "id3 format of a c45 model": ["show", "weather_c45.json", "--format", "id3"],
    "unknown show format": ["show", "weather_c45.json", "--format", "gif"],
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

    monkeypatch.setattr(cli_commands, "cmd_demo", interrupted)
    assert cli.main(["demo"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_main_returns_2_on_library_errors(capsys, tmp_path):
    assert cli.main(["show", str(tmp_path / "nothing.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: ") and err.count("\n") == 1


def test_interval_tree_end_to_end(quercus_cmd, tmp_path):
    shutil.copy(BUNDLED / "flowers.csv", tmp_path / "flowers.csv")
    out = ok(run(quercus_cmd, "train", "flowers.csv", "--target", "flower", "--algorithm",
                 "interval", "--out", "flowers.xml", cwd=tmp_path))
    assert "interval, gini" in out and "Training accuracy: 1.0000" in out
    xml = ok(run(quercus_cmd, "show", "flowers.xml", "--format", "xml", cwd=tmp_path))
    assert xml.startswith('<?xml version="1.0" encoding="utf-8"?><Treesetting>')
    assert xml.strip() == (tmp_path / "flowers.xml").read_text()
    out = ok(run(quercus_cmd, "train", "flowers.csv", "--target", "flower", "--algorithm",
                 "interval", "--lookahead", "--out", "ahead.json", cwd=tmp_path))
    assert "Training accuracy: 1.0000" in out
    ok(run(quercus_cmd, "train", "flowers.csv", "--target", "flower", "--algorithm",
           "interval", "--out", "flowers.json", cwd=tmp_path))
    # blue but composite: the Alpine Gentian's pure branch rejects it
    (tmp_path / "odd.csv").write_text("flower_type,colour,thorns,fragrance\n"
                                      "composite,blue,no,none\ncalycinal,blue,no,none\n")
    predicted = ok(run(quercus_cmd, "predict", "flowers.json", "odd.csv", cwd=tmp_path))
    assert predicted.splitlines() == ["prediction", "unclassified", "Alpine Gentian"]
    refused = run(quercus_cmd, "show", "flowers.json", "--format", "j48", cwd=tmp_path)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1


def test_j48_binary_and_reduced_error_options(quercus_cmd, tmp_path):
    _copy_arff(tmp_path, "labor")
    for flags, fixture in [(["--binary-splits"], "labor.J48-B.txt"),
                           (["--reduced-error-pruning"], "labor.J48-R.txt")]:
        ok(run(quercus_cmd, "train", "labor.arff", "--target", "class", "--algorithm", "c45",
               *flags, "--out", "m.json", cwd=tmp_path))
        shown = ok(run(quercus_cmd, "show", "m.json", "--format", "j48", cwd=tmp_path))
        assert shown == (TEST_DATA / "j48" / fixture).read_text()


def test_hist_splitter_option(quercus_cmd, work):
    out = ok(run(quercus_cmd, "train", "iris.csv", "--target", "species", "--splitter", "hist",
                 "--max-bins", "16", "--out", "h.json", cwd=work))
    assert "Training accuracy" in out
    bad = run(quercus_cmd, "train", "iris.csv", "--target", "species", "--splitter", "hist",
              "--max-bins", "1", "--out", "h.json", cwd=work)
    assert bad.returncode == 2 and "max_bins" in bad.stderr
