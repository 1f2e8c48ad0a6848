"""Tuning policies as data: per family, frozen policy objects keyed by architecture and selector.

A family declares its tuning once, in its ``_policy`` module, as a table of frozen dataclass
instances (block size, items per thread, vectors, blocks per SM...) keyed by

- the architecture: ``"sm_90"``, ``"sm_80"``... or ``"default"``. A device takes the entry of
  the highest ``sm_XY`` not above its compute capability, else ``"default"``; the emulator always
  takes ``"default"`` (as CUB picks the policy of the newest architecture a device has);
- a selector the family chooses (a dtype, a key width, a mode; None for "any"). The lookup tries
  the device's architecture chain with the selector first, then with None.

Code reads the policy in force with :func:`current`, at plan-building time; a plan's
configuration key holds the policy it was built with. :func:`override` (public as
``primitives.tuning.override``) replaces a policy for the length of a ``with`` block, for
experiments and tuning tools; it bumps :func:`generation`, which every call key holds, so no
plan filed under another policy is taken. Overrides are process-wide (not per thread).

Validation: every field of a policy dataclass declares the values it may hold, as data beside
it (:func:`knob`: an integer range, optionally of multiples or powers of two; a set of values; a
bool; a real range; or a rule), taken from the kernels' static_asserts and launch limits and from
the code that reads the field. A :class:`Table` checks every entry when it is built (the shipped
tables are validated data) and :func:`override` checks the fields it replaces, or the whole
policy it is given, before any plan is made: a value out of range is a one-line ``ValueError``
naming the family, the field, the value and what is allowed, never a compile error of the
kernels it would have instantiated. A rule between fields of one policy is the policy class's
``conflict()`` method (the text of the disagreement, or None), which the same checks call once
its fields are each allowed; what depends on the dtype (a tile's shared memory) stays with the
code that knows it.

Provenance: each tuned value carries one comment line in its family's table (what it was
measured against, on what device); the history of experiments is in docs/perf-log/.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import numbers
import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping
from typing import Any

from . import backend as _backend, registry as _registry

__all__ = [
    "Table",
    "register",
    "current",
    "table",
    "families",
    "override",
    "generation",
    "device_arch",
    "knob",
    "Range",
    "Real",
    "OneOf",
    "Flag",
    "Rule",
    "check",
]

_TABLES: dict[str, Table] = {}
# [(family, selector or _ANY, policy or None, fields)], last wins
_overrides: list[tuple[str, Any, Any, dict[str, Any]]] = []
_lock = threading.Lock()
_generation = 0
_ANY = object()


# ---------------------------------------------------------------------------------------------
# The values a policy field may hold.


def _integer(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


class Range:
    """Integers from ``lo`` to ``hi`` (None: no upper bound), multiples of ``multiple`` or, with
    ``pow2``, powers of two; with ``zero``, 0 too (a field where 0 means "off" or "the
    default")."""

    def __init__(
        self,
        lo: int,
        hi: int | None = None,
        *,
        multiple: int = 1,
        pow2: bool = False,
        zero: bool = False,
    ) -> None:
        self.lo, self.hi, self.multiple, self.pow2, self.zero = lo, hi, multiple, pow2, zero

    def allows(self, v: Any) -> bool:
        if not _integer(v):
            return False
        if v == 0 and self.zero:
            return True
        return (
            v >= self.lo
            and (self.hi is None or v <= self.hi)
            and v % self.multiple == 0
            and (not self.pow2 or v & (v - 1) == 0)
        )

    def __str__(self) -> str:
        what = (
            "a power of two"
            if self.pow2
            else f"a multiple of {self.multiple}"
            if self.multiple > 1
            else "an integer"
        )
        span = f"from {self.lo} to {self.hi}" if self.hi is not None else f"of at least {self.lo}"
        return f"{'0 or ' if self.zero else ''}{what} {span}"


class Real:
    """Finite numbers from ``lo`` to ``hi`` (None: no upper bound); integers count."""

    def __init__(self, lo: float, hi: float | None = None) -> None:
        self.lo, self.hi = lo, hi

    def allows(self, v: Any) -> bool:
        return (
            isinstance(v, numbers.Real)
            and not isinstance(v, bool)
            and math.isfinite(v)
            and self.lo <= v  # type: ignore[operator]  # numbers.Real declares no __ge__
            and (self.hi is None or v <= self.hi)
        )

    def __str__(self) -> str:
        return (
            f"a number from {self.lo} to {self.hi}"
            if self.hi is not None
            else f"a number of at least {self.lo}"
        )


class OneOf:
    """One of the ``values`` (an integer value takes any integer type but bool)."""

    def __init__(self, *values: Any) -> None:
        self.values = values

    def allows(self, v: Any) -> bool:
        return any(
            v == a and (type(v) is type(a) or _integer(v) and _integer(a)) for a in self.values
        )

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(a) for a in self.values)


