"""Plans: every family's launches are made once per configuration and found again by later calls.

A *plan* is one configuration of one primitive (function, dtypes, shapes and strides, variant,
options, policy, device and stream). It holds what the calls of that configuration share: the
kernels, their launch configurations checked once (:class:`Launch`), the scratch (tile counters,
look-back state, partials) and anything else worth making once. Calling it runs the primitive.

There is one cache of plans in the process, :data:`PLANS`, bounded in entries and in the device
bytes the plans hold, safe under threads, and emptied by :func:`primitives.clear_caches`. It
holds two kinds of key:

- a family's *configuration keys* (what a plan is made from), through :meth:`PlanCache.get`,
  which builds a key's plan once even when several threads ask for it together;
- the *call keys* of the entry protocol (:mod:`primitives._core.entry`, the one place that
  files and finds them): the arguments of a call that was checked and ran as it is, under which
  :meth:`PlanCache.file` files its run; a later call with a like call key finds it with
  :meth:`PlanCache.find` and skips the checks that the first call passed: the repeat-call fast
  path, the same for every public function.

Launches on one stream are ordered, so a plan's scratch serves every call on its stream; every
key holds the stream (:func:`stream_key`: on the emulator, the calling thread), so no scratch is
shared between streams.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar


from . import backend as _backend, launch as _launch, loader as _loader
from .backend import Array

__all__ = [
    "streaming_launch",
    "Plan",
    "PlanCache",
    "PLANS",
    "Launch",
    "stream_key",
    "clear_caches",
    "cache_info",
    "BoundPlan",
]

#: default bounds of :data:`PLANS`
MAX_PLANS = 512
MAX_BYTES = 1 << 30

_P = TypeVar("_P")


def stream_key() -> tuple[int, int]:
    """The current (device, stream): per-stream scratch lives in plans keyed by it. On the
    emulator every host thread is its own stream (kernels run on the calling thread)."""
    return _backend.get_backend().stream_key()


class Plan:
    """Base of every family's plans: a configuration made once, called per call.

    ``nbytes`` is the device memory the plan holds (its scratch), which :data:`PLANS` counts
    against its byte bound. Subclasses define ``__call__``.
    """

    nbytes = 0

    def __call__(self, *args: Any) -> Any:  # pragma: no cover - every plan defines it
        raise NotImplementedError


def scratch_bytes(*arrays: Array | None) -> int:
    """Device bytes of ``arrays`` (None entries count 0): a plan's :attr:`Plan.nbytes`."""
    return sum(a.nbytes for a in arrays if a is not None)


class PlanCache:
    """Plans by key, oldest first out once there are more than ``max_plans`` keys or the plans
    hold more than ``max_bytes`` of device memory together.

    A plan may be filed under several keys (its configuration key and the call keys of calls
    that ran through it); its bytes count once, and it leaves the cache with its last key.
    :meth:`find` takes no lock (one dictionary read); :meth:`get` builds a missing plan under
    the cache's lock, so one key's plan is built once whatever the threads.
    """

    def __init__(self, max_plans: int = MAX_PLANS, max_bytes: int = MAX_BYTES) -> None:
        self.max_plans, self.max_bytes = int(max_plans), int(max_bytes)
        self._plans: collections.OrderedDict[Hashable, Any] = collections.OrderedDict()
        self._refs: dict[int, list[Any]] = {}  # id(plan) -> [plan, number of keys]
        self._bytes = 0
        self._lock = threading.RLock()  # a build may build other plans (scratch shared by plans)
        self.builds = 0

    def find(self, key: Hashable) -> Any:
        """The plan filed under ``key``, or None."""
        return self._plans.get(key)

    def get(self, key: Hashable, build: Callable[[], _P]) -> _P:
        """The plan of ``key``, built by ``build()`` (once) when missing."""
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        with self._lock:
            plan = self._plans.get(key)
            if plan is None:
                plan = build()
                self.builds += 1
                self._put(key, plan)
        return plan

    def file(self, key: Hashable | None, plan: object) -> None:
        """File ``plan`` under ``key`` too (a call key: see :mod:`primitives._core.entry`)."""
        if key is None:
            return
        with self._lock:
            if self._plans.get(key) is not plan:
                self._put(key, plan)

    def _put(self, key: Hashable, plan: object) -> None:
        old = self._plans.pop(key, None)
        if old is not None:
            self._unref(old)
        self._plans[key] = plan
        ref = self._refs.get(id(plan))
        if ref is None:
            self._refs[id(plan)] = [plan, 1]
            self._bytes += int(getattr(plan, "nbytes", 0))
        else:
            ref[1] += 1
        while len(self._plans) > 1 and (
            len(self._plans) > self.max_plans or self._bytes > self.max_bytes
        ):
            _, out = self._plans.popitem(last=False)
            self._unref(out)

    def _unref(self, plan: object) -> None:
        ref = self._refs[id(plan)]
        ref[1] -= 1
        if ref[1] == 0:
            del self._refs[id(plan)]
            self._bytes -= int(getattr(plan, "nbytes", 0))

    def clear(self) -> None:
        with self._lock:
            self._plans.clear()
            self._refs.clear()
            self._bytes = 0

    def info(self) -> dict[str, int]:
        """``{"keys", "plans", "bytes", "max_plans", "max_bytes", "builds"}``."""
        with self._lock:
            return {
                "keys": len(self._plans),
                "plans": len(self._refs),
                "bytes": self._bytes,
                "max_plans": self.max_plans,
                "max_bytes": self.max_bytes,
                "builds": self.builds,
            }

    def resize(self, max_plans: int | None = None, max_bytes: int | None = None) -> None:
        """Change the bounds (evicting at the next filing)."""
        with self._lock:
            if max_plans is not None:
                self.max_plans = int(max_plans)
            if max_bytes is not None:
                self.max_bytes = int(max_bytes)


