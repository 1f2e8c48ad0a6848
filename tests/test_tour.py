"""The tour (``python -m primitives``) verifies every variant and prints its table."""

import subprocess
import sys

import pytest

import primitives as prim
from primitives import tour as _tour, reduction


def test_tour_runs_and_verifies(capsys):
    assert _tour.main(["--log2n", "11"]) == 0
    out = capsys.readouterr().out
    assert "backend" in out and "measured copy bandwidth" in out
    for v in reduction.VARIANTS:
        assert f"  {v} " in out
    assert "FAIL" not in out


def test_tour_reports_failure(monkeypatch, capsys):
    real = prim.reduce  # the tour calls the public function
    monkeypatch.setattr(prim, "reduce", lambda x, op, **kw: real(x, op, **kw) + 1)
    assert _tour.main(["--log2n", "8", "--family", "reduction"]) == 1
    assert "FAIL" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--help"]])
def test_module_entry_point(args):
    r = subprocess.run([sys.executable, "-m", "primitives", *args], capture_output=True, text=True)
    assert r.returncode == 0 and "python -m primitives" in r.stdout
