"""Rewrite a test file's calls so that they go through :mod:`tools.parity.route`.

``X.NAME(...)`` becomes ``__prim_route__.func(X, "NAME", ...)`` when ``X`` is a plain name that
the file uses for a module (``xp``, ``cupy``, ``numpy``: the route decides at run time whether
it is the cupy module), else ``__prim_route__.method(X, "NAME", ...)``; ``getattr(X, N)(...)``
becomes ``__prim_route__.dynamic(X, N, ...)``. Only the names in ``NAMES`` are rewritten; the
route sends a call to the library only where the library has the function, so the same
rewritten file stays valid as functions are added.
"""

from __future__ import annotations

import ast

#: NumPy names that this library has or is to have (functions and array methods)
NAMES = frozenset(
    """sum prod min max amin amax mean any all argmin argmax cumsum cumprod
    nansum nanprod nanmin nanmax nanargmin nanargmax nanmean nancumsum nancumprod
    var std nanvar nanstd ptp count_nonzero average median nanmedian quantile nanquantile
    percentile nanpercentile sort argsort lexsort partition argpartition searchsorted
    unique histogram histogram2d histogramdd bincount""".split()
)
#: plain names that the test files bind to array modules
MODULES = frozenset({"xp", "cupy", "cp", "numpy", "np"})
ROUTE = "__prim_route__"


class _Calls(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in NAMES:
            kind = "func" if isinstance(f.value, ast.Name) and f.value.id in MODULES else "method"
            return self._route(node, kind, f.value, ast.Constant(f.attr))
        if (
            isinstance(f, ast.Call)
            and isinstance(f.func, ast.Name)
            and f.func.id == "getattr"
            and len(f.args) == 2
            and not f.keywords
        ):
            return self._route(node, "dynamic", f.args[0], f.args[1])
        return node

    @staticmethod
    def _route(node: ast.Call, kind: str, obj: ast.expr, name: ast.expr) -> ast.Call:
        fn = ast.Attribute(ast.Name(ROUTE, ast.Load()), kind, ast.Load())
        return ast.copy_location(ast.Call(fn, [obj, name, *node.args], node.keywords), node)


#: what a test of CuPy's own internals calls (its CUB or Thrust paths mocked or asserted)
INTERNAL = ("AssertFunctionIsCalled", "mock.patch", "_cub_reduction", "ThrustWorkspace")


def internal_tests(source: str) -> set[str]:
    """The test functions (and classes) of ``source`` that assert CuPy's internals (which
    backend CuPy called, its memory pools' errors): ``Class.test`` or ``test`` names. They test
    CuPy, not the function, and are left out of the parity counts."""
    tree = ast.parse(source)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    k in ast.unparse(item) for k in INTERNAL
                ):
                    found.add(f"{node.name}.{item.name}")
            if any(k in node.name for k in ("ThrustWorkspace",)):
                found.add(node.name)
    return found


def rewrite(source: str) -> str:
    """``source`` with its calls routed, and the route imported after any ``__future__``
    import."""
    tree = ast.parse(source)
    tree = _Calls().visit(tree)
    body = tree.body
    at = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        at = 1  # the docstring
    while (
        at < len(body) and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__"
    ):
        at += 1
    body.insert(at, ast.parse(f"import tools.parity.route as {ROUTE}").body[0])
    return ast.unparse(ast.fix_missing_locations(tree))
