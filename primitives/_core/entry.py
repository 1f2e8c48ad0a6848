"""One entry protocol for every public function: a family states a function's steps once, the
core derives the call path, the repeat-call fast path and its plans from them.

A public function is declared as its signature and docstring, with the family's *prepare* step::

    @entry.function(_prepare_compact, arrays=("x", "mask"))
    def compact(x, mask):
        \"\"\"The docstring users read.\"\"\"

``prepare`` takes the public function's arguments as they were given and does everything that
a call on such arguments does once: normalizes and checks them (its errors name the public
function), chooses the variant (the family's ``_choose.py``), finds or builds the plan
(:data:`~primitives._core.plans.PLANS` under the plan's configuration key). It returns a
:class:`Prepared`: the callable that runs the call on its arrays, and whether a later call on
like arrays may run that callable unchecked. From that the core derives, for every function
alike:

- the call path: ``prepare``, then the run, on the arrays that ``prepare`` read;
- the *call key* (:meth:`Entry.key`): the function, the declared arrays' dtypes, shapes and
  strides (arrays of the backend's own type only: CuPy on the GPU), every other argument's type
  and value, the tuning generation and the stream. A call whose key was filed by an earlier
  call runs that call's runner at once, without ``prepare``: the repeat-call fast path, so the
  checks and the variant choice run once per plan, never per repeat call;
- ``prim.plan(fn, *like, **options)`` and ``fn.plan(...)`` (:class:`~primitives._core.plans.
  BoundPlan`): the arguments bound to the public signature (a ``TypeError`` naming the public
  function), ``prepare`` once, its runner for arrays like ``like``;
- the public function's name, signature and docstring (``inspect.signature`` and the docs read
  the declared function).

Arguments that are not declared arrays must be hashable scalars, strings, dtypes, values of the
package's keyed classes (a user operator: :func:`keyed_option`) or tuples of scalars to have a
call key; anything else (a list of bin edges, ``out=``, a sorter array, a
matrix object) takes the checked path on every call, unless it is a declared array with a
``tokens`` entry: a function of the argument giving a hashable token (a sparse matrix's
identity). ``scalars`` are keyed by their type alone and given to the run with the arrays (the
run then checks what depends on their values: spmv's ``alpha`` and ``beta``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from . import backend as _backend, plans as _plans, policy as _policy

__all__ = ["Prepared", "Entry", "function"]

_F = TypeVar("_F", bound=Callable[..., Any])

_MISSING = object()


class Prepared:
    """What ``prepare`` returns: ``run(*arrays)`` computes the call's result.

    ``arrays``: the arrays ``run`` takes for this call, in the order of the entry's declared
    arrays (as read: converted, copied or made contiguous as the checks required).
    ``reusable``: ``run`` may serve later calls on arrays like the given ones without checks:
    true only when ``arrays`` are the given arrays themselves (read as they are), so that a
    later call's arrays of the same dtypes, shapes and strides are valid input of ``run``.
    ``later``: what later calls on like arrays run in place of ``run``, when ``prepare`` checked
    the values of this call's arrays (segment offsets: a read from the device) and a later call
    must check its own; it is filed instead of ``run``, and a plan whose calls give every
    declared array runs it too (a plan's bound arrays were checked once, by ``prepare``).
    ``Prepared.done(result)``: ``prepare`` computed the result itself (an empty input, a path
    with no plan); nothing is filed.
    """

    __slots__ = ("run", "arrays", "reusable", "later", "result")

    def __init__(
        self,
        run: Callable[..., Any],
        arrays: Sequence[Any],
        reusable: bool = False,
        later: Callable[..., Any] | None = None,
    ) -> None:
        self.run: Callable[..., Any] | None = run
        self.arrays = tuple(arrays)
        self.reusable = bool(reusable)
        self.later = later
        self.result: Any = None

    @classmethod
    def done(cls, result: Any) -> Prepared:
        p = cls.__new__(cls)
        p.run, p.arrays, p.reusable, p.later, p.result = None, (), False, None, result
        return p

    def __call__(self) -> Any:
        """This call's result."""
        return self.result if self.run is None else self.run(*self.arrays)

    def then(self, after: Callable[[Any], Any], *, reusable: bool = False) -> Prepared:
        """This computation, then ``after`` of its result (on the same arrays); reusable where
        this one is and ``reusable`` says that ``after`` holds nothing of this call (a
        function of the result alone)."""
        if self.run is None:
            return Prepared.done(after(self.result))
        run = self.run
        return Prepared(
            lambda *arrays: after(run(*arrays)), self.arrays, reusable and self.reusable
        )


class Entry:
    """A public function's protocol: its name, signature, declared arrays and ``prepare``."""

    __slots__ = (
        "name",
        "func",
        "prepare",
        "signature",
        "arrays",
        "tokens",
        "scalars",
        "_pos",
        "_names",
        "_order",
        "_array_at",
        "_scalar_names",
    )

    def __init__(
        self,
        func: Callable[..., Any],
        prepare: Callable[..., Prepared],
        arrays: Sequence[str],
        tokens: dict[str, Callable[[Any], Any]] | None = None,
        scalars: Sequence[str] = (),
    ) -> None:
        self.name = func.__name__
        self.func, self.prepare = func, prepare
        self.tokens = dict(tokens or {})
        self.scalars = tuple(scalars)
        self.signature = inspect.signature(func)
        params = list(self.signature.parameters.values())
        names = [p.name for p in params]
        for a in arrays:
            if a not in names:
                raise TypeError(f"{self.name}: declared array {a!r} is not a parameter")
        self.arrays = tuple(arrays)
        for a in self.tokens:
            if a not in self.arrays:
                raise TypeError(f"{self.name}: token of {a!r}, which is not a declared array")
        for a in self.scalars:
            if a not in names or a in self.arrays:
                raise TypeError(f"{self.name}: declared scalar {a!r} is not a parameter")
        taken = inspect.signature(prepare).parameters
        if not any(p.kind == p.VAR_KEYWORD for p in taken.values()):
            missing = [n for n in names if n not in taken]
            if missing:
                raise TypeError(f"{self.name}: prepare does not take {', '.join(missing)}")
        # (position or None for keyword-only, name, default) of each declared array, then scalar
        self._pos = tuple(
            (
                names.index(a) if params[names.index(a)].kind != params[0].KEYWORD_ONLY else None,
                a,
                None
                if params[names.index(a)].default is inspect.Parameter.empty
                else params[names.index(a)].default,
            )
            for a in self.arrays + self.scalars
        )
        self._names = frozenset(self.arrays)
        self._scalar_names = frozenset(self.scalars)
        # the parameters by position: 1 a declared array, 2 a declared scalar, 0 an option
        self._order = tuple(p.name for p in params if p.kind != p.KEYWORD_ONLY)
        self._array_at = tuple(
            1 if n in self._names else 2 if n in self._scalar_names else 0 for n in self._order
        )

    # ---- the call key ----------------------------------------------------------------------

    def key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
        """The call key of ``args``/``kwargs``, or None when the call cannot take the fast path
        (an array not of the backend's own type and without a token, an unhashable option)."""
        b = _backend.get_backend()
        array_type = b.xp.ndarray
        names, array_at, tokens = self._names, self._array_at, self.tokens
        parts: list[Any] = [self]
        for i, a in enumerate(args):
            kind = array_at[i] if i < len(array_at) else 0
            if kind == 1:
                if a is None:
                    parts.append(None)
                elif type(a) is array_type:
                    parts.append((a.dtype, a.shape, a.strides))
                elif self._order[i] in tokens:
                    t = tokens[self._order[i]](a)
                    if t is None:
                        return None
                    parts.append(t)
                else:
                    return None
            elif kind == 2:
                parts.append(type(a))
            else:
                k = _option(a)
                if k is _MISSING:
                    return None
                parts.append(k)
        for n, a in kwargs.items():
            if n in names:
                if a is None:
                    parts.append((n, None))
                elif type(a) is array_type:
                    parts.append((n, a.dtype, a.shape, a.strides))
                elif n in tokens:
                    t = tokens[n](a)
                    if t is None:
                        return None
                    parts.append((n, t))
                else:
                    return None
            elif n in self._scalar_names:
                parts.append((n, type(a)))
            else:
                k = _option(a)
                if k is _MISSING:
                    return None
                parts.append((n, k))
        parts.append(_policy._generation)
        parts.append(b.stream_key())
        return tuple(parts)

    def arrays_of(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """The declared arrays of a call, then its declared scalars, in declared order (defaults
        for absent ones)."""
        out = []
        for pos, name, default in self._pos:
            if pos is not None and pos < len(args):
                out.append(args[pos])
            else:
                out.append(kwargs.get(name, default))
        return tuple(out)

    # ---- the paths -------------------------------------------------------------------------

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        key = self.key(args, kwargs)
        if key is not None:
            run = _plans.PLANS.find(key)
            if run is not None:  # an earlier call on like arguments passed every check
                return run(*self.arrays_of(args, kwargs))
        try:
            p = self.prepare(*args, **kwargs)
        except TypeError:
            self.bind(args, kwargs)  # arguments the function does not take: its own TypeError
            raise
        result = p()
        if key is not None and p.reusable and p.run is not None:
            _plans.PLANS.file(key, p.run if p.later is None else p.later)
        return result

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
        """``args``/``kwargs`` bound to the public signature; the public function's TypeError
        (``sort() got an unexpected keyword argument 'axis'``) for arguments it does not take."""
        try:
            return self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.name}() {exc}") from None

    def plan(self, like: tuple[Any, ...], options: dict[str, Any]) -> _plans.BoundPlan:
        bound = self.bind(like, options)
        k = 0  # the leading positional arguments that are declared arrays: a plan's call takes them
        while (
            k < len(like)
            and k < len(self._array_at)
            and self._array_at[k] == 1
            and (_is_array(like[k]) or self._order[k] in self.tokens)
        ):  # a scalar given for a declared array (searchsorted's ``v``) is bound, as an option
            k += 1
        p = self.prepare(*like, **options)
        core = None
        if p.reusable and p.run is not None:
            bound.apply_defaults()  # the arrays a plan's call does not take, and the scalars
            rest = tuple(bound.arguments[n] for n in self.arrays[k:] + self.scalars)
            run = p.later if p.later is not None and k == len(self.arrays) else p.run
            core = _padded(run, rest)
        return _plans.BoundPlan(self.public, like[:k], like[k:], options, core)

    @property
    def public(self) -> Callable[..., Any]:
        return self.func.__primitives_public__  # type: ignore[attr-defined]


def _is_array(a: object) -> bool:
    return hasattr(a, "shape") and hasattr(a, "dtype")


def _padded(run: Callable[..., Any], rest: tuple[Any, ...]) -> Callable[..., Any]:
    """``run`` called with the leading arrays of a plan's call, then ``rest``: the plan's
    other declared arrays and its scalars, as bound."""
    if not rest:
        return run
    return lambda *arrays: run(*arrays, *rest)


_SCALARS: frozenset[Any] = frozenset(
    {
        bool,
        int,
        float,
        complex,
        str,
        type(None),
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        np.dtype,
        type,
    }
) | frozenset(type(np.dtype(t)) for t in "?bhilqBHILQefdgFDG")


# value types of the package's own keyed as the scalars are (:func:`keyed_option`)
_KEYED: set[type] = set()


def keyed_option(t: type) -> type:
    """Key options of the class ``t`` by their type and value, as the scalars: its instances are
    immutable and hashable, equal when they compute the same (a user operator,
    :class:`~primitives._core.ops.Op`), so that a repeat call with one takes the fast path."""
    _KEYED.add(t)
    return t


def _option(a: Any) -> Any:
    """An option's part of a call key: its type and value, so that ``1`` and ``1.0`` or ``True``
    and ``1`` differ (an earlier call checked the one it was given); _MISSING if unhashable."""
    t = type(a)
    if t in _KEYED:
        return (t, a)
    if t is tuple or t is list:  # a range, a shape, or one level deeper: a range per dimension
        return _sequence(a, 1)
    return _scalar(a)


def _scalar(a: Any) -> Any:
    """A scalar option's key, :func:`_option`'s; _MISSING for a NaN (never equal to itself,
    never found) or anything else."""
    t = type(a)
    if t not in _SCALARS or (t is float and a != a):
        return _MISSING
    return (t, a)


def _sequence(a: Any, depth: int) -> Any:
    """The key of a tuple or list of scalars, or (``depth`` > 0) of such sequences too."""
    parts = []
    for x in a:
        tx = type(x)
        part = _sequence(x, depth - 1) if depth and (tx is tuple or tx is list) else _scalar(x)
        if part is _MISSING:
            return _MISSING
        parts.append(part)
    return (type(a), tuple(parts))


def function(
    prepare: Callable[..., Prepared],
    *,
    arrays: Sequence[str],
    tokens: dict[str, Callable[[Any], Any]] | None = None,
    scalars: Sequence[str] = (),
) -> Callable[[_F], _F]:
    """Declare a public function (see the module's docstring): the decorated function gives the
    name, signature and docstring; its body is never run. ``arrays``: the parameters that are
    arrays keyed by dtype, shape and strides (the first is always one).
    ``tokens``: ``{declared array: token(argument)}``, for an argument that is not an array of
    the backend's type (a matrix object): keyed by its token (None: no fast path), and given to
    the run as the arrays are. ``scalars``: parameters keyed by their type only, given to the
    run after the arrays on every call (so the run must check what depends on their values)."""

    def wrap(func: _F) -> _F:
        e = Entry(func, prepare, arrays, tokens, scalars)
        call = e.call

        @functools.wraps(func)
        def public(*args: Any, **kwargs: Any) -> Any:
            return call(args, kwargs)

        def plan(*like: Any, **options: Any) -> _plans.BoundPlan:
            return e.plan(like, options)

        plan.__doc__ = (
            f"A plan of :func:`{e.name}` for arrays like ``like``: see :func:`primitives.plan`."
        )
        func.__primitives_public__ = public  # type: ignore[attr-defined]
        public.plan = plan  # type: ignore[attr-defined]
        public.entry = e  # type: ignore[attr-defined]
        return public  # type: ignore[return-value]

    return wrap
