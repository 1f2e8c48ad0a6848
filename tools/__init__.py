"""Maintainer tools: figures/ (the performance figures), tune/ (policy sweeps), probes/ (one-off
measurements). Run from the repository root as modules: ``python -m tools.figures``."""
