"""The one registry of families: what the tour, ``tools/figures``, the docs' API tables, the asv
suite and the tests iterate over. A new family is registered here, in one place.
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any

__all__ = ["Family", "FAMILIES", "aliases", "family", "names"]


@dataclasses.dataclass(frozen=True)
class Family:
    """One family. Its name is its package's last component, and the name of its module in every
    layer: ``primitives/tour/<name>.py``, ``tools/figures/<name>.py``,
    ``asv_bench/benchmarks/<name>.py``, ``docs/<name>.rst`` (a family measured by another's
    module names that one: compaction and segmented are measured and documented with scan), and
    its workloads, ``primitives/testing/workloads/<name>.py``."""

    name: str  # the family's name (tour ``--family``, tools/figures ``--family``)
    package: str  # the package holding its public API and ``VARIANTS``: primitives.<name>
    functions: tuple[str, ...]  # its public functions (names in ``primitives``)
    tour: str  # the module of its tour sections: ``sections(gpu, log2n)``
    figures: str | None  # its module under tools/figures/, or None
    benchmarks: str | None  # its module under asv_bench/benchmarks/, or None
    doc: str | None  # its docs page (docs/<doc>.rst), or None
    aliases: tuple[str, ...] = ()  # the names it had before, which ``family`` still takes

    def api(self) -> ModuleType:
        return importlib.import_module(self.package)

    def workloads(self) -> ModuleType:
        """Its workloads, which the tour, the figures and the asv suite read:
        ``primitives/testing/workloads/<name>.py``."""
        return importlib.import_module(f"primitives.testing.workloads.{self.name}")

    def variants(self) -> tuple[str, ...]:
        return getattr(self.api(), "VARIANTS", ())

    def tour_sections(self, gpu: bool, log2n: int | None = None) -> list[Any]:
        return importlib.import_module(self.tour).sections(gpu, log2n)


FAMILIES = (
    Family(
        "reduction",
        "primitives.reduction",
        ("reduce", "sum", "min", "max", "mean", "any", "all", "prod", "argmin", "argmax"),
        "primitives.tour.reduction",
        "reduction",
        "reduction",
        "reduction",
    ),
    Family(
        "sparse",
        "primitives.sparse",
        ("spmv",),
        "primitives.tour.sparse",
        "sparse",
        "sparse",
        "sparse",
        aliases=("spmv",),
    ),
    Family(
        "scan",
        "primitives.scan",
        ("inclusive_scan", "exclusive_scan", "cumsum", "cumprod"),
        "primitives.tour.scan",
        "scan",
        "scan",
        "scan",
    ),
    Family(
        "compaction",
        "primitives.compaction",
        ("compact", "compact_indices"),
        "primitives.tour.compaction",
        None,
        "scan",
        "scan",
    ),
    Family(
        "segmented",
        "primitives.segmented",
        ("segmented_scan", "segmented_reduce"),
        "primitives.tour.segmented",
        None,
        "scan",
        "scan",
    ),
    Family(
        "histograms",
        "primitives.histograms",
        (
            "histogram",
            "bincount",
            "histogram_even",
            "histogram_channels",
            "histogram2d",
            "histogramdd",
        ),
        "primitives.tour.histograms",
        "histograms",
        "histograms",
        "histograms",
        aliases=("histogram",),
    ),
    Family(
        "sorting",
        "primitives.sorting",
        ("sort", "argsort", "lexsort", "radix_sort", "segmented_sort"),
        "primitives.tour.sorting",
        "sorting",
        "sorting",
        "sorting",
        aliases=("sort",),
    ),
    Family(
        "sets",
        "primitives.sets",
        ("unique", "run_length_encode", "reduce_by_key"),
        "primitives.tour.sets",
        "sets",
        "sets",
        "sets",
    ),
    Family(
        "selection",
        "primitives.selection",
        (
            "topk",
            "argpartition",
            "partition",
            "median",
            "nanmedian",
            "quantile",
            "nanquantile",
            "percentile",
            "nanpercentile",
        ),
        "primitives.tour.selection",
        "selection",
        "selection",
        "selection",
    ),
    Family(
        "searching",
        "primitives.searching",
        ("searchsorted",),
        "primitives.tour.searching",
        "searching",
        "searching",
        "searching",
        aliases=("search",),
    ),
    Family(
        "statistics",
        "primitives.statistics",
        (
            "nansum",
            "nanprod",
            "nanmin",
            "nanmax",
            "nanargmin",
            "nanargmax",
            "nanmean",
            "nancumsum",
            "nancumprod",
            "var",
            "std",
            "nanvar",
            "nanstd",
            "ptp",
            "count_nonzero",
            "average",
        ),
        "primitives.tour.statistics",
        "statistics",
        "statistics",
        "statistics",
    ),
)


def names() -> tuple[str, ...]:
    return tuple(f.name for f in FAMILIES)


def aliases() -> dict[str, str]:
    """The families' earlier names: ``{alias: name}``."""
    return {a: f.name for f in FAMILIES for a in f.aliases}


def family(name: str) -> Family:
    """The family ``name``, or the one that had that name before (``"sort"``: sorting)."""
    name = aliases().get(name, name)
    for f in FAMILIES:
        if f.name == name:
            return f
    raise ValueError(f"no family {name!r}; families: {', '.join(names())}")
