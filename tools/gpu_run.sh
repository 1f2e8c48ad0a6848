#!/usr/bin/env bash
# On a GPU machine: install the peers' wheel, run the test suite, the tour and the figures.
#   bash tools/gpu_run.sh [pytest args...]
# Logs go to $OUT (or ./gpu_out). Wheels (cuda-cccl) are read from .whl/ when present.
set -u
OUT=${OUT:-gpu_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
echo "== tests"
python3 -m pytest -q -p no:cacheprovider "$@" 2>&1 | tee "$OUT/pytest.log" | tail -n 25
echo "== tour"
python3 -m primitives 2>/dev/null | tee "$OUT/tour.txt"
echo "== figures"
python3 -m tools.figures --out "$OUT/figures.md" 2>&1 | tail -n 40
