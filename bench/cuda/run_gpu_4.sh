#!/usr/bin/env bash
# GPU run 4 (issue 16, again at the current code): everything of runs 1-3 that matters, in ONE device call of at
# most ~420 s, long pieces in the background, every piece under `timeout` (capped so that all ends by $DEADLINE
# seconds after the start):
#   1. env info (env_info.sh) and an identity of the code measured (sha256 of fixinplace/**/*.py)
#   2. saved-tensor tables: CPU (the real generator, python -m fixinplace.tables), CUDA (table_device.py, halves
#      --part ops / --part rest side by side, merged), the dtypes files; table_diff.py CPU vs CUDA (same torch);
#      the device's CPU table vs the shipped fixinplace/data/saved_tensors.json; when the device's torch is the one
#      of runs 1-2 (2.11.0+cu130): this run's tables vs those of results/run1 and run2 (what the code changed)
#   3. probe_kernels.py + probe_summary.py
#   4. verify (fixtures/fix/*/before.py and fixtures/check; --device all, with and without --entry main;
#      --unsafe-fixes; --device cuda --memory none, against the RLIMIT_DATA cap), summarize_verify.py; fix --verify
#      --apply on copies of the fix fixtures
#   5. trace_programs_cuda.py (user_frame now returns None on a shallow stack: CUDA reports should equal CPU's),
#      the text report of fused_adam.py on CUDA, fused_optim.py, cuda_diffs.py, and last, on a quiet machine,
#      trace_overhead_cuda.py --device cuda --repeats 5 (+ bench/trace_overhead.py on the same machine's CPU)
#   6. pytest tests/test_verify.py tests/test_trace.py (xdist, --dist load)
# Run from the repository root on the device machine with `carry: [".whl"]`:
#   bash bench/cuda/run_gpu_4.sh
# Writes under $OUT (default /tmp/out) at most 8 files (the device tool brings back no more): run4.log,
# results4.tar.gz (everything), summary4.md (the short summary), table_diff.md, verify_summary.md,
# probe_summary.md, pytest.txt, trace_programs.txt.
# Local dry run (CPU only; CUDA pieces fail or skip cleanly): SKIP_PIP=1 OUT=/tmp/gpu4_dry bash bench/cuda/run_gpu_4.sh
# DRY=1 also cuts the long pieces (no CUDA table op half, a slice of pytest, of the probe and of the fixtures).
set -u
: "${OUT:=/tmp/out}"
: "${DEADLINE:=395}"          # seconds after the start by which every piece has ended
: "${R:=/tmp/results4}"
DRY=${DRY:-}
LOG=run4.log
. bench/cuda/gpu_lib.sh  # a fresh $R, the output also in $OUT/$LOG, T0
setup_python

if [ -n "$DRY" ]; then NT=1; else NT=2; fi
export OMP_NUM_THREADS=$NT MKL_NUM_THREADS=$NT   # many processes side by side on 16 cores

: > "$R/pieces.txt"
# --- 1. the longest pieces first: CUDA table op half, pytest ----------------------------------------------------
if [ -z "$DRY" ]; then
  bgrun table_cuda_ops 330 python3 bench/cuda/table_device.py --device cuda --part ops --output "$R/table_cuda_ops.json" -v
  PYTEST_SEL=(tests/test_verify.py tests/test_trace.py)
  PYTEST_N=6
else
  skip table_cuda_ops DRY
  PYTEST_SEL=(tests/test_trace.py -k "shallower or missing_targets")
  PYTEST_N=1
fi
# -n/--dist on the command line override pyproject's addopts (-n auto --dist loadfile: only 2 workers for 2 files)
bgrun pytest 380 python3 -m pytest -v -rA -p no:cacheprovider --durations=15 -n $PYTEST_N --dist load "${PYTEST_SEL[@]}"

# --- env info (foreground: the first thing to read) ---------------------------------------------------------------
bash bench/cuda/env_info.sh > "$R/env.txt" 2>&1
{ echo "== code measured: sha256 of fixinplace/**/*.py, bench/cuda/*.py, tests/*.py"
  for d in fixinplace bench/cuda tests; do
    echo "$d $(find "$d" -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
  done
  git rev-parse HEAD 2>/dev/null || echo "(no .git here)"
  echo "== carried wheels"; ls .whl .whl/if_missing 2>/dev/null | tr '\n' ' '; echo
} >> "$R/env.txt" 2>&1
cat "$R/env.txt"
TORCH=$(awk '$1 == "torch" && $3 == "cuda" {print $2; exit}' "$R/env.txt")
CUDA_OK=$(awk '/^cuda available/ {print $3; exit}' "$R/env.txt")
stamp "torch $TORCH, CUDA available: $CUDA_OK"

