"""Tour of the sparse family: every variant on two even matrices and the skewed one (float32),
and ``auto``, with cuSPARSE as the peer on the GPU (the workloads of
:mod:`primitives.testing.workloads.sparse`)."""

from __future__ import annotations

import numpy as np

import primitives as prim
from primitives import sparse, tour
from primitives._core import backend as _backend
from primitives.sparse import FORMAT_OF, VARIANTS, choose_variant, matches, reference
from primitives.testing import matrices as _matrices
from primitives.testing.workloads import sparse as spec

#: matrices of at most this scale are made on the host (the checks' sizes)
_HOST_MAX = 1 << 16


def sections(gpu, log2n=None):
    """Tour workloads: every variant on the tour's matrices (float32) and ``auto``, with cuSPARSE
    (``cupyx.scipy.sparse`` CSR @ x) as the peer on the GPU. GB/s counts the bytes a CSR product
    must move (the CSR arrays, x and y once), so rows of different formats compare the same work;
    each row's note gives its format's footprint. ELL is left out where its padding is refused
    (a few long rows)."""
    w = spec.TOUR
    scale = (1 << log2n) if log2n else (w.params["scale"] if gpu else w.small)
    dt = np.dtype(w.dtypes[0])
    sections = []
    for name in w.params["matrices"]:
        sec = tour.Section(
            title=f"spmv: {name}, float32",
            nbytes=0,
            contenders=None,
            count=len(VARIANTS) + 1 + (1 if gpu else 0),
            quick=name == "powerlaw",  # the quick tour: the skewed matrix
            quick_rows=("auto",),
        )

        def contenders(name=name, sec=sec):
            xp = _backend.get_backend().xp
            # small matrices (the checks) are made and multiplied by the oracle on the host:
            # on a fresh machine the device would first compile a score of CuPy's kernels
            host = not gpu or (scale != "full" and scale <= _HOST_MAX)
            gen = np if host else xp
            data, indices, indptr, shape = _matrices.csr_arrays(name, dt, scale, xp=gen)
            xg = _matrices.values(shape[1], dt, xp=gen, seed=7)
            if host:
                import scipy.sparse as sps
            else:
                import cupyx.scipy.sparse as sps
            want, bound = reference(
                sps.csr_matrix((data.astype(np.float64), indices, indptr), shape=shape),
                xg,
                dtype=dt,
            )
            csr = sparse.CSR._from_arrays(
                xp.asarray(data),
                xp.asarray(indices.astype(np.int32)),
                xp.asarray(indptr.astype(np.int32)),
                shape,
            )
            x = xp.asarray(xg)
            if host:
                check = lambda got: matches(tour.to_host(got), want, bound)[0]  # noqa: E731
            else:
                check = lambda got: matches(got, want, bound)[0]  # noqa: E731
            st = csr.row_stats()
            sec.nbytes = csr.nbytes + (shape[0] + shape[1]) * dt.itemsize
            sec.title = (
                f"spmv: {name} {shape[0]}x{shape[1]}, {csr.nnz} nonzeros (row length "
                f"mean {st.mean:.1f}, max {st.max}, cv {st.cv:.2f}), float32"
            )
            forms = {"csr": csr, "coo": sparse.COO(csr), "hyb": sparse.HYB(csr)}
            try:
                forms["ell"] = sparse.ELL(csr)
            except ValueError:
                sec.title += "; ELL refused (padding over max_fill)"
            out = []
            for v in VARIANTS + ("auto",):
                M = forms.get(FORMAT_OF.get(v, "csr"))
                if M is None:
                    continue
                label = v if v != "auto" else f"auto ({choose_variant(csr)})"
                note = f"{M.format} {M.nbytes / 1e6:.1f} MB ({M.nbytes / csr.nbytes:.2f}x CSR)"
                out.append(
                    tour.Contender(
                        label, (lambda M=M, v=v: prim.spmv(M, x, variant=v)), check, note=note
                    )
                )
            if gpu:
                peer = csr.to_cupy()
                out.append(
                    tour.Contender(
                        "cuSPARSE (peer)",
                        lambda: peer @ x,
                        check,
                        note=f"csr {csr.nbytes / 1e6:.1f} MB",
                    )
                )
            return out

        sec.contenders = contenders
        sections.append(sec)
    return sections
