"""Tree pictures (quercus.export.dot, ``quercus show --format dot|svg|png``): the DOT graph
is parsed back (by a small parser here and, when installed, by Graphviz itself) and every
node and edge is checked against the model's arrays, for every algorithm."""

from __future__ import annotations

import ast
import json
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from picture_cases import CASES, fitted

from quercus import DecisionTreeClassifier, cli, datasets
from quercus.export.dot import render_dot, tree_to_dot
from quercus.export.palette import class_colour
from quercus.tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC

DOT = shutil.which("dot")
needs_dot = pytest.mark.skipif(DOT is None, reason="Graphviz's `dot` is not on PATH "
                                                   "(apt-get install graphviz)")
_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_NODE = re.compile(rf"^  n(\d+) \[label={_QUOTED}, fillcolor=\"(#[0-9a-f]{{6}})\"(.*)\];$")
_EDGE = re.compile(rf"^  n(\d+) -> n(\d+) \[label={_QUOTED}\];$")
_TOKEN = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,{}()'"]+""")


# -- a small DOT reader for what tree_to_dot writes -----------------------------------------
def _unescape(text: str) -> str:
    text = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)
    return text.replace("&amp;", "&")  # tree_to_dot writes every & as &amp;


def parse_dot(source: str):
    """``({node: (label, fill, extra)}, [(tail, head, label)])`` from our DOT output."""
    lines = source.splitlines()
    assert lines[0] == "digraph quercus_tree {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if (m := _NODE.match(line)) is not None:
            nodes[int(m.group(1))] = (_unescape(m.group(2)), m.group(3), m.group(4))
        elif (m := _EDGE.match(line)) is not None:
            edges.append((int(m.group(1)), int(m.group(2)), _unescape(m.group(3))))
        else:
            assert line.startswith(("  graph ", "  node ", "  edge ")), line
    return nodes, edges


def parse_value(token: str):
    """A category or class as printed: a Python literal when quoted, else plain text."""
    return ast.literal_eval(token) if token[0] in "'\"" else token


def parse_categories(text: str, name: str) -> set:
    """The categories of ``name = v`` or ``name in {v, w}``."""
    if text.startswith(f"{name} = "):
        return {parse_value(text[len(name) + 3:])}
    assert text.startswith(f"{name} in {{") and text.endswith("}"), text
    return {parse_value(t) for t in _TOKEN.findall(text[len(name) + 5:-1])}


def close(text: str, number: float) -> bool:
    return float(text) == pytest.approx(number, rel=5.1e-6, abs=1e-12)


# -- checks of one node and one edge against the arrays ---------------------------------------
def check_node(model, node: int, label: str, fill: str, extra: str, proba) -> None:
    tree = model.tree_
    lines = label.split("\n")
    if tree.kind[node] != LEAF:
        check_test(model, node, lines.pop(0))
    assert lines.pop(0) == f"samples = {tree.n_node_samples[node]}"
    weight = tree.weighted_n_node_samples[node]
    if weight != tree.n_node_samples[node]:
        assert close(lines.pop(0).removeprefix("weight = "), round(weight, 2))
    values = lines.pop(0)
    assert values.startswith("value = [") and values.endswith("]")
    counts = [float(v) for v in values[9:-1].split(", ")]
    np.testing.assert_allclose(counts, tree.value[node], atol=0.0051)
    (klass,) = lines
    unclassified = (model.algorithm == "interval" and tree.kind[node] == LEAF
                    and tree.value[node].sum() == 0)
    best = int(np.argmax(proba[node]))
    if unclassified:
        assert klass == "class = unclassified"
        return
    empty = bool(tree.empty[node]) and tree.kind[node] == LEAF
    suffix = " (empty leaf: parent's class)" if empty else ""
    assert klass.startswith("class = ") and klass.endswith(suffix)
    assert parse_value(klass[8:len(klass) - len(suffix)]) == model.classes_[best]
    assert ("dashed" in extra) == empty
    check_fill(fill, class_colour(best), tree.value[node], model.n_classes_)