class Flag:
    """True or False."""

    def allows(self, v: Any) -> bool:
        return isinstance(v, bool)

    def __str__(self) -> str:
        return "True or False"


class Rule:
    """Values for which ``test(value)`` holds, described by ``text`` (a field of structure, as
    a tuple of steps, that the kinds above do not describe)."""

    def __init__(self, test: Callable[[Any], object], text: str) -> None:
        self.test, self.text = test, text

    def allows(self, v: Any) -> bool:
        try:
            return bool(self.test(v))
        except (TypeError, ValueError):
            return False

    def __str__(self) -> str:
        return self.text


def knob(allowed: Range | Real | OneOf | Flag | Rule, default: Any = dataclasses.MISSING) -> Any:
    """A policy dataclass field that may hold the values ``allowed`` (:class:`Range`,
    :class:`Real`, :class:`OneOf`, :class:`Flag` or :class:`Rule`): ``field: int =
    knob(Range(32, 1024, multiple=32))``."""
    return dataclasses.field(default=default, metadata={"allowed": allowed})


#: the most shared memory one block may take (sm_90's opt-in limit, and the emulator's)
SHARED_MAX = 227 * 1024
#: the most static shared memory (``__shared__`` arrays) one block may declare
STATIC_SHARED_MAX = 48 * 1024
#: a block of whole warps: the block reductions and scans (block/reduce.cuh, block/scan.cuh)
#: assert a multiple of 32 threads, at most 1024
BLOCK = Range(32, 1024, multiple=32)
#: a cap on resident blocks per multiprocessor (or __launch_bounds__' minimum): at most 32
#: blocks are resident on one multiprocessor (sm_50 to sm_90)
PER_SM = Range(1, 32)
#: 16-byte loads in flight per thread (the kernels' VECS, an array of that many packets): at
#: least one; sixteen already hold 64 registers of data (a generous bound)
LOADS = Range(1, 16)


def check(family: str, pol: Any, names: Collection[str] | None = None, where: str = "") -> None:
    """Refuse ``pol`` unless it is a frozen dataclass whose fields (those in ``names``, or all)
    hold values their :func:`knob` allows, and whose ``conflict()`` method, where its class has
    one, finds its fields agree: ``ValueError`` for a value or a disagreement, ``TypeError`` for
    a policy that is not a frozen dataclass of declared fields. ``where`` ends the message."""
    if (
        not dataclasses.is_dataclass(pol)
        or isinstance(pol, type)
        or not pol.__dataclass_params__.frozen  # type: ignore[attr-defined]  # not in the stubs
    ):
        raise TypeError(f"{family} policy: {pol!r} is not a frozen dataclass")
    for f in dataclasses.fields(pol):
        if names is not None and f.name not in names:
            continue
        spec = f.metadata.get("allowed")
        if spec is None:
            raise TypeError(
                f"tuning: {family} policy {type(pol).__name__}: field {f.name} "
                f"declares no allowed values (declare it with policy.knob)"
            )
        value = getattr(pol, f.name)
        if not spec.allows(value):
            raise ValueError(
                f"tuning: {family} policy field {f.name}={value!r} is not allowed: {spec}{where}"
            )
    conflict = getattr(pol, "conflict", None)
    text = conflict() if callable(conflict) else None
    if text:
        raise ValueError(f"tuning: {family} policy {type(pol).__name__}: {text}{where}")


class Table:
    """One family's policies: ``{(arch, selector): policy}``."""

    def __init__(
        self, family: str, entries: Mapping[tuple[str, Hashable], Any], doc: str = ""
    ) -> None:
        self.family, self.doc = family, doc
        self.entries = dict(entries)
        for (arch, sel), pol in self.entries.items():
            if arch != "default" and not (arch.startswith("sm_") and arch[3:].isdigit()):
                raise ValueError(
                    f"{family} policy: architecture {arch!r} is not 'default' or 'sm_XY'"
                )
            check(family, pol, where=f" (table entry {arch}, {sel!r})")
        self.archs = sorted(
            {a for a, _ in self.entries if a != "default"}, key=lambda a: int(a[3:]), reverse=True
        )

    def __repr__(self) -> str:
        lines = [f"{arch}, {sel!r} -> {pol!r}" for (arch, sel), pol in self.entries.items()]
        return f"<tuning table {self.family!r}:\n  " + "\n  ".join(lines) + ">"

    def chain(self, arch: str) -> tuple[str, ...]:
        """The architectures tried for a device of ``arch``, most specific first."""
        if arch == "default":
            return ("default",)
        cc = int(arch[3:])
        return tuple(a for a in self.archs if int(a[3:]) <= cc) + ("default",)

    def policies(self, selector: Hashable = None) -> tuple[Any, ...]:
        """Every policy the table holds for ``selector``, on any architecture (each once, in
        table order): the instantiations a family registers for the NVRTC check."""
        return tuple(dict.fromkeys(p for (_, sel), p in self.entries.items() if sel == selector))

    def lookup(self, selector: Hashable = None, arch: str = "default") -> Any:
        for a in self.chain(arch):
            for sel in (selector, None) if selector is not None else (None,):
                pol = self.entries.get((a, sel))
                if pol is not None:
                    return pol
        selectors = sorted({repr(sel) for _, sel in self.entries})
        raise ValueError(
            f"tuning: {self.family} has no policy for selector {selector!r} on "
            f"{arch}; its selectors: {', '.join(selectors)}"
        )


