"""PMML predicates of an rpart tree's splits, with rpart's missing-value routing expressed
natively: each child's predicate is a ``CompoundPredicate booleanOperator="surrogate"`` of
the primary test, the surrogate tests in rpart's order, and a final ``True``/``False``.

PMML's surrogate operator takes the first of its predicates that is not UNKNOWN (a test on
a missing value is UNKNOWN). rpart also skips a categorical test whose level had no rows at
the node ("absent"); PMML has no test that is UNKNOWN for a present value, so such a test
is written as ``(value in this side) or (value in the absent levels and <the rest of the
chain>)``, which gives the rest of the chain's answer for an absent level. The chain ends
with ``True`` for the child with more training rows (``use_surrogates=2``) and ``False``
otherwise, so no row reaches the end UNKNOWN; when every child's predicate is false (a
majority tie, or ``use_surrogates`` 0/1 with nothing to go on) the row stops at the node,
which is the TreeModel's ``noTrueChildStrategy="returnLastPrediction"``: rpart's
``predict``. The split nodes also name the majority child in ``defaultChild``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..rpart_routing import cut_of
from ..tree import NUMERIC

__all__ = ["rpart_predicates"]


def _number(x: float) -> str:
    x = float(x)
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


def _tests(tree, schema, node: int, text) -> list[tuple[str, object, list[str]]]:
    """(field, per-branch test, absent levels) for the primary and each surrogate; a test
    is ("<", cut, branch below) for numbers or the per-branch level lists."""
    routing = tree.rpart
    out = []
    spec = schema.features[int(tree.feature[node])]
    if tree.kind[node] == NUMERIC:
        out.append((spec.name, ("num", cut_of(tree.threshold[node]), 0), []))
    else:
        lo, hi = tree.category_ptr[node], tree.category_ptr[node + 1]
        branch, absent = tree.category_branch[lo:hi], routing.category_absent[lo:hi]
        out.append(_levels(spec, [-1 if absent[k] else int(branch[k]) for k in range(hi - lo)],
                           text))
    if routing.use_surrogates == 0:
        return out
    for s in routing.surrogates_of(node):
        spec = schema.features[int(routing.surrogate_feature[s])]
        if routing.surrogate_below[s] >= 0:
            out.append((spec.name, ("num", float(routing.surrogate_cut[s]),
                                    int(routing.surrogate_below[s])), []))
        else:
            out.append(_levels(spec, routing.category_sides(s).tolist(), text))
    return out


def _levels(spec, sides: list[int], text):
    values = [text(v) for v in spec.codebook.values]
    per_branch = [[values[k] for k, b in enumerate(sides) if b == branch] for branch in (0, 1)]
    absent = [values[k] for k, b in enumerate(sides) if b == -1]
    return spec.name, ("set", per_branch), absent


def _basic(field: str, test, branch: int, in_set) -> ET.Element:
    if test[0] == "num":
        _, cut, below = test
        op = "lessThan" if branch == below else "greaterOrEqual"
        return ET.Element("SimplePredicate", field=field, operator=op, value=_number(cut))
    return in_set(field, test[1][branch])


def _chain(tests, start: int, branch: int, tail: bool, in_set) -> ET.Element:
    if start == len(tests):  # nothing left but the end (PMML's compounds need two parts)
        return ET.Element("True" if tail else "False")
    element = ET.Element("CompoundPredicate", booleanOperator="surrogate")
    for i in range(start, len(tests)):
        field, test, absent = tests[i]
        predicate = _basic(field, test, branch, in_set)
        if absent:  # an absent level answers as the rest of the chain
            rest = ET.Element("CompoundPredicate", booleanOperator="and")
            rest.append(in_set(field, absent))
            rest.append(_chain(tests, i + 1, branch, tail, in_set))
            either = ET.Element("CompoundPredicate", booleanOperator="or")
            either.extend([predicate, rest])
            predicate = either
        element.append(predicate)
    element.append(ET.Element("True" if tail else "False"))
    return element


def rpart_predicates(tree, schema, node: int, text, in_set) -> list[ET.Element]:
    """The two children's predicates of an rpart split node, in branch order."""
    tests = _tests(tree, schema, node, text)
    majority = -1
    if tree.rpart.use_surrogates == 2:
        n = tree.n_node_samples[tree.children(node)]
        majority = 0 if n[0] > n[1] else (1 if n[1] > n[0] else -1)
    return [_chain(tests, 0, branch, branch == majority, in_set) for branch in (0, 1)]
