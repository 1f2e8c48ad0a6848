"""The sparse family's workloads: matrices of ``primitives.testing.matrices`` at a ``scale``
("full": each at least 2^22 rows)."""

from . import Workload

#: every suite matrix at full size in each dtype: every variant (its format's container) and
#: auto against cuSPARSE (``cupyx.scipy.sparse`` CSR @ x)
SUITE = Workload(
    n=0,
    dtypes=("float32", "float64"),
    peers=("cusparse",),
    params={
        "matrices": (
            "poisson2d",
            "stencil27",
            "banded",
            "uniform",
            "powerlaw",
            "dense_rows",
            "empty_rows",
        ),
        "scale": "full",
    },
)
#: the widened suite (``primitives.testing.matrices.WIDE``: row lengths log-normal, Zipf and
#: uniform at several spreads, diagonal blocks, a wide band, very short and very long rows,
#: rectangles) at full size in each dtype: auto against cuSPARSE, where the issue asks at most
#: cuSPARSE's time on every matrix
WIDE = Workload(
    n=0, dtypes=("float32", "float64"), peers=("cusparse",), params={"scale": "full", "target": 1.0}
)
#: the tour's matrices, float32: two even structures and the skewed one (full size on a GPU,
#: ``small`` scale on the emulator)
TOUR = Workload(
    n=0,
    small=2**12,
    peers=("cusparse",),
    params={"matrices": ("poisson2d", "uniform", "powerlaw"), "scale": "full"},
)