# --- 2. the other table pieces, the probe (background) ------------------------------------------------------------
bgrun table_cpu 200 python3 -m fixinplace.tables --output "$R/table_cpu.json" -v
bgrun table_cuda_rest 200 python3 bench/cuda/table_device.py --device cuda --part rest --output "$R/table_cuda_rest.json" -v
bgrun dtypes_cpu 120 python3 bench/cuda/table_device.py --device cpu --dtypes-only --dtypes-output "$R/dtypes_cpu.json"
bgrun dtypes_cuda 120 python3 bench/cuda/table_device.py --device cuda --dtypes-only --dtypes-output "$R/dtypes_cuda.json"
if [ -z "$DRY" ]; then
  bgrun probe_kernels 240 python3 bench/cuda/probe_kernels.py --output "$R/probe_kernels.json" --markdown "$R/probe_kernels.md"
else
  bgrun probe_kernels 120 python3 bench/cuda/probe_kernels.py --only "F.layer_norm,nn.BatchNorm2d train" \
      --output "$R/probe_kernels.json" --markdown "$R/probe_kernels.md"
fi

# --- 4. verify, side by side (each writes NAME.json with -o; its text output and stderr go to NAME.txt) -------------
if [ -z "$DRY" ]; then
  FIX=(fixtures/fix/*/before.py); CHECK=(fixtures/check)
else
  FIX=(fixtures/fix/0[1-4]*/before.py); CHECK=(fixtures/check/00[5-7]*.py)
fi
V=(python3 -m fixinplace verify --format json)
bgrun verify_fix_all 150 "${V[@]}" -o "$R/verify_fix_all.json" "${FIX[@]}" --device all
bgrun verify_fix_all_entry_main 150 "${V[@]}" -o "$R/verify_fix_all_entry_main.json" "${FIX[@]}" --device all --entry main
bgrun verify_check_all 150 "${V[@]}" -o "$R/verify_check_all.json" "${CHECK[@]}" --device all
bgrun verify_check_all_entry_main 150 "${V[@]}" -o "$R/verify_check_all_entry_main.json" "${CHECK[@]}" --device all --entry main
for n in verify_fix_all verify_fix_all_entry_main verify_check_all verify_check_all_entry_main; do fin $n; done
bgrun verify_fix_all_unsafe 150 "${V[@]}" -o "$R/verify_fix_all_unsafe.json" "${FIX[@]}" --device all --unsafe-fixes
bgrun verify_fix_cuda_memnone 150 "${V[@]}" -o "$R/verify_fix_cuda_memnone.json" "${FIX[@]}" --device cuda --memory none
# fix --verify --apply on flat copies of the fix fixtures (no --device option: it verifies on every device there is)
FC=/tmp/fixcopy4; rm -rf "$FC"; mkdir -p "$FC"
for f in "${FIX[@]}"; do cp "$f" "$FC/$(basename "$(dirname "$f")").py"; done
bgrun fix_verify_apply 150 bash -c 'cd "$0" && exec "$@"' "$FC" python3 -m fixinplace fix . --verify --apply
for n in verify_fix_all_unsafe verify_fix_cuda_memnone fix_verify_apply; do fin $n; done
written=0
for f in "${FIX[@]}"; do cmp -s "$f" "$FC/$(basename "$(dirname "$f")").py" || written=$((written+1)); done
echo "fix --verify --apply: files written $written of ${#FIX[@]}; fixes verified: $(grep -c ' verified (' "$R/fix_verify_apply.txt"); not applied: $(grep -c 'not applied' "$R/fix_verify_apply.txt")" \
  | tee "$R/fix_verify_apply_count.txt"
grep -h 'not applied' "$R/fix_verify_apply.txt" | cut -c1-250 | head -20
timeout 60 python3 bench/cuda/summarize_verify.py "$R"/verify_*.json > "$R/verify_summary.md" 2>&1
grep -E '^## |^- results|^- (cpu|cuda): max|pairs whose status|^- NOT VERIFIED' "$R/verify_summary.md" | cut -c1-220

