#!/usr/bin/env bash
# The one-shot device check: on a machine with an NVIDIA GPU, from the repository root,
#
#     bash bench/gpu_check.sh
#
# makes a fresh virtual environment, installs termo with the [cuda,jax,test] extras and JAX's CUDA
# plugin matching the driver (jax[cuda12] or jax[cuda13], read from nvidia-smi), runs the
# cross-backend tests on CuPy and JAX-GPU, then the GPU benchmarks, each step under its own time
# limit so the whole check ends within ~8 minutes (GPU_CHECK_BUDGET seconds, default 470). Results:
# bench/results/gpu-*.json (device name from nvidia-smi in each), and one summary line per step
# (ok / failed / skipped, and why) on stdout and in gpu-summary.json. Exit status 1 when a step
# failed. Needs only PyPI.
#
#     GPU_CHECK_CPU=1 bash bench/gpu_check.sh
#
# is the dry run of the same steps on JAX's CPU with tiny sizes (Nerdle Mini, a closed world of
# 60), in the current environment (GPU_CHECK_INSTALL=1 makes the venv there too), writing to
# ${GPU_CHECK_OUT:-/tmp/termo-gpu-check}: it proves the plumbing on a machine without a GPU
# (GPU_CHECK_SCALE=3 GPU_CHECK_BUDGET=1500 gives each step three times its limit on a busy machine).
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
START=$(date +%s)
CPU_MODE=${GPU_CHECK_CPU:-0}
BUDGET=${GPU_CHECK_BUDGET:-470}
if [ "$CPU_MODE" = 1 ]; then
  OUT=${GPU_CHECK_OUT:-/tmp/termo-gpu-check}
else
  OUT=${GPU_CHECK_OUT:-$ROOT/bench/results}
fi
mkdir -p "$OUT"
LOG=$OUT/gpu-check-logs
mkdir -p "$LOG"
VENV=${GPU_CHECK_VENV:-/tmp/termo-gpu-venv}
export TERMO_CACHE_DIR=${TERMO_CACHE_DIR:-/tmp/termo-gpu-cache}
export PYTHONUNBUFFERED=1
SUMMARY=()
FAILED=0

elapsed() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(elapsed) )); }
# limit WANTED: the step's own limit, cut to what is left of the budget (at least 1 s)
# (GPU_CHECK_SCALE multiplies every step's own limit: a dry run on a slow or busy machine)
SCALE=${GPU_CHECK_SCALE:-1}
limit() { local w=$(( $1 * SCALE )) l; l=$(left); [ "$l" -lt "$w" ] && w=$l; [ "$w" -lt 1 ] && w=1; echo "$w"; }

record() {  # record NAME STATUS WHY SECONDS
  local line="STEP $1: $2${3:+ ($3)} [$4 s, $(elapsed) s in all]"
  echo "$line"
  SUMMARY+=("$1|$2|$3|$4")
  [ "$2" = failed ] && FAILED=1
  return 0
}

# run_step NAME WANTED_SECONDS MIN_SECONDS COMMAND...: run under a time limit, log to $LOG/NAME.log
run_step() {
  local name=$1 wanted=$2 need=$3; shift 3
  if [ "$(left)" -lt "$need" ]; then
    record "$name" skipped "$(left) s of the budget left, the step needs ${need} s"
    return 0
  fi
  local lim t0 rc why
  lim=$(limit "$wanted")
  t0=$(date +%s)
  timeout --kill-after=10 "$lim" "$@" >"$LOG/$name.log" 2>&1
  rc=$?
  local took=$(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ]; then
    record "$name" ok "" "$took"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    record "$name" failed "timed out after ${lim} s; log: $LOG/$name.log" "$took"
  else
    why=$(grep -v '^\s*$' "$LOG/$name.log" | tail -n 1 | cut -c1-200)
    record "$name" failed "exit $rc: ${why:-no output}; log: $LOG/$name.log" "$took"
  fi
  return 0
}

