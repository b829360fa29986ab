"""The package's modules import one another without a circle (issue: estimator ->
export/model_file -> export/interval_xml -> estimator), whichever is imported first.

A circle of imports can work or fail depending on which module a program imports first,
and imports inside functions hide it until the function runs. So: every module is imported
alone in a fresh interpreter, and the import graph read from the source (imports at the top
and inside functions alike) has no circle. Package ``__init__`` files are left out of the
graph: they gather names for users and every submodule needs its package's anyway.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "quercus"


def _module_names() -> dict[str, bool]:
    """Dotted name of every module of the package -> whether it is a package."""
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        names[".".join(parts[:-1] if is_package else parts)] = is_package
    return names


def _imports(name: str, is_package: bool, names: dict[str, bool]) -> set[str]:
    """The modules of the package that module ``name`` imports, anywhere in its source."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    path = path / "__init__.py" if is_package else path.with_suffix(".py")
    here = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in names:
                continue
            submodules = {f"{source}.{a.name}" for a in node.names} & set(names)
            found.update(submodules or {source})
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports, package ``__init__`` files left out."""
    names = _module_names()
    return {name: {m for m in _imports(name, is_package, names) if not names[m]}
            for name, is_package in names.items() if not is_package}


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph as [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (circle := visit(target)):
                return circle
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (circle := visit(start)):
            return circle
    return None


def test_the_import_graph_has_no_circle():
    graph = import_graph()
    assert graph["quercus.estimator"] >= {"quercus.export.model_writer"}  # the graph sees
    assert "quercus.estimator" in graph["quercus.export.model_file"]  # lazy and top imports
    circle = find_circle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle)


def test_the_circle_finder_finds_the_old_circle():
    """The circle this test was written for, as the graph had it, is found."""
    old = {"quercus.estimator": {"quercus.export.model_file"},
           "quercus.export.model_file": {"quercus.export.interval_xml"},
           "quercus.export.interval_xml": {"quercus.estimator", "quercus.tree"}}
    assert find_circle(old) == ["quercus.estimator", "quercus.export.model_file",
                                "quercus.export.interval_xml", "quercus.estimator"]


MODULES = ["quercus.export.model_file", "quercus.export.model_writer",
           "quercus.export.interval_xml", "quercus.export.model_checks",
           "quercus.export.atomic", "quercus.estimator", "quercus.export", "quercus.cli",
           "quercus.cli_parser", "quercus.cli_commands", "quercus.names"]


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_alone_in_a_fresh_interpreter(module):
    code = (f"import {module}, sys; "
            "import quercus; quercus.load_model; quercus.DecisionTreeClassifier.save; "
            "print(sorted(m for m in sys.modules if m.startswith('quercus.export.model')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, f"import {module} alone failed:\n{result.stderr}"
    assert "quercus.export.model_file" in result.stdout


def _public_submodules(package: Path) -> list[str]:
    return sorted(p.stem if p.is_file() else p.name for p in package.iterdir()
                  if not p.name.startswith("_")
                  and ((p.is_file() and p.suffix == ".py") or (p / "__init__.py").is_file()))


def test_public_submodules_are_attributes_after_a_plain_import():
    """``import quercus`` then ``quercus.evaluation.cross_validate(...)`` works as the README
    writes it, for every public submodule of quercus, quercus.data and quercus.export, and
    the optional dependencies are imported only when their module is used."""
    expected = {"quercus": _public_submodules(PACKAGE),
                "quercus.data": _public_submodules(PACKAGE / "data"),
                "quercus.export": _public_submodules(PACKAGE / "export")}
    assert {"evaluation", "plotting", "report"} <= set(expected["quercus"])
    code = f"""
import sys, types
import quercus
optional = [m for m in ("matplotlib", "onnx", "onnxruntime") if m in sys.modules]
assert not optional, optional
assert "quercus.evaluation" not in sys.modules
X, y, _ = quercus.datasets.load("play_tennis")
result = quercus.evaluation.cross_validate(quercus.DecisionTreeClassifier(), X, y, n_folds=2)
assert len(result.accuracies) == 2
for package, names in {expected!r}.items():
    parent = sys.modules[package]
    for name in names:
        module = getattr(parent, name)
        assert isinstance(module, types.ModuleType), (package, name)
        assert module is sys.modules[package + "." + name], (package, name)
        assert name in dir(parent), (package, name)
try:
    quercus.no_such_module
except AttributeError as error:
    assert "no_such_module" in str(error)
else:
    raise AssertionError("an unknown attribute did not raise AttributeError")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
