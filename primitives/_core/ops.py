"""User-defined binary operators: :class:`Op`, a C++ expression of two operands ``a`` and ``b``
with its identity, compiled into the same kernel templates as the named operators.

A family that takes an operator by name (``"sum"``, ``"max"``, ...) names its functor in a
kernel instantiation (``reduce_production<float, float, prim::Sum<float>, ...>``). An :class:`Op`
is a functor too: ``prim_user::op_<key><T>``, defined for the accumulator type ``T`` of a call
by a few lines placed before the kernel source (:func:`source`: a source of its own, the
kernel file included after the functor). It is compiled as every other instantiation is, on
first use (NVRTC on a GPU, the host compiler on the emulator), and cached under its own source,
so a user operator costs what a named one costs once compiled. Operands and results are of the
accumulator dtype (:data:`DTYPES`).
"""

from __future__ import annotations

import hashlib
import numbers
import re
from typing import Any

import numpy as np

from . import backend as _backend, checks as _checks, dtypes as _dtypes, entry as _entry
from . import loader as _loader

__all__ = [
    "Op",
    "Map",
    "DTYPES",
    "NAMED",
    "MAX_FIELDS",
    "as_map",
    "check_dtype",
    "ctype",
    "fields",
    "functor",
    "kernel",
    "source",
    "tuple_dtype",
    "tuple_input",
    "zip_ctype",
    "zip_token",
    "filed_inputs",
]

#: the named operators' functor templates (util/prim.cuh)
NAMED = {"sum": "prim::Sum", "prod": "prim::Prod", "min": "prim::Min", "max": "prim::Max"}

#: the accumulator dtypes an :class:`Op` computes in (its operands, results and identity), and
#: the element dtypes a :class:`Map` reads: the 4- and 8-byte real dtypes
DTYPES = tuple(_dtypes.CTYPES)
_CTYPES = _dtypes.CTYPES
_FORBIDDEN = (";", "{", "}", "#", '"', "\\", "//", "/*")


