"""An rpart model printed as R prints it: ``print.rpart`` (``quercus show --format rpart``)
and ``printcp`` (``quercus cp``), for classification and regression ("anova") trees.

Both read the fitted model only (the flat tree with its ``rpart`` arrays, ``cp_table_``), so
they work on a model loaded from a file as on a fresh fit. Layouts and number formats follow
R 4.2.2 / rpart 4.1.19's printouts stored in tests/data/rpart (docs/rpart.md, "Printing like
R"); printcp's call line shows the Quercus estimator instead of R's ``rpart(...)`` call.
"""

from __future__ import annotations

import numpy as np

from ..rpart_routing import cut_of, rpart_node_numbers
from ..tree import LEAF, NUMERIC
from .r_format import format_column, format_signif, print_strings

__all__ = ["print_cp", "print_rpart", "split_labels", "surrogate_texts"]

DIGITS = 7  # R's getOption("digits")
MANY_CLASSES = 5  # from this many classes each probability is printed with 2 digits


def _rpart_tree(model):
    tree = model._check_fitted()
    if tree.rpart is None:
        raise ValueError(f"this is a {model.algorithm} model, not an rpart tree; "
                         "--format rpart prints rpart trees only")
    return tree


def _n_line(model, n: int) -> str:
    dropped = int(getattr(model, "rpart_n_dropped_", 0))
    if not dropped:
        return f"n= {n} "
    noun = "observation" if dropped == 1 else "observations"
    return f"n={n} ({dropped} {noun} deleted due to missingness)"


def split_labels(model, node: int) -> list[str]:
    """rpart's labels of a split node's two branches, in branch order (``Start< 8.5``,
    ``Start>=8.5``; ``colour=red,blue`` with the levels present at the node)."""
    tree = model.tree_
    spec = model.schema_.features[int(tree.feature[node])]
    if tree.kind[node] == NUMERIC:
        cut = format_signif(cut_of(tree.threshold[node]), DIGITS)
        return [f"{spec.name}< {cut}", f"{spec.name}>={cut}"]
    lo, hi = tree.category_ptr[node], tree.category_ptr[node + 1]
    branch, absent = tree.category_branch[lo:hi], tree.rpart.category_absent[lo:hi]
    values = spec.codebook.values
    return [f"{spec.name}=" + ",".join(str(values[code]) for code in range(hi - lo)
                                       if branch[code] == b and not absent[code])
            for b in (0, 1)]


def surrogate_texts(model, node: int) -> list[str]:
    """A split node's surrogates in rpart's order, each as the test that sends a row like
    the primary's left child: ``Number< 6.5 goes as Start>=8.5``."""
    tree = model.tree_
    if tree.rpart is None or tree.kind[node] == LEAF:
        return []
    routing, labels = tree.rpart, split_labels(model, node)
    left = int(routing.left_branch[node])
    out = []
    for s in routing.surrogates_of(node):
        spec = model.schema_.features[int(routing.surrogate_feature[s])]
        below = int(routing.surrogate_below[s])
        if below >= 0:
            cut = format_signif(routing.surrogate_cut[s], DIGITS)
            test = f"{spec.name}< {cut}" if below == left else f"{spec.name}>={cut}"
        else:
            sides = routing.category_sides(s)
            test = f"{spec.name}=" + ",".join(str(v) for v, b in zip(spec.codebook.values,
                                                                      sides) if b == left)
        out.append(f"{test} goes as {labels[left]}")
    return out


def _rpart_order(tree) -> list[tuple[int, int, str | None]]:
    """(flat node, depth, branch label index) in rpart's pre-order (left child first)."""
    out, stack = [], [(0, 0, -1, -1)]
    while stack:
        node, depth, parent, branch = stack.pop()
        out.append((node, depth, parent, branch))
        if tree.kind[node] != LEAF:
            children = tree.children(node)
            left = int(tree.rpart.left_branch[node])
            stack.append((int(children[1 - left]), depth + 1, node, 1 - left))
            stack.append((int(children[left]), depth + 1, node, left))
    return out


def _probabilities(proba: np.ndarray) -> list[str]:
    if proba.shape[1] >= MANY_CLASSES:
        return [" ".join(format_signif(p, 2) for p in row) for row in proba]
    flat = format_column(proba.ravel(), DIGITS)
    k = proba.shape[1]
    return [" ".join(flat[i * k:(i + 1) * k]) for i in range(proba.shape[0])]


