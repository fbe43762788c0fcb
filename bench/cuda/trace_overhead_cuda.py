"""Overhead of `fixinplace.trace()` on a CUDA training loop (issue 16): traced time / plain time.

    python bench/cuda/trace_overhead_cuda.py [--device cuda] [--repeats 5] [--anomaly]

bench/trace_overhead.py has no device option; this reuses its MLP configurations and model builder, adds a large
MLP and a small CNN (where the GPU's work, not Python, dominates a step), and times each on --device with
`torch.cuda.synchronize()` before the clock starts and before it stops (CUDA kernels run asynchronously: without
it the plain loop would be timed by its launches only). Each configuration trains a fresh model (SGD with
momentum, cross-entropy), plainly and under `fixinplace.trace(report=False)`, alternating, --repeats times; the
figure is the ratio of the medians. TF32 is left at torch's defaults (it does not change what is timed relative
to each other).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import fixinplace  # noqa: E402

_spec = importlib.util.spec_from_file_location("trace_overhead", ROOT / "bench" / "trace_overhead.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

CONFIGS = dict(base.CONFIGS)
CONFIGS["large"] = dict(sizes=(4096, 4096, 4096, 10), batch=1024)
CONFIGS["cnn"] = dict(cnn=True, batch=128)
STEPS = {"small": 300, "medium": 200, "large": 50, "cnn": 50}


def _cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _train_seconds(config: dict, steps: int, context, device: str) -> float:
    torch.manual_seed(0)
    if config.get("cnn"):
        model = _cnn().to(device)
        x = torch.randn(config["batch"], 3, 32, 32, device=device)
        n_classes = 10
    else:
        model = base._model(config["sizes"]).to(device)
        x = torch.randn(config["batch"], config["sizes"][0], device=device)
        n_classes = config["sizes"][-1]
    y = torch.randint(0, n_classes, (config["batch"],), device=device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    with context():
        for _ in range(3):  # warm-up
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        _sync(device)
        start = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        _sync(device)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--anomaly", action="store_true")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (as bench/trace_overhead.py)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    contexts = {"plain": contextlib.nullcontext, "trace": lambda: fixinplace.trace(report=False)}
    if args.anomaly:
        contexts["anomaly"] = lambda: torch.autograd.detect_anomaly(check_nan=False)
    gpu = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    print(f"torch {torch.__version__}, device {args.device} ({gpu}), {args.threads} thread(s), median of {args.repeats} runs, "
          f"synchronised before and after timing")
    for name in args.configs.split(","):
        config = CONFIGS[name]
        steps = STEPS[name]
        times: dict = {k: [] for k in contexts}
        for _ in range(args.repeats):
            for kind, context in contexts.items():
                times[kind].append(_train_seconds(config, steps, context, args.device))
        plain = statistics.median(times["plain"])
        desc = "CNN 3x32x32 (3 conv+BN+ReLU(inplace))" if config.get("cnn") else \
            f"MLP {'-'.join(map(str, config['sizes']))}"
        line = f"{name:6s} {desc}, batch {config['batch']}, {steps} steps: plain {plain / steps * 1e3:.3f} ms/step"
        for kind in contexts:
            if kind != "plain":
                t = statistics.median(times[kind])
                line += f", {kind} {t / steps * 1e3:.3f} ms/step ({t / plain:.2f}x)"
        spread = {k: f"{min(v) / steps * 1e3:.3f}-{max(v) / steps * 1e3:.3f}" for k, v in times.items()}
        print(line + f"  [ms/step range {spread}]", flush=True)


if __name__ == "__main__":
    main()
