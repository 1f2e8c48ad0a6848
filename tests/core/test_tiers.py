"""Compile tiers on the GPU: a kernel compiled on first use runs its fast-compiled image until
its default image lands, then the default one, with the same results (each test in a fresh
process with an empty cache: the kernels of this one are loaded already)."""

import os
import subprocess
import sys
import textwrap

import pytest

from primitives._core import backend as _backend

SCRIPT = textwrap.dedent(
    """
    import threading
    import numpy as np, cupy, primitives as prim
    from primitives._core import lazy, loader
    assert lazy._tiers(), "NVRTC without the fast level"
    finish, gate = lazy._finish, threading.Event()
    def held(*key):  # the default images land after the first calls ran the fast ones
        gate.wait()
        finish(*key)
    lazy._finish = held
    rng = np.random.default_rng(3)
    calls = {
        "sort": (cupy.asarray(rng.integers(0, 2**32, 1 << 20, dtype="u4")), prim.sort),
        "argsort": (cupy.asarray(rng.random(1 << 20, dtype="f4")), prim.argsort),
        "sum": (cupy.asarray(rng.random(1 << 20)), prim.sum),
        # int32: a float scan's plan, made again for the default image, may add in another order
        "cumsum": (cupy.asarray(rng.integers(-99, 99, 1 << 20, dtype="i4")), prim.cumsum),
        "histogram": (cupy.asarray(rng.random(1 << 20, dtype="f4")),
                      lambda x: prim.histogram(x, 256, (0, 1))[0]),
    }
    first = {k: cupy.asnumpy(f(x)) for k, (x, f) in calls.items()}
    origins = loader.kernel_origins()
    assert origins.get("fast", 0) >= len(calls), origins
    done = lazy.compiles()
    assert [c[2] for c in done] == [True] * origins["fast"], done
    assert all(c[3] <= c[4] for c in done)
    fast = {k: fn for k, fn in lazy._alone.items()}
    assert lazy._pending
    gate.set()
    assert lazy.settle()
    assert not lazy._pending and all(lazy._alone[k] is not fn for k, fn in fast.items())
    defaults = [c for c in lazy.compiles() if not c[2]]
    assert len(defaults) == len(fast), (defaults, fast)
    for k, (x, f) in calls.items():
        np.testing.assert_array_equal(cupy.asnumpy(f(x)), first[k], err_msg=k)
    print("ok", origins)
    """
)


@pytest.mark.skipif(
    not _backend.get_backend().is_cuda, reason="the tiers are NVRTC's (the emulator compiles once)"
)
def test_fast_images_first_then_the_default_ones(tmp_path):
    env = {
        "PRIMITIVES_CACHE_DIR": str(tmp_path),
        "PRIMITIVES_KERNEL_BINARIES": "off",
        "PRIMITIVES_COMPILE_TIERS": "on",
    }
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and run.stdout.startswith("ok"), run.stdout + run.stderr


def test_default_images_wait_for_the_calls_compiles(monkeypatch):
    """A default image compiles (lazy._finish) only once no call has waited for a compile (none
    asked for, queued or under way: lazy._call_compile) for lazy.QUIET_S seconds, so that it
    takes no processor from a first call; a call's compile run in the caller's thread counts
    too."""
    import threading
    import time
    import types

    from primitives._core import lazy

    started = []

    def compile_alone(relpath, name, arch, fast=False):
        started.append((name, lazy._waited_for, time.monotonic()))
        raise RuntimeError("stand-in compiler")

    monkeypatch.setattr(lazy, "compile_alone", compile_alone)
    monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))  # a GPU's stand-in
    lazy._call_compile(1)  # a call's compile under way
    thread = threading.Thread(target=lazy._finish, args=(0, "x.cu", "k", "sm_90"))
    with pytest.warns(RuntimeWarning, match="stand-in compiler"):
        thread.start()
        time.sleep(0.2)
        assert started == [] and thread.is_alive()
        lazy._call_compile(-1)
        released = time.monotonic()
        thread.join(10)
    ((name, waited_for, at),) = started
    assert (name, waited_for) == ("k", 0) and not thread.is_alive()
    assert at - released >= 0.9 * lazy.QUIET_S  # and a while after it

    seen = []
    monkeypatch.setattr(lazy, "_first_image", lambda *key: seen.append(lazy._waited_for))
    lazy._first_image_now("x.cu", "k", "sm_90")  # not prefetched: compiled here, counted
    assert seen == [1] and lazy._waited_for == 0


def test_an_image_of_a_made_source_is_keyed_by_its_text(monkeypatch, tmp_path):
    """A source made at run time (a user operator's or a map's, loader.add_source) is compiled
    anew when its text changes under the same name (the package's Python writes that text: the
    kernels' tree hash does not see it), and found in the cache while it does not."""
    from primitives._core import lazy, loader

    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    rel = "reduction/reduce.cu@made-key-test"  # a name of this test's alone
    images = []
    for value in (1, 2, 1):
        loader.add_source(rel, f'extern "C" __global__ void k(int* o) {{ o[0] = {value}; }}\n')
        before = len(lazy.compiles())
        path, lowered = lazy.compile_alone(rel, "k", "sm_90")
        images.append((path, path.read_bytes(), len(lazy.compiles()) - before))
    (p1, b1, c1), (p2, b2, c2), (p3, b3, c3) = images
    assert p1 != p2 and b1 != b2 and (c1, c2) == (1, 1)
    assert p3 == p1 and c3 == 0  # the first text's image, from the cache