# --- 5. trace on CUDA, fused optimizers, cuda_diffs ----------------------------------------------------------------
if [ -z "$DRY" ]; then TP=(); else TP=(--programs saved_input.py,fused_adam.py); fi
bgrun trace_programs 150 python3 bench/cuda/trace_programs_cuda.py --output "$R/trace_programs.json" ${TP[@]+"${TP[@]}"}
fin trace_programs
grep -E 'same as on CPU' "$R/trace_programs.txt"
bgrun fused_optim 120 python3 bench/cuda/fused_optim.py --output "$R/fused_optim.json" --markdown "$R/fused_optim.md"
bgrun trace_fused_adam_cuda 90 python3 -m fixinplace trace bench/cuda/on_cuda.py tests/trace_programs/fused_adam.py
bgrun cuda_diffs 120 python3 bench/cuda/cuda_diffs.py --output "$R/cuda_diffs.json"
for n in fused_optim trace_fused_adam_cuda cuda_diffs; do fin $n; done
[ -s "$R/fused_optim.md" ] && head -c 3000 "$R/fused_optim.md"
cat "$R/trace_fused_adam_cuda.txt" | head -30

# --- 2 (cont.). wait for the tables; merge; diffs -------------------------------------------------------------------
for n in table_cpu table_cuda_rest dtypes_cpu dtypes_cuda; do fin $n; done
DIFF_NOTE=()
if [ -s "$R/table_cpu.json" ]; then
  timeout 60 python3 bench/cuda/table_diff.py "$R/table_cpu.json" fixinplace/data/saved_tensors.json \
      --json "$R/table_diff_shipped.json" --markdown "$R/table_diff_shipped.md" 2>&1 | tee -a "$R/diffs.txt"
  DIFF_NOTE+=("device CPU table vs shipped (torch $TORCH vs the shipped table's): table_diff_shipped.md")
fi
RUN12=false
case "$TORCH" in 2.11.0+cu130) RUN12=true;; esac
if $RUN12 && [ -s "$R/table_cpu.json" ] && [ -f bench/cuda/results/run1/table_cpu.json.gz ]; then
  gunzip -c bench/cuda/results/run1/table_cpu.json.gz > /tmp/run1_table_cpu.json
  timeout 60 python3 bench/cuda/table_diff.py /tmp/run1_table_cpu.json "$R/table_cpu.json" \
      --json "$R/table_diff_cpu_run1_vs_now.json" --markdown "$R/table_diff_cpu_run1_vs_now.md" 2>&1 | tee -a "$R/diffs.txt"
  DIFF_NOTE+=("CPU table, run 1's code vs now, same torch: table_diff_cpu_run1_vs_now.md")
fi

fin table_cuda_ops
if [ -s "$R/table_cuda_ops.json" ] && [ -s "$R/table_cuda_rest.json" ]; then
  timeout 60 python3 bench/cuda/table_device.py --merge "$R/table_cuda_ops.json" "$R/table_cuda_rest.json" --output "$R/table_cuda.json"
fi
if [ -s "$R/table_cpu.json" ] && [ -s "$R/table_cuda.json" ]; then
  timeout 60 python3 bench/cuda/table_diff.py "$R/table_cpu.json" "$R/table_cuda.json" --dtypes-a "$R/dtypes_cpu.json" \
      --dtypes-b "$R/dtypes_cuda.json" --json "$R/table_diff.json" --markdown "$R/table_diff.md" 2>&1 | tee -a "$R/diffs.txt"
  DIFF_NOTE+=("CPU vs CUDA, same torch: table_diff.md")
  if $RUN12 && [ -f bench/cuda/results/run2/table_cuda.json.gz ]; then
    gunzip -c bench/cuda/results/run2/table_cuda.json.gz > /tmp/run2_table_cuda.json
    timeout 60 python3 bench/cuda/table_diff.py /tmp/run2_table_cuda.json "$R/table_cuda.json" \
        --json "$R/table_diff_cuda_run2_vs_now.json" --markdown "$R/table_diff_cuda_run2_vs_now.md" 2>&1 | tee -a "$R/diffs.txt"
    DIFF_NOTE+=("CUDA table, run 2's code vs now, same torch: table_diff_cuda_run2_vs_now.md")
  fi
else
  echo "no CPU-vs-CUDA table diff (a table is missing)" > "$R/table_diff.md"
fi
grep -h -E 'CUDA context|simple tries mirrored|^wrote|Error' "$R"/table_*.txt 2>/dev/null | cut -c1-300 | head -20