# --- 1. the device -------------------------------------------------------------------------------
DEVICE="cpu (dry run)"
CUDA_MAJOR=""
if [ "$CPU_MODE" = 1 ]; then
  record device ok "CPU dry run: JAX on the CPU, tiny sizes" 0
else
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi >/dev/null 2>&1; then
    record device failed "nvidia-smi missing or no GPU: run GPU_CHECK_CPU=1 for the dry run" 0
    echo "gpu check: no NVIDIA GPU here" >&2
    exit 1
  fi
  DEVICE=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -n 1)
  CUDA_MAJOR=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9][0-9]*\)\..*/\1/p' | head -n 1)
  record device ok "$DEVICE, driver CUDA ${CUDA_MAJOR:-?}" 0
fi
export GPU_CHECK_DEVICE="$DEVICE"

# --- 2. a fresh environment ---------------------------------------------------------------------------
make_venv() {
  rm -rf "$VENV"
  python3 -m venv "$VENV" || { python3 -m pip install --quiet virtualenv && python3 -m virtualenv "$VENV"; } || return 1
  "$VENV/bin/python" -m pip install --quiet --upgrade pip || return 1
  if [ "$CPU_MODE" = 1 ]; then
    "$VENV/bin/python" -m pip install --quiet -e ".[jax,test]" || return 1
    return 0
  fi
  local plugin=cuda12
  [ "${CUDA_MAJOR:-12}" -ge 13 ] 2>/dev/null && plugin=cuda13
  "$VENV/bin/python" -m pip install --quiet -e ".[cuda,jax,test]" "jax[$plugin]" && return 0
  [ "$plugin" = cuda13 ] && "$VENV/bin/python" -m pip install --quiet "jax[cuda12]" && return 0
  return 1
}
if [ "$CPU_MODE" = 1 ] && [ "${GPU_CHECK_INSTALL:-0}" != 1 ]; then
  PY=$(command -v python)
  record install skipped "CPU dry run: the current environment ($PY); GPU_CHECK_INSTALL=1 makes the venv" 0
else
  export -f make_venv
  export VENV CPU_MODE CUDA_MAJOR
  run_step install 300 60 bash -c make_venv
  PY=$VENV/bin/python
  [ -x "$PY" ] || PY=$(command -v python3)
fi

# --- 3. the backends see the device -----------------------------------------------------------------
if [ "$CPU_MODE" = 1 ]; then
  export JAX_PLATFORMS=cpu
  TEST_BACKENDS=jax-cpu
  BENCH_BACKENDS=numpy,jax-cpu
  TINY=--tiny
else
  TEST_BACKENDS=cupy,jax-gpu
  BENCH_BACKENDS=numpy,jax-gpu,cupy
  TINY=
fi
export TERMO_TEST_BACKENDS=$TEST_BACKENDS
run_step backends 90 10 "$PY" -c "
import json, sys
from backends.registry import available_backends
rows = available_backends()
print(json.dumps(rows, indent=1))
usable = {r['name'] for r in rows if r.get('usable')}
want = {'jax'} if '$CPU_MODE' == '1' else {'jax', 'cupy'}
if '$CPU_MODE' != '1':
    from backends import get_backend
    if not get_backend('jax').on_accelerator():
        sys.exit('JAX does not see the GPU: ' + json.dumps(get_backend('jax').describe()))
missing = want - usable
sys.exit('not usable: ' + ', '.join(sorted(missing)) if missing else 0)
"

# --- 4. the cross-backend tests on the device's backends -----------------------------------------
TEST_FILES="tests/test_backends.py tests/test_entropy.py tests/test_matrix.py tests/test_partition.py \
tests/test_level3.py tests/test_level3_sizes.py tests/test_lockstep.py tests/test_robustness_greedy.py \
tests/test_games.py tests/test_exact.py"
[ "$CPU_MODE" = 1 ] && TEST_FILES="tests/test_backends.py"  # the dry run: the plumbing, not the whole set
K_EXPR="$(echo "$TEST_BACKENDS" | sed "s/,/ or /g") or test_jax_path"  # and every test of the JAX path
run_step tests 150 30 "$PY" -m pytest -q -p no:xdist -m "not slow" -k "$K_EXPR" $TEST_FILES tests/test_jax_path.py \
  --junitxml="$LOG/tests.xml"
