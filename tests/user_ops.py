"""What the tests of user operators (prim.Op) and maps share: the accumulator dtypes, a maximum
as a user operator with each dtype's lowest value as its identity, and inputs over a dtype's
whole range."""

import numpy as np

#: the dtypes a user operator computes in (primitives._core.ops.DTYPES)
DTYPES = [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64]
#: a maximum, as a user operator's expression
MAX = "a > b ? a : b"


def lowest(dt):
    """The identity of :data:`MAX` in ``dt``: -inf, or the integer dtype's least value."""
    dt = np.dtype(dt)
    return -np.inf if dt.kind == "f" else int(np.iinfo(dt).min)


def make(rng, shape, dt):
    """Values of ``dt``: floats in [-1, 1), integers over the dtype's whole range."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        return rng.uniform(-1.0, 1.0, shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


def variant_pairs(variants):
    """(variant, dtype) pairs of :data:`DTYPES`: each variant with two dtypes and each dtype with
    two variants or more (every pair compiles an instantiation of its own), the production
    kernel with every dtype."""
    from tests.conftest import race_sample

    pairs = set(race_sample(variants, DTYPES, every=3)) | {("production", d) for d in DTYPES}
    return sorted(pairs, key=lambda p: (variants.index(p[0]), DTYPES.index(p[1])))


def case_id(value):
    return np.dtype(value).name if isinstance(value, type) else str(value)
