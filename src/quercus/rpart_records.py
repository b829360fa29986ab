"""What an rpart fit is, as records: the contract between the rpart learner
(``growing/rpart.py``) and everything that reads its result (the flat tree with surrogates,
``quercus show --format rpart``, ``quercus cp``, the report's cp plot).

The shapes follow rpart's own ``fit$frame`` and ``fit$splits`` (see docs/rpart.md and
tests/data/rpart), with 0-based feature and class indices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: ``SplitRecord.sides`` values: the level goes to the left child, the right child, or had
#: no rows at the node (rpart's ``csplit`` codes 1, 3 and 2).
LEFT, RIGHT, ABSENT = -1, 1, 0

#: The columns of ``RpartFit.frame``, each a list with one entry per node in pre-order.
FRAME_COLUMNS = ("node", "feature", "n", "wt", "dev", "yval", "complexity", "ncompete",
                 "nsurrogate", "class_counts", "class_probs", "node_prob")


@dataclass
class SplitRecord:
    """One row of rpart's split table: a node's primary split, a competitor or a surrogate.

    ``node`` is rpart's node number (root 1, children 2k and 2k + 1). A numeric split has
    ``cut`` and ``left`` ("<": rows with x < cut go to the left child; ">=": rows with
    x >= cut go left). A categorical split has ``sides``: one entry per declared level of the
    feature, ``LEFT``, ``RIGHT`` or ``ABSENT``. ``improve`` is the split's improvement for
    primaries and competitors and the agreement for surrogates; ``adj`` is set for
    surrogates only. ``count`` is rpart's count (rows with the feature present for
    primaries/competitors, rows the surrogate routed during growth).
    """

    node: int
    role: str  # "primary", "competitor" or "surrogate"
    feature: int
    count: int
    improve: float
    adj: float | None = None
    cut: float | None = None
    left: str | None = None  # "<" or ">=" (numeric only)
    sides: np.ndarray | None = None  # int8 per level (categorical only)

    @property
    def is_categorical(self) -> bool:
        return self.sides is not None

    def goes_left(self, x: float) -> bool | None:
        """Whether a present value x goes left (None: a level absent at the node)."""
        if self.sides is not None:
            side = int(self.sides[int(x)]) if 0 <= int(x) < len(self.sides) else ABSENT
            return None if side == ABSENT else side == LEFT
        below = x < self.cut
        return below if self.left == "<" else not below


@dataclass
class RpartFit:
    """A fitted rpart tree as records.

    ``frame`` maps each name of ``FRAME_COLUMNS`` to a list over nodes in pre-order:
    ``node`` (rpart's number), ``feature`` (primary split's feature, -1 at a leaf), ``n``
    (rows), ``wt`` (weight), ``dev`` (risk), ``yval`` (0-based class of least risk),
    ``complexity`` (scaled by the root risk, as ``fit$frame``), ``ncompete``,
    ``nsurrogate``, ``class_counts`` and ``class_probs`` (lists of K), ``node_prob``.
    ``splits`` lists, node by node in frame order, the primary, its competitors, then its
    surrogates. ``importance`` has one unscaled value per feature (0 where unused).
    ``where`` is the rpart node number each input row reached during growth (-1 for rows
    na.rpart dropped: missing target or every feature missing). ``cp_table`` is the
    DataFrame of ``pruning.cp_table.make_cp_table``.
    """

    frame: dict
    splits: list[SplitRecord]
    importance: np.ndarray
    where: np.ndarray
    cp_table: object
    root_risk: float
    n_classes: int
    priors: np.ndarray
    loss: np.ndarray  # K x K, rows = true class, columns = predicted
    control: object = None
    dropped: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    method: str = "class"  # or "anova": a regression tree (yval = node mean, dev = SS)

    @property
    def n_nodes(self) -> int:
        return len(self.frame["node"])

    def node_splits(self, node: int) -> list[SplitRecord]:
        """The split records of one node (primary first), in table order."""
        return [s for s in self.splits if s.node == node]
