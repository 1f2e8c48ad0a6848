"""Tour of the segmented family (moving here from primitives.segmented)."""

from primitives.segmented import tour_sections as sections  # noqa: F401
