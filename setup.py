"""Package discovery, the one thing pyproject.toml cannot state: every package under primitives/
(a new family is found without an entry anywhere), and the kernel sources, the folder kernels/
beside it, as the package primitives.kernels (pyproject.toml maps the folder)."""

from setuptools import find_namespace_packages, setup

PACKAGES = find_namespace_packages(
    include=["primitives", "primitives.*"], exclude=["*.__pycache__", "primitives._bin"]
)
if __name__ == "__main__":  # as setuptools runs it (a test reads PACKAGES)
    setup(packages=[*PACKAGES, "primitives.kernels"])
