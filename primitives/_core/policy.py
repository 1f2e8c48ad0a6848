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

Provenance: each tuned value carries one comment line in its family's table (what it was
measured against, on what device); the history of experiments is in docs/perf-log/.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading

from . import backend as _backend

__all__ = ["Table", "register", "current", "table", "families", "override", "generation",
           "device_arch"]

_TABLES = {}
_overrides = []  # [(family, selector or _ANY, policy or None, fields)], last wins
_lock = threading.Lock()
_generation = 0
_ANY = object()


class Table:
    """One family's policies: ``{(arch, selector): policy}``."""

    def __init__(self, family, entries, doc=""):
        self.family, self.doc = family, doc
        self.entries = dict(entries)
        for (arch, _), pol in self.entries.items():
            if arch != "default" and not (arch.startswith("sm_") and arch[3:].isdigit()):
                raise ValueError(f"{family} policy: architecture {arch!r} is not 'default' or "
                                 f"'sm_XY'")
            if not dataclasses.is_dataclass(pol) or not pol.__dataclass_params__.frozen:
                raise TypeError(f"{family} policy: {pol!r} is not a frozen dataclass")
        self.archs = sorted({a for a, _ in self.entries if a != "default"},
                            key=lambda a: int(a[3:]), reverse=True)

    def chain(self, arch):
        """The architectures tried for a device of ``arch``, most specific first."""
        if arch == "default":
            return ("default",)
        cc = int(arch[3:])
        return tuple(a for a in self.archs if int(a[3:]) <= cc) + ("default",)

    def policies(self, selector=None):
        """Every policy the table holds for ``selector``, on any architecture (each once, in
        table order): the instantiations a family registers for the NVRTC check."""
        return tuple(dict.fromkeys(p for (_, sel), p in self.entries.items() if sel == selector))

    def lookup(self, selector=None, arch="default"):
        for a in self.chain(arch):
            for sel in ((selector, None) if selector is not None else (None,)):
                pol = self.entries.get((a, sel))
                if pol is not None:
                    return pol
        selectors = sorted({repr(sel) for _, sel in self.entries})
        raise ValueError(f"tuning: {self.family} has no policy for selector {selector!r} on "
                         f"{arch}; its selectors: {', '.join(selectors)}")


def register(family, entries, doc=""):
    """Declare ``family``'s table (see :class:`Table`); returns it."""
    t = _TABLES[family] = Table(family, entries, doc)
    return t


def families():
    return tuple(sorted(_TABLES))


def table(family):
    try:
        return _TABLES[family]
    except KeyError:
        raise ValueError(f"tuning: no family {family!r}; families with policies: "
                         f"{', '.join(families())}") from None


def device_arch():
    """``"sm_XY"`` of the current device, ``"default"`` on the emulator."""
    cc = _backend.get_backend().device_info().compute_capability
    return f"sm_{cc}" if cc.isdigit() else "default"


def current(family, selector=None, arch=None):
    """The policy in force for ``family`` and ``selector`` on the current device (or ``arch``),
    overrides included."""
    pol = table(family).lookup(selector, device_arch() if arch is None else arch)
    if _overrides:
        for fam, sel, new, fields in _overrides:
            if fam != family or (sel is not _ANY and sel != selector):
                continue
            if new is not None:
                pol = new
            elif _has_fields(pol, fields):  # every selector: the policies with these fields
                pol = dataclasses.replace(pol, **fields)
    return pol


def _has_fields(pol, fields):
    names = {f.name for f in dataclasses.fields(pol)}
    return all(f in names for f in fields)


def generation():
    """A number that changes whenever an override starts or ends."""
    return _generation


@contextlib.contextmanager
def override(family, policy=None, *, selector=_ANY, **fields):
    """Within the ``with`` block, ``family``'s policy (for ``selector``, or every selector when
    none is named) is ``policy``, or the policy in force with ``fields`` replaced."""
    global _generation
    t = table(family)
    if policy is not None and fields:
        raise TypeError("override: give a policy or fields to replace, not both")
    if fields:  # fail early on a misspelled field
        pols = [p for (_, sel), p in t.entries.items() if selector is _ANY or sel == selector]
        if not any(_has_fields(p, fields) for p in pols):
            names = sorted({f.name for p in pols for f in dataclasses.fields(p)})
            raise TypeError(f"override: no {family} policy"
                            f"{'' if selector is _ANY else f' for {selector!r}'} has the "
                            f"field(s) {sorted(fields)}; fields: {names}")
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
