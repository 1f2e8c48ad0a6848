"""Parity runs: other projects' own test files for the functions this library has, with their
calls routed to :mod:`primitives` (see :mod:`tools.parity.cupy_tests`)."""
