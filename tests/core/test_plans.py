"""The plan layer: one bounded, thread-safe plan cache; call keys; user plans; tuning policies."""

import dataclasses
import threading

import numpy as np
import pytest

import primitives as prim
from primitives._core import plans as P
from primitives._core import policy as _policy
from primitives.testing import harness as H


class _Scratch(P.Plan):
    def __init__(self, nbytes):
        self.nbytes = nbytes

    def __call__(self):
        return self.nbytes


def test_get_builds_once_and_find_finds():
    cache = P.PlanCache()
    built = []
    plan = cache.get(("k", 1), lambda: built.append(1) or _Scratch(8))
    assert cache.get(("k", 1), lambda: built.append(2) or _Scratch(8)) is plan
    assert built == [1] and cache.find(("k", 1)) is plan and cache.find(("k", 2)) is None


def test_bounded_in_entries_oldest_out():
    cache = P.PlanCache(max_plans=3)
    for i in range(5):
        cache.get(i, lambda: _Scratch(0))
    assert [cache.find(i) is None for i in range(5)] == [True, True, False, False, False]
    assert cache.info()["keys"] == 3


def test_bounded_in_device_bytes():
    """Plans holding more than max_bytes together: the oldest go until the rest fit."""
    cache = P.PlanCache(max_bytes=1000)
    for i in range(10):
        cache.get(i, lambda: _Scratch(300))
        assert cache.info()["bytes"] <= 1000
    assert cache.info()["plans"] == 3
    big = cache.get("big", lambda: _Scratch(5000))  # alone over the bound: kept, alone
    assert cache.find("big") is big and cache.info()["plans"] == 1


def test_a_plan_filed_under_several_keys_counts_once():
    cache = P.PlanCache(max_bytes=1000)
    plan = cache.get("config", lambda: _Scratch(600))
    cache.file(("call", 1), plan)
    cache.file(("call", 2), plan)
    info = cache.info()
    assert (info["keys"], info["plans"], info["bytes"]) == (3, 1, 600)
    cache.file(None, plan)  # a call with no call key files nothing
    assert cache.info()["keys"] == 3
    other = cache.get("other", lambda: _Scratch(600))  # over the bound: the old plan goes,
    info = cache.info()  # with every key it was filed under
    assert [cache.find(k) for k in ("config", ("call", 1), ("call", 2))] == [None] * 3
    assert cache.find("other") is other and (info["plans"], info["bytes"]) == (1, 600)


def test_threads_build_one_plan_per_key():
    """Many threads asking for the same keys at once: each key's plan is built exactly once and
    every thread gets that plan."""
    cache = P.PlanCache()
    builds = []
    barrier = threading.Barrier(8)
    got = [[] for _ in range(8)]

    def build(k):
        builds.append(k)
        return _Scratch(k)

    def worker(t):
        barrier.wait()
        for k in range(20):
            got[t].append(cache.get(("key", k % 5), lambda k=k % 5: build(k)))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(builds) == list(range(5))
    for t in range(8):
        assert all(p is cache.find(("key", p.nbytes)) for p in got[t])


def test_threads_on_their_own_streams_get_their_own_scratch(rng):
    """Threads calling the same primitive concurrently, each on its own stream (on the emulator:
    its own thread), get right answers and plans of their own; each plan is built once."""
    prim.clear_caches()
    xs = [rng.integers(-1000, 1000, 40000).astype(np.int64) for _ in range(4)]
    results = [[] for _ in xs]
    errors = []
    streams = []  # alive until every thread is done: a freed stream's handle may be reused

    def worker(i):
        try:
            stream = None
            if prim.backend_info()["backend"] == "cuda":
                import cupy

                stream = cupy.cuda.Stream(non_blocking=True)
                streams.append(stream)
                stream.use()
                x = cupy.asarray(xs[i])
            else:
                x = xs[i]
            for _ in range(5):
                results[i].append(int(prim.sum(x)))
            if stream is not None:
                stream.synchronize()
        except Exception as exc:  # reported below  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, x in enumerate(xs):
        assert results[i] == [int(x.sum())] * 5
    keys = [k for k in P.PLANS._plans if k[0] == "reduce/production"]
    assert len({k[-1] for k in keys}) == len(xs)  # one plan per stream
    assert len(keys) == len(xs)


def test_clear_caches_forgets_every_plan(rng):
    x = rng.random(1000).astype(np.float32)
    prim.sum(x)
    assert prim.cache_info()["plans"] >= 1
    prim.clear_caches()
    assert prim.cache_info()["plans"] == 0 and prim.cache_info()["bytes"] == 0
    H.assert_same(prim.sum(x), np.sum(x), rtol=1e-5)


def test_call_key_keys_option_types(backend):
    """``1`` and ``1.0`` (or ``True``) are different keys: the checked path decides each once
    (the entry protocol's key, on every backend)."""
    x = backend.xp.zeros(4, np.float32)
    key = prim.searchsorted.entry.key
    k = [key((x, x), {"side": o}) for o in (1, 1.0, True, np.int64(1))]
    assert len(set(k)) == 4
    assert key((x, x), {"sorter": {1: 2}}) is None  # unhashable: no fast path
    assert key(([1.0], x), {}) is None  # not the backend's array type
    if backend.is_cuda:
        assert key((np.zeros(4, np.float32), x), {}) is None  # host arrays neither
    assert key((x, x, "left"), {}) != key((x, x), {})
    assert key((x[::2], x), {}) != key((x[:2], x), {})  # strides