@_entry.keyed_option
class Op:
    """A binary operator of your own: ``expr``, a C++ expression of the operands ``a`` and
    ``b`` (both of the call's accumulator type), and ``identity``, the value that leaves any
    operand unchanged (the result over no elements). ``prim.Op("a + b", identity=0)`` is a sum;
    ``prim.Op("a > b ? a : b", identity=-np.inf)`` a maximum of floats; ``prim.Op("a ^ b", 0)``
    an exclusive or of integers. The operator must be associative and, for the reductions,
    commutative: the kernels combine elements in an order of their own (as CUB's), so any other
    operator gives results in an undefined order. Accepted wherever a reduction or a scan takes
    ``op``: ``reduce``, ``inclusive_scan``, ``exclusive_scan``, ``segmented_reduce``,
    ``segmented_scan``, ``reduce_by_key``.

    **Tuples**: with ``identity`` a tuple of 2 to 4 values, the operator combines tuples, whose
    fields are named ``f0``, ``f1``, ... (``a.f0``, ``b.f1``): the elements of several arrays of
    one length zipped index by index (``prim.inclusive_scan((a, b), op)``, ``prim.reduce((x, i),
    op)``), each field of its array's dtype. ``expr`` is then a tuple of one expression per field
    (each of the operands as they were: ``("a.f0 * b.f0", "b.f0 * a.f1 + b.f1")`` composes the
    affine maps of a linear recurrence), or one expression whose value is a whole tuple
    (``"b.f0 > a.f0 ? b : a"``). The results are a tuple of arrays (of scalars for a reduction).

    **Structured arrays**: one array of a NumPy structured dtype of 2 to 4 fields (scalars of
    the dtypes above; packed or aligned, any offsets) is the tuple of its fields in order
    (``prim.inclusive_scan(x, op)``, ``prim.reduce(x, op)``). The expressions name its fields
    as ``a.f0``, ``a.f1``, ... or by their names: ``a.value`` and ``b.index`` for a dtype of
    fields ``value`` and ``index`` (whole words after ``a.`` or ``b.``, replaced by the field's
    position where the functor is generated for the dtype; a field name must be a C++
    identifier, and none ``fK`` but field K's). The identity stays a tuple in field order. A
    scan returns one structured array of ``x``'s dtype, a reduction one value of it (a
    ``numpy.void`` for host input, a 0-d array for device input).

    The expression is C++ (device code): the CUDA math functions, ``min``/``max``, casts and the
    conditional operator are available; it is compiled once per accumulator dtype and cached.
    A compile error raises :class:`~primitives.KernelCompileError` naming the operator and the
    compiler's first message."""

    __slots__ = ("expr", "identity", "fields", "key", "template")
    expr: str | tuple[str, ...]
    identity: Any
    fields: int
    key: str
    template: str

    def __init__(self, expr: str | tuple[str, ...], identity: Any) -> None:
        if isinstance(identity, (tuple, list)):
            if not 2 <= len(identity) <= MAX_FIELDS:
                raise ValueError(
                    f"Op: a tuple identity has 2 to {MAX_FIELDS} values (one per field), got "
                    f"{len(identity)}"
                )
            self.identity = tuple(_real(v) for v in identity)
            self.fields = len(identity)
        else:
            self.identity, self.fields = _real(identity), 0
        if isinstance(expr, (tuple, list)):
            if len(expr) != self.fields:
                raise ValueError(
                    f"Op: {len(expr)} expressions need an identity of as many values (a tuple "
                    f"of one per field), got identity={identity!r}"
                )
            self.expr = tuple(_expression(e, "Op", "a and b", "'a.f0 + b.f0'") for e in expr)
        else:
            self.expr = _expression(expr, "Op", "a and b", "'a + b'")
        ident = self.identity if self.fields else (self.identity,)
        digest = hashlib.sha256(
            repr((self.expr, ident, tuple(type(v).__name__ for v in ident))).encode()
        )
        self.key = digest.hexdigest()[:16]
        #: the functor's template, as a kernel instantiation names it (``<T>`` appended)
        self.template = f"prim_user::op_{self.key}"

    def __repr__(self) -> str:
        return f"Op({self.expr!r}, identity={self.identity!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Op) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def identity_of(self, dt: Any) -> Any:
        """The identity as a NumPy scalar of the accumulator dtype ``dt`` (a tuple of scalars of
        a tuple's fields)."""
        dt = np.dtype(dt)
        if dt.names:
            return tuple(np.array(v).astype(f)[()] for v, f in zip(self.identity, fields(dt)))
        return np.array(self.identity).astype(dt)[()]


