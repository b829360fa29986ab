"""C4.5rules-style rule sets: the tree's rules generalised, selected, ordered, with a default.

The steps follow chapter 5 of Quinlan's *C4.5: Programs for Machine Learning* (1993), on
the training rows (counted, not weighted):

1. One rule per leaf (``tree_to_rules``), its conditions split into single tests
   (:func:`~quercus.export.rule_match.atomic_conditions`).
2. **Generalise** each rule: while some condition can go, drop the one whose removal gives
   the lowest pessimistic error rate ``U_CF(E, N)`` of the rule (the upper confidence limit
   of the binomial error rate, ``(E + added_errors(N, E, CF)) / N`` as C4.5's pruning
   computes it, ``N`` rows covered, ``E`` of them of another class), provided that rate is
   no higher than the rule's current one. A rule covering no row has rate 1.
3. Remove duplicate rules (same conditions, same class).
4. **Select** rules per class. Deviation from the book: instead of its MDL criterion,
   greedily drop the rule whose removal changes the class group's training errors (rows of
   other classes it covers plus rows of the class it misses) the least, as long as they do
   not increase.
5. **Order** the class groups by their false positives, fewest first (ties: class order);
   within a group, by accuracy then coverage.
6. **Default class**: the majority class of the training rows covered by no rule (ties to
   the class most frequent overall); the overall majority if every row is covered.
7. As C4.5rules does last, drop any rule whose removal strictly reduces the training errors
   of the whole ordered list (largest reduction first, default recomputed each time).

A row is classified by the first rule it matches, else by the default class, so a rule
set classifies every row, also where a class-interval tree leaves a row unclassified.
Matching a missing value: see :mod:`quercus.export.rule_match`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, ModelFileError
from ..pruning.pessimistic import added_errors
from .conditions import (
    Condition,
    format_percent,
    format_value,
    premise_text,
    refuse_regressor,
)
from .json_text import dumps_indented
from .rule_match import (
    atomic_conditions,
    condition_from_json,
    condition_mask,
    condition_to_json,
    conditions_mask,
)
from .rules import simplify, tree_to_rules

__all__ = ["RuleSet", "SetRule", "pessimistic_rate", "simplify_rules"]

FORMAT = "quercus-rules"
FORMAT_VERSION = 1
_TIE = 1e-12  # rates closer than this count as equal


def pessimistic_rate(n: float, errors: float, confidence: float) -> float:
    """C4.5's pessimistic error rate ``U_CF(errors, n)``; 1.0 when ``n`` is 0."""
    if n <= 0:
        return 1.0
    return (errors + added_errors(float(n), float(errors), confidence)) / n