# --- 3 (cont.). the probe -------------------------------------------------------------------------------------------
fin probe_kernels
if [ -s "$R/probe_kernels.json" ]; then
  timeout 60 python3 bench/cuda/probe_summary.py "$R/probe_kernels.json" > "$R/probe_summary.md" 2>&1
else
  echo "no probe output" > "$R/probe_summary.md"
fi

# --- 6 / 5 (cont.). pytest; then the trace overhead on a quiet machine ---------------------------------------------
wait_until pytest $(( DEADLINE - 60 ))
bgrun trace_overhead_cuda 60 python3 bench/cuda/trace_overhead_cuda.py --device cuda --repeats 5
fin trace_overhead_cuda
cat "$R/trace_overhead_cuda.txt"
if [ -z "$DRY" ]; then
  bgrun trace_overhead_cpu 30 python3 bench/trace_overhead.py --repeats 3 --steps-medium 30
  fin trace_overhead_cpu
  cat "$R/trace_overhead_cpu.txt"
fi
fin pytest
grep -E '^(FAILED|ERROR) |passed|failed' "$R/pytest.txt" | tail -n 25

# --- summary, files -------------------------------------------------------------------------------------------------
S=$R/summary4.md
{
  echo "# GPU run 4: summary ($(date -u +%FT%TZ), $(elapsed) s)"
  echo; echo "## Pieces (rc: 0 ok, 124/137 timed out, 99 skipped)"; echo '```'; cat "$R/pieces.txt"; echo '```'
  echo; echo "## Machine"; echo '```'
  grep -E '^(python|torch|gpu|cudnn|TF32|cuda available|NVIDIA|fixinplace|deterministic)|^(fixinplace|bench/cuda|tests) [0-9a-f]{16}$|^[0-9a-f]{40}$' "$R/env.txt"
  sed -n '/== packages/,/== code/p' "$R/env.txt" | grep -v '^=='
  echo '```'
  echo; echo "## Tables"
  for d in "${DIFF_NOTE[@]}"; do echo "- $d"; done
  echo '```'; cat "$R/diffs.txt" 2>/dev/null; grep -h -E 'CUDA context|^wrote' "$R"/table_*.txt 2>/dev/null | cut -c1-300; echo '```'
  echo; echo "### table_diff.md (CPU vs CUDA), first 80 lines"; head -n 80 "$R/table_diff.md"
  if [ -f "$R/table_diff_shipped.md" ]; then echo; echo "### table_diff_shipped.md (device CPU vs shipped), first 40 lines"; head -n 40 "$R/table_diff_shipped.md"; fi
  echo; echo "## Verify"; echo '```'
  grep -E '^## |^- results|^- (cpu|cuda): max|pairs whose status|^- NOT VERIFIED' "$R/verify_summary.md" | cut -c1-300
  cat "$R/fix_verify_apply_count.txt" 2>/dev/null
  echo '```'
  echo; echo "## Trace programs (CPU vs CUDA)"; echo '```'; grep -E 'same as on CPU|rc=[^01]' "$R/trace_programs.txt"; echo '```'
  echo; echo "## Fused optimizers"; head -n 30 "$R/fused_optim.md" 2>/dev/null
  echo; echo "## cuda_diffs"; echo '```'; cut -c1-300 "$R/cuda_diffs.txt"; echo '```'
  echo; echo "## Trace overhead"; echo '```'; cat "$R/trace_overhead_cuda.txt" "$R/trace_overhead_cpu.txt" 2>/dev/null; echo '```'
  echo; echo "## Probe summary, first 60 lines"; head -n 60 "$R/probe_summary.md"
  echo; echo "## pytest"; echo '```'; grep -E '^(FAILED|ERROR) |[0-9]+ (passed|failed)|^[0-9.]+s (call|setup)' "$R/pytest.txt" | cut -c1-300; echo '```'
} > "$S" 2>&1
stamp "done"
cp "$OUT/run4.log" "$R/run4.log" 2>/dev/null; rm -f "$R"/.end_*
tar czf "$OUT/results4.tar.gz" -C "$(dirname "$R")" "$(basename "$R")"
# at most 8 files come back from $OUT: run4.log, results4.tar.gz and these six
cp "$S" "$R/table_diff.md" "$R/verify_summary.md" "$R/probe_summary.md" "$R/pytest.txt" "$R/trace_programs.txt" "$OUT/" 2>/dev/null
ls -la "$OUT"
head -c 9000 "$S"
