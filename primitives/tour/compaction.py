"""Tour of the compaction family (moving here from primitives.compaction)."""

from primitives.compaction import tour_sections as sections  # noqa: F401
