"""``quercus --help`` starts as fast as ``import pandas`` alone, or faster (issue 39,
"Start-up"): the help, ``--version`` and argument errors import neither pandas nor numpy,
and neither does ``import quercus``.

Behavioural checks, not timings: which modules a fresh interpreter has imported afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from quercus import cli_commands, cli_output, learners, names
from quercus.cli_parser import build_parser
from quercus.export import codegen

HEAVY = ("pandas", "numpy")
COMMANDS = ["train", "predict", "show", "cp", "plot", "report", "rules", "export", "eval",
            "inspect", "demo"]

SCRIPT = r"""
import contextlib, io, json, sys

import quercus.cli

statuses = []
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            statuses.append(quercus.cli.main(argv))
        except SystemExit as stop:
            statuses.append(stop.code)
print(json.dumps({"statuses": statuses,
                  "heavy": [m for m in ("pandas", "numpy") if m in sys.modules]}))
"""


def _python(*args: str) -> str:
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_help_version_and_argument_errors_import_neither_pandas_nor_numpy():
    argvs = [["--help"], ["--version"], *([command, "--help"] for command in COMMANDS),
             [], ["bogus"], ["train"], ["eval", "d.csv", "--target", "y", "--cv", "x"],
             ["train", "d.csv", "--target", "y", "--out", "m.json", "--confidence", "2"],
             ["train", "d.csv", "--target", "y", "--out", "m.json", "--loss", "0,1"]]
    out = json.loads(_python("-c", SCRIPT, json.dumps(argvs)))
    assert out["statuses"] == [0, 0, *[0] * len(COMMANDS), 2, 2, 2, 2, 2, 2]
    assert out["heavy"] == []


def test_import_quercus_alone_imports_neither_pandas_nor_numpy():
    code = ("import sys, quercus; heavy = [m for m in ('pandas', 'numpy') if m in sys.modules]; "
            "names = sorted(quercus.__all__); "
            "assert set(names) <= set(dir(quercus)), set(names) - set(dir(quercus)); "
            "print(heavy)")
    assert _python("-c", code) == "[]"


def test_the_public_names_still_import():
    code = ("import quercus\n"
            "from quercus import *\n"
            "from quercus import DecisionTreeClassifier, read_csv, datasets, __version__\n"
            "assert all(getattr(quercus, name) is not None for name in quercus.__all__)\n"
            "assert DecisionTreeClassifier.__module__ == 'quercus.estimator'\n"
            "assert quercus.DecisionTreeRegressor is quercus.regressor.DecisionTreeRegressor\n"
            "print(sorted(set(quercus.__all__) - set(globals())))")
    assert _python("-c", code) == "[]"


def test_every_command_of_the_parser_has_its_handler():
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert list(commands) == COMMANDS
    assert all(callable(getattr(cli_commands, f"cmd_{name}")) for name in commands)
    assert sorted(cli_commands.__all__) == sorted(f"cmd_{name}" for name in commands)


def test_the_names_the_parser_shows_are_the_librarys():
    """names.py holds what the light parser needs; the modules that use them agree."""
    assert names.ALGORITHMS == (*learners.LEARNERS, "rpart")
    assert set(names.CRITERIA) == set(names.DEFAULT_CRITERION) == set(names.ALGORITHMS)
    assert tuple(cli_output.SHOW_FORMATS) == names.SHOW_FORMATS
    assert codegen.LANGUAGES == names.LANGUAGES
    assert learners.CRITERIA is names.CRITERIA
