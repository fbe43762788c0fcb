#!/usr/bin/env bash
# The machine, driver, CUDA, torch build and TF32 defaults, as the GPU runs saw them.
set -u
echo "== date"; date -u
echo "== uname"; uname -a
echo "== nproc"; nproc
echo "== nvidia-smi"; nvidia-smi 2>&1 | head -20
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1
echo "== python / torch"
python3 - <<'PY'
import sys, torch
print("python", sys.version.split()[0], sys.executable)
print("torch", torch.__version__, "cuda", torch.version.cuda, "git", torch.version.git_version)
print("cuda available", torch.cuda.is_available())
if torch.cuda.is_available():
    print("gpu", torch.cuda.get_device_name(), "capability", torch.cuda.get_device_capability())
print("cudnn", torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None)
print("TF32 defaults: torch.backends.cuda.matmul.allow_tf32 =", torch.backends.cuda.matmul.allow_tf32,
      "; torch.backends.cudnn.allow_tf32 =", torch.backends.cudnn.allow_tf32,
      "; float32_matmul_precision =", torch.get_float32_matmul_precision())
for name in ("torch.backends.fp32_precision", "torch.backends.cuda.matmul.fp32_precision",
             "torch.backends.cudnn.fp32_precision", "torch.backends.cudnn.conv.fp32_precision",
             "torch.backends.cudnn.rnn.fp32_precision"):
    try:
        obj = eval(name)
        print(name, "=", obj)
    except Exception as e:
        print(name, "n/a", type(e).__name__)
print("deterministic algorithms", torch.are_deterministic_algorithms_enabled(), "cudnn.deterministic",
      torch.backends.cudnn.deterministic, "cudnn.benchmark", torch.backends.cudnn.benchmark)
PY
echo "== packages"
python3 -m pip list 2>/dev/null | grep -i -E '^(torch|typer|rich|click|attrs|cattrs|libcst|pygls|lsprotocol|unidiff|pytest|pytest.xdist|execnet|pytest.asyncio|pytest.lsp|pytest.timeout|numpy|expecttest|jsonschema|pyyaml|typing.extensions|pydantic|pydantic.core) '
python3 -c "import typer, libcst, pygls, attrs; print('typer', typer.__version__, typer.__file__); print('libcst', libcst.__file__); print('attrs', attrs.__version__)"
python3 -m fixinplace --version
