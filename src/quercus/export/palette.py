"""Class colours shared by the tree pictures, decision surfaces and the HTML report."""

from __future__ import annotations

__all__ = ["CLASS_COLOURS", "UNCLASSIFIED_COLOUR", "class_colour", "purity", "tint"]

# Ten well-separated hues; class k gets CLASS_COLOURS[k % 10].
CLASS_COLOURS = (
    "#4e79a7",  # blue
    "#f28e2b",  # orange
    "#59a14f",  # green
    "#e15759",  # red
    "#b07aa1",  # purple
    "#76b7b2",  # teal
    "#edc948",  # yellow
    "#ff9da7",  # pink
    "#9c755f",  # brown
    "#bab0ac",  # grey
)
UNCLASSIFIED_COLOUR = "#d9d9d9"  # class-interval leaves that no class claims


def class_colour(index: int) -> str:
    """The ``#rrggbb`` colour of class number ``index`` (0-based, cycling after ten)."""
    return CLASS_COLOURS[int(index) % len(CLASS_COLOURS)]


def purity(share: float, n_classes: int) -> float:
    """How far a node's majority share is from a uniform mix: 0 at ``1/k``, 1 when pure."""
    if n_classes <= 1:
        return 1.0
    uniform = 1.0 / n_classes
    return min(1.0, max(0.0, (float(share) - uniform) / (1.0 - uniform)))


def tint(colour: str, strength: float) -> str:
    """``colour`` blended with white: ``strength`` 1 keeps it, 0 gives white.

    Examples
    --------
    >>> tint("#4e79a7", 1.0), tint("#4e79a7", 0.0), tint("#000000", 0.5)
    ('#4e79a7', '#ffffff', '#808080')
    """
    strength = min(1.0, max(0.0, float(strength)))
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - strength * (255 - c)) for c in channels]
    return "#" + "".join(f"{c:02x}" for c in mixed)
