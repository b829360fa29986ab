"""The class-interval tree of seed 001: at each branch one class's [min, max] range on one
feature; rows inside go left (branch 0), rows outside go right (branch 1).

A candidate (class c, feature f) takes the interval spanned by class c's rows on f. Its
score (the seed's "Gini factor") is ``1 - (n_c/n)^2 - sum_k (out_k/n)^2`` over the other
classes k, where ``out_k`` counts class k's rows outside the interval (the entropy variant
uses ``-p log2 p`` of the same shares). A candidate that leaves no other row outside
separates nothing and is useless, unless every row is of class c (score 0: a pure branch).
The lowest score wins; ties go to the first candidate in the seed's loop order (classes
outer, features inner). The seed's listings divide integers (always 0 in C#) and, in the
look-ahead version, carry a candidate's subtree scores over to the next candidate; Quercus
divides as real numbers and resets the scores, as the text means (docs/interval.md).
``lookahead="listing"`` searches as the listing computes instead: integer shares, the
entropy variant's reused share, and the carried scores.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..progress import SettledRows
from ..tree import INTERVAL, TreeRecorder

USELESS = 100.0  # the seed's initial "purity": worse than any real score


@dataclass
class IntervalNode:
    """A branch of the seed's tree (or a plain majority leaf at the depth limit)."""

    rows: np.ndarray
    counts: np.ndarray  # class weights of the rows
    score: float = USELESS  # the candidate's own Gini factor (the seed's "purity")
    total: float = USELESS  # score plus the sample-weighted totals of its subtrees
    cls: int = -1  # the class whose interval is tested (-1: plain leaf)
    feature: int = -1
    low: float = np.nan
    high: float = np.nan
    children: list = field(default_factory=list)  # [inside, outside] or []

    @property
    def is_pure(self) -> bool:
        return self.cls >= 0 and self.score == 0.0


def candidate_scores(X, y, weights, rows, n_classes, criterion, listing=False):
    """Scores of every (class, feature) candidate at a node, with their intervals.

    Returns (scores, lows, highs), each (n_classes, n_features); USELESS where the class is
    absent or the interval leaves no other row outside. ``listing``: the scores the seed's
    ``CalcGini`` computes (``_listing_scores``).
    """
    values = X[rows]
    labels = y[rows]
    w = weights[rows]
    n = w.sum()
    n_features = X.shape[1]
    scores = np.full((n_classes, n_features), USELESS)
    lows = np.full((n_classes, n_features), np.nan)
    highs = np.full((n_classes, n_features), np.nan)
    for c in range(n_classes):
        mine = labels == c
        if not mine.any():
            continue
        n_c = w[mine].sum()
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # a feature missing in every row of the class has no range (NaN), by design
            warnings.simplefilter("ignore", RuntimeWarning)
            low = np.nanmin(values[mine], axis=0)
            high = np.nanmax(values[mine], axis=0)
        # rows of other classes whose value lies outside [low, high] (missing: outside)
        outside = ~((values >= low) & (values <= high)) & ~mine[:, None]
        out_weights = np.zeros((n_classes, n_features))
        np.add.at(out_weights, labels, outside * w[:, None])
        useful = outside.any(axis=0) | (n_c == n)
        shares = np.vstack([np.full((1, n_features), n_c / n), out_weights / n])
        shares[1 + c] = 0.0
        if criterion == "gini":
            score = 1.0 - (shares**2).sum(axis=0)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(shares > 0, -shares * np.log2(shares), 0.0)
            score = terms.sum(axis=0)
        if listing:
            score = _listing_scores(criterion, score, n_c == n, shares, outside, labels, c)
        valid = useful & ~np.isnan(low)
        scores[c] = np.where(valid, score, USELESS)
        lows[c], highs[c] = low, high
    return scores, lows, highs


def _listing_scores(criterion, score, pure, shares, outside, labels, c):
    """The listing's ``CalcGini`` for one class c, per feature.

    Gini: ``iClassCount / values.Count`` divides integers, so every share is 0 unless it
    is the whole node: 0 for a pure node, else 1. Entropy: the loop over the other-class
    slots (one per class of the data but c, filled in the order the classes first appear
    outside, in row order) reuses the previous share ``p`` for an empty slot, so every
    empty slot subtracts ``p log2 p`` of the class that appeared last once more.
    """
    if criterion == "gini":
        return np.where(pure, 0.0, 1.0) + np.zeros_like(score)
    others = [k for k in range(shares.shape[0] - 1) if k != c]
    if not others:
        return score
    n_rows = outside.shape[0]
    first = np.full((len(others), outside.shape[1]), -1)  # first outside row, per class
    for i, k in enumerate(others):
        hit = outside & (labels == k)[:, None]
        first[i] = np.where(hit.any(axis=0), np.argmax(hit, axis=0), n_rows)
    filled = first < n_rows
    last = np.argmax(np.where(filled, first, -1), axis=0)  # class slot filled last
    p = shares[1 + np.asarray(others)][last, np.arange(outside.shape[1])]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(p > 0, -p * np.log2(p), 0.0)
    empty_slots = len(others) - filled.sum(axis=0)
    return score + np.where(filled.any(axis=0), empty_slots * term, 0.0)


