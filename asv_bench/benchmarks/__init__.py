"""asv benchmarks for primitives (run on a GPU; see ../README.md)."""
