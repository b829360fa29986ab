"""``java.util.Random`` in Python, for reproducing Java programs' random choices exactly.

Written from the algorithm that the Java API documentation of ``java.util.Random`` specifies
(it is part of the class's contract): a 48-bit linear congruential generator with multiplier
0x5DEECE66D and increment 0xB. Weka's J48 uses it for its reduced-error pruning fold
(quercus.pruning.reduced_error).
"""

from __future__ import annotations

MULTIPLIER = 0x5DEECE66D
INCREMENT = 0xB
MASK = (1 << 48) - 1


def _to_int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


class JavaRandom:
    """The generator of ``new java.util.Random(seed)``.

    >>> r = JavaRandom(42)
    >>> r.next_int(10), r.next_int(10), r.next_int(10)
    (0, 3, 8)
    """

    def __init__(self, seed: int) -> None:
        self.set_seed(seed)

    def set_seed(self, seed: int) -> None:
        """Like ``setSeed``: the state is the low 48 bits of ``seed`` XOR the multiplier."""
        self._state = (int(seed) ^ MULTIPLIER) & MASK

    def next_bits(self, bits: int) -> int:
        """Java's protected ``next(bits)``: advance the state and return its ``bits`` high
        bits (of 48) as a signed 32-bit int."""
        self._state = (self._state * MULTIPLIER + INCREMENT) & MASK
        return _to_int32(self._state >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` (any int) or ``nextInt(bound)``: uniform in [0, bound)."""
        if bound is None:
            return self.next_bits(32)
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & -bound == bound:  # a power of 2: the high bits
            return (bound * self.next_bits(31)) >> 31
        while True:
            bits = self.next_bits(31)
            value = bits % bound
            # reject the last, partial block of 31-bit values (Java's int overflow test)
            if bits - value + (bound - 1) < 1 << 31:
                return value

    def next_long(self) -> int:
        """``nextLong()``: two 32-bit draws, high then low, as a signed 64-bit int."""
        x = (self.next_bits(32) << 32) + self.next_bits(32)
        x &= (1 << 64) - 1
        return x - (1 << 64) if x >= 1 << 63 else x

    def next_double(self) -> float:
        """``nextDouble()``: 53 random bits (26 + 27) scaled to [0, 1)."""
        return ((self.next_bits(26) << 27) + self.next_bits(27)) * 2.0**-53

    def next_boolean(self) -> bool:
        return self.next_bits(1) != 0


def shuffle(items: list, rng: JavaRandom) -> None:
    """Shuffle in place as ``java.util.Collections.shuffle(list, rnd)`` is documented to:
    from the last position down to the second, swap position i with a position drawn
    uniformly from 0..i (``rnd.nextInt(i + 1)``). Weka's ``Instances.randomize`` draws the
    same way."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.next_int(i + 1)
        items[i], items[j] = items[j], items[i]
