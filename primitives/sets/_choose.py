"""The sets' choice, made once per plan (in ``unique``'s prepare step): its variant."""

from __future__ import annotations

from .._core import checks as _checks

#: unique's variants: "rle", sort then one pass of the run kernel (values and counts at once);
#: "compact", sort then head flags and the compaction of :func:`primitives.compact` (several
#: passes, the way NumPy and CuPy write it); "count", integer keys counted in a histogram of
#: their range (no sort), where the range is narrow enough (else "rle"). "auto" is "count" where
#: it applies, else "rle" (decided on the keys' minimum and maximum: :mod:`._unique`).
VARIANTS = ("rle", "compact", "count")


def variant(name):
    """The variant of ``unique`` that ``name`` (one of :data:`VARIANTS` or ``"auto"``) says:
    ``"auto"`` stays, for the keys to decide."""
    return _checks.check_choice(name, VARIANTS, func="unique", arg="variant", auto="auto")