def test_launch_checks_its_configuration_once(backend):
    from primitives.reduction import _plans as rp

    dt = np.dtype(np.float32)
    k = rp.kernel("gamma", dt, dt, "sum", prim.tuning.policy("reduction", "ladder"))
    with pytest.raises(ValueError, match="zero-sized"):
        P.Launch(k, 0, 256)
    with pytest.raises(ValueError, match="more than"):
        P.Launch(k, 1, 4096)
    xp = backend.xp
    out = xp.zeros(1, np.float32)
    launch = P.Launch(k, 1, 256, 256 * 4, args=(P.Launch.SLOT, out, np.int64(5)))
    launch(xp.arange(5, dtype=np.float32))
    assert float(out[0]) == 10


def test_plan_of_a_function_without_plans_is_refused():
    with pytest.raises(TypeError, match="not a primitives function"):
        prim.plan(np.sum, np.zeros(3))


# ---- tuning -----------------------------------------------------------------------------------


def test_tuning_reads_the_policy_in_force():
    pol = prim.tuning.policy("reduction", "production")
    assert dataclasses.is_dataclass(pol) and pol.block >= 32
    assert prim.tuning.policy("reduction", "production", arch="sm_90") == prim.tuning.table(
        "reduction"
    ).lookup("production", "sm_90")
    assert "reduction" in prim.tuning.families()
    with pytest.raises(dataclasses.FrozenInstanceError):
        pol.block = 7


def test_override_lasts_for_its_block_and_makes_new_plans(rng):
    x = rng.random(3000).astype(np.float64)
    before = prim.tuning.policy("reduction", "production")
    gen = _policy.generation()
    with prim.tuning.override("reduction", selector="production", blocks_per_sm=1) as pol:
        assert pol.blocks_per_sm == 1 and pol.block == before.block
        assert prim.tuning.policy("reduction", "production") == pol
        assert _policy.generation() != gen
        H.assert_same(prim.sum(x), np.sum(x), rtol=1e-12)
        assert any(k[0] == "reduce/production" and k[5] == pol for k in P.PLANS._plans)
    assert prim.tuning.policy("reduction", "production") == before


def test_override_errors():
    with pytest.raises(ValueError, match="reduction has no policy for selector 'nope'"):
        prim.tuning.policy("reduction", "nope")
    with pytest.raises(ValueError, match="no family 'nope'"):
        with prim.tuning.override("nope", block=1):
            pass
    with pytest.raises(TypeError, match="field"):
        with prim.tuning.override("reduction", selector="production", blcok=1):
            pass
    with pytest.raises(TypeError, match="not both"):
        with prim.tuning.override("reduction", prim.tuning.policy("reduction", "zeta"), block=1):
            pass


def test_architecture_chain():
    @dataclasses.dataclass(frozen=True)
    class Pol:
        v: int = _policy.knob(_policy.Range(0, 100))

    t = _policy.Table(
        "t", {("default", None): Pol(0), ("sm_80", None): Pol(80), ("sm_90", "f"): Pol(90)}
    )
    assert t.lookup(None, "sm_86") == Pol(80)
    assert t.lookup("f", "sm_90") == Pol(90) and t.lookup("g", "sm_90") == Pol(80)
    assert t.lookup("f", "sm_75") == Pol(0) and t.lookup(None, "default") == Pol(0)
    assert t.policies() == (Pol(0), Pol(80)) and t.policies("f") == (Pol(90),)
    with pytest.raises(ValueError):
        _policy.Table("t", {("hopper", None): Pol(0)})
    with pytest.raises(TypeError):
        _policy.Table("t", {("default", None): {"v": 0}})


def test_user_plan_binds_positional_options(rng):
    """Arguments after the leading arrays are bound: a list of bin edges, an op name."""
    x = rng.random(5000).astype(np.float64)
    p = prim.plan(prim.histogram, x, [0.0, 0.25, 0.5, 1.0])
    H.assert_same(p(x), np.histogram(x, [0.0, 0.25, 0.5, 1.0]))
    q = prim.plan(prim.reduce, x, "max")
    H.assert_same(q(x), np.max(x))
    y = rng.random(77).astype(np.float64)  # unlike arrays: the checked path, still right
    H.assert_same(p(y), np.histogram(y, [0.0, 0.25, 0.5, 1.0]))
    assert "max" in repr(q)


PLANNED = sorted(n for n in prim.__all__ if hasattr(getattr(prim, n), "plan"))


@pytest.mark.parametrize("name", PLANNED)
def test_plan_errors_name_the_public_function(name):
    """An argument the function does not take is its own TypeError through ``prim.plan`` too
    (never one naming the plan's maker), and the maker takes every argument the function
    takes."""
    import inspect

    func = getattr(prim, name)
    with pytest.raises(
        TypeError,
        match=rf"^{name}\(\) (got an unexpected keyword argument "
        r"'no_such_option'|too many positional|missing)",
    ):
        prim.plan(func, np.arange(4.0), np.arange(4.0), no_such_option=1)
    public = inspect.signature(func).parameters
    maker = func.entry.prepare if hasattr(func, "entry") else func.plan.make
    made = inspect.signature(maker).parameters
    if not any(p.kind == p.VAR_KEYWORD for p in made.values()):
        assert [p for p in public if p not in made] == []


def test_plan_of_radix_sort_with_an_axis_names_radix_sort():
    x = np.arange(8.0)
    with pytest.raises(
        TypeError, match=r"^radix_sort\(\) got an unexpected keyword argument 'axis'"
    ):
        prim.plan(prim.radix_sort, x, axis=0)
    with pytest.raises(TypeError, match=r"^topk\(\) missing a required argument: 'k'"):
        prim.topk.plan(x)