def _inside(X, rows, feature, low, high) -> np.ndarray:
    v = X[rows, feature]
    return (v >= low) & (v <= high)


class IntervalGrower:
    """Greedy (the seed's first BuildBranch) or look-ahead (its "more complex approach")."""

    def __init__(self, X, y, weights, n_classes, criterion="gini", max_depth=None,
                 lookahead=False, progress=None):
        """``lookahead``: False (greedy), True (look-ahead on the text's scores) or
        "listing" (look-ahead as the seed's listing computes it: its ``CalcGini`` scores,
        and subtree scores carried from one candidate to the next). ``progress``, if given,
        is called with a share of the work done, never decreasing, ending with 1.0: greedy,
        the share of the rows that have reached their leaf; look-ahead, the share of the
        root's candidates searched."""
        self.X, self.y, self.weights = X, y, weights
        self.progress = progress
        self.n_classes, self.criterion = n_classes, criterion
        self.max_depth = max_depth
        self.lookahead = bool(lookahead)
        self.listing = isinstance(lookahead, str) and lookahead == "listing"
        self._memo: dict = {}
        self._score_memo: dict = {}  # look-ahead: candidate scores by rows (any depth)

    def _node(self, rows) -> IntervalNode:
        counts = np.bincount(self.y[rows], weights=self.weights[rows],
                             minlength=self.n_classes).astype(float)
        return IntervalNode(rows, counts)

    def grow(self) -> IntervalNode:
        rows = np.arange(self.X.shape[0])
        root = self._best(rows, 0) if self.lookahead else self._greedy(rows)
        if self.progress is not None:
            self.progress(1.0)
        return root

    def _take(self, node, scores, lows, highs, flat_index) -> None:
        c, f = np.unravel_index(flat_index, scores.shape)
        node.cls, node.feature = int(c), int(f)
        node.low, node.high = float(lows[c, f]), float(highs[c, f])
        node.score = float(scores[c, f])

    def _split(self, node):
        inside = _inside(self.X, node.rows, node.feature, node.low, node.high)
        return node.rows[inside], node.rows[~inside]

    def _greedy(self, rows) -> IntervalNode:
        root = self._node(rows)
        report = SettledRows(rows.size, self.progress)
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            if self.max_depth is not None and depth >= self.max_depth:
                report.settle(node.rows.size)
                continue  # a plain leaf: its majority class
            scores, lows, highs = candidate_scores(self.X, self.y, self.weights, node.rows,
                                                   self.n_classes, self.criterion)
            best = int(np.argmin(scores))  # first minimum in (class, feature) order
            if scores.flat[best] >= USELESS:
                report.settle(node.rows.size)
                continue  # nothing separates these rows (conflicting duplicates)
            self._take(node, scores, lows, highs, best)
            node.total = node.score
            if node.score == 0.0:
                report.settle(node.rows.size)
                continue  # pure: the seed ends the branch here
            inside, outside = self._split(node)
            node.children = [self._node(inside), self._node(outside)]
            stack.extend((child, depth + 1) for child in reversed(node.children))
        _totals(root)
        return root

    def _best(self, rows, depth) -> IntervalNode:
        """The candidate with the lowest total score: its own score plus the sample-weighted
        totals of the best subtrees below it; candidates whose own score is already no
        better than the best total found so far are skipped (the seed's bound)."""
        key = (rows.tobytes(), depth)
        if key in self._memo:
            return self._memo[key]
        node = self._node(rows)
        if self.max_depth is not None and depth >= self.max_depth:
            # a plain leaf; the seed scores a branch beyond MAXRECURSIONS as USELESSLEAVE
            node.total = 0.0 if np.count_nonzero(node.counts) == 1 else USELESS
            self._memo[key] = node
            return node
        scores, lows, highs = self._scores(rows, key[0])
        if self.listing:
            best = self._best_as_listed(node, scores, lows, highs, depth)
            self._memo[key] = best
            return best
        n = node.counts.sum()
        best_total, best = USELESS, None
        for flat in range(scores.size):  # the seed's loop order: classes, then features
            score = scores.flat[flat]
            if score >= USELESS or not score < best_total:
                continue
            candidate = self._node(rows)
            self._take(candidate, scores, lows, highs, flat)
            if score == 0.0:
                candidate.total = 0.0
                best_total, best = 0.0, candidate
                break  # nothing beats a pure branch
            inside, outside = self._split(candidate)
            children = [self._best(inside, depth + 1), self._best(outside, depth + 1)]
            total = score + sum(ch.total * ch.counts.sum() for ch in children) / n
            if total < best_total:
                candidate.children, candidate.total = children, total
                best_total, best = total, candidate
            if depth == 0 and self.progress is not None:
                self.progress((flat + 1) / scores.size)
        if best is None:
            node.total = USELESS
            best = node
        self._memo[key] = best
        return best


    def _scores(self, rows, rows_key: bytes):
        """``candidate_scores`` of these rows, computed once whatever the depth."""
        if rows_key not in self._score_memo:
            self._score_memo[rows_key] = candidate_scores(
                self.X, self.y, self.weights, rows, self.n_classes, self.criterion,
                self.listing)
        return self._score_memo[rows_key]

    def _best_as_listed(self, node, scores, lows, highs, depth) -> IntervalNode:
        """The listing's candidate loop: a candidate is explored when its own score is
        above 0 and below the best total so far; every candidate's total is its own score
        plus ``(localGiniL + localGiniR) / n``, which keep the last explored candidate's
        weighted subtree totals (a candidate not explored inherits them); the loop ends
        once the best total is 0."""
        n = node.counts.sum()
        best_total, best = USELESS, None
        carried = 0.0  # the listing's (localGiniL + localGiniR) / values.Count
        for flat in range(scores.size):  # classes, then features
            score = float(scores.flat[flat])
            children = []
            if 0.0 < score < best_total:
                c, f = np.unravel_index(flat, scores.shape)
                inside = _inside(self.X, node.rows, f, lows[c, f], highs[c, f])
                children = [self._best(node.rows[inside], depth + 1),
                            self._best(node.rows[~inside], depth + 1)]
                carried = sum(ch.total * ch.counts.sum() for ch in children) / n
            if score + carried < best_total and score < USELESS:
                best_total = score + carried
                best = self._node(node.rows)
                self._take(best, scores, lows, highs, flat)
                best.children, best.total = children, best_total
            if depth == 0 and self.progress is not None:
                self.progress((flat + 1) / scores.size)
            if best_total == 0.0:
                break
        if best is None:
            node.total = USELESS
            best = node
        return best


