"""Time the lesson's experiments from a cold start.

    .venv/bin/python bench/experiments.py [--repeats 3]

Each repeat is a fresh Python process (cold imports, model loaded from disk) that times, in order:
`import torch`, importing the lesson modules, loading MiniLM, then every experiment. The parent
prints the median of each step over the repeats, the sum of the medians, and the median wall time
of a whole process (including interpreter start-up).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

LESSON_DIR = Path(__file__).resolve().parents[1] / "content" / "transformer"

EXPERIMENTS = [
    ("experiments_basics", "rnn_gradient_vs_distance"),
    ("experiments_basics", "dot_product_variance"),
    ("experiments_basics", "softmax_saturation"),
    ("experiments_basics", "permutation_equivariance"),
    ("experiments_basics", "relative_position_check"),
    ("experiments_basics", "pe_similarity_vs_distance"),
    ("experiments_basics", "rnn_gradient_spread"),
    ("experiments_basics", "attention_cost"),
    ("experiments_basics", "attention_timing"),
    ("experiments_pretrained", "coreference_control"),
    ("experiments_pretrained", "head_patterns"),
    ("experiments_training", "head_ablation"),
    ("experiments_training", "residual_ablation"),
    ("encoder_demo", "residual_at_initialisation"),
    ("experiments_training", "layernorm_comparison"),
    ("experiments_training", "pe_ablation"),
    ("experiments_training", "pe_extrapolation"),
]


def worker() -> None:
    """One cold run; prints {step: seconds} as JSON."""
    import importlib

    timings = {}
    start = time.perf_counter()
    import torch  # noqa: F401

    timings["import torch"] = time.perf_counter() - start

    sys.path.insert(0, str(LESSON_DIR))
    start = time.perf_counter()
    modules = {name: importlib.import_module(name) for name, _ in EXPERIMENTS}
    timings["import lesson modules"] = time.perf_counter() - start

    start = time.perf_counter()
    pretrained = importlib.import_module("pretrained")
    pretrained.load_model()
    pretrained.load_tokenizer()
    timings["load MiniLM"] = time.perf_counter() - start

    for module, name in EXPERIMENTS:
        start = time.perf_counter()
        json.dumps(getattr(modules[module], name)())  # results must be JSON-serialisable
        timings[name] = time.perf_counter() - start
    print(json.dumps(timings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes to run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return

    runs, walls = [], []
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for i in range(args.repeats):
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, __file__, "--worker"],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        walls.append(time.perf_counter() - start)
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(f"run {i + 1}/{args.repeats}: {walls[-1]:.2f} s wall", file=sys.stderr)

    steps = list(runs[0])
    width = max(len(s) for s in steps) + 2
    print(f"{'step':<{width}}{'median s':>10}{'min s':>9}{'max s':>9}")
    print("-" * (width + 28))
    total = 0.0
    for step in steps:
        values = [run[step] for run in runs]
        median = statistics.median(values)
        total += median
        print(f"{step:<{width}}{median:>10.3f}{min(values):>9.3f}{max(values):>9.3f}")
    print("-" * (width + 28))
    print(f"{'sum of medians':<{width}}{total:>10.3f}")
    print(f"{'process wall (median)':<{width}}{statistics.median(walls):>10.3f}")
    print(f"repeats: {args.repeats}, torch threads: default ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
