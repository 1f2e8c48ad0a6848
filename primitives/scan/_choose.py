"""The scans' variant choice: ``variant=`` checked, ``"auto"`` made the single-pass look-back
scan. Called by the public functions' prepare steps only (once per plan, never per repeat
call)."""

from __future__ import annotations

from .._core import checks as _checks
from ._plans import VARIANTS

#: the variant ``"auto"`` runs
AUTO = "decoupled_lookback"


def variant(variant, func):
    """The variant a scan runs: one of :data:`~._plans.VARIANTS` (``"auto"``: :data:`AUTO`), a
    ``ValueError`` naming ``func`` otherwise."""
    return _checks.check_choice(variant, VARIANTS, func=func, arg="variant", auto=AUTO)
