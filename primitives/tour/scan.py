"""Tour of the scan family (moving here from primitives.scan)."""

from primitives.scan import tour_sections as sections  # noqa: F401
