"""The core's input checks and the kind of the results (primitives._core.checks): a ragged
sequence and string arrays refused as NumPy refuses them, by every family; a DLPack producer's
results in its own library's type (a fake producer here, torch where installed); the caller's
strides kept for the result's layout."""

import sys
import types

import ml_dtypes
import numpy as np
import pytest

import primitives as prim
from primitives._core import checks
from primitives.testing import harness as H

RAGGED = [[1, 2], [3]]


@pytest.mark.parametrize(
    "name, call",
    [
        ("sum", lambda xp: xp.sum(RAGGED)),
        ("mean", lambda xp: xp.mean(RAGGED)),
        ("max", lambda xp: xp.max(RAGGED, axis=0)),
        ("argmax", lambda xp: xp.argmax(RAGGED)),
        ("cumsum", lambda xp: xp.cumsum(RAGGED)),
    ],
)
def test_ragged_is_numpys_value_error(name, call):
    got = H.run_twins(call, name=name)
    assert "inhomogeneous shape" in str(got.exc)


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "any", "all", "argmax"])
@pytest.mark.parametrize(
    "x",
    [np.array(["a", "b"]), np.array([b"a", b"b"]), ["a", "b"]],
    ids=["unicode", "bytes", "list"],
)
def test_strings_are_type_errors(name, x):
    """NumPy's TypeError (UFuncTypeError) for the arithmetic; any, all and argmax, which NumPy
    computes on strings, have no kernels for them here: a TypeError too."""
    with pytest.raises(TypeError, match=name):
        getattr(prim, name)(x)
    if name not in ("any", "all", "argmax"):
        with pytest.raises(TypeError):
            getattr(np, name)(x)


def test_object_strings_are_type_errors():
    with pytest.raises(TypeError, match="sum"):
        prim.sum(np.array(["a", "b"], dtype=object))


def test_not_an_array():
    with pytest.raises(TypeError, match="sum: x must be an array"):
        prim.sum("ab")


# ---- the caller's kind: a DLPack producer whose library reads DLPack back --------------------


class FakeArray(H.DLPackOnly):
    """A host DLPack producer of a library ``fakearrays`` that has ``from_dlpack``."""


FakeArray.__module__ = "fakearrays.core"


class Opaque(FakeArray):
    """A DLPack producer whose library has no ``from_dlpack``: its results are NumPy's."""


Opaque.__module__ = "opaquearrays"


@pytest.fixture
def fake_library(monkeypatch):
    mod = types.ModuleType("fakearrays")
    mod.from_dlpack = lambda obj: FakeArray(np.from_dlpack(obj))
    monkeypatch.setitem(sys.modules, "fakearrays", mod)
    monkeypatch.setitem(sys.modules, "opaquearrays", types.ModuleType("opaquearrays"))


def test_dlpack_producer_gets_its_own_type(fake_library):
    x = np.arange(12.0).reshape(3, 4)
    whole = prim.sum(FakeArray(x))
    assert isinstance(whole, FakeArray) and whole.a.shape == ()
    assert whole.a[()] == x.sum()
    along = prim.max(FakeArray(x), axis=0)
    assert isinstance(along, FakeArray)
    H.assert_same(along.a, x.max(axis=0))
    idx = prim.argmax(FakeArray(x), axis=1)
    assert isinstance(idx, FakeArray)
    H.assert_same(idx.a, x.argmax(axis=1))


