#!/usr/bin/env bash
# On a GPU machine: install the peers' wheels, then the GPU test suite, the tour and the figures,
# each logged whole under $OUT (or ./gpu_out) with its tail printed.
#   bash tools/gpu_run.sh [--first-calls] [pytest args...]
# Wheels (cuda-cccl for CUB; ml_dtypes>=0.7 where the machine's is older: tests/conftest.py stops
# the suite otherwise) are read from .whl/ when present. The suite leaves out the files
# that test nothing of the GPU (the Sphinx build, the NVRTC compile check and the emulator's own
# tests, the browser test of the built docs: CI runs them) and runs one process per CPU. Kernel
# binaries built ahead of time (a wheel of python tools/build_wheel.py installed, or
# python -m primitives._core.binaries build into primitives/_bin/) are used when present;
# --first-calls then also times every public function's first call with and without them
# (tools/probes/first_call.py).
set -u
OUT=${OUT:-gpu_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
first_calls=0
if [ "${1:-}" = "--first-calls" ]; then first_calls=1; shift; fi
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
if [ "$first_calls" = 1 ]; then
  echo "== first calls (fresh processes, empty caches)"
  python3 -m tools.probes.first_call --out "$OUT/first_calls.md" 2>&1 | tail -n 25
  python3 -m tools.probes.first_call --binaries off --out "$OUT/first_calls_compiled.md" 2>&1 \
    | tail -n 25
fi
echo "== tests"
python3 -m pytest -q -n auto -p no:cacheprovider --ignore=tests/test_docs.py \
  --ignore=tests/core/test_nvrtc.py --ignore=tests/core/test_emulator.py \
  --ignore=tests/test_browser.py "$@" 2>&1 \
  | tee "$OUT/pytest.log" | tail -n 25
echo "== tour"
python3 -m primitives --no-progress 2>/dev/null | tee "$OUT/tour.txt" | tail -n 30
echo "== figures"
python3 -m tools.figures --jobs "$(nproc)" --out "$OUT/figures.md" 2>&1 | tail -n 40
