"""Numbers as R prints them: ``format()`` of a numeric vector (common decimals and width,
fixed or scientific as R chooses) and ``%g``-style significant digits.

Written from R's documented behaviour of ``format``/``print`` (``?format``, ``?print.default``:
"enough significant digits to show every element to ``digits`` significant digits") and
checked against the printouts stored in tests/data/rpart.
"""

from __future__ import annotations

import math

__all__ = ["format_column", "format_signif", "print_strings"]


def _sig_and_power(x: float, digits: int) -> tuple[int, int]:
    """Significant digits x needs (at most ``digits``) and its decimal exponent."""
    if x == 0 or not math.isfinite(x):
        return 1, 0
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    return len(mantissa.replace(".", "").rstrip("0")) or 1, int(exponent)


def format_column(values, digits: int = 7) -> list[str]:
    """R's ``format(values, digits=digits)``: every element with the same number of
    decimals (enough for the element needing most, to ``digits`` significant digits),
    right-justified to a common width; scientific when that is narrower."""
    values = [float(v) for v in values]
    if not values:
        return []
    facts = [_sig_and_power(v, digits) for v in values]
    negative = any(v < 0 for v in values)
    left = max(max(power + 1, 1) for _, power in facts)
    right = max(max(sig - power - 1, 0) for sig, power in facts)
    fixed_width = negative + left + (right + 1 if right else 0)
    most_sig = max(sig for sig, _ in facts)
    big_power = any(abs(power) >= 100 for _, power in facts)
    sci_width = negative + (most_sig + 1 if most_sig > 1 else 1) + (5 if big_power else 4)
    if fixed_width <= sci_width:
        texts = [f"{v:.{right}f}" for v in values]
    else:
        texts = [_sci(v, most_sig - 1) for v in values]
    width = max(len(t) for t in texts)
    return [t.rjust(width) for t in texts]


def _sci(x: float, decimals: int) -> str:
    mantissa, exponent = f"{x:.{decimals}e}".split("e")
    power = int(exponent)
    return f"{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"


def format_signif(x: float, digits: int) -> str:
    """One number to ``digits`` significant digits without trailing zeros (C's ``%g``)."""
    text = f"{float(x):.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        power = int(exponent)
        text = f"{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"
    return text


def print_strings(items: list[str], width: int = 80) -> list[str]:
    """R's ``print(x, quote=FALSE)`` of a character vector: items padded to a common width,
    as many per line as fit in ``width``, each line led by the index of its first item."""
    if not items:
        return ["character(0)"]
    item_width = max(len(s) for s in items)
    label_width = len(f"[{len(items)}]")
    per_line = max(1, (width - label_width) // (item_width + 1))
    lines = []
    for start in range(0, len(items), per_line):
        label = f"[{start + 1}]".rjust(label_width)
        chunk = items[start:start + per_line]
        lines.append(label + "".join(" " + s.ljust(item_width) for s in chunk))
    return lines
