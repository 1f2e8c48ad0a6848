"""The one registry of families: what the tour, ``tools/figures``, the docs' API tables, the asv
suite and the tests iterate over. A new family is registered here, in one place.
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any

__all__ = ["Family", "FAMILIES", "family", "names"]


@dataclasses.dataclass(frozen=True)
class Family:
    name: str  # the family's name (tour ``--family``, tools/figures ``--family``)
    package: str  # the package holding its public API and ``VARIANTS``
    functions: tuple[str, ...]  # its public functions (names in ``primitives``)
    tour: str  # the module of its tour sections: ``sections(gpu, log2n)``
    figures: str | None  # its module under tools/figures/, or None
    benchmarks: str | None  # its module under asv_bench/benchmarks/, or None
    doc: str | None  # its docs page (docs/<doc>.rst), or None

    def api(self) -> ModuleType:
        return importlib.import_module(self.package)

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
    Family("spmv", "primitives.sparse", ("spmv",), "primitives.tour.spmv", "spmv", "spmv", "spmv"),
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
        "histogram",
        "primitives.histograms",
        (
            "histogram",
            "bincount",
            "histogram_even",
            "histogram_channels",
            "histogram2d",
            "histogramdd",
        ),
        "primitives.tour.histogram",
        "histogram",
        "histogram",
        "histogram",
    ),
    Family(
        "sort",
        "primitives.sorting",
        ("sort", "argsort", "radix_sort", "segmented_sort"),
        "primitives.tour.sort",
        "sort",
        "sort",
        "sort",
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
        ("topk", "argpartition", "partition"),
        "primitives.tour.selection",
        "selection",
        "selection",
        "selection",
    ),
    Family(
        "search",
        "primitives.searching",
        ("searchsorted",),
        "primitives.tour.search",
        "search",
        "search",
        "search",
    ),
)


def names() -> tuple[str, ...]:
    return tuple(f.name for f in FAMILIES)


def family(name: str) -> Family:
    for f in FAMILIES:
        if f.name == name:
            return f
    raise ValueError(f"no family {name!r}; families: {', '.join(names())}")