def register(family: str, entries: Mapping[tuple[str, Hashable], Any], doc: str = "") -> Table:
    """Declare ``family``'s table (see :class:`Table`); returns it."""
    t = _TABLES[family] = Table(family, entries, doc)
    return t


def families() -> tuple[str, ...]:
    return tuple(sorted(_TABLES))


def table(family: str) -> Table:
    t = _TABLES.get(family)
    if t is not None:
        return t
    try:  # a family's earlier name (the registry's aliases: "sort" for "sorting")
        return _TABLES[_registry.aliases()[family]]
    except KeyError:
        raise ValueError(
            f"tuning: no family {family!r}; families with policies: {', '.join(families())}"
        ) from None


def device_arch() -> str:
    """``"sm_XY"`` of the current device, ``"default"`` on the emulator."""
    cc = _backend.get_backend().device_info().compute_capability
    return f"sm_{cc}" if cc.isdigit() else "default"


def current(family: str, selector: Hashable = None, arch: str | None = None) -> Any:
    """The policy in force for ``family`` and ``selector`` on the current device (or ``arch``),
    overrides included."""
    t = table(family)
    pol = t.lookup(selector, device_arch() if arch is None else arch)
    if _overrides:
        family = t.family  # an alias reads its family's overrides
        for fam, sel, new, fields in _overrides:
            if fam != family or (sel is not _ANY and sel != selector):
                continue
            if new is not None:
                pol = new
            elif _has_fields(pol, fields):  # every selector: the policies with these fields
                pol = dataclasses.replace(pol, **fields)
    return pol


def _has_fields(pol: Any, fields: Iterable[str]) -> bool:
    names = {f.name for f in dataclasses.fields(pol)}
    return all(f in names for f in fields)


def generation() -> int:
    """A number that changes whenever an override starts or ends."""
    return _generation


@contextlib.contextmanager
def override(
    family: str, policy: Any = None, *, selector: Hashable = _ANY, **fields: Any
) -> Iterator[Any]:
    """Within the ``with`` block, ``family``'s policy (for ``selector``, or every selector when
    none is named) is ``policy``, or the policy in force with ``fields`` replaced. The values
    are checked first (:func:`check`): one the field does not allow is a ``ValueError``, a field
    no policy has a ``TypeError``, and the block does not start."""
    global _generation
    t = table(family)
    family = t.family  # an alias's table is filed under its family's name
    if policy is not None and fields:
        raise TypeError("override: give a policy or fields to replace, not both")
    if policy is not None:
        check(family, policy)
    if fields:  # fail early on a misspelled field, and on a value its policies do not allow
        pols = [
            (sel, p) for (_, sel), p in t.entries.items() if selector is _ANY or sel == selector
        ]
        if not any(_has_fields(p, fields) for _, p in pols):
            names = sorted({f.name for _, p in pols for f in dataclasses.fields(p)})
            raise TypeError(
                f"override: no {family} policy"
                f"{'' if selector is _ANY else f' for {selector!r}'} has the "
                f"field(s) {sorted(fields)}; fields: {names}"
            )
        several = len({sel for sel, _ in pols}) > 1  # then say which policy refuses the value
        for sel, p in pols:
            if _has_fields(p, fields):
                check(
                    family,
                    dataclasses.replace(p, **fields),
                    fields,
                    f" (the {sel!r} policy)" if several else "",
                )
    entry = (family, selector, policy, fields)
    with _lock:
        _overrides.append(entry)
        _generation += 1
    try:
        shown = current(family, None if selector is _ANY else selector)
    except ValueError:  # a table with no policy for "any selector": nothing to show
        shown = None
    try:
        yield shown
    finally:
        with _lock:
            _overrides.remove(entry)
            _generation += 1