def print_rpart(model) -> str:
    """The tree as R's ``print(fit)`` prints it (no trailing newline)."""
    tree = _rpart_tree(model)
    numbers = rpart_node_numbers(tree)
    width = len(str(int(numbers.max())))
    # signif(dev, 7) first, then R's common format
    losses = _signif_column(tree.rpart.node_risk)
    if _is_regression(model):  # method "anova": deviance and mean
        header = "node), split, n, deviance, yval"
        yvals = _signif_column(tree.value[:, 0])
    else:
        header = "node), split, n, loss, yval, (yprob)"
        probs = _probabilities(tree.node_probabilities())
        classes = tree.node_classes()
        yvals = [f"{model.classes_[classes[i]]} ({probs[i]})" for i in range(tree.n_nodes)]
    lines = [_n_line(model, int(tree.n_node_samples[0])), "", header,
             "      * denotes terminal node", ""]
    for node, depth, parent, branch in _rpart_order(tree):
        label = "root" if parent < 0 else split_labels(model, parent)[branch]
        leaf = tree.kind[node] == LEAF
        lines.append(f"{' ' * (2 * depth)}{str(int(numbers[node])).rjust(width)}) {label} "
                     f"{int(tree.n_node_samples[node])} {losses[node]} {yvals[node]}"
                     + (" *" if leaf else "  "))
    return "\n".join(lines)


def _signif_column(values) -> list[str]:
    """signif(values, 7) first, then R's common format (print.rpart's number columns)."""
    return format_column([float(f"{v:.{DIGITS}g}") for v in values], DIGITS)


def _is_regression(model) -> bool:
    return getattr(model, "_estimator_type", None) == "regressor"


def call_line(model) -> str:
    """The estimator and its non-default parameters, as R's printcp shows the call; a long
    array (``xval``'s fold ids) is summarised by its length."""
    defaults = type(model)().get_params()
    parts = []
    for name, value in model.get_params().items():
        if isinstance(value, np.ndarray) or (isinstance(value, (list, tuple)) and len(value) > 8):
            parts.append(f"{name}=<{len(value)} values>")
        elif not isinstance(defaults.get(name), np.ndarray) and value != defaults.get(name):
            parts.append(f"{name}={value!r}")
    return f"{type(model).__name__}({', '.join(parts)})"


def print_cp(model, call: str | None = None) -> str:
    """The cp table as R's ``printcp(fit)`` prints it, led by ``call`` (default: the
    estimator and its non-default parameters, ``call_line``) instead of R's ``rpart(...)`` call (no trailing newline).

    Any model with a ``cp_table_`` prints; the root node error is rpart's root risk, or for
    another learner its ``root_risk_`` if set, else the root's misclassified weight."""
    table = getattr(model, "cp_table_", None)
    tree = model._check_fitted()
    if table is None:
        raise ValueError(f"this {model.algorithm} model has no cp table (fit rpart, or CART "
                         "with prune=, to get one)")
    used = sorted({model.schema_.feature_names[int(f)] for f in tree.feature[tree.kind != LEAF]})
    n = int(tree.n_node_samples[0])
    if tree.rpart is not None:
        root = float(tree.rpart.node_risk[0])
    else:  # another learner's cp table (CART's prune=): its root_risk_, or 0/1 loss
        root = float(getattr(model, "root_risk_", tree.value[0].sum() - tree.value[0].max()))
    error = (f"Root node error: {format_column([root])[0].strip()}/{n} = "
             f"{format_column([root / n])[0].strip()}")
    title = "Regression tree:" if _is_regression(model) else "Classification tree:"
    lines = ["", title, call or call_line(model), "",
             "Variables actually used in tree construction:", *print_strings(used), "",
             error, "", _n_line(model, n), ""]
    lines.extend(_cp_matrix(table))
    return "\n".join(lines)


def _cp_matrix(table) -> list[str]:
    """The table as R prints a numeric matrix: columns formatted one by one."""
    columns = [("CP", format_column(table["CP"], DIGITS)),
               ("nsplit", [str(int(v)) for v in table["nsplit"]]),
               ("rel error", format_column(table["rel_error"], DIGITS))]
    if not np.isnan(np.asarray(table["xerror"], dtype=float)).all():
        columns += [("xerror", format_column(table["xerror"], DIGITS)),
                    ("xstd", format_column(table["xstd"], DIGITS))]
    names = [str(i + 1) for i in range(len(table))]
    name_width = max(len(s) for s in names)
    widths = [max(len(header), *(len(v) for v in values)) for header, values in columns]
    lines = [" " * name_width + "".join(" " + h.rjust(w) for (h, _), w in zip(columns, widths))]
    for i, name in enumerate(names):
        lines.append(name.ljust(name_width)
                     + "".join(" " + values[i].rjust(w) for (_, values), w in zip(columns, widths)))
    return lines