@dataclass(frozen=True)
class SetRule:
    """One rule of a :class:`RuleSet`.

    Attributes
    ----------
    conditions : tuple of Condition
        Single tests, all of which must hold (empty: TRUE).
    target : str
        Name of the class column.
    label : object
        The class the rule predicts.
    coverage : int
        Training rows for which every condition holds.
    correct : int
        Of those, rows of class ``label``.
    leaf : int
        The tree leaf the rule came from (-1 if unknown).
    dropped : tuple of Condition
        Conditions of the leaf's rule that generalisation removed, in the order removed.
    """

    conditions: tuple[Condition, ...]
    target: str
    label: object
    coverage: int
    correct: int
    leaf: int = -1
    dropped: tuple[Condition, ...] = ()

    @property
    def accuracy(self) -> float:
        """``correct / coverage`` (0.0 for a rule covering no training row)."""
        return self.correct / self.coverage if self.coverage else 0.0

    def __str__(self) -> str:
        premise = premise_text(simplify(self.conditions))
        return (f"IF {premise} THEN {self.target} = {format_value(self.label)}  "
                f"(coverage {self.coverage}, accuracy {format_percent(self.accuracy)})")

    def to_dict(self) -> dict:
        return {"conditions": [condition_to_json(c) for c in self.conditions],
                "class": _plain(self.label), "coverage": int(self.coverage),
                "correct": int(self.correct), "accuracy": self.accuracy,
                "leaf": int(self.leaf), "dropped": [condition_to_json(c) for c in self.dropped]}


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class RuleSet:
    """An ordered list of rules and a default class; a row takes the first rule it matches.

    Attributes
    ----------
    rules : tuple of SetRule
    default : object
        The class of a row that matches no rule.
    schema : quercus.data.Schema
        The model's schema (feature kinds and categories, the classes).
    confidence : float
        The confidence factor used to generalise the rules.
    n_rows : int
        Training rows (with a known class) the rule set was built from.
    """

    rules: tuple[SetRule, ...]
    default: object
    schema: object
    confidence: float = 0.25
    n_rows: int = 0

    @property
    def target(self) -> str:
        return self.schema.target or "class"

    @property
    def n_conditions(self) -> int:
        """Total number of single tests in the rules."""
        return sum(len(rule.conditions) for rule in self.rules)

    def apply(self, X) -> np.ndarray:
        """Index of the first rule each row matches, -1 for the default class."""
        encoded = self.schema.encode(X)
        fired = np.full(encoded.shape[0], -1, dtype=np.int64)
        for index in reversed(range(len(self.rules))):
            fired[conditions_mask(self.rules[index].conditions, encoded, self.schema)] = index
        return fired

    def predict(self, X) -> np.ndarray:
        """The class of each row: its first matching rule's, else the default."""
        fired = self.apply(X)
        classes = self.schema.decode_labels(np.arange(len(self.schema.classes)))
        codes = np.array([self.schema.classes.index(r.label) for r in self.rules]
                         + [self.schema.classes.index(self.default)], dtype=np.int64)
        return classes[codes[fired]]  # fired -1 picks the default, last in ``codes``

    def score(self, X, y) -> float:
        """Accuracy of ``predict(X)`` on the rows of y with a known class."""
        codes = self.schema.encode_labels(y)
        known = codes >= 0
        classes = self.schema.decode_labels(np.arange(len(self.schema.classes)))
        predicted = self.predict(X)[known]
        return float(np.mean(predicted == classes[codes[known]])) if known.any() else 0.0

    def __str__(self) -> str:
        lines = [f"{i}: {rule}" for i, rule in enumerate(self.rules, start=1)]
        lines.append(f"Default: {self.target} = {format_value(self.default)}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A JSON-ready document; :meth:`from_dict` reads it back."""
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": "rule set",
                "target": self.target,
                "classes": [_plain(c) for c in self.schema.classes.values],
                "confidence": self.confidence, "training_rows": int(self.n_rows),
                "default_class": _plain(self.default),
                "rules": [rule.to_dict() for rule in self.rules],
                "schema": self.schema.to_json()}

    def to_json(self) -> str:
        return dumps_indented(self.to_dict()) + "\n"

    @classmethod
    def from_dict(cls, document: dict) -> RuleSet:
        """A rule set from :meth:`to_dict`'s document; ModelFileError if malformed."""
        from ..data.schema import Schema

        if not isinstance(document, dict) or document.get("format") != FORMAT \
                or document.get("kind") != "rule set":
            raise ModelFileError("not a Quercus rule set document (format 'quercus-rules', "
                                 "kind 'rule set')")
        try:
            schema = Schema.from_json(document["schema"])
            target = schema.target or "class"
            rules = tuple(SetRule(tuple(condition_from_json(c) for c in r["conditions"]),
                                  target, r["class"], int(r["coverage"]), int(r["correct"]),
                                  int(r.get("leaf", -1)),
                                  tuple(condition_from_json(c) for c in r.get("dropped", [])))
                          for r in document["rules"])
            rule_set = cls(rules, document["default_class"], schema,
                           float(document["confidence"]), int(document["training_rows"]))
            for label in [r.label for r in rules] + [rule_set.default]:
                schema.classes.index(label)
            for rule in rules:
                for condition in rule.conditions:
                    condition_mask(condition, np.empty((0, schema.n_features)), schema)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ModelFileError(f"malformed rule set: {error}") from None
        return rule_set

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as error:
            raise ModelFileError(f"a rule set must be JSON: {error}") from None


