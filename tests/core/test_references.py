"""Repeated calls hold no new references: the plan caches keep what the first call made (NumPy's
dtype singletons among it), and later calls add none (NumPy's ``gh-6805`` check, after the first
call)."""

import sys

import numpy as np

import primitives as prim


def refs():
    return sys.getrefcount(np.dtype(np.intp)), sys.getrefcount(np.dtype(np.double))


def test_repeated_calls_add_no_references():
    calls = (
        lambda: prim.bincount([1, 2, 3]),
        lambda: prim.bincount([1, 2, 3], [4.0, 5.0, 6.0]),
        lambda: prim.sum(np.arange(10.0)),
        lambda: prim.sort(np.arange(10)[::-1]),
    )
    for call in calls:
        call()  # the first call fills the caches
        before = refs()
        for _ in range(10):
            call()
        assert refs() == before
