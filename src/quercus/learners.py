"""Algorithm presets: each turns encoded rows into a fitted flat tree.

``LEARNERS`` maps the estimator's ``algorithm`` parameter to a function
``fit(X, y, sample_weight, schema, n_classes, settings) -> Tree``. Later algorithms
(ID3, C4.5, class interval) register here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .growing.builders import StoppingRules, grow
from .pruning.cost_complexity import prune
from .splitting.cart import CartSplitter
from .tree import Tree


@dataclass
class Settings:
    """Resolved hyper-parameters, ready for a learner."""

    criterion: str
    rules: StoppingRules
    ccp_alpha: float


def fit_cart(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, schema, n_classes: int,
             settings: Settings) -> Tree:
    """CART: binary splits, numeric thresholds and categorical subsets, then ccp pruning."""
    splitter = CartSplitter(
        X, y, sample_weight, categorical_mask=schema.categorical_mask,
        n_categories=schema.n_categories, n_classes=n_classes, criterion=settings.criterion,
        min_samples_leaf=settings.rules.min_samples_leaf,
        min_weight_leaf=settings.rules.min_weight_leaf)
    tree = grow(splitter, settings.rules, n_classes)
    return prune(tree, settings.ccp_alpha)


LEARNERS = {"cart": fit_cart}
