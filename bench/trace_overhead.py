"""Overhead of `fixinplace trace` on a training loop: traced time / plain time, small and medium MLP.

    python bench/trace_overhead.py [--steps-small 300] [--steps-medium 60] [--repeats 5] [--threads 1] [--anomaly]

Each configuration trains a fresh MLP (SGD with momentum, cross-entropy) for the given steps, plainly and under
`fixinplace.trace()`, alternating, `--repeats` times; the figure is the ratio of the medians. `--anomaly` also
times `torch.autograd.detect_anomaly()` for comparison. Goal (issue 6): under 2x on the small MLP, under 1.5x on
the medium one.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fixinplace  # noqa: E402

CONFIGS = {
    "small": dict(sizes=(32, 64, 64, 10), batch=64),
    "medium": dict(sizes=(784, 512, 512, 10), batch=128),
}


def _model(sizes) -> nn.Module:
    layers = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def _train_seconds(sizes, batch: int, steps: int, context) -> float:
    torch.manual_seed(0)
    model = _model(sizes)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(batch, sizes[0]), torch.randint(0, sizes[-1], (batch,))
    with context():
        for _ in range(3):  # warm-up
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        start = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps-small", type=int, default=300)
    parser.add_argument("--steps-medium", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1, for stable figures)")
    parser.add_argument("--anomaly", action="store_true", help="also time torch.autograd.detect_anomaly()")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    contexts = {"plain": contextlib.nullcontext, "trace": lambda: fixinplace.trace(report=False)}
    if args.anomaly:
        contexts["anomaly"] = lambda: torch.autograd.detect_anomaly(check_nan=False)
    print(f"torch {torch.__version__}, {args.threads} thread(s), median of {args.repeats} runs")
    for name, config in CONFIGS.items():
        steps = args.steps_small if name == "small" else args.steps_medium
        times: dict = {k: [] for k in contexts}
        for _ in range(args.repeats):
            for kind, context in contexts.items():
                times[kind].append(_train_seconds(config["sizes"], config["batch"], steps, context))
        plain = statistics.median(times["plain"])
        line = (f"{name:6s} MLP {'-'.join(map(str, config['sizes']))}, batch {config['batch']}, {steps} steps: "
                f"plain {plain / steps * 1e3:.3f} ms/step")
        for kind in contexts:
            if kind != "plain":
                t = statistics.median(times[kind])
                line += f", {kind} {t / steps * 1e3:.3f} ms/step ({t / plain:.2f}x)"
        print(line)


if __name__ == "__main__":
    main()
