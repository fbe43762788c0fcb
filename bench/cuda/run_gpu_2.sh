#!/usr/bin/env bash
# GPU run 2 of 2 (issue 16): tests with CUDA available, `verify` on the fixtures (CPU and CUDA, TF32 default and
# off), `fix --verify` on copies of the fix fixtures, trace overhead on CUDA; and what failed in run 1, again:
# the CUDA table's op half (device-side assert in the simple tries, now guarded), fused optimizers and the trace
# programs (with and without the safe user_frame). Needs bench/cuda/results/run1/ (the CPU table and the CUDA
# table's other half from run 1). Run from the repository root on the device machine, with the wheels of .whl/
# carried; writes $OUT/results2.tar.gz and $OUT/run2.log.
#   bash bench/cuda/run_gpu_2.sh
set -u
: "${OUT:=/tmp/out}"
mkdir -p "$OUT"
R=/tmp/results2
rm -rf "$R"; mkdir -p "$R"
exec > >(tee "$OUT/run2.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }

if [ -z "${SKIP_PIP:-}" ]; then  # SKIP_PIP=1: a local dry run where the packages are installed
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
stamp "wheels installed"
bash bench/cuda/env_info.sh > "$R/env.txt" 2>&1
tail -n 25 "$R/env.txt"

# --- the CUDA table's op half again, in the background --------------------------------------------------------
R1=bench/cuda/results/run1
OMP_NUM_THREADS=4 timeout 300 python3 bench/cuda/table_device.py --device cuda --part ops \
    --output "$R/table_cuda_ops.json" -v > "$R/table_cuda_ops.log" 2>&1 &
PTAB=$!

# --- tests, in the background ----------------------------------------------------------------------------------
timeout 400 python3 -m pytest -q -rA -p no:cacheprovider --durations=15 tests/test_verify.py tests/test_trace.py \
    > "$R/pytest.txt" 2>&1 &
PT=$!

# --- fused optimizers and trace programs again (run 1: the traced CUDA runs crashed in user_frame) ---------------
timeout 120 python3 bench/cuda/fused_optim.py --output "$R/fused_optim.json" --markdown "$R/fused_optim.md" \
    > "$R/fused_optim.log" 2>&1
stamp "fused_optim rc=$?"
cat "$R/fused_optim.md"
timeout 150 python3 bench/cuda/trace_programs_cuda.py --output "$R/trace_programs.json" > "$R/trace_programs.txt" 2>&1
stamp "trace_programs rc=$?"
cat "$R/trace_programs.txt"
FIXINPLACE_BENCH_SAFE_USER_FRAME=1 timeout 60 python3 -m fixinplace trace bench/cuda/on_cuda.py \
    tests/trace_programs/fused_adam.py > "$R/trace_fused_adam_cuda_safe_frame.txt" 2>&1
stamp "trace fused_adam on cuda (safe user_frame) rc=$?"

# --- verify -------------------------------------------------------------------------------------------------------
FIX=(fixtures/fix/*/before.py)
v() {  # v NAME ARGS...: one verify run, JSON to NAME.json, stderr to NAME.err, time and exit status logged
  local name=$1; shift
  local t=$(date +%s)
  timeout 300 python3 -m fixinplace verify "$@" --format json > "$R/$name.json" 2> "$R/$name.err"
  local rc=$?
  stamp "verify $name rc=$rc ($(( $(date +%s) - t ))s)"
}
v verify_fix_all "${FIX[@]}" --device all
v verify_fix_all_entry_main "${FIX[@]}" --device all --entry main
NVIDIA_TF32_OVERRIDE=0 v verify_fix_cuda_tf32off "${FIX[@]}" --device cuda
v verify_fix_all_unsafe "${FIX[@]}" --device all --unsafe-fixes
v verify_fix_all_unsafe_entry_main "${FIX[@]}" --device all --unsafe-fixes --entry main
v verify_check_all fixtures/check --device all
v verify_check_all_entry_main fixtures/check --device all --entry main
NVIDIA_TF32_OVERRIDE=0 v verify_check_cuda_tf32off fixtures/check --device cuda
python3 bench/cuda/summarize_verify.py "$R"/verify_*.json > "$R/verify_summary.md"
grep -E '^## |^- results|^- by device/reference|^- (cpu|cuda): max|pairs whose status' "$R/verify_summary.md"
echo "== nondeterminism / determinism warnings in verify's stderr"
grep -i -h -o '[^ ]*determinis[^.]*' "$R"/verify_*.err | sort | uniq -c | head -30

# --- fix --verify on copies of the fix fixtures (no --device option: it verifies on every available device) --------
for mode in safe unsafe; do
  D=/tmp/fixcopy_$mode; rm -rf "$D"; mkdir -p "$D"
  for d in fixtures/fix/*/; do cp "$d/before.py" "$D/$(basename "$d").py"; done
  extra=(); [ "$mode" = unsafe ] && extra=(--unsafe-fixes)
  t=$(date +%s)
  (cd "$D" && timeout 300 python3 -m fixinplace fix . --verify --apply "${extra[@]}") > "$R/fix_verify_$mode.out" \
      2> "$R/fix_verify_$mode.err"
  rc=$?
  applied=0; same=0
  for d in fixtures/fix/*/; do
    n=$(basename "$d")
    if ! cmp -s "$D/$n.py" "$d/before.py"; then applied=$((applied+1)); fi
    if [ -f "$d/after.py" ] && cmp -s "$D/$n.py" "$d/after.py"; then same=$((same+1)); fi
  done
  stamp "fix --verify --apply ($mode) rc=$rc ($(( $(date +%s) - t ))s): files changed $applied of ${#FIX[@]}; equal to after.py: $same"
  grep -c ': verified$' "$R/fix_verify_$mode.err" | sed 's/^/  verified files: /'
  grep 'fix not applied' "$R/fix_verify_$mode.err" | head -20
  tail -n 3 "$R/fix_verify_$mode.out"
done

wait $PTAB; stamp "table cuda ops rc=$?"
tail -n 4 "$R/table_cuda_ops.log"
gunzip -c "$R1/table_cpu.json.gz" > /tmp/table_cpu.json
gunzip -c "$R1/table_cuda_rest.json.gz" > /tmp/table_cuda_rest.json
if [ -s "$R/table_cuda_ops.json" ]; then
  python3 bench/cuda/table_device.py --merge "$R/table_cuda_ops.json" /tmp/table_cuda_rest.json --output "$R/table_cuda.json"
  python3 bench/cuda/table_diff.py /tmp/table_cpu.json "$R/table_cuda.json" --dtypes-a "$R1/dtypes_cpu.json" \
      --dtypes-b "$R1/dtypes_cuda.json" --json "$R/table_diff.json" --markdown "$R/table_diff.md"
  head -c 4000 "$R/table_diff.md"
  rm -f "$R/table_cuda_ops.json"
fi

wait $PT; stamp "pytest rc=$?"
tail -n 40 "$R/pytest.txt"

# --- trace overhead (alone on the machine) ------------------------------------------------------------------------
timeout 120 python3 bench/cuda/trace_overhead_cuda.py --device cuda --repeats 5 > "$R/trace_overhead_cuda.txt" 2>&1
stamp "trace_overhead_cuda rc=$?"
cat "$R/trace_overhead_cuda.txt"
timeout 45 python3 bench/trace_overhead.py --repeats 3 --steps-medium 30 > "$R/trace_overhead_cpu.txt" 2>&1
stamp "trace_overhead (CPU, same machine) rc=$?"
cat "$R/trace_overhead_cpu.txt"

stamp "done"
cp "$OUT/run2.log" "$R/run2.log" 2>/dev/null
tar czf "$OUT/results2.tar.gz" -C /tmp results2
ls -la "$OUT"
