"""The family registry is the one list the tour, tools/figures, the asv suite and the docs read:
every entry must point at things that exist, and every public function at a planned function."""

import importlib
import pathlib

import numpy as np
import pytest

import primitives as prim
from primitives._core import registry
from primitives.testing import harness as H

ROOT = pathlib.Path(__file__).resolve().parents[2]
FAMILIES = [f.name for f in registry.FAMILIES]


@pytest.mark.parametrize("name", FAMILIES)
def test_entry_points_at_what_exists(name):
    fam = registry.family(name)
    api = fam.api()
    assert isinstance(fam.variants(), tuple)
    for fn in fam.functions:
        assert getattr(prim, fn) is getattr(api, fn), f"prim.{fn} is not {fam.package}.{fn}"
        assert fn in prim.__all__
        assert callable(getattr(prim, fn).plan), f"prim.{fn} has no .plan"
    assert callable(importlib.import_module(fam.tour).sections)
    # one name in every layer: the package's last component
    assert fam.package == f"primitives.{name}" and fam.tour == f"primitives.tour.{name}"
    for module in (fam.figures, fam.benchmarks, fam.doc):
        assert module in (name, "scan", None), module  # compaction and segmented: scan's
    if fam.figures:
        assert (ROOT / "tools" / "figures" / f"{fam.figures}.py").is_file()
    if fam.benchmarks:
        assert (ROOT / "asv_bench" / "benchmarks" / f"{fam.benchmarks}.py").is_file()
    if fam.doc:
        assert (ROOT / "docs" / f"{fam.doc}.rst").is_file()


def test_every_public_function_is_registered():
    registered = {fn for f in registry.FAMILIES for fn in f.functions}
    functions = {
        n for n in prim.__all__ if callable(getattr(prim, n)) and hasattr(getattr(prim, n), "plan")
    }
    assert functions == registered


def test_unknown_family():
    with pytest.raises(ValueError, match="no family 'nope'"):
        registry.family("nope")


def test_earlier_names():
    """The names the families had before they took their packages' still find them."""
    assert registry.aliases() == {
        "spmv": "sparse",
        "histogram": "histograms",
        "sort": "sorting",
        "search": "searching",
    }
    for alias, name in registry.aliases().items():
        assert registry.family(alias) is registry.family(name)
        assert alias not in registry.names()


@pytest.mark.parametrize("name", FAMILIES)
def test_every_family_has_a_policy_table(name):
    """Tuning is data: each family's package registers its policies (primitives.tuning)."""
    fam = registry.family(name)
    fam.api()
    assert name in prim.tuning.families()


#: the most lines a module of primitives/ may have
MAX_MODULE_LINES = 650


def test_no_module_exceeds_650_lines():
    big = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "primitives").rglob("*.py")
        if len(p.read_text().splitlines()) > MAX_MODULE_LINES
    ]
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_every_package_is_installed():
    """setup.py finds every folder of primitives/ holding modules (a non-editable install leaves
    out any it does not find), and nothing else."""
    import runpy

    listed = set(runpy.run_path(str(ROOT / "setup.py"), run_name="probe")["PACKAGES"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "primitives").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert listed == found


_EXTRA = {  # the arguments after the first that each function needs to reach its checks
    "spmv": lambda: (np.ones(3),),
    "segmented_reduce": lambda: (np.array([0, 4]),),
    "segmented_sort": lambda: (np.array([0, 4]),),
    "compact": lambda: (np.ones(4, bool),),
    "histogram_even": lambda: (4, 0, 1),
    "histogram2d": lambda: (np.ones(4),),
    "searchsorted": lambda: (np.ones(3),),
    "topk": lambda: (1,),
    "argpartition": lambda: (1,),
    "partition": lambda: (1,),
    "reduce_by_key": lambda: (np.ones(4),),
    "quantile": lambda: (0.5,),
    "nanquantile": lambda: (0.5,),
    "percentile": lambda: (50,),
    "nanpercentile": lambda: (50,),
}


@pytest.mark.parametrize("fn", [fn for f in registry.FAMILIES for fn in f.functions])
@pytest.mark.parametrize("bad", [object(), np.ones(4, np.complex64)], ids=["object", "complex64"])
def test_errors_name_the_function_called(fn, bad):
    """Every public function refuses a non-array and an unsupported dtype with a TypeError that
    starts with its own name (``sum: ...``, not the name of the function it calls)."""
    kwargs = {"offsets": np.array([0, 4])} if fn == "segmented_scan" else {}
    if fn in _TAKES_COMPLEX and isinstance(bad, np.ndarray):  # a dtype they refuse instead
        bad = np.array(["a", "b", "c", "d"])
    H.raises_like(TypeError, fn, getattr(prim, fn), bad, *_EXTRA.get(fn, tuple)(), **kwargs)


#: the functions that take complex input (NumPy's complex sums, products, means and scans;
#: compaction moves complex elements; the statistics family's sums, means, spreads and counts)
_TAKES_COMPLEX = {
    "reduce",
    "sum",
    "prod",
    "mean",
    "inclusive_scan",
    "exclusive_scan",
    "cumsum",
    "cumprod",
    "compact",
    "nansum",
    "nanprod",
    "nanmean",
    "nancumsum",
    "nancumprod",
    "var",
    "std",
    "nanvar",
    "nanstd",
    "count_nonzero",
    "average",
    # NumPy's complex order: reductions, sorts, search, unique, median
    "min",
    "max",
    "argmin",
    "argmax",
    "any",
    "all",
    "sort",
    "argsort",
    "lexsort",
    "unique",
    "searchsorted",
    "median",
    "nanmedian",
    "partition",
    "argpartition",
    "nanmin",
    "nanmax",
    "nanargmin",
    "nanargmax",
    "ptp",
}