#: the process's one plan cache
PLANS = PlanCache()


def clear_caches() -> None:
    """Forget every plan (their scratch goes back to CuPy's pool) and every stand-in array.
    Compiled kernel modules stay: they cost a compile to remake and hold no data."""
    PLANS.clear()
    _launch.clear_stand_ins()


def cache_info() -> dict[str, int]:
    """The plan cache's size and bounds (see :meth:`PlanCache.info`)."""
    return PLANS.info()


# ---- checked launches -------------------------------------------------------------------------


class _Slot:
    __slots__ = ()

    def __repr__(self) -> str:
        return "Launch.SLOT"


class Launch:
    """One kernel launch whose configuration (grid, block, dynamic shared memory) is checked
    once, when it is made (:func:`primitives._core.launch.check`: no zero-sized or oversized
    launch, shared memory opted into), then launched per call on the current stream with no
    further checks: the one check-once mechanism of the package.

    ``Launch(kernel, grid, block, shared_mem)`` takes the whole argument tuple per call:
    ``launch(*args)``. With ``args`` it is *prepared*: the tuple is fixed but for the entries
    that are :data:`Launch.SLOT` or :meth:`Launch.zip_slot`, given per call in order
    (``launch(x, out)``; a zip slot's arrays as a tuple). On the GPU a
    prepared launch builds its parameter words once; a call stores the arrays' addresses in the
    slots and calls cuLaunchKernel itself, on the stream current when it was made (plans are
    per stream). Slots take arrays of the backend's own type, or NumPy integer scalars of the
    parameter's own width (a launch counter, an epoch).
    """

    SLOT = _Slot()
    __slots__ = ("kernel", "grid", "block", "shared_mem", "args", "slots", "zips", "direct")

    @staticmethod
    def zip_slot(width: int) -> _launch.ZipSlot:
        """A slot that takes ``width`` arrays zipped into one parameter (a tuple or list of
        them, None for a field not written): ``prim::ZipIn``/``ZipOut`` of kernels/util/zip.cuh."""
        return _launch.ZipSlot(width)

    def __init__(
        self,
        kernel: _loader.Kernel,
        grid: _launch.Dims,
        block: _launch.Dims,
        shared_mem: int = 0,
        *,
        args: Iterable[Any] | None = None,
    ) -> None:
        self.grid, self.block = _launch.check(kernel, grid, block, shared_mem)
        self.kernel, self.shared_mem = kernel, int(shared_mem)
        self.args = None if args is None else tuple(args)
        self.slots = (
            ()
            if self.args is None
            else tuple(
                i
                for i, a in enumerate(self.args)
                if a is Launch.SLOT or isinstance(a, _launch.ZipSlot)
            )
        )
        fixed = self.args or ()
        self.zips = frozenset(i for i in self.slots if fixed[i] is not Launch.SLOT)
        self.direct = (
            None
            if self.args is None
            else _launch.Direct.make(
                kernel, self.grid, self.block, self.shared_mem, self.args, self.slots
            )
        )

    def __call__(self, *args: Any) -> None:
        if self.args is None:
            self.kernel(self.grid, self.block, args, shared_mem=self.shared_mem)
        elif self.direct is not None:
            self.direct(args)
        else:
            full = list(self.args)
            for i, a in zip(self.slots, args):
                full[i] = _launch.zip_arg(a) if i in self.zips else a
            self.kernel(self.grid, self.block, tuple(full), shared_mem=self.shared_mem)


