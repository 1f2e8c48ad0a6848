"""primitives/_core type-checks: mypy, configured by pyproject.toml (every function of the core
annotated), finds nothing there. Skipped where mypy is not installed (the ``test`` extra brings
it)."""

import pathlib

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_core_type_checks(tmp_path):
    out, err, status = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy"),  # none written into the tree
            str(ROOT / "primitives" / "_core"),
        ]
    )
    assert status == 0, f"mypy primitives/_core:\n{out}{err}"
    assert out.startswith("Success: no issues found"), out
