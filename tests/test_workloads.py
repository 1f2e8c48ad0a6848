"""One workload spec per family (primitives/testing/workloads/<family>.py), read by the tour, the
figures and the asv suite, which spell no workload of their own: every registered family has a
spec, each tool's module of the family imports it, and none of them holds a size of its own."""

import ast
import dataclasses
import pathlib
import re

import numpy as np
import pytest

from primitives._core import registry
from primitives.testing import matrices, workloads
from primitives.testing.workloads import Workload, make, pow2

from tests.conftest import load_benchmark

ROOT = pathlib.Path(__file__).resolve().parent.parent
FAMILIES = [f.name for f in registry.FAMILIES]
#: the peers a workload may name
PEERS = {"cupy", "cub", "torch", "cusparse"}


def _specs(name):
    return {
        k: v for k, v in vars(registry.family(name).workloads()).items() if isinstance(v, Workload)
    }


def _tools(fam):
    """The tour's, the figures' and the asv suite's modules of ``fam``: (path, kind)."""
    yield ROOT / "primitives" / "tour" / f"{fam.name}.py", "import"
    yield ROOT / "tools" / "figures" / f"{fam.figures or 'scan'}.py", "import"
    yield ROOT / "asv_bench" / "benchmarks" / f"{fam.benchmarks}.py", "call"


def _reads_spec(tree, name, kind):
    """Whether a module imports the spec ``name`` (``from primitives.testing.workloads import
    name``) or, for the asv suite, loads it (``workloads("name")``)."""
    for node in ast.walk(tree):
        if kind == "import" and isinstance(node, ast.ImportFrom):
            if node.module == "primitives.testing.workloads" and name in {
                a.name for a in node.names
            }:
                return True
        if kind == "call" and isinstance(node, ast.Call):
            if getattr(node.func, "id", None) == "workloads" and [
                getattr(a, "value", None) for a in node.args
            ] == [name]:
                return True
    return False


def _sizes(tree, source):
    """Sizes spelled out in a module: ``1 << k`` and ``2**k`` from 2^21 up, integers from 2^21
    up, and the tour's old ``log2n or 28`` defaults."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant):
            left, right = getattr(node.left, "value", None), node.right.value
            if (
                isinstance(right, int)
                and right >= 21
                and (
                    (isinstance(node.op, ast.LShift) and left == 1)
                    or (isinstance(node.op, ast.Pow) and left == 2)
                )
            ):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 2**21:
            found.append(f"line {node.lineno}: {node.value}")
    found += [f"log2n default: {m.group(0)}" for m in re.finditer(r"log2n or \(?\d+", source)]
    return found


@pytest.mark.parametrize("name", FAMILIES)
def test_every_family_has_a_spec(name):
    specs = _specs(name)
    assert specs, f"primitives/testing/workloads/{name}.py defines no Workload"
    for key, w in specs.items():
        if not w.params.get("scale"):  # the sparse matrices: sized by their scale
            assert w.n > 0 and all(n > 0 for n in w.sweep()), key
            assert not w.small or w.small <= (w.tour or w.n), key
        assert set(w.peers) <= PEERS, (key, w.peers)
        for dtype in w.dtypes:
            np.dtype(dtype)
        if w.variants is not None:
            assert set(w.variants) <= set(registry.family(name).variants()) | {"auto"}, key


@pytest.mark.parametrize("name", FAMILIES)
def test_the_tools_read_the_spec_and_spell_no_size(name):
    """The tour's, the figures' and the asv suite's modules of the family import its spec (the
    figures and the asv suite measure compaction and segmented in scan's modules) and spell out
    no size: every size they measure is the spec's."""
    for path, kind in _tools(registry.family(name)):
        source = path.read_text()
        tree = ast.parse(source)
        assert _reads_spec(tree, name, kind), (
            f"{path.relative_to(ROOT)} does not read {name}'s spec"
        )
        assert not _sizes(tree, source), f"{path.relative_to(ROOT)}: {_sizes(tree, source)}"


def test_the_spec_imports_nothing_of_the_package():
    """The asv suite loads the specs from this tree by their path, under older commits' package:
    they import NumPy and the standard library alone."""
    allowed = {"__future__", "dataclasses", "typing", "numpy", "skimage"}
    for path in (ROOT / "primitives" / "testing" / "workloads").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                names = set() if node.level else {node.module.split(".")[0]}
            else:
                continue
            assert names <= allowed, (path.name, names)


def test_the_asv_suite_reads_the_same_specs():
    common = load_benchmark("_common")
    for name in FAMILIES:
        theirs = {
            k: v
            for k, v in vars(common.workloads(name)).items()
            if dataclasses.is_dataclass(v) and not isinstance(v, type)
        }
        assert {k: dataclasses.asdict(v) for k, v in theirs.items()} == {
            k: dataclasses.asdict(v) for k, v in _specs(name).items()
        }


def test_sparse_suite_is_the_matrix_suite():
    assert registry.family("sparse").workloads().SUITE.params["matrices"] == matrices.SUITE