"$PY" - "$LOG/tests.xml" "$OUT/gpu-tests.json" "$TEST_BACKENDS" <<'EOF' || true
import json, sys, xml.etree.ElementTree as ET
from pathlib import Path
src, dst, chosen = sys.argv[1:4]
try:
    root = ET.parse(src).getroot()
except (OSError, ET.ParseError) as err:
    Path(dst).write_text(json.dumps({"backends": chosen, "error": f"no test report: {err}"}, indent=1) + "\n")
    sys.exit(0)
suite = root if root.tag == "testsuite" else root.find("testsuite")
failed = [c.get("classname", "") + "::" + c.get("name", "") for c in suite.iter("testcase")
          if c.find("failure") is not None or c.find("error") is not None]
Path(dst).write_text(json.dumps({"backends": chosen, **{k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")},
                                 "time_s": float(suite.get("time", 0)), "failed": failed[:50]}, indent=1) + "\n")
EOF

# --- 5. the benchmarks ---------------------------------------------------------------------------
BB="$PY bench/bench_backends.py --device $([ "$CPU_MODE" = 1 ] && echo cpu || echo gpu) --backends $BENCH_BACKENDS $TINY"
run_step matrix 60 15 $BB --ops matrix,matrix_ext --repeats 5 --no-cold --timeout 50 --out "$OUT/gpu-matrix"
run_step level3_opener 90 20 $BB --ops level3_opener --repeats 2 --no-cold --timeout 80 --out "$OUT/gpu-level3-opener"
run_step sweeps 60 15 $BB --ops sweep_all,sweep_state,topk_batch,level3_state --repeats 3 --no-cold --timeout 50 \
  --out "$OUT/gpu-sweeps"
run_step nerdle 60 15 $BB --ops nerdle_matrix,nerdle_sweep --repeats 3 --no-cold --timeout 50 --out "$OUT/gpu-nerdle"
run_step batteries 90 30 "$PY" bench/gpu_bench.py batteries --backend jax $TINY --out "$OUT/gpu-batteries.json"
run_step fullbeam_column 120 30 "$PY" bench/gpu_bench.py fullbeam --backend jax $TINY --columns project \
  --out "$OUT/gpu-fullbeam-column.json"
GRID_LIMIT=$(limit 300)
run_step fullbeam_grid 300 60 "$PY" bench/gpu_bench.py fullbeam --backend jax $TINY \
  --limit "$GRID_LIMIT" --out "$OUT/gpu-fullbeam-grid.json"

# --- the summary ---------------------------------------------------------------------------------
printf '%s\n' "${SUMMARY[@]}" | "$PY" -c "
import json, sys, datetime
steps = []
for line in sys.stdin.read().splitlines():
    name, status, why, secs = line.split('|', 3)
    steps.append({'step': name, 'status': status, 'why': why, 'seconds': int(secs)})
doc = {'benchmark': 'gpu-summary', 'device': '''$DEVICE''', 'cpu_dry_run': '$CPU_MODE' == '1',
       'when': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
       'total_s': $(elapsed), 'budget_s': $BUDGET, 'steps': steps,
       'targets': {'matrix 6046x6046': '<= 20 ms', 'level-3 opener': '<= 2 s', 'full-beam grid': '<= 5 min'}}
open('$OUT/gpu-summary.json', 'w').write(json.dumps(doc, indent=1) + '\n')
" || echo "gpu check: could not write $OUT/gpu-summary.json" >&2
"$PY" bench/gpu_bench.py report --dir "$OUT" || true
echo "gpu check: $(elapsed) s; results in $OUT (gpu-*.json), logs in $LOG"
exit $FAILED
