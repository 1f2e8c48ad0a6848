# The CUDA sources ship inside the wheel as the package data ``primitives.kernels``.