def check_fill(fill: str, base: str, value, n_classes: int) -> None:
    """The fill lies between white and the class colour; pure nodes are the darkest."""
    f = np.array([int(fill[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    b = np.array([int(base[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    widest = int(np.argmax(255 - b))
    strength = (255 - f[widest]) / (255 - b[widest])
    assert np.all(np.abs(255 - strength * (255 - b) - f) <= 1.0)  # 8-bit rounding
    assert 0.14 <= strength <= 0.86
    total = value.sum()
    if total > 0 and value.max() == total:
        assert strength > 0.84


def _known_against_missing(tree, node: int) -> bool:
    """A CART categorical split sending every category one way, missing values the other."""
    cmap = tree.category_map(node)
    return tree.children(node).size == 2 and np.all(cmap == 1 - tree.missing_branch[node])


def check_test(model, node: int, test: str) -> None:
    tree, spec = model.tree_, model.schema_.features[int(model.tree_.feature[node])]
    name, kind = spec.name, tree.kind[node]
    if kind == NUMERIC and np.isposinf(tree.threshold[node]):  # CART: missing vs known
        assert tree.missing_branch[node] == 1 and test == f"{name} is not missing"
    elif kind == CATEGORICAL and _known_against_missing(tree, node):
        route = tree.missing_branch[node]
        assert test == f"{name} is {'not missing' if route == 1 else 'missing'}"
    elif kind == NUMERIC:
        assert test.startswith(f"{name} <= ")
        assert close(test[len(name) + 4:], tree.threshold[node])
    elif kind == CATEGORICAL and tree.children(node).size > 2:
        assert test == name
    elif kind == CATEGORICAL and test == name:  # one category per branch
        assert all(np.sum(tree.category_map(node) == b) == 1 for b in (0, 1))
    elif kind == CATEGORICAL:
        left = np.flatnonzero(tree.category_map(node) == 0)
        assert parse_categories(test, name) <= {spec.codebook.values[code] for code in left}
    else:
        assert kind == INTERVAL
        test, _, owner = test.partition(" (range of ")
        assert parse_value(owner[:-1]) == model.classes_[tree.interval_class[node]]
        low, high = tree.threshold[node], tree.interval_high[node]
        if spec.is_categorical:
            inside = {v for code, v in enumerate(spec.codebook.values) if low <= code <= high}
            assert parse_categories(test, name) <= inside
        else:
            m = re.fullmatch(rf"(\S+) <= {re.escape(name)} <= (\S+)", test)
            assert m and close(m.group(1), low) and close(m.group(2), high)


def check_edge(model, parent: int, branch: int, label: str) -> None:
    tree = model.tree_
    spec = model.schema_.features[int(tree.feature[parent])]
    name, children = spec.name, tree.children(parent)
    condition, *notes = label.split("\n")
    kind, route = tree.kind[parent], int(tree.missing_branch[parent])
    if kind == NUMERIC and np.isposinf(tree.threshold[parent]):
        assert route == 1 and notes == []
        assert condition == f"{name} is {'not missing' if branch == 0 else 'missing'}"
        return
    if kind == CATEGORICAL and _known_against_missing(tree, parent):
        assert notes == []
        assert condition == f"{name} is {'missing' if branch == route else 'not missing'}"
        return
    if kind == NUMERIC:
        assert condition.startswith(f"{name} {'<=' if branch == 0 else '>'} ")
        assert close(condition.split(" ")[-1], tree.threshold[parent])
    elif kind == CATEGORICAL:
        for category in parse_categories(condition, name):
            code = spec.codebook.values.index(category)
            assert tree.category_map(parent)[code] == branch
    elif not spec.is_categorical:
        low, high = tree.threshold[parent], tree.interval_high[parent]
        if branch == 0:
            m = re.fullmatch(rf"(\S+) <= {re.escape(name)} <= (\S+)", condition)
        else:
            m = re.fullmatch(rf"{re.escape(name)} outside \[(\S+), (\S+)\]", condition)
        assert m and close(m.group(1), low) and close(m.group(2), high)
    if route == -1:  # C4.5: down every branch, by training weight
        (note,) = notes
        share = tree.weighted_n_node_samples[children[branch]] / tree.weighted_n_node_samples[
            parent]
        assert note.startswith("missing: ") and note.endswith("%")
        assert abs(float(note[9:-1]) - min(100 * share, 99.9 if share < 1 else 100)) <= 0.051
    else:
        assert notes == (["or missing"] if branch == route else [])


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    return fitted(request.param)


def test_dot_matches_the_tree_arrays(case):
    model = case[0]
    tree = model.tree_
    nodes, edges = parse_dot(tree_to_dot(model))
    assert sorted(nodes) == list(range(tree.n_nodes))
    expected = [(p, int(c)) for p in range(tree.n_nodes) for c in tree.children(p)]
    assert [(a, b) for a, b, _ in edges] == expected
    proba = tree.node_probabilities()
    for node, (label, fill, extra) in nodes.items():
        check_node(model, node, label, fill, extra, proba)
    branch = {(p, int(c)): b for p in range(tree.n_nodes)
              for b, c in enumerate(tree.children(p))}
    for parent, child, label in edges:
        check_edge(model, parent, branch[parent, child], label)


def test_the_cases_cover_every_kind_of_node_and_missing_route():
    kinds, routes = set(), set()
    for name in CASES:
        tree = fitted(name)[0].tree_
        kinds.update(tree.kind.tolist())
        inner = tree.kind != LEAF
        routes.update(np.sign(tree.missing_branch[inner]).tolist())
        if tree.kind[inner].size and np.any(tree.kind == CATEGORICAL):
            sizes = {tree.children(n).size for n in np.flatnonzero(tree.kind == CATEGORICAL)}
            kinds.update({"multiway"} if max(sizes) > 2 else {"subset"})
    assert kinds >= {LEAF, NUMERIC, CATEGORICAL, INTERVAL, "multiway", "subset"}
    assert routes == {-1, 0, 1}  # weighted (C4.5), left and right


@needs_dot
def test_graphviz_reads_the_same_graph(case):
    """Graphviz's own parser lays out exactly our nodes, lines of text and edges."""
    model = case[0]
    source = tree_to_dot(model)
    nodes, edges = parse_dot(source)
    result = subprocess.run([DOT, "-Tjson"], input=source.encode(), capture_output=True,
                            check=True, timeout=60)
    graph = json.loads(result.stdout)

    def texts(item):
        return [op["text"] for op in item.get("_ldraw_", []) if op["op"] == "T"]

    objects = graph["objects"]
    assert {o["name"]: texts(o) for o in objects} == {
        f"n{n}": label.split("\n") for n, (label, _, _) in nodes.items()}
    assert {o["name"]: o["fillcolor"] for o in objects} == {
        f"n{n}": fill for n, (_, fill, _) in nodes.items()}
    drawn = [(objects[e["tail"]]["name"], objects[e["head"]]["name"], texts(e))
             for e in graph.get("edges", [])]
    assert drawn == [(f"n{a}", f"n{b}", label.split("\n")) for a, b, label in edges]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@needs_dot
@pytest.mark.parametrize("name", ["cart-awkward-missing", "c45-labor", "interval-flowers"])
def test_show_writes_svg_and_png(name, tmp_path):
    model = fitted(name)[0]
    path = tmp_path / "model.json"
    model.save(path)
    assert cli.main(["show", str(path), "--format", "svg", "--out", str(tmp_path / "t.svg")]) == 0
    root = ET.parse(tmp_path / "t.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g")]
    assert sum(g.get("class") == "node" for g in groups) == model.tree_.n_nodes
    assert sum(g.get("class") == "edge" for g in groups) == model.tree_.n_nodes - 1
    assert cli.main(["show", str(path), "--format", "png", "--out", str(tmp_path / "t.png")]) == 0
    width, height = png_size((tmp_path / "t.png").read_bytes())
    assert width > 100 and height > 100


def test_show_dot_prints_the_graph(tmp_path, capsys):
    model = fitted("id3-play-tennis")[0]
    model.save(tmp_path / "m.json")
    assert cli.main(["show", str(tmp_path / "m.json"), "--format", "dot"]) == 0
    nodes, edges = parse_dot(capsys.readouterr().out)
    assert len(nodes) == model.tree_.n_nodes and len(edges) == model.tree_.n_nodes - 1


def test_png_needs_out_and_dot_missing_is_one_line(tmp_path, capsys, monkeypatch):
    model = fitted("cart-iris")[0]
    model.save(tmp_path / "m.json")
    assert cli.main(["show", str(tmp_path / "m.json"), "--format", "png"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` here
    out = tmp_path / "t.svg"
    assert cli.main(["show", str(tmp_path / "m.json"), "--format", "svg", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: ") and err.count("\n") == 1
    assert "install Graphviz" in err and not out.exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "m.json"]  # no temporary file left


def test_render_refuses_other_formats():
    with pytest.raises(ValueError, match="unknown picture format"):
        render_dot("digraph {}", "gif")


def test_a_tree_that_is_one_leaf():
    data = datasets.load("yinyang")
    model = DecisionTreeClassifier(min_samples_split=1000).fit(data.X, data.y)
    nodes, edges = parse_dot(tree_to_dot(model))
    assert edges == [] and list(nodes) == [0]
    check_node(model, 0, *nodes[0], model.tree_.node_probabilities())
