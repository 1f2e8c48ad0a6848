"""The reductions' variant choice, in one place: the variant ``"auto"`` takes, and the refusal of
a complex reduction on a variant without complex kernels. The prepare steps of :mod:`._api` call
it once per plan; a repeat call runs the plan it chose."""

from __future__ import annotations

from .._core import checks as _checks

__all__ = ["VARIANTS", "LADDER", "variant", "refuse_complex"]

#: the whole-array variants, each a named kernel of kernels/reduction/reduce.cu
VARIANTS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "production")
#: the classic ladder: one launch per level on the block partials
LADDER = ("alpha", "beta", "gamma", "delta", "epsilon")


def variant(name, func):
    """The variant ``name`` (one of :data:`VARIANTS`, or ``"auto"``: ``"production"``) says;
    ``ValueError`` naming ``func`` for another."""
    return _checks.check_choice(name, VARIANTS, func=func, arg="variant", auto="production")


def refuse_complex(acc_dt, op, variant, func):
    """``ValueError`` for a complex reduction (a complex result dtype ``acc_dt``) on a variant
    without complex kernels (the ladder and zeta)."""
    if acc_dt.kind == "c" and variant not in ("production", "auto"):
        raise ValueError(
            f"{func}: variant={variant!r} has no complex kernels; a {acc_dt} "
            f"{op} runs on variant='production' (or 'auto')"
        )
