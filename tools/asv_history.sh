#!/usr/bin/env bash
# Record the asv history suite over commits, with the interpreter and packages already installed
# (no network needed): each commit is checked out into a temporary worktree, put first on the
# benchmarks' import path, and benchmarked by THIS tree's suite (asv_bench/benchmarks), so every
# commit is measured by the same code. Results go to asv_bench/results/<machine>/.
#
#   tools/asv_history.sh [options] [COMMIT...]
#
# COMMIT: anything git rev-parse takes; none: the commits listed in asv_bench/history_commits.txt.
# Options:
#   --repo DIR      the git repository holding the commits (default: this checkout). Where the
#                   checkout has no .git (a copy of the working tree), a bundle made with
#                   `git bundle create .hist/primitives.bundle HEAD main` is cloned instead.
#   --machine NAME  asv machine name (default: h100); its entry records the GPU, driver, CUDA
#                   and CuPy versions beside asv's usual fields
#   --bench REGEX   benchmarks to run (default: '^history\.', the history suite)
#   --quick         one measurement per benchmark (asv run --quick)
#   --warm JOBS     first run the suite's calls at tiny sizes for every commit, JOBS commits at a
#                   time, so that NVRTC compiles each commit's kernels in parallel into CuPy's
#                   on-disk cache (the timed runs then load them)
#   --deadline S    start no new commit after S seconds (the results so far are kept)
#   --spread        run the commits in an order that spans the list early (first, last,
#                   middle, quarters...), so that a run cut short by --deadline still spans it
#   --results DIR   where the results go (default: asv_bench/results)
#
# The interpreter is `python3` (override with PYTHON=...). asv must be importable by it; anything
# on PYTHONPATH (e.g. asv installed with pip --target) is passed on to the benchmarks too.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
REPO=""
MACHINE=h100
BENCH='^history\.'
QUICK=()
RESULTS="$ROOT/asv_bench/results"
COMMITS=()
WARM=0
DEADLINE=0
SPREAD=0