_R = np.random.default_rng(7)
_X = _R.random(300).astype(np.float32)
_K = _R.integers(0, 40, 300).astype(np.int32)
_OFFSETS = np.arange(0, 301, 50)
#: name -> (its call on arrays made by ``a`` from NumPy arrays): every family's functions
RETURNING = {
    "sort": lambda a: prim.sort(a(_X)),
    "argsort": lambda a: prim.argsort(a(_X)),
    "sort along an axis": lambda a: prim.sort(a(_X.reshape(6, 50)), axis=1),
    "lexsort": lambda a: prim.lexsort((a(_X), a(_K))),
    "radix_sort": lambda a: prim.radix_sort(a(_K)),
    "segmented_sort": lambda a: prim.segmented_sort(a(_X), a(_OFFSETS)),
    "topk": lambda a: prim.topk(a(_X), 5),
    "partition": lambda a: prim.partition(a(_X), 7),
    "argpartition": lambda a: prim.argpartition(a(_X), 7),
    "median": lambda a: prim.median(a(_X.reshape(6, 50)), axis=1),
    "quantile": lambda a: prim.quantile(a(_X), 0.3),
    "unique": lambda a: prim.unique(a(_K), return_index=True, return_counts=True),
    "searchsorted": lambda a: prim.searchsorted(a(np.sort(_X)), a(_X[:9])),
    "searchsorted of a 0-d query": lambda a: prim.searchsorted(
        a(np.sort(_X)), a(np.asarray(_X[4]))
    ),
    "unique's inverse of a 2-D x": lambda a: prim.unique(a(_K.reshape(6, 50)), return_inverse=True),
    "inclusive_scan along axis 1": lambda a: prim.inclusive_scan(a(_X.reshape(6, 50)), axis=1),
    "compact": lambda a: prim.compact(a(_X), a(_X > 0.5)),
    "compact_indices": lambda a: prim.compact_indices(a(_X > 0.5)),
    "cumsum": lambda a: prim.cumsum(a(_X.reshape(6, 50)), axis=0),
    "histogram": lambda a: prim.histogram(a(_X), 10),
    "histogram2d": lambda a: prim.histogram2d(a(_X), a(_X[::-1].copy()), 4),
    "bincount": lambda a: prim.bincount(a(_K)),
    "segmented_reduce": lambda a: prim.segmented_reduce(a(_X), a(_OFFSETS)),
    "segmented_scan": lambda a: prim.segmented_scan(a(_X), offsets=a(_OFFSETS)),
    "reduce_by_key": lambda a: prim.reduce_by_key(a(np.sort(_K)), a(_X)),
    "run_length_encode": lambda a: prim.run_length_encode(a(np.sort(_K))),
    "var": lambda a: prim.var(a(_X.reshape(6, 50)), axis=1),
    "nanmax": lambda a: prim.nanmax(a(_X)),
    # a 1-D producer without a shape of its own is no 0-d array (argmin reshaped it to ())
    "argmin": lambda a: prim.argmin(a(_X)),
    "argmax along an axis": lambda a: prim.argmax(a(_X.reshape(6, 50)), axis=1),
    # the bin edges of another library (NumPy's asarray reads a producer as an object)
    "histogram of edges": lambda a: prim.histogram(a(_X), a(np.array([0.0, 0.25, 0.6, 1.0]))),
    "histogramdd of edges": lambda a: _flat(
        prim.histogramdd(a(np.stack([_X, _X[::-1]], 1)), [a(np.array([0.0, 0.5, 1.0])), 3])
    ),
}


def _flat(res):
    """histogramdd's ``(hist, [edges, ...])`` as one tuple of arrays."""
    hist, edges = res
    return (hist, *edges)


@pytest.mark.parametrize("name", sorted(RETURNING))
def test_every_family_returns_the_producers_type(fake_library, name):
    """Each result array of each family (sorts, selections, sets, searches, histograms'
    counts and edges, ...) goes back as the DLPack producer's own type, equal to the result of
    the same call on NumPy arrays."""
    got, want = RETURNING[name](FakeArray), RETURNING[name](np.asarray)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, FakeArray), (name, type(g))
        H.assert_same(g.a, w)


def test_dlpack_producer_without_from_dlpack_gets_numpy(fake_library):
    x = np.arange(6.0)
    got = prim.sum(Opaque(x))
    assert isinstance(got, np.float64) and got == 15.0


class FakeTensor:
    """A host tensor of a library ``faketensors`` (as torch's): its bits (``a``) and a dtype of
    its own; NumPy's DLPack cannot read its bfloat16 tensors (none in NumPy), which it views as
    int16 (``view``, as ``torch.Tensor.view(dtype)``)."""

    def __init__(self, a, dtype):
        self.a, self.dtype = a, dtype

    def __dlpack__(self, **kwargs):
        if self.dtype in ("faketensors.bfloat16", "faketensors.float8"):
            raise BufferError(f"{self.dtype} is not a DLPack dtype NumPy reads")
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()

    def view(self, dtype):
        return FakeTensor(self.a.view(np.int16), dtype)


FakeTensor.__module__ = "faketensors"


