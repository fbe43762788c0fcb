#!/usr/bin/env bash
# GPU run 1 of 2 (issue 16): environment, saved-tensor tables on CPU and CUDA (same torch), kernel probe,
# fused optimizers, trace programs on CUDA. Run from the repository root on the device machine, with the
# wheels of .whl/ carried; writes $OUT/results1.tar.gz (everything) and $OUT/run1.log.
#   bash bench/cuda/run_gpu_1.sh
set -u
: "${OUT:=/tmp/out}"
mkdir -p "$OUT"
R=/tmp/results1
rm -rf "$R"; mkdir -p "$R"
exec > >(tee "$OUT/run1.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }

if [ -z "${SKIP_PIP:-}" ]; then  # SKIP_PIP=1: a local dry run where the packages are installed
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
stamp "wheels installed"

bash bench/cuda/env_info.sh > "$R/env.txt" 2>&1
cat "$R/env.txt"

# --- 1. tables: CPU (the real generator), CUDA in two halves side by side (in the background) -----------------
export OMP_NUM_THREADS=4
timeout 500 python3 -m fixinplace.tables --output "$R/table_cpu.json" -v > "$R/table_cpu.log" 2>&1 &
P1=$!
timeout 500 python3 bench/cuda/table_device.py --device cuda --part ops --output "$R/table_cuda_ops.json" -v \
    > "$R/table_cuda_ops.log" 2>&1 &
P2=$!
timeout 500 python3 bench/cuda/table_device.py --device cuda --part rest --output "$R/table_cuda_rest.json" -v \
    > "$R/table_cuda_rest.log" 2>&1 &
P3=$!
python3 bench/cuda/table_device.py --device cpu --dtypes-only --dtypes-output "$R/dtypes_cpu.json"
python3 bench/cuda/table_device.py --device cuda --dtypes-only --dtypes-output "$R/dtypes_cuda.json"
stamp "tables started in the background"

# --- foreground meanwhile: kernel probe, fused optimizers, trace programs -----------------------------------
timeout 300 python3 bench/cuda/probe_kernels.py --output "$R/probe_kernels.json" --markdown "$R/probe_kernels.md" \
    > "$R/probe_kernels.log" 2>&1
stamp "probe_kernels rc=$?"
timeout 120 python3 bench/cuda/fused_optim.py --output "$R/fused_optim.json" --markdown "$R/fused_optim.md" \
    > "$R/fused_optim.log" 2>&1
stamp "fused_optim rc=$?"
cat "$R/fused_optim.md"
timeout 200 python3 bench/cuda/trace_programs_cuda.py --output "$R/trace_programs.json" > "$R/trace_programs.txt" 2>&1
stamp "trace_programs rc=$?"
cat "$R/trace_programs.txt"
# the CLI itself on the fused program, with CUDA as the default device (text report)
timeout 60 python3 -m fixinplace trace bench/cuda/on_cuda.py tests/trace_programs/fused_adam.py \
    > "$R/trace_fused_adam_cuda.txt" 2>&1
stamp "trace fused_adam on cuda rc=$?"

# --- wait for the tables, merge, diff --------------------------------------------------------------------------
wait $P1; stamp "table cpu rc=$?"
wait $P2; stamp "table cuda ops rc=$?"
wait $P3; stamp "table cuda rest rc=$?"
tail -n 3 "$R/table_cpu.log" "$R/table_cuda_ops.log" "$R/table_cuda_rest.log"
if [ -s "$R/table_cuda_ops.json" ] && [ -s "$R/table_cuda_rest.json" ]; then
  python3 bench/cuda/table_device.py --merge "$R/table_cuda_ops.json" "$R/table_cuda_rest.json" \
      --output "$R/table_cuda.json"
fi
if [ -s "$R/table_cpu.json" ] && [ -s "$R/table_cuda.json" ]; then
  python3 bench/cuda/table_diff.py "$R/table_cpu.json" "$R/table_cuda.json" --dtypes-a "$R/dtypes_cpu.json" \
      --dtypes-b "$R/dtypes_cuda.json" --json "$R/table_diff.json" --markdown "$R/table_diff.md"
  head -c 6000 "$R/table_diff.md"
fi
head -c 5000 "$R/probe_kernels.md"
stamp "done"
cp "$OUT/run1.log" "$R/run1.log" 2>/dev/null
tar czf "$OUT/results1.tar.gz" -C /tmp results1
ls -la "$OUT"