# -- the algorithm -------------------------------------------------------------------------
def generalise(masks: np.ndarray, positive: np.ndarray,
               confidence: float) -> tuple[list[int], list[int]]:
    """Greedy condition dropping (step 2): the kept and the dropped condition indices.

    ``masks`` (conditions x rows) says where each condition holds, ``positive`` which rows
    are of the rule's class.
    """
    kept, dropped = list(range(masks.shape[0])), []
    n_rows = positive.shape[0]

    def rate(cover: np.ndarray) -> float:
        n = int(np.count_nonzero(cover))
        return pessimistic_rate(n, n - int(np.count_nonzero(cover & positive)), confidence)

    while kept:
        held = masks[kept]
        before = np.vstack([np.ones((1, n_rows), bool), np.logical_and.accumulate(held)])
        after = np.vstack([np.logical_and.accumulate(held[::-1])[::-1],
                           np.ones((1, n_rows), bool)])
        current = rate(before[-1])
        rates = [rate(before[j] & after[j + 1]) for j in range(len(kept))]
        best = int(np.argmin(rates))
        if rates[best] > current + _TIE:
            break
        dropped.append(kept.pop(best))
    return kept, dropped


def select_for_class(cover: np.ndarray, is_class: np.ndarray) -> list[int]:
    """Step 4: indices (into ``cover``'s rows, one class's rules) of the rules kept."""
    chosen = list(np.argsort(cover.sum(axis=1), kind="stable"))  # smallest coverage first
    while chosen:
        held = cover[chosen]
        alone = held & (held.sum(axis=0) == 1)  # rows that only this rule covers
        change = (alone & is_class).sum(axis=1) - (alone & ~is_class).sum(axis=1)
        best = int(np.argmin(change))  # errors added by dropping the rule
        if change[best] > 0:
            break
        chosen.pop(best)
    return sorted(int(i) for i in chosen)


def default_class(cover: np.ndarray, y: np.ndarray, n_classes: int) -> int:
    """Step 6: majority class of the uncovered rows, ties to the overall majority."""
    overall = np.bincount(y, minlength=n_classes)
    uncovered = ~cover.any(axis=0) if cover.shape[0] else np.ones(y.shape[0], bool)
    if not uncovered.any():
        return int(np.argmax(overall))
    counts = np.bincount(y[uncovered], minlength=n_classes)
    tied = np.flatnonzero(counts == counts.max())
    return int(tied[np.argmax(overall[tied])])


def ordered_errors(cover: np.ndarray, classes: np.ndarray, y: np.ndarray,
                   n_classes: int) -> tuple[int, int]:
    """Training errors of an ordered rule list (``cover``: rules x rows) and its default."""
    default = default_class(cover, y, n_classes)
    predicted = np.full(y.shape[0], default)
    if cover.shape[0]:
        first = np.argmax(cover, axis=0)
        hit = cover.any(axis=0)
        predicted[hit] = classes[first[hit]]
    return int(np.count_nonzero(predicted != y)), default


def prune_ordered(order: list[int], cover: np.ndarray, classes: np.ndarray, y: np.ndarray,
                  n_classes: int) -> list[int]:
    """Step 7: drop rules while that strictly reduces the errors of the ordered list."""
    order = list(order)
    errors, _ = ordered_errors(cover[order], classes[order], y, n_classes)
    while order:
        trials = [ordered_errors(cover[order[:i] + order[i + 1:]],
                                 classes[order[:i] + order[i + 1:]], y, n_classes)[0]
                  for i in range(len(order))]
        best = int(np.argmin(trials))
        if trials[best] >= errors:
            break
        errors = trials[best]
        order.pop(best)
    return order


def _stack(masks: list[np.ndarray], n_rows: int) -> np.ndarray:
    """Boolean masks as the rows of a (len(masks), n_rows) matrix."""
    out = np.zeros((len(masks), n_rows), dtype=bool)
    for i, mask in enumerate(masks):
        out[i] = mask
    return out