def test_make():
    for dtype in ("float32", "float64", "int8", "int32", "uint32", "bool"):
        assert make("positive", 1000, dtype).all()  # never zero
    x = make("unit", (4, 250), "float32")
    assert x.shape == (4, 250) and 0 <= x.min() and x.max() < 1
    assert make("unit", 10000, "uint8").max() > 250
    bits = make("bits", 10000, "uint32")
    assert bits.max() > 2**31 and bits.dtype == np.uint32
    assert (make("equal", 10, "uint8") == 77).all()
    runs = make("runs", 10000, "int32")
    assert runs[0] == 1 and (np.diff(runs) >= 0).all() and 400 < runs[-1] < 900
    near = make("near1", 1000, "float64")
    assert np.abs(near - 1).max() <= 5e-10
    assert set(np.unique(make("distinct", 1000, "uint32", distinct=4))) == {1, 2, 3, 4}
    assert make("lengths", 1000, "int64", max_len=3).max() == 3
    with pytest.raises(ValueError, match="no data"):
        make("nope", 4)
    assert make("positive", 4, xp=np).dtype == np.float32
    c = make("bits", (3, 500), "complex64")  # both parts drawn, of the half-size float
    assert c.shape == (3, 500) and c.dtype == np.complex64
    assert np.unique(c.real).size == 1500 and np.unique(c.imag).size == 1500
    assert (make("positive", 100, "complex128").real >= 0.5).all()


def test_sizes():
    w = Workload(n=2**20, small=2**10, tour=2**18)
    assert (w.size(True), w.size(False), w.size(True, 8), w.size(False, 8)) == (
        2**18,
        2**10,
        256,
        256,
    )
    assert w.sweep() == (2**20,) and Workload(n=4, sizes=(2, 4)).sweep() == (2, 4)
    assert (pow2(2**26), pow2(1), pow2(10_000)) == ("2^26", "2^0", "10000")
    assert workloads.__all__


def test_key_distributions():
    """The sort's key-distribution suite: each distribution its dtype, its size and its digits'
    skew (the largest byte value's share in each byte of the keys)."""
    from primitives.testing.workloads import sorting

    n = 1 << 15
    names = sorting.DISTRIBUTIONS.params["names"]
    assert len(set(names)) == len(names) == 12
    share = {}
    for i, name in enumerate(names):
        k = sorting.distribution(name, n, np, seed=i)
        assert k.shape == (n,) and k.flags.c_contiguous, name
        want = "float32" if name.startswith("float32") else "uint64" if "64" in name else "uint32"
        assert k.dtype == want, name
        b = k.view(np.uint8).reshape(n, k.itemsize)
        share[name] = [np.bincount(b[:, j], minlength=256).max() / n for j in range(k.itemsize)]
    assert all(s < 0.01 for s in share["uniform uint32"] + share["uint64 uniform"])
    assert all(abs(s - 0.344) < 0.02 for s in share["each bit set with p = 1/8"])  # (7/8)^8
    assert all(abs(s - 0.100) < 0.01 for s in share["each bit set with p = 1/4"])  # (3/4)^8
    assert share["all equal"] == [1.0] * 4
    assert share["Zipf(1.2)"][3] > 0.9 and share["Zipf(1.2)"][0] < 0.3
    k = sorting.distribution("256 distinct", n, np)
    assert np.unique(k).size == 256 and max(share["256 distinct"]) < 0.02
    s = sorting.distribution("sorted", n, np)
    assert (np.diff(s.astype(np.int64)) >= 0).all()
    assert (np.diff(sorting.distribution("reversed", n, np).astype(np.int64)) <= 0).all()
    near = sorting.distribution("nearly sorted (1% replaced)", n, np)
    assert 0 < (np.diff(near.astype(np.int64)) < 0).sum() <= 2 * (n // 100)
    f = sorting.distribution("float32 uniform [0, 1)", n, np)
    assert f.min() >= 0 and f.max() < 1
    with pytest.raises(ValueError, match="no key distribution"):
        sorting.distribution("gaussian", n, np)


def test_query_orders():
    """searchsorted's query orders: each a permutation of the queries, the input unchanged;
    sorted ascending; nearly sorted with at most 2% descents (one query in 100 swapped with one
    1 to 63 places on), the same for the same seed; an unknown order a ValueError."""
    from primitives.testing.workloads import searching

    v = np.random.default_rng(3).random(1 << 14, dtype=np.float32)
    keep = v.copy()
    got = {order: searching.ordered(np, v, order) for order in searching.ORDERS}
    assert (v == keep).all()
    for order, q in got.items():
        assert q is not v and (np.sort(q) == np.sort(v)).all(), order
    assert (got["random"] == v).all()
    assert (np.diff(got["sorted"]) >= 0).all()
    descents = (np.diff(got["nearly sorted"]) < 0).sum()
    assert 0 < descents <= 2 * (v.size // 100)
    assert (searching.ordered(np, v, "nearly sorted") == got["nearly sorted"]).all()
    with pytest.raises(ValueError, match="order must be one of"):
        searching.ordered(np, v, "shuffled")
