"""Tour of the histogram family (moving here from primitives.histograms)."""

from primitives.histograms import tour_sections as sections  # noqa: F401