def _training_rows(model, X, y) -> tuple[np.ndarray, np.ndarray]:
    """Encoded rows and class codes of the training rows with a known class."""
    X_encoded = model.schema_.encode(X)
    y_codes = model.schema_.encode_labels(y)
    if X_encoded.shape[0] != y_codes.shape[0]:
        raise DataError(f"X has {X_encoded.shape[0]} rows but y has {y_codes.shape[0]}")
    known = y_codes >= 0
    if not known.any():
        raise DataError("no training rows with a known class label")
    return X_encoded[known], y_codes[known].astype(np.int64)


def simplify_rules(model, X, y, confidence: float | None = None) -> RuleSet:
    """A C4.5rules-style rule set from a fitted model and its training data.

    Parameters
    ----------
    model : DecisionTreeClassifier
        A fitted model (any algorithm).
    X, y : table and labels
        The training data (the model file does not store it); rows with a missing class
        are left out.
    confidence : float, optional
        Confidence factor of the pessimistic error rate, in (0, 1); default: the model's
        ``confidence`` (0.25 unless set).

    Returns
    -------
    RuleSet
        See the module docstring for the steps.
    """
    refuse_regressor(model, "rule-set simplification",
                     "it drops conditions by the pessimistic error rate of a rule's class, which "
                     "a numeric target does not have (quercus rules lists the tree's rules)")
    tree = model._check_fitted()
    confidence = float(model.confidence if confidence is None else confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    schema = model.schema_
    X_encoded, y_codes = _training_rows(model, X, y)
    leaf_class = tree.node_classes()
    candidates, seen = [], set()
    for rule in tree_to_rules(model):
        atoms = atomic_conditions(rule.conditions)
        masks = _stack([condition_mask(c, X_encoded, schema) for c in atoms],
                       X_encoded.shape[0])
        label = int(leaf_class[rule.leaf])
        kept, dropped = generalise(masks, y_codes == label, confidence)
        key = (frozenset(atoms[i] for i in kept), label)
        if key not in seen:
            seen.add(key)
            candidates.append((tuple(atoms[i] for i in kept),
                               tuple(atoms[i] for i in dropped), label, rule.leaf))
    return _assemble(model, candidates, X_encoded, y_codes, confidence)


def _assemble(model, candidates, X_encoded, y_codes, confidence) -> RuleSet:
    """Steps 4-7 on the generalised, deduplicated rules."""
    schema, n_classes = model.schema_, model.n_classes_
    cover = _stack([conditions_mask(c[0], X_encoded, schema) for c in candidates],
                   X_encoded.shape[0])
    classes = np.array([c[2] for c in candidates], dtype=np.int64)
    correct = (cover & (y_codes[None, :] == classes[:, None])).sum(axis=1)
    coverage = cover.sum(axis=1)
    groups = []
    for label in range(n_classes):
        members = np.flatnonzero(classes == label)
        if members.size == 0:
            continue
        kept = members[select_for_class(cover[members], y_codes == label)]
        if kept.size == 0:
            continue
        false_positives = int(np.count_nonzero(cover[kept].any(axis=0) & (y_codes != label)))
        accuracy = np.divide(correct[kept], coverage[kept], out=np.zeros(kept.size),
                             where=coverage[kept] > 0)
        inner = np.lexsort((kept, -coverage[kept], -accuracy))  # last key sorts first
        groups.append((false_positives, label, kept[inner].tolist()))
    order = [i for _, _, members in sorted(groups) for i in members]
    order = prune_ordered(order, cover, classes, y_codes, n_classes)
    _, default = ordered_errors(cover[order], classes[order], y_codes, n_classes)
    labels = model.classes_
    target = schema.target or "class"
    rules = tuple(SetRule(candidates[i][0], target, _plain(labels[classes[i]]),
                          int(coverage[i]), int(correct[i]), int(candidates[i][3]),
                          candidates[i][1]) for i in order)
    return RuleSet(rules, _plain(labels[default]), schema, confidence, int(y_codes.shape[0]))
