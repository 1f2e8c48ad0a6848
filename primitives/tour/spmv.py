"""Tour of the spmv family (moving here from primitives.spmv)."""

from primitives.spmv import tour_sections as sections  # noqa: F401
