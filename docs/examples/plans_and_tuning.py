"""Plans for calls in a loop, the plan cache, and a tuning override, checked against NumPy."""

import numpy as np

# begin-example
import primitives as prim

rng = np.random.default_rng(0)
batches = [rng.integers(0, 1 << 20, 4096, dtype=np.uint32) for _ in range(8)]

p = prim.plan(prim.sort, batches[0], descending=True)  # checked once, here
for keys in batches:  # then one launch sequence a call
    assert np.array_equal(p(keys), np.sort(keys)[::-1])

h = prim.histogram.plan(batches[0], bins=64, range=(0, 1 << 20))
counts, edges = h(batches[1])
assert np.array_equal(counts, np.histogram(batches[1], bins=64, range=(0, 1 << 20))[0])

# the policy in force on this device
pol = prim.tuning.policy("reduction", "production")
with prim.tuning.override("reduction", selector="production", blocks_per_sm=1):
    total = prim.sum(batches[2])  # built (and cached) for the override
assert total == batches[2].sum()
assert prim.tuning.policy("reduction", "production") == pol  # back after the block

print(prim.cache_info())
prim.clear_caches()  # every plan and its scratch let go
assert prim.cache_info()["plans"] == 0
# end-example

print("policy in force:", pol)
