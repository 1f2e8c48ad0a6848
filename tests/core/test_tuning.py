"""Tuning policies as validated data: every field's allowed values, the shipped tables checked
entry by entry, overrides refused before anything compiles, and one-line compile errors."""

import dataclasses
import pickle

import numpy as np
import pytest

import primitives as prim
from primitives._core import emulator as _emulator, loader as _loader, nvrtc as _nvrtc
from primitives._core import policy as _policy
from primitives.reduction import _policy as _reduction_policy

#: a message of the validation: one line, about this long at most
SHORT = 200


@pytest.fixture
def no_compile(monkeypatch):
    """Fails the test if any kernel module is compiled (or loaded) while it runs."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel module was compiled")

    monkeypatch.setattr(_loader, "_compile", refuse)


# ---- the spec kinds ---------------------------------------------------------------------------


def test_range_allows_integers_in_range_only():
    block = _policy.Range(32, 1024, multiple=32)
    assert all(block.allows(v) for v in (32, 256, 1024, np.int64(512)))
    assert not any(block.allows(v) for v in (0, 1000, 1056, 256.0, "256", True, None))
    assert str(block) == "a multiple of 32 from 32 to 1024"
    tree = _policy.Range(64, 1024, pow2=True)
    assert tree.allows(64) and tree.allows(1024) and not tree.allows(96) and not tree.allows(32)
    assert str(tree) == "a power of two from 64 to 1024"
    off = _policy.Range(32, 1024, multiple=32, zero=True)
    assert off.allows(0) and off.allows(128) and not off.allows(16)
    assert str(off) == "0 or a multiple of 32 from 32 to 1024"
    up = _policy.Range(1)
    assert up.allows(1 << 40) and not up.allows(0) and str(up) == "an integer of at least 1"


def test_real_one_of_flag_and_rule():
    real = _policy.Real(0.0)
    assert real.allows(0) and real.allows(2.5) and not real.allows(-1.0)
    assert not real.allows(float("nan")) and not real.allows(float("inf"))
    assert not real.allows(True) and str(real) == "a number of at least 0.0"
    one = _policy.OneOf(0, 1, 2, 4)
    assert one.allows(2) and one.allows(np.int32(4)) and not one.allows(3)
    assert not one.allows(True) and not one.allows(2.0) and str(one) == "one of 0, 1, 2, 4"
    flag = _policy.Flag()
    assert flag.allows(False) and not flag.allows(1) and str(flag) == "True or False"
    rule = _policy.Rule(lambda v: len(v) == 2, "a pair")
    assert rule.allows((1, 2)) and not rule.allows((1,)) and not rule.allows(3)  # TypeError: no
    assert str(rule) == "a pair"


# ---- tables -----------------------------------------------------------------------------------


def test_every_shipped_table_entry_is_allowed():
    """Each field of each policy of each family's table declares its values, and holds one
    (the Dask functions' tables too, where Dask is installed: importing them registers them)."""
    try:
        import primitives.dask  # noqa: F401
    except ImportError:
        pass
    checked = 0
    for family in prim.tuning.families():
        for (arch, sel), pol in prim.tuning.table(family).entries.items():
            _policy.check(family, pol, where=f" ({arch}, {sel!r})")
            for f in dataclasses.fields(pol):
                assert "allowed" in f.metadata, (family, sel, f.name)
                checked += 1
    assert checked > 100


def test_table_refuses_an_entry_out_of_range():
    @dataclasses.dataclass(frozen=True)
    class Pol:
        block: int = _policy.knob(_policy.BLOCK)

    @dataclasses.dataclass(frozen=True)
    class Bare:
        block: int

    assert _policy.Table("t", {("default", None): Pol(256)}).lookup() == Pol(256)
    with pytest.raises(
        ValueError,
        match=r"^tuning: t policy field block=1000 is not allowed: a "
        r"multiple of 32 from 32 to 1024 \(table entry "
        r"sm_90, 'x'\)$",
    ):
        _policy.Table("t", {("default", None): Pol(256), ("sm_90", "x"): Pol(1000)})
    with pytest.raises(TypeError, match="field block declares no allowed values"):
        _policy.Table("t", {("default", None): Bare(256)})


def test_conflict_between_fields_is_refused_with_the_fields():
    """A policy class's conflict() states a rule between its fields: checked with them, by the
    table and by overrides, once each field is allowed on its own."""

    @dataclasses.dataclass(frozen=True)
    class Pair:
        block: int = _policy.knob(_policy.BLOCK)
        second: int = _policy.knob(_policy.Range(0, 1024, multiple=32), 0)

        def conflict(self):
            return (
                f"second={self.second} is over block={self.block}"
                if self.second > self.block
                else None
            )

    assert _policy.Table("t", {("default", None): Pair(256, 128)}).lookup() == Pair(256, 128)
    with pytest.raises(
        ValueError,
        match=r"^tuning: t policy Pair: second=512 is over block=256 \(table entry default, 'x'\)$",
    ):
        _policy.Table("t", {("default", None): Pair(256), ("default", "x"): Pair(256, 512)})
    # a field out of range is named first
    with pytest.raises(ValueError, match=r"field block=1000 is not allowed"):
        _policy.check("t", Pair(1000, 2048))


@pytest.mark.parametrize(
    "fields, text",
    [
        (dict(spread_block=512), "spread_block and spread_items are set together"),
        (dict(spread_items=24), "spread_block and spread_items are set together"),
    ],
)
def test_sort_policy_conflicts_refused_on_entering_the_override(fields, text, no_compile):
    with pytest.raises(ValueError, match=rf"^tuning: sorting policy OnesweepPolicy: fields {text}"):
        with prim.tuning.override("sort", selector=(4, 0), **fields):
            pass
    # the pairs' policy has both: either one alone replaces it
    with prim.tuning.override("sort", selector=(4, 4), **fields) as pol:
        assert pol.spread() is not None


@pytest.mark.parametrize(
    "fields, text",
    [
        (dict(small_block=0), "small_block and small_items are set together"),
        (dict(small_items=0), "small_block and small_items are set together"),
        (dict(small_block=1024, small_items=10), "holds fewer keys than the block's"),
    ],
)
def test_block_sort_small_tile_conflicts(fields, text, no_compile):
    with pytest.raises(ValueError, match=text):
        with prim.tuning.override("sort", selector="block", **fields):
            pass
    with prim.tuning.override("sort", selector="block", small_block=0, small_items=0) as pol:
        assert pol.tiles(4) == ((pol.block, pol.items_4),)


def test_table_repr_lists_its_entries():
    text = repr(prim.tuning.table("reduction"))
    lines = text.splitlines()
    assert lines[0] == "<tuning table 'reduction':" and text.endswith(">")
    pol = prim.tuning.table("reduction").entries[("default", "production")]
    assert f"  default, 'production' -> {pol!r}" in lines
    assert repr(pol).startswith("ProductionPolicy(block=")
    assert len(lines) == 1 + len(prim.tuning.table("reduction").entries)


# ---- overrides --------------------------------------------------------------------------------


def test_override_out_of_range_is_one_line_before_any_compile(no_compile):
    """The field's range is checked on entering the block: a short ValueError, not the compile
    error of the instantiations the value would have asked for."""
    x = np.ones(1000, np.float32)
    with pytest.raises(ValueError) as info:
        with prim.tuning.override("reduction", selector="production", block=1000):
            prim.sum(x)
    msg = str(info.value)
    assert msg == (
        "tuning: reduction policy field block=1000 is not allowed: a multiple of 32 from 32 to 1024"
    )
    assert "\n" not in msg and len(msg) < SHORT
    assert prim.tuning.policy("reduction", "production").block != 1000  # nothing in force


def test_override_of_every_selector_names_the_policy_that_refuses(no_compile):
    with pytest.raises(
        ValueError,
        match=r"block=96 is not allowed: a power of two from 64 to "
        r"1024 \(the 'ladder' policy\)$",
    ):
        with prim.tuning.override("reduction", block=96):
            pass


@pytest.mark.parametrize("value", ["256", 256.0, True, None], ids=repr)
def test_override_of_the_wrong_type_is_refused(value, no_compile):
    with pytest.raises(ValueError, match=rf"field block={value!r} is not allowed: a multiple"):
        with prim.tuning.override("reduction", selector="production", block=value):
            pass


def test_override_not_in_the_set_is_refused(no_compile):
    with pytest.raises(
        ValueError,
        match=r"^tuning: reduction policy field packed_packets=3 is "
        r"not allowed: one of 0, 1, 2, 4$",
    ):
        with prim.tuning.override("reduction", selector="axis", packed_packets=3):
            pass
    with pytest.raises(ValueError, match=r"field aggregate=1 is not allowed: True or False"):
        with prim.tuning.override("histogram", selector="production", aggregate=1):
            pass


def test_whole_policy_override_is_checked(no_compile):
    bad = _reduction_policy.ProductionPolicy(block=1000, vectors=4, blocks_per_sm=2)
    with pytest.raises(
        ValueError,
        match=r"^tuning: reduction policy field block=1000 is not "
        r"allowed",
    ):
        with prim.tuning.override("reduction", bad, selector="production"):
            pass
    with pytest.raises(
        ValueError,
        match=r"field vectors=0 is not allowed: an integer from 1 "
        r"to 16",
    ):
        with prim.tuning.override(
            "reduction",
            dataclasses.replace(prim.tuning.policy("reduction", "production"), vectors=0),
            selector="production",
        ):
            pass

    @dataclasses.dataclass(frozen=True)
    class Bare:
        block: int

    with pytest.raises(TypeError, match="declares no allowed values"):
        with prim.tuning.override("reduction", Bare(256), selector="production"):
            pass


def test_misspelt_field_is_still_a_type_error(no_compile):
    with pytest.raises(
        TypeError,
        match=r"no reduction policy for 'production' has the "
        r"field\(s\) \['blcok'\]",
    ):
        with prim.tuning.override("reduction", selector="production", blcok=256):
            pass


def test_override_in_range_takes_effect():
    with prim.tuning.override("reduction", selector="production", block=64, vectors=1) as pol:
        assert (pol.block, pol.vectors) == (64, 1)
    with prim.tuning.override(
        "spmv", selector=("csr_vector", "float32"), steps=((4, 2), (64, 8))
    ) as pol:
        assert pol.steps == ((4, 2), (64, 8))
    with pytest.raises(ValueError, match=r"steps=\(\(64, 8\), \(4, 2\)\) is not allowed: a tuple"):
        with prim.tuning.override(
            "spmv", selector=("csr_vector", "float32"), steps=((64, 8), (4, 2))
        ):
            pass


# ---- compile errors ---------------------------------------------------------------------------


def test_kernel_compile_error_is_one_line_naming_the_instantiation_and_first_error():
    """A module of several instantiations, one of which fails a static_assert: the message is
    the failing one and the compiler's first error; the whole log is kept on the exception and
    in the file the message names."""
    good = "reduce_production<float, float, prim::Sum<float>, 256, 4>"
    bad = "reduce_production<float, float, prim::Sum<float>, 1000, 4>"
    with pytest.raises(prim.KernelCompileError) as info:
        _loader.load("reduction/reduce.cu", [good, bad])(bad)  # CUDA compiles when asked for it
    exc = info.value
    msg = str(exc)
    assert "\n" not in msg and len(msg) < 600
    assert msg.startswith(f"compiling reduction/reduce.cu failed in {bad}: ")
    assert "BLOCK must be 32k <= 1024" in msg
    assert exc.instantiation == bad and bad in exc.names
    assert "BLOCK must be 32k <= 1024" in exc.log and len(exc.log) > len(msg)
    assert exc.log_path is not None and f"(whole log: {exc.log_path})" in msg
    assert exc.log in exc.log_path.read_text()
    again = pickle.loads(pickle.dumps(exc))
    assert str(again) == msg and again.log == exc.log and again.names == exc.names


def test_a_compiler_that_does_not_run_is_named_alone(backend, monkeypatch):
    if backend.is_cuda:
        pytest.skip("the emulator's host compiler")
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    names = ["mean_divide<float, float>", "mean_divide<double, double>"]  # not memoized elsewhere
    with pytest.raises(
        prim.KernelCompileError,
        match=r"^compiling reduction/finish.cu failed: "
        r"emulator: \$CXX='/nonexistent/c\+\+' is "
        r"not an executable$",
    ) as info:
        _loader.load("reduction/finish.cu", names)(names[0])  # compiled when asked for
    assert info.value.log == "" and info.value.log_path is None and info.value.names == names


def test_emulator_compile_error_names_the_failing_name_expression(backend, tmp_path, monkeypatch):
    if backend.is_cuda:
        pytest.skip("the emulator's host compiler")
    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    code = (
        "template <int N> __global__ void k(int* p) {\n"
        '    static_assert(N > 0, "k: N must be positive");\n'
        "    p[0] = N;\n"
        "}\n"
    )
    with pytest.raises(_emulator.EmulatorCompileError) as info:
        _emulator.compile_module(code, ["k<1>", "k<0>", "k<2>"], filename="bad.cu")
    exc = info.value
    msg = str(exc)
    assert "\n" not in msg and msg.startswith("emulator: compiling bad.cu failed in k<0>: ")
    assert "N must be positive" in msg and exc.instantiation == "k<0>"
    assert exc.name_expressions == ["k<1>", "k<0>", "k<2>"] and exc.command
    assert exc.log_path.parent == tmp_path / "compile-logs" and "k<0>" in exc.log_path.read_text()


def test_nvrtc_compile_error_is_one_line():
    try:
        _nvrtc.load()
    except _nvrtc.NVRTCNotFound:
        pytest.skip("no NVRTC")
    code = 'template <int N> __global__ void k(int* p) { static_assert(N > 0, "k: N > 0"); }'
    with pytest.raises(_nvrtc.NVRTCError) as info:
        _nvrtc.compile_check(code, ["k<1>", "k<0>"], arch="sm_80")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("NVRTC compiling kernel.cu for sm_80 failed in ")
    assert "N > 0" in msg and "N=0" in info.value.instantiation  # the compiler's own spelling
    assert info.value.names == ["k<1>", "k<0>"] and "error" in info.value.log


@pytest.mark.parametrize(
    "old, new",
    [("sort", "sorting"), ("histogram", "histograms"), ("spmv", "sparse"), ("search", "searching")],
)
def test_old_family_names_are_aliases(old, new):
    """The tables carry their family's package name; the names they had before still work."""
    assert prim.tuning.table(old) is prim.tuning.table(new)
    assert old not in prim.tuning.families() and new in prim.tuning.families()
    t = prim.tuning.table(new)
    sel, pol = next(iter((s, p) for (_, s), p in t.entries.items()))
    with prim.tuning.override(old, pol, selector=sel):
        assert _policy.current(new, sel) is pol