def test_bfloat16_host_tensor_through_its_bits(monkeypatch):
    """A host bfloat16 tensor of a library whose DLPack NumPy cannot read is read through its
    int16 view as bfloat16, and results of bfloat16 go back as the library's bfloat16 tensors
    (through their int16 bits), others as they are."""
    bf16 = np.dtype(ml_dtypes.bfloat16)
    mod = types.ModuleType("faketensors")
    mod.int16, mod.bfloat16 = "faketensors.int16", "faketensors.bfloat16"
    mod.from_dlpack = lambda obj: FakeTensor(np.from_dlpack(obj), "faketensors.from_dlpack")
    monkeypatch.setitem(sys.modules, "faketensors", mod)
    x = np.array([3.0, -1.5, np.nan, 0.25], bf16)
    t = FakeTensor(x.view(np.int16), "faketensors.bfloat16")
    got = prim.cumsum(t)
    assert isinstance(got, FakeTensor) and got.dtype == "faketensors.bfloat16"
    H.assert_same(got.a.view(bf16).astype(np.float32), np.cumsum(x).astype(np.float32))
    ordered = prim.sort(t)  # the caller's type, as every family returns it
    assert isinstance(ordered, FakeTensor) and ordered.dtype == "faketensors.bfloat16"
    H.assert_same(ordered.a, np.sort(x).view(np.int16))
    whole = prim.max(FakeTensor(x[[0, 1, 3]].view(np.int16), mod.bfloat16))
    assert isinstance(whole, FakeTensor) and whole.dtype == mod.bfloat16
    assert whole.a.shape == () and whole.a.view(bf16) == 3.0
    idx = prim.searchsorted(t, FakeTensor(x[:2].view(np.int16), mod.bfloat16))
    H.assert_same(H.to_host(getattr(idx, "a", idx)), np.searchsorted(x, x[:2]))
    with pytest.raises(BufferError):  # a dtype that is not bfloat16: DLPack's own error
        prim.sum(FakeTensor(x.view(np.int16), "faketensors.float8"))


def test_input_keeps_strides():
    x = np.asfortranarray(np.ones((2, 3)))
    inp = checks.as_input(x, func="f", arg="x", keep_f=True)
    assert inp.axis_order(2) == (1, 0)
    assert checks.as_input([[1, 2]], func="f", arg="x").axis_order(2) == (0, 1)


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    t = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4)
    whole = prim.sum(t)
    assert isinstance(whole, torch.Tensor) and whole.ndim == 0 and whole.device.type == "cpu"
    assert whole.item() == 276.0
    along = prim.mean(t, axis=(0, 2))
    assert isinstance(along, torch.Tensor)
    np.testing.assert_array_equal(along.numpy(), t.numpy().mean(axis=(0, 2)))
    assert isinstance(prim.argmin(t), torch.Tensor)
    assert prim.any(t > 30).item() is False


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64])
def test_zero_d_negative_zero(dt, monkeypatch):
    """A 0-d host array goes to the device bit for bit (-0.0 keeps its sign: CuPy's own 0-d
    conversion fills, and a fill of -0.0 writes zeros; a stand-in CuPy that does so here), and
    comes back so through the functions that return it (sort of the flattened array, max)."""
    neg = np.array(-0.0, dt) if np.dtype(dt).kind == "f" else np.array(complex(-0.0, -0.0), dt)

    def asarray(a, order=None):
        a = np.asarray(a)
        if a.ndim == 0 and a == 0:  # CuPy's fill: zeros for any value equal to 0
            return np.zeros((), a.dtype)
        return np.array(a, order=order or "K")

    fake = types.ModuleType("cupy")
    fake.asarray = asarray
    with monkeypatch.context() as mp:
        mp.setitem(sys.modules, "cupy", fake)
        assert np.signbit(checks.to_device(neg).real)
        assert np.signbit(checks.to_device(neg.reshape(1), "C").real).all()
    u = f"u{np.dtype(dt).itemsize}"
    for desc in (False, True):
        got = H.to_host(prim.sort(neg, axis=None, descending=desc))
        assert got.shape == (1,) and got.view(u)[0] == neg.reshape(1).view(u)[0]
    if np.dtype(dt).kind == "f":
        assert np.signbit(H.to_host(prim.max(neg)))
