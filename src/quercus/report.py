"""A self-contained HTML report of a fitted tree: the interactive tree, its rules, the
feature importances and, given labelled data, the accuracy and confusion matrix (for a
regression tree: RMSE, MAE, R² and a predicted-vs-actual plot, see report_regression).

The page has inline CSS and JavaScript only, and a Content-Security-Policy that forbids
loading anything, so it opens offline from a file. Every name, category and label is
HTML-escaped; the script only ever sets ``textContent``.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape

import numpy as np
import pandas as pd

from . import report_regression
from ._report_assets import CSS, SCRIPT
from .data.frames import to_python
from .evaluation import accuracy, confusion_matrix
from .export.conditions import (
    format_number,
    format_significant,
    format_value,
    format_weight,
    is_regressor,
    node_summaries,
    premise_text,
    regression_labels,
    walk,
)
from .export.cp_plot import cp_plot_svg, has_cv_errors
from .export.dot import branch_labels, node_lines, regression_fills
from .export.palette import UNCLASSIFIED_COLOUR, class_colour
from .export.rpart_text import surrogate_texts
from .export.rules import tree_to_rules
from .learners import DEFAULT_CRITERION
from .tree import LEAF

__all__ = ["OPEN_DEPTH", "report_html", "write_report"]

OPEN_DEPTH = 2  # nodes shallower than this start expanded


def _e(value) -> str:
    return escape(str(value), quote=True)


def _text(value) -> str:
    return value if isinstance(value, str) else format_value(value)


# -- the tree ------------------------------------------------------------------------------
class _TreeWriter:
    """Writes the tree as nested lists; one ``li.node`` per node, in pre-order."""

    def __init__(self, model):
        self.model = model
        self.tree = model.tree_
        self.summaries = node_summaries(model)
        branches = list(walk(self.tree, model.schema_))
        # the edges say where missing values go (branch_labels), not the conditions
        self.conditions = {b.node: replace(b.condition, or_missing=False) for b in branches}
        self.paths = {b.node: b.path for b in branches}
        self.regression = is_regressor(model)
        self.best = None if self.regression else self.tree.node_classes()
        self.fills = regression_fills(self.tree) if self.regression else None
        self.edge = {}  # node -> the label of the branch into it (condition + missing route)
        for node in np.flatnonzero(self.tree.kind != LEAF):
            labels = branch_labels(model, int(node), self.conditions)
            for child, label in zip(self.tree.children(node), labels):
                self.edge[int(child)] = label

    def html(self) -> str:
        out: list[str] = ['<ul class="tree" id="tree-root">']
        stack: list[tuple[int, int] | str] = [(0, 0)]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            node, depth = item
            out.append(self._node_open(node, depth))
            children = self.tree.children(node)
            if children.size:
                stack.append("</ul></li>")
                stack.extend((int(c), depth + 1) for c in reversed(children))
            else:
                stack.append("</li>")
        out.append("</ul>")
        return "\n".join(out)

    def _node_open(self, node: int, depth: int) -> str:
        tree, summary = self.tree, self.summaries[node]
        leaf = tree.kind[node] == LEAF
        lines = node_lines(self.model, node, self.conditions, self.summaries)
        test = "" if leaf else lines[0]
        if self.regression:
            colour, predicted = self.fills[node], format_significant(summary.label)
        else:
            colour = (UNCLASSIFIED_COLOUR if summary.unclassified
                      else class_colour(self.best[node]))
            predicted = "unclassified" if summary.unclassified else _text(summary.label)
        attrs = {
            "data-node": node, "data-depth": depth,
            "data-branch": self.edge.get(node, "(root)").replace("\n", "; "),
            "data-path": premise_text(self.paths.get(node, ())),
            "data-test": test or "(leaf)",
            "data-samples": int(tree.n_node_samples[node]),
            "data-weight": format_weight(tree.weighted_n_node_samples[node]),
            "data-distribution": self._distribution(node),
            "data-class": predicted + (" (empty leaf: parent's class)" if summary.empty else ""),
            "data-impurity": format_number(tree.impurity[node]),
        }
        if tree.rpart is not None and not leaf:  # rpart: its surrogate splits, in order
            attrs["data-surrogates"] = "; ".join(surrogate_texts(self.model, node)) or "none"
        data = " ".join(f'{k}="{_e(v)}"' for k, v in attrs.items())
        title = "\n".join(lines)
        state = "" if leaf else (" open" if depth < OPEN_DEPTH else " collapsed")
        toggle = ('<span class="spacer"></span>' if leaf else
                  f'<button type="button" class="toggle" aria-expanded='
                  f'"{"true" if depth < OPEN_DEPTH else "false"}" aria-label="expand or '
                  f'collapse">{"&minus;" if depth < OPEN_DEPTH else "+"}</button>')
        main = (f'<span class="leaf-class">&rarr; {_e(predicted)}</span>' if leaf
                else f'<span class="test">{_e(test)}</span>')
        row = (f'<div class="row" id="node-{node}" tabindex="0" style="border-left-color:'
               f'{colour}" title="{_e(title)}" {data}>{toggle}'
               f'<span class="cond">{_e(self.edge.get(node, "root").split(chr(10))[0])}</span>'
               f'{main}<span class="samples">{int(tree.n_node_samples[node])} rows</span>'
               f"{self._bar(node)}</div>")
        opening = f'<li class="node{" leaf" if leaf else ""}{state}">{row}'
        return opening if leaf else opening + '<ul class="children">'

    def _distribution(self, node: int) -> str:
        if self.regression:
            summary = self.summaries[node]
            value_name = regression_labels(self.model)[0]
            return (f"{value_name} {format_number(summary.label)}, "
                    f"{summary.spread_name} {format_number(summary.sd)}")
        value = self.tree.value[node]
        return "; ".join(f"{_text(label)}: {format_weight(v)}"
                         for label, v in zip(self.model.classes_, value))

    def _bar(self, node: int) -> str:
        if self.regression:  # the mean's place between the lowest and highest node means
            means = self.tree.value[:, 0]
            span = float(means.max() - means.min())
            width = 100.0 * (means[node] - means.min()) / span if span > 0 else 50.0
            return (f'<span class="bar"><span style="width:{width:.2f}%;background:'
                    f'{self.fills[node]}"></span></span>')
        value = self.tree.value[node]
        total = float(value.sum())
        if total <= 0:
            return '<span class="bar empty"></span>'
        parts = "".join(f'<span style="width:{100.0 * v / total:.2f}%;background:'
                        f'{class_colour(k)}"></span>' for k, v in enumerate(value) if v > 0)
        return f'<span class="bar">{parts}</span>'


# -- the other sections --------------------------------------------------------------------
def _summary(model, title: str) -> str:
    if is_regressor(model):
        cells = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>"
                        for k, v in report_regression.summary_items(model))
        return f'<h1>{_e(title)}</h1>\n<dl class="summary">{cells}</dl>'
    tree = model.tree_
    learner = model.best_estimator_ if model.algorithm == "auto" else model  # auto's choice
    criterion = learner.criterion or DEFAULT_CRITERION[learner.algorithm]
    items = [("algorithm", learner.algorithm), ("criterion", criterion),
             ("depth", tree.max_depth), ("leaves", tree.n_leaves), ("nodes", tree.n_nodes),
             ("features", model.n_features_in_),
             ("classes", ", ".join(_text(c) for c in model.classes_)),
             ("training rows", int(tree.n_node_samples[0]))]
    if hasattr(model, "chosen_cp_"):  # CART pruned by cross-validation
        rule = {"min": "least CV error", "1se": "1-SE rule"}.get(model.prune, model.prune)
        items.append(("pruned at cp", f"{model.chosen_cp_:.4g} ({rule})"))
    cells = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in items)
    return f'<h1>{_e(title)}</h1>\n<dl class="summary">{cells}</dl>'


def _legend(model) -> str:
    if is_regressor(model):
        return '<ul class="legend"><li>darker: a higher mean target</li></ul>'
    items = "".join(f'<li><span class="swatch" style="background:{class_colour(k)}"></span>'
                    f"{_e(_text(label))}</li>" for k, label in enumerate(model.classes_))
    return f'<ul class="legend">{items}</ul>'


def _rules(model) -> str:
    rules = tree_to_rules(model)
    items = "\n".join(f"<li><code>{_e(rule)}</code></li>" for rule in rules)
    return (f'<section id="rules"><h2>Rules ({len(rules)})</h2>'
            f'<ol class="rules">\n{items}\n</ol></section>')


def _importance_note(model) -> str:
    if hasattr(model, "variable_importance_"):
        return ("rpart&rsquo;s variable importance (improvement as primary split plus adjusted "
                "agreement &times; improvement as surrogate), normalised to sum to 1.")
    return "Total weighted impurity decrease brought by each feature, normalised to sum to 1."


def _importances(model) -> str:
    values = np.asarray(model.feature_importances_, dtype=float)
    names = model.schema_.feature_names
    order = [j for j in np.argsort(-values, kind="stable") if values[j] > 0]
    rows = "\n".join(
        f'<tr><td>{_e(names[j])}</td><td class="num">{values[j]:.4f}</td>'
        f'<td><span class="hbar" style="width:{100.0 * values[j] / values.max():.1f}%">'
        f"</span></td></tr>" for j in order)
    unused = [names[j] for j in range(len(names)) if values[j] <= 0]
    note = (f'<p class="note">Not used by the tree: {_e(", ".join(map(str, unused)))}</p>'
            if unused else "")
    return ('<section id="importances"><h2>Feature importances</h2>'
            f'<p class="note">{_importance_note(model)}</p>'
            f'<table class="importances"><thead><tr><th>feature</th><th>importance</th><th>'
            f"</th></tr></thead><tbody>\n{rows}\n</tbody></table>{note}</section>")


def _cp_section(model) -> str:
    table = getattr(model, "cp_table_", None)
    if not has_cv_errors(table):
        return ""
    return ('<section id="cp-plot"><h2>Pruning: the cp table</h2>'
            '<p class="note">Cross-validated error relative to the root (xerror, with bars of '
            "&plusmn; xstd) of each subtree of the cp table, as R&rsquo;s plotcp draws it; the "
            "dotted line is the least xerror plus its xstd (the 1-SE rule picks the smallest "
            "tree below it).</p>\n" + cp_plot_svg(table) + "</section>")


def _evaluation(model, X, y, data_name: str) -> str:
    labels = pd.Series(np.asarray(y, dtype=object)).reset_index(drop=True)
    known = ~(labels.isna() | labels.isin(["", "?"])).to_numpy()
    if not known.any():
        return ('<section id="evaluation"><h2>Evaluation</h2><p>The data has no known class '
                "labels.</p></section>")
    rows = X.iloc[np.flatnonzero(known)] if hasattr(X, "iloc") else \
        [X[i] for i in np.flatnonzero(known)]
    truth = labels[known].tolist()
    predicted = model.predict(rows)
    lost = np.zeros(len(truth), dtype=bool)
    if model.algorithm == "interval":
        lost = model.predict_proba(rows).sum(axis=1) == 0.0
    classes = [to_python(c) for c in model.classes_]
    confusion = confusion_matrix(truth, predicted, classes)
    score = accuracy(truth, [None if gone else p for p, gone in zip(predicted, lost)])
    header = "".join(f"<th>{_e(_text(c))}</th>" for c in classes)
    extra = lost.any()
    if extra:
        header += "<th>unclassified</th>"
    body = []
    for i, label in enumerate(classes):
        cells = "".join(f'<td class="{"hit" if i == j else "num"}">{int(v)}</td>'
                        for j, v in enumerate(confusion[i]))
        if extra:
            gone = sum(1 for t, g in zip(truth, lost) if g and to_python(t) == label)
            cells += f'<td class="num">{gone}</td>'
        body.append(f"<tr><th>{_e(_text(label))}</th>{cells}</tr>")
    correct = round(score * len(truth))
    return ('<section id="evaluation"><h2>Evaluation</h2>'
            f'<p>On <code>{_e(data_name)}</code>: accuracy <strong id="accuracy">{score:.4f}'
            f"</strong> ({correct} of {len(truth)} rows with a known class).</p>"
            '<table class="confusion" id="confusion"><thead><tr><th>true \\ predicted</th>'
            f'{header}</tr></thead><tbody>{"".join(body)}</tbody></table></section>')


# -- the page ------------------------------------------------------------------------------
def report_html(model, X=None, y=None, *, title: str = "Quercus decision tree",
                data_name: str = "the data") -> str:
    """The report page of a fitted model, as one HTML document.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model (any algorithm).
    X, y : optional
        Rows and their class labels: the page then shows the accuracy and the confusion
        matrix on them (a class-interval tree's unclassified rows count as errors and get a
        column of their own). For a regression tree, rows and their targets: RMSE, MAE, R²
        and a predicted-vs-actual plot; without them the page says it shows the tree and
        the node details only.
    title : str
        Heading of the page.
    data_name : str
        How the page names X (e.g. its file name).

    Returns
    -------
    str
        A complete HTML document with inline CSS and JavaScript and nothing to download.
    """
    model._check_fitted()
    regression = is_regressor(model)
    if X is None or y is None:
        evaluation = ""
    elif regression:
        evaluation = report_regression.evaluation(model, X, y, data_name)
    else:
        evaluation = _evaluation(model, X, y, data_name)
    if regression and not evaluation:
        evaluation = ('<section id="evaluation"><h2>Evaluation</h2><p class="note">'
                      f"{report_regression.NO_DATA_NOTE}</p></section>")
    cp_section = _cp_section(model)
    script, note = SCRIPT, "its training rows and its class distribution."
    if regression:
        script = SCRIPT.replace('"Class distribution"', '"Mean and sd of the targets"'
                                ).replace('"Predicted class"', '"Predicted value (mean)"'
                                          ).replace('"Impurity"', '"Impurity (variance)"')
        note = "its training rows and where its mean lies between the lowest and highest."
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title>
<style>
{CSS}</style>
</head>
<body>
<header>{_summary(model, title)}</header>
<nav><a href="#tree">Tree</a> <a href="#rules">Rules</a> <a href="#importances">Feature
importances</a>{' <a href="#cp-plot">cp plot</a>' if cp_section else ''}\
{' <a href="#evaluation">Evaluation</a>' if evaluation else ''}</nav>
<section id="tree"><h2>Tree</h2>
<p class="note">Click + / &minus; to expand or collapse a node; click a node (or hover over
it) for its details. Each row shows the branch taken, the node's test or predicted class,
{note}</p>
<div class="toolbar"><button type="button" id="expand-all">Expand all</button>
<button type="button" id="collapse-all">Collapse all</button>{_legend(model)}</div>
<div class="layout">
<div class="tree-pane">
{_TreeWriter(model).html()}
</div>
<aside id="details" aria-live="polite"><p class="note">Click a node to see its details.</p>
</aside>
</div>
</section>
{_rules(model)}
{_importances(model)}
{cp_section}{evaluation}
<footer>Written by Quercus.</footer>
<script>
{script}</script>
</body>
</html>
"""


def write_report(path, model, X=None, y=None, **options) -> None:
    """Write ``report_html(model, X, y, **options)`` to ``path``, atomically."""
    from .export.atomic import write_atomically

    page = report_html(model, X, y, **options)
    write_atomically(path, lambda handle: handle.write(page))
