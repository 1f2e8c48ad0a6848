"""Package discovery, the one thing pyproject.toml cannot state: every package under primitives/
(a new family is found without an entry anywhere), and the kernel sources, the folder kernels/
beside it, as the package primitives.kernels (pyproject.toml maps the folder).

The kernel binaries (primitives._core.binaries) ride in a build only from the folder named by
``$PRIMITIVES_WHEEL_BINARIES``, copied to primitives/_bin/ (``python tools/build_wheel.py`` builds
them and sets it); nothing else under _bin/ (an earlier build folder's, the source tree's) is
packed."""

import os
import pathlib
import shutil

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

PACKAGES = find_namespace_packages(
    include=["primitives", "primitives.*"], exclude=["*.__pycache__", "primitives._bin"]
)
BINARIES = ("index.json", "*.cubin", "*.ptx")


class build_py_with_binaries(build_py):
    """The standard build, then primitives/_bin/ made anew: the binaries of
    ``$PRIMITIVES_WHEEL_BINARIES`` (a folder holding an index.json), or none."""

    def run(self):
        super().run()
        target = pathlib.Path(self.build_lib) / "primitives" / "_bin"
        shutil.rmtree(target, ignore_errors=True)
        source = os.environ.get("PRIMITIVES_WHEEL_BINARIES")
        if not source:
            return
        source = pathlib.Path(source)
        if not (source / "index.json").is_file():
            raise SystemExit(f"PRIMITIVES_WHEEL_BINARIES={source}: no index.json there")
        target.mkdir(parents=True)
        for pattern in BINARIES:
            for f in sorted(source.glob(pattern)):
                shutil.copyfile(f, target / f.name)


if __name__ == "__main__":  # as setuptools runs it (a test reads PACKAGES)
    setup(packages=[*PACKAGES, "primitives.kernels"], cmdclass={"build_py": build_py_with_binaries})