while [[ $# -gt 0 ]]; do
    case "$1" in
        --repo) REPO=$2; shift 2 ;;
        --machine) MACHINE=$2; shift 2 ;;
        --bench) BENCH=$2; shift 2 ;;
        --quick) QUICK=(--quick); shift ;;
        --results) RESULTS=$2; shift 2 ;;
        --warm) WARM=$2; shift 2 ;;
        --deadline) DEADLINE=$2; shift 2 ;;
        --spread) SPREAD=1; shift ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        -*) echo "asv_history: unknown option $1" >&2; exit 2 ;;
        *) COMMITS+=("$1"); shift ;;
    esac
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/asv-history.XXXXXX")
cleanup() {
    if [[ -n "${REPO:-}" && -d "$REPO" ]]; then
        git -C "$REPO" worktree prune 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

[[ -n "$REPO" ]] && REPO=$(cd "$REPO" && pwd)
RESULTS=$(mkdir -p "$RESULTS" && cd "$RESULTS" && pwd)
if [[ -z "$REPO" ]]; then
    if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
        REPO=$ROOT
    elif [[ -f "$ROOT/.hist/primitives.bundle" ]]; then
        git clone -q --bare "$ROOT/.hist/primitives.bundle" "$WORK/repo"
        REPO=$WORK/repo
    else
        echo "asv_history: $ROOT is no git checkout and has no .hist/primitives.bundle" >&2
        exit 2
    fi
fi
if [[ ${#COMMITS[@]} -eq 0 ]]; then
    mapfile -t COMMITS < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/asv_bench/history_commits.txt" | awk '{print $1}')
fi
if [[ $SPREAD == 1 && ${#COMMITS[@]} -gt 2 ]]; then
    # first, last, then the middle of every span so far, level by level
    mapfile -t COMMITS < <("$PYTHON" -c '
import sys
items = sys.argv[1:]
order, spans = [0, len(items) - 1], [(0, len(items) - 1)]
while spans:
    nxt = []
    for lo, hi in spans:
        if hi - lo > 1:
            mid = (lo + hi) // 2
            order.append(mid)
            nxt += [(lo, mid), (mid, hi)]
    spans = nxt
print("\n".join(items[i] for i in dict.fromkeys(order)))' "${COMMITS[@]}")
fi
mkdir -p "$RESULTS"

# A configuration for this run: the commits' repository, this tree's benchmarks and results.
CONF="$WORK/asv.conf.json"
"$PYTHON" - "$CONF" "$REPO" "$ROOT/asv_bench/benchmarks" "$RESULTS" "$WORK/html" <<'EOF'
import json, sys
conf, repo, bench, results, html = sys.argv[1:]
json.dump({"version": 1, "project": "primitives", "repo": repo, "dvcs": "git",
           "branches": ["main"], "environment_type": "existing", "benchmark_dir": bench,
           "results_dir": results, "html_dir": html, "env_dir": html + "-env"},
          open(conf, "w"), indent=2)
EOF

# The machine: asv's fields, and the GPU with its driver, CUDA and CuPy versions.
"$PYTHON" - "$MACHINE" <<'EOF'
import json, os, pathlib, platform, subprocess, sys
name = sys.argv[1]
info = {"machine": name, "os": f"{platform.system()} {platform.release()}",
        "arch": platform.machine(), "num_cpu": str(os.cpu_count())}
try:
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
    info["cpu"] = cpu[0] if cpu else platform.processor()
    mem = [l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")]
    info["ram"] = f"{int(mem[0]) // 2**20} GB" if mem else ""
except OSError:
    info.setdefault("cpu", platform.processor())
try:
    q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                        "--format=csv,noheader"], capture_output=True, text=True, check=True)
    gpu, driver, memory = [s.strip() for s in q.stdout.splitlines()[0].split(",")]
    info.update(gpu=f"{gpu} ({memory})", gpu_driver=driver)
except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
    info.update(gpu="none (CPU emulator)", gpu_driver="")
try:
    import cupy
    rt = cupy.cuda.runtime.runtimeGetVersion()
    info.update(cupy=cupy.__version__, cuda=f"{rt // 1000}.{rt % 1000 // 10}")
except Exception:  # noqa: BLE001 - no CuPy or no device: recorded as absent
    info.update(cupy="", cuda="")
path = pathlib.Path.home() / ".asv-machine.json"
data = json.loads(path.read_text()) if path.exists() else {"version": 1}
data[name] = info
path.write_text(json.dumps(data, indent=4))
print("asv_history: machine", json.dumps(info))
EOF

EXTRA=${PYTHONPATH:-}
cd "$WORK"  # a directory with no package in it: `python -c` puts the current directory first
SHAS=()
for c in "${COMMITS[@]}"; do
    sha=$(git -C "$REPO" rev-parse --verify "$c^{commit}")
    SHAS+=("$sha")
    git -C "$REPO" worktree add -q --detach "$WORK/tree-${sha:0:12}" "$sha"
done
if [[ $WARM -gt 0 ]]; then
    start=$SECONDS
    export WORK EXTRA PYTHON BENCH_ROOT="$ROOT/asv_bench"
    printf '%s\n' "${SHAS[@]}" | xargs -P "$WARM" -I{} bash -c '
        sha={}; tree=$WORK/tree-${sha:0:12}
        PRIMITIVES_ASV_SIZE_CAP=4096 PYTHONPATH=$tree${EXTRA:+:$EXTRA}:$BENCH_ROOT "$PYTHON" -c "
from benchmarks import history
history._History().setup_cache()" >"$WORK/warm-${sha:0:12}.log" 2>&1 \
            || { echo "asv_history: warm-up of ${sha:0:12} failed:"; tail -5 "$WORK/warm-${sha:0:12}.log"; }'
    echo "asv_history: warm-up of ${#SHAS[@]} commits took $((SECONDS - start)) s"
fi
for i in "${!SHAS[@]}"; do
    sha=${SHAS[$i]}
    if [[ $DEADLINE -gt 0 && $SECONDS -ge $DEADLINE ]]; then
        echo "asv_history: deadline reached; not run: ${SHAS[*]:$i}"
        break
    fi
    tree="$WORK/tree-${sha:0:12}"
    # this commit's package first on the benchmarks' path (asv passes ASV_PYTHONPATH on)
    export ASV_PYTHONPATH="$tree${EXTRA:+:$EXTRA}"
    if ! where=$(PYTHONPATH=$ASV_PYTHONPATH "$PYTHON" -c 'import primitives; print(primitives.__file__)'); then
        echo "asv_history: ${sha:0:12}: primitives does not import at this commit; skipped"
        git -C "$REPO" worktree remove --force "$tree"
        continue
    fi
    if [[ "$where" != "$tree"/* ]]; then
        echo "asv_history: ${sha:0:12}: primitives imported from $where, not the worktree" >&2
        exit 1
    fi
    echo "asv_history: ${sha:0:12} $(git -C "$REPO" log -1 --format=%s "$sha" | cut -c1-70)"
    start=$SECONDS
    # asv exits 2 when a benchmark failed: go on with the next commit, the results say which
    "$PYTHON" -m asv run --config "$CONF" --machine "$MACHINE" --python=same \
        --set-commit-hash="$sha" --bench "$BENCH" "${QUICK[@]}" --show-stderr \
        || echo "asv_history: ${sha:0:12}: asv exited $? (failed benchmarks above)"
    echo "asv_history: ${sha:0:12} took $((SECONDS - start)) s"
    git -C "$REPO" worktree remove --force "$tree"
done
echo "asv_history: results in $RESULTS/$MACHINE"
