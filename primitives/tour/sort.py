"""Tour of the sort family (moving here from primitives.sorting)."""

from primitives.sorting import tour_sections as sections  # noqa: F401