def _real(v: Any) -> Any:
    """An identity's value (a NumPy scalar as its Python number); TypeError for anything not a
    real number."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(
        v, (numbers.Real, np.integer, np.floating)
    ):
        raise TypeError(f"Op: identity must be a real number (int or float), got {v!r}")
    return v.item() if isinstance(v, np.generic) else v


# ---- tuples: several arrays zipped index by index (kernels/util/zip.cuh) ------------------------

#: the most fields of a tuple (kernels/util/zip.cuh's Tuple)
MAX_FIELDS = 4


def tuple_dtype(dts: Any, names: Any = None) -> np.dtype:
    """The accumulator dtype of a tuple of elements of ``dts``: the structured dtype of fields
    ``f0``, ``f1``, ... (or ``names``: a structured array's, which an operator's expressions
    may name its fields by, :func:`prelude`) laid out as the C++ ``prim::Tuple`` (aligned)."""
    dts = [np.dtype(d) for d in dts]
    names = [f"f{i}" for i in range(len(dts))] if names is None else list(names)
    return np.dtype(list(zip(names, dts)), align=True)


def fields(dt: Any) -> tuple[np.dtype, ...]:
    """The field dtypes of the tuple dtype ``dt`` (:func:`tuple_dtype`)."""
    dt = np.dtype(dt)
    return tuple(dt.fields[n][0] for n in dt.names)


def _tag(dt: np.dtype, op: Any = None) -> str:
    """``dt``'s name in a source's name: a tuple's by its fields' (two tuples of one size differ),
    and by the fields' names where ``op``'s expressions name them (:func:`_renamed`: the source
    then depends on the names, so two structured dtypes of other names never share it)."""
    if not dt.names:
        return dt.name
    tag = ".".join(f.name for f in fields(dt))
    if isinstance(op, Op) and _renamed(op, dt) != op.expr:
        tag += "-" + ".".join(dt.names)
    return tag


def _renamed(op: Op, dt: np.dtype) -> str | tuple[str, ...]:
    """``op``'s expression (a tuple's expressions) for the tuple dtype ``dt``: where ``dt``'s
    fields have names of their own (a structured array's, :func:`struct_fields`), each
    ``a.<name>`` and ``b.<name>`` (whole words) becomes ``a.fK`` and ``b.fK``, the field's
    C++ name (K its position); the positional names stay valid."""
    pairs = {n: f"f{k}" for k, n in enumerate(dt.names or ()) if n != f"f{k}"}
    if not pairs:
        return op.expr
    alt = "|".join(re.escape(n) for n in pairs)
    pattern = re.compile(rf"(?<![\w.])([ab])\s*\.\s*({alt})(?!\w)")

    def sub(e: str) -> str:
        return pattern.sub(lambda m: f"{m.group(1)}.{pairs[m.group(2)]}", e)

    return sub(op.expr) if isinstance(op.expr, str) else tuple(sub(e) for e in op.expr)


def ctype(dt: Any) -> str:
    """The C++ type of the accumulator dtype ``dt``: a tuple's ``prim::Tuple<...>``, or the
    element type."""
    dt = np.dtype(dt)
    if dt.names:
        return f"prim::Tuple<{', '.join(_CTYPES[f] for f in fields(dt))}>"
    return _CTYPES[dt]


def zip_ctype(dt: Any) -> str:
    """The C++ element type of the arrays zipped into tuples of ``dt``: ``prim::Zip<...>``."""
    return f"prim::Zip<{', '.join(_CTYPES[f] for f in fields(dt))}>"


def zip_token(x: Any) -> Any:
    """The call key of a declared array ``x`` (the entries' token) that is a tuple or list of 2
    to :data:`MAX_FIELDS` arrays of the backend's own type: the dtype, shape and strides of
    each, so that a later call on like arrays runs the first call's filed run
    (:func:`filed_inputs`); None (no fast path) for anything else."""
    if not isinstance(x, (tuple, list)) or not 2 <= len(x) <= MAX_FIELDS:
        return None
    array_type = _backend.get_backend().xp.ndarray
    if any(type(a) is not array_type for a in x):
        return None
    return ("zip", type(x), tuple((a.dtype, a.shape, a.strides) for a in x))


def filed_inputs(inps: list[Any], xs: Any) -> list[Any] | None:
    """How a tuple call's results go back, for a run that later like calls may take
    (:func:`zip_token`): every array of ``xs`` read as it is (its :class:`Input` ``inps``' array
    itself), the inputs without their arrays (a filed run must not hold the first call's
    arrays); None where some array was converted or copied (no filed run)."""
    if not all(_checks.is_itself(inp.array, a) for inp, a in zip(inps, xs)):
        return None
    return [inp.detached() for inp in inps]


def tuple_input(
    x: Any,
    op: Any,
    func: str,
    *,
    how: str,
    variant: str,
    kernel: str,
    given: dict[str, Any],
    names: Any = None,
) -> tuple[list[Any], np.dtype]:
    """The checked inputs of the tuple ``x`` of arrays that ``op`` (an :class:`Op` of as many
    fields) combines: their :class:`~primitives._core.checks.Input` (flattened, contiguous; of
    one size) and the tuple dtype of their dtypes (each one of :data:`DTYPES`). Before them, a
    TypeError for each keyword of ``given`` (name -> value) that is not None (tuples are taken
    whole, as they are: ``how``, "reduced whole" or "scanned flattened"), a ValueError for a
    ``variant`` (chosen) other than ``kernel``, the one that takes tuples. ``names``: ``x`` is
    the fields of a structured array of these field names
    (:func:`~primitives._core.structs.struct_fields`), which the errors name and the tuple
    dtype keeps (an operator may name the fields so)."""
    what = "a tuple of arrays" if names is None else "a structured array"
    for name, value in given.items():
        if value is not None:
            raise TypeError(f"{func}: {what} is {how}, as it is: no {name}=")
    if variant != kernel:
        raise ValueError(
            f"{func}: {what} is {how.split()[0]} by variant {kernel!r} (or 'auto'), "
            f"got variant={variant!r}"
        )
    if not isinstance(op, Op) or op.fields != len(x):
        whole = (
            f"a tuple of {len(x)} arrays" if names is None else f"a structured x of {len(x)} fields"
        )
        raise TypeError(
            f"{func}: {whole} takes a prim.Op whose identity is a tuple of {len(x)} values (one "
            f"per field), got op={op!r}"
        )
    args = [f"x[{i}]" if names is None else f"x[{n!r}]" for i, n in enumerate(names or x)]
    inps = [_checks.as_input(a, func=func, arg=arg, flatten=True) for a, arg in zip(x, args)]
    sizes = {inp.array.size for inp in inps}
    if len(sizes) > 1:
        raise ValueError(
            f"{func}: the arrays of x are zipped index by index and must have one size, got "
            f"sizes {[inp.array.size for inp in inps]}"
        )
    for arg, inp in zip(args, inps):
        if inp.array.dtype not in DTYPES:
            dts = ", ".join(d.name for d in DTYPES)
            raise TypeError(
                f"{func}: {op!r} computes in {dts}; got {arg} of dtype {inp.array.dtype}"
            )
    dt = tuple_dtype((inp.array.dtype for inp in inps), names)
    check_dtype(op, dt, func)
    return inps, dt


def functor(op: Any, ctype: str) -> str:
    """The functor type a kernel instantiation names for ``op`` (a named operator of
    :data:`NAMED` or a user :class:`Op`) over the C++ type ``ctype``."""
    return f"{op.template if isinstance(op, Op) else NAMED[op]}<{ctype}>"


def accumulator(op: Op, in_dt: Any, dtype: Any, func: str) -> np.dtype:
    """The accumulator dtype of ``op`` over elements of ``in_dt``: the input's own, or a
    ``dtype=`` request (the elements cast to it), checked (:func:`check_dtype`)."""
    acc = np.dtype(in_dt) if dtype is None else np.dtype(_checks.native_dtype(dtype))
    check_dtype(op, acc, func)
    return acc


def check_map(m: Map | None, in_dt: Any, cast: Any, func: str, arg: str = "x") -> None:
    """TypeError naming ``func`` where the map ``m`` (None: nothing to check) cannot read the
    elements of the argument ``arg`` as they are: their dtype ``in_dt`` none of :data:`DTYPES`,
    or a call that casts them to ``cast`` first (None: no cast)."""
    if m is not None and (np.dtype(in_dt) not in DTYPES or cast is not None):
        names = ", ".join(d.name for d in DTYPES)
        raise TypeError(
            f"{func}: {m!r} reads {names} as they are; got {arg} of dtype {np.dtype(in_dt)}"
            + ("" if cast is None else f" cast to {np.dtype(cast)}")
        )


def check_dtype(op: Op, dt: Any, func: str) -> None:
    """TypeError naming ``func`` where ``dt`` is no accumulator dtype of an :class:`Op`,
    ValueError where ``op``'s identity has no exact value in it."""
    dt = np.dtype(dt)
    if bool(dt.names) != bool(op.fields):
        raise TypeError(
            f"{func}: {op!r} combines "
            + (
                f"tuples of {op.fields} fields: give x as a tuple of {op.fields} arrays or "
                f"a structured array of {op.fields} fields"
                if op.fields
                else "single values: give x as one array, or an identity of one value per field"
            )
        )
    if dt.names:
        for f, v in zip(fields(dt), op.identity):
            _check_identity(op, v, f, func)
        return
    if dt not in DTYPES:
        names = ", ".join(d.name for d in DTYPES)
        raise TypeError(
            f"{func}: {op!r} computes in {names}; got dtype {dt} (cast the elements to one, or "
            f"give dtype= where the function takes it)"
        )
    _check_identity(op, op.identity, dt, func)


def _check_identity(op: Op, ident: Any, dt: np.dtype, func: str) -> None:
    if dt.kind in "iu":
        ok = float(ident).is_integer() and np.iinfo(dt).min <= ident <= np.iinfo(dt).max
    else:
        ok = True  # a float identity rounds to the dtype as NumPy casts it
    if not ok:
        raise ValueError(f"{func}: the identity of {op!r} has no value in {dt}")


def _literal(value: float, dt: np.dtype) -> str:
    """A C++ expression of the exact value ``value`` in the C++ type of ``dt`` (floats by their
    bits: infinities and NaN too)."""
    v = np.array(value).astype(dt)
    if dt == np.float32:
        return f"__int_as_float(0x{int(v.view(np.uint32)):08x})"
    if dt == np.float64:
        return f"__longlong_as_double(0x{int(v.view(np.uint64)):016x}ll)"
    bits = int(v.astype(np.uint64) if dt.kind == "u" else v.view(np.dtype(f"u{dt.itemsize}")))
    return f"static_cast<{_CTYPES[dt]}>(0x{bits:x}ull)"


def prelude(op: Op, dt: Any) -> str:
    """The C++ lines that define ``op``'s functor for the accumulator dtype ``dt`` (a tuple's:
    each field's expression of the operands as they were, or one expression of a whole tuple;
    the fields named as ``dt`` names them, :func:`_renamed`)."""
    dt = np.dtype(dt)
    c = ctype(dt)
    line = f'#line 1 "{_line_name(op)}"\n'
    if dt.names:
        idents = ", ".join(_literal(v, f) for v, f in zip(op.identity, fields(dt)))
        expr = _renamed(op, dt)  # the fields' own names as the C++ ones (a structured array's)
        if isinstance(expr, tuple):
            body = "".join(
                f"        r.f{i} = static_cast<{_CTYPES[f]}>(\n{line}{e}\n        );\n"
                for i, (e, f) in enumerate(zip(expr, fields(dt)))
            )
            body = f"        {c} r;\n{body}        return r;\n"
        else:
            body = f"        return static_cast<{c}>(\n{line}{expr}\n        );\n"
        return (
            '#include "util/zip.cuh"\n'
            "namespace prim_user {\n"
            f"template <class T> struct op_{op.key};\n"
            f"template <> struct op_{op.key}<{c}> {{\n"
            f"    typedef {c} value_type;\n"
            f"    static __device__ __forceinline__ {c} identity() {{ return {c}{{{idents}}}; }}\n"
            f"    __device__ __forceinline__ {c} operator()({c} a, {c} b) const {{\n"
            f"{body}"
            "    }\n"
            "};\n"
            "}  // namespace prim_user\n"
        )
    return (
        "namespace prim_user {\n"
        f"template <class T> struct op_{op.key};\n"
        f"template <> struct op_{op.key}<{c}> {{\n"
        f"    typedef {c} value_type;\n"
        f"    static __device__ __forceinline__ {c} identity() {{ return {_literal(op.identity, dt)}; }}\n"
        f"    __device__ __forceinline__ {c} operator()({c} a, {c} b) const {{\n"
        f"        return static_cast<{c}>(\n"
        f"{line}"
        f"{op.expr}\n"
        "        );\n"
        "    }\n"
        "};\n"
        "}  // namespace prim_user\n"
    )


def _line_name(op: Op) -> str:
    text = op.expr if isinstance(op.expr, str) else ", ".join(op.expr)
    return "Op(" + text.replace("'", "") + ")"


class Map:
    """A transform on load (``map=``): a C++ expression of one element ``v``, applied to each
    element as it is read (no temporary array), its result of the element's own dtype
    (:data:`DTYPES`): ``map="v * v"`` makes a sum a sum of squares. Made by the functions that
    take ``map=`` from its string (:func:`as_map`)."""

    __slots__ = ("expr", "key")

    def __init__(self, expr: str) -> None:
        self.expr = _expression(expr, "map", "v", "'v * v'")
        self.key = hashlib.sha256(self.expr.encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"map={self.expr!r}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Map) and other.key == self.key

    def __hash__(self) -> int:
        return hash(("map", self.key))

    def ctype(self, dt: Any) -> str:
        """The C++ type of elements of ``dt`` read through this map (:func:`map_prelude`)."""
        return f"prim_user::map_{self.key}_{np.dtype(dt).name}"


def as_map(value: Any, func: str) -> Map | None:
    """``map=`` of a public function: None, or a :class:`Map` of a string (TypeError naming
    ``func`` for anything else, ValueError for no single expression)."""
    if value is None or isinstance(value, Map):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{func}: map must be a str (a C++ expression of v), got {value!r}")
    try:
        return Map(value)
    except ValueError as exc:
        raise ValueError(f"{func}: {exc}") from None


def map_prelude(m: Map, dt: Any) -> str:
    """The C++ lines that define the element type of ``dt`` read through ``m``: a struct of one
    element whose conversion to any type applies the expression (in the element's type; the
    value through ``prim::unfused``, where ptxas would drop a negation), with the 16-byte vector
    loads of its element (util/load.cuh's Vec16 and HasVec16, inherited)."""
    dt = np.dtype(dt)
    c = _CTYPES[dt]
    name = m.ctype(dt).split("::")[1]
    return (
        '#include "util/prim.cuh"\n'
        '#include "util/load.cuh"\n'
        "namespace prim_user {\n"
        f"struct {name} {{\n"
        f"    {c} v;\n"
        "    template <class A> __device__ __forceinline__ operator A() const {\n"
        f"        const {c} v = this->v;\n"
        f"        return static_cast<A>(prim::unfused(static_cast<{c}>(\n"
        f'#line 1 "map({m.expr.replace(chr(39), "")})"\n'
        f"{m.expr}\n"
        "        )));\n"
        "    }\n"
        "};\n"
        "}  // namespace prim_user\n"
        "namespace prim {\n"
        f"template <> struct Vec16<prim_user::{name}> : Vec16<{c}> {{}};\n"
        f"template <> struct HasVec16<prim_user::{name}> : HasVec16<{c}> {{}};\n"
        "}  // namespace prim\n"
    )


def _expression(expr: Any, what: str, names: str, example: str) -> str:
    """``expr`` as one C++ expression (whitespace normalized), or the errors of :class:`Op`."""
    if not isinstance(expr, str):
        raise TypeError(f"{what}: expr must be a str (a C++ expression of {names}), got {expr!r}")
    text = " ".join(expr.split())
    if not text:
        raise ValueError(f"{what}: expr is empty; give a C++ expression of {names}, as {example}")
    if any(s in text for s in _FORBIDDEN) or len(text) > 2000:
        raise ValueError(
            f"{what}: expr must be one C++ expression of {names} (no statements, comments or "
            f"preprocessor lines, at most 2000 characters), got {expr!r}"
        )
    return text


def source(relpath: str, op: Any, dt: Any, m: Map | None = None, in_dt: Any = None) -> str:
    """The kernel source of ``relpath`` with, before it, ``op``'s functor for ``dt`` (a user
    :class:`Op`; a named operator needs none) and ``m``'s element type for ``in_dt`` (a
    :class:`Map`, or None): the relpath of a source of its own (registered with the loader),
    whose instantiations name ``{op.template}<{C++ type of dt}>`` and ``m.ctype(in_dt)``."""
    dt = np.dtype(dt)
    parts, tags = [], []
    if m is not None:
        parts.append(map_prelude(m, in_dt))
        tags.append(f"map{m.key}-{np.dtype(in_dt).name}")
    if isinstance(op, Op):
        parts.append(prelude(op, dt))
        tags.append(f"{op.key}-{_tag(dt, op)}")
    name = f"{relpath}@{'@'.join(tags)}"
    _loader.add_source(name, "".join(parts) + f'#include "{relpath}"\n')
    return name


def kernel(
    relpath: str, op: Any, dt: Any, name: str, m: Map | None = None, in_dt: Any = None
) -> Any:
    """The instantiation ``name`` of ``relpath`` with ``op`` for the accumulator dtype ``dt``
    (and the map ``m`` of the input dtype ``in_dt``); a compile error names the operator (and
    the map) and the compiler's first message."""
    rel = source(relpath, op, dt, m, in_dt)
    try:
        return _loader.load(rel, [name])(name)
    except _loader.KernelCompileError as exc:
        what = " and ".join(repr(p) for p in (op, m) if isinstance(p, (Op, Map)))
        raise _loader.KernelCompileError(
            f"compiling {what} for {np.dtype(dt)}", exc.log, [name], exc.instantiation, exc.log_path
        ) from None