def _totals(root: IntervalNode) -> None:
    """Fill ``total`` bottom up for a greedy tree (the look-ahead objective, for comparison)."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        if node.cls < 0:
            node.total = USELESS
        elif node.children:
            n = node.counts.sum()
            node.total = node.score + sum(ch.total * ch.counts.sum() for ch in node.children) / n
        else:
            node.total = node.score


def interval_to_flat_tree(root: IntervalNode, n_classes: int):
    """Lay out the branches as a flat Tree (pre-order).

    A split branch becomes an INTERVAL node (inside -> child 0, outside -> child 1, a
    missing value counts as outside); a pure branch becomes an INTERVAL node whose inside
    child is a leaf of its class and whose outside child is an empty-handed leaf (all-zero
    class weights: unclassifiable). ``impurity`` holds each branch's own score (the seed's
    "Gini" attribute).
    """
    recorder = TreeRecorder(n_classes)
    stack = [(root, -1, 0)]
    while stack:
        node, parent, branch = stack.pop()
        new = recorder.add(value=node.counts, impurity=node.score if node.cls >= 0 else 0.0,
                           n_samples=node.rows.size, weight=node.counts.sum())
        if parent >= 0:
            recorder.nodes[parent]["children"][branch] = new
        if node.cls < 0:
            continue
        recorder.make_split(new, kind=INTERVAL, feature=node.feature, children=[-1, -1],
                            missing_branch=1, threshold=node.low, interval_high=node.high,
                            interval_class=node.cls)
        if node.children:
            stack.extend([(node.children[1], new, 1), (node.children[0], new, 0)])
            continue
        inside = recorder.add(value=node.counts, impurity=0.0, n_samples=node.rows.size,
                              weight=node.counts.sum())
        outside = recorder.add(value=np.zeros(n_classes), impurity=0.0, n_samples=0,
                               weight=0.0)
        recorder.nodes[new]["children"] = [inside, outside]
    return recorder.to_tree()
