"""The statistics tests run under a small policy: blocks of 64 threads, one load in flight and a
short split chunk, so that a few hundred elements span several blocks and a split axis on the
emulator (one compile of each module for every test)."""

import pytest

import primitives as prim

SMALL = dict(block=64, vectors=1, blocks_per_sm=2, axis_block=64, axis_per_sm=1, min_chunk=4)


@pytest.fixture(autouse=True)
def small_policy():
    with prim.tuning.override("statistics", **SMALL):
        yield
