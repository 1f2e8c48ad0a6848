#!/usr/bin/env bash
# The style gates CI runs before the tests, and pre-commit runs on a commit: ruff's lint and
# formatter over the Python tree, mypy over primitives/_core (annotated), clang-format over
# kernels/ (dry run: it reports, never rewrites). The tools' versions are pinned here, so that
# every machine checks the same rules; --install installs them first.
#   bash tools/check_style.sh [--install]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=(ruff==0.17.6 mypy==2.4.1 clang-format==23.1.5 numpy "ml_dtypes>=0.7")
if [ "${1:-}" = "--install" ]; then
  python -m pip install -q "${TOOLS[@]}"
fi
status=0
run() {
  echo "+ $*"
  "$@" || status=1
}
run ruff check .
run ruff format --check .
run mypy
mapfile -t kernels < <(git ls-files 'kernels/*.cu' 'kernels/*.cuh' 'kernels/*.h')
run clang-format --dry-run --Werror "${kernels[@]}"
exit $status