# ---- user plans -------------------------------------------------------------------------------


def streaming_launch(
    key: Hashable, kernel: Callable[[], Any], n: int, block: int, items: int = 1
) -> Launch:
    """The :class:`Launch` of a grid-stride kernel over ``n`` items (``block`` threads, one
    block per ``block * items`` items, the grid capped at the resident blocks), filed in
    :data:`PLANS` under ``key``, ``n`` and the current stream: made once (``kernel()`` gives the
    kernel then), reused by every later call of that size."""

    def build() -> Launch:
        k = kernel()
        return Launch(k, _launch.cover_grid(n, block, items, kernel=k), block)

    return PLANS.get(("launch", key, n, stream_key()), build)


class BoundPlan:
    """``primitives.plan(func, *like, **options)``: ``func`` with its options bound, for calls
    in a loop on arrays like ``like`` (same type, dtypes, shapes and strides).

    The leading array arguments of ``like`` (the first argument, and each following one that
    has a shape and a dtype) are the ones a call gives; positional arguments after them
    (``prim.plan(prim.reduce, x, "max")``, a list of bin edges) are bound like ``options``. ``p(*arrays)``
    runs ``func(*arrays, *bound, **options)``. Arrays like the ones it was made for, on the
    stream it was made on, go straight to the plan made at construction: no checks but the
    comparison of their dtypes, shapes and strides. Anything else takes ``func``'s checked
    path, so a plan is never wrong, only slower on inputs it was not made for.
    """

    __slots__ = ("func", "bound", "options", "key", "core", "__weakref__")

    def __init__(
        self,
        func: Callable[..., Any],
        like: Iterable[Any],
        bound: Iterable[Any],
        options: dict[str, Any],
        core: Callable[..., Any] | None,
    ) -> None:
        self.func, self.bound, self.options, self.core = func, tuple(bound), dict(options), core
        self.key = _like_key(like) if core is not None else None  # None: always func's path

    def __call__(self, *arrays: Any) -> Any:
        if self.key is not None and _like_key(arrays) == self.key:
            return self.core(*arrays)  # type: ignore[misc]  # set with the key
        return self.func(*arrays, *self.bound, **self.options)

    def __repr__(self) -> str:
        args = [repr(a) for a in self.bound] + [f"{k}={v!r}" for k, v in self.options.items()]
        name = getattr(self.func, "__name__", repr(self.func))
        return f"<primitives plan of {name}(..., {', '.join(args)})>"


def _like_key(arrays: Iterable[Any]) -> tuple[tuple[Any, ...], tuple[int, int]] | None:
    array_type = _backend.get_backend().xp.ndarray
    spec = []
    for a in arrays:
        if type(a) is not array_type:
            return None
        spec.append((a.dtype, a.shape, a.strides))
    return tuple(spec), stream_key()


def plan(func: Callable[..., Any], *like: Any, **options: Any) -> BoundPlan:
    """A plan of ``func`` for calls on arrays like ``like`` with ``options`` bound.

    ``p = prim.plan(prim.sort, keys, descending=True)`` then ``p(keys)`` in a loop: equal to
    ``prim.sort(keys, descending=True)``, with the checks and the plan lookup done once. The
    arguments are checked here, and bad ones raise as the function would. Works for every
    public function; ``func.plan(*like, **options)`` is the same.
    """
    make = getattr(func, "plan", None)
    if make is None:
        raise TypeError(
            f"plan: {getattr(func, '__name__', func)!r} is not a primitives function with plans"
        )
    return make(*like, **options)
