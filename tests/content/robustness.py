"""Robustness check of the Transformer lesson's training claims (content/transformer/claims.py).

Reruns every training experiment the slides draw a conclusion from under the kernel variations a
laptop, a server or a CI runner may have: torch's CPU capability (`ATEN_CPU_CAPABILITY=default`,
`avx2`, and `avx512` where this CPU has it), math-library threads 1 and 2, and seeds beyond the
three the slides use. Each claim is judged by the same criterion as the build's assert, and the
report says, per claim, in how many variations it held. A claim the slide states without a
qualifier must hold in all of them: otherwise the exit status is 1.

    .venv/bin/python tests/content/robustness.py [--seeds 0-5] [--threads 1,2]
        [--capabilities default,avx2] [--experiments layernorm,heads] [--jobs 2]
        [--json FILE] [--ci]

Each (capability, threads) pair runs in its own process (the capability is read when torch is
imported); single-thread variations run `--jobs` processes at a time, two-thread ones alone so
that their threads do not contend with another run's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# `--ci` (bash test.sh): seeds per thread count. Every seed at one thread, where two runs share
# the two cores; two seeds at two threads, each run alone (see README, "Any machine").
CI_SEEDS = {1: "0-5", 2: "0-1"}
LESSON = ROOT / "content" / "transformer"


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


def capabilities_here() -> list[str]:
    """The capabilities torch can run on this CPU: `default` always, `avx2` with AVX2 and FMA,
    `avx512` with the AVX-512 subsets torch requires (F, BW, VL, DQ)."""
    flags = cpu_flags()
    found = ["default"]
    if {"avx2", "fma"} <= flags:
        found.append("avx2")
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        found.append("avx512")
    return found


def seed_list(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds.extend(range(int(lo), int(hi or lo) + 1))
    return seeds


# ---------- worker: one capability and thread count, several seeds ----------


def worker(threads: int, seeds: list[int], only: list[str] | None = None) -> dict:
    sys.path.insert(0, str(LESSON))
    import torch

    import claims
    import experiments_training

    experiments_training.THREADS = threads
    chosen = {n: e for n, e in claims.EXPERIMENTS.items() if not only or n in only}
    held: dict[str, dict[str, bool]] = {c.id: {} for c in claims.CLAIMS if c.experiment in chosen}
    seconds: dict[str, float] = {}
    for name, experiment in chosen.items():
        started = time.process_time()  # CPU seconds: comparable when other processes run
        for seed in seeds:
            run = experiment(seed)
            for claim in claims.claims_of(name):
                held[claim.id][str(seed)] = bool(claim.holds(run))
        seconds[name] = time.process_time() - started
    return {
        "capability": torch.backends.cpu.get_cpu_capability(),
        "threads": threads,
        "held": held,
        "seconds": seconds,
    }


def run_variation(capability: str, threads: int, seeds: list[int], only: str = "") -> dict:
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability, "PYTHONHASHSEED": "0"}
    command = [sys.executable, __file__, "--worker", str(threads), ",".join(map(str, seeds))]
    command += [only] if only else []
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(
            f"robustness worker failed (ATEN_CPU_CAPABILITY={capability}, threads {threads}, "
            f"seeds {seeds}):\n{done.stderr[-4000:]}"
        )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["requested"] = capability
    return result


def split(seeds: list[int], parts: int) -> list[list[int]]:
    return [chunk for chunk in (seeds[i::parts] for i in range(parts)) if chunk]


def run_all(
    capabilities: list[str], plan: dict[int, list[int]], jobs: int, only: str = ""
) -> list[dict]:
    """Every capability at each thread count of `plan`, on that count's seeds (`only`: a
    comma list of experiments, else all)."""
    results: list[dict] = []
    if 1 in plan:
        single = [(cap, chunk) for cap in capabilities for chunk in split(plan[1], jobs)]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results += pool.map(lambda job: run_variation(job[0], 1, job[1], only), single)
    for n, seeds in plan.items():
        if n != 1:
            results += [run_variation(cap, n, seeds, only) for cap in capabilities]
    return results


# ---------- the report ----------


def report(results: list[dict]) -> tuple[list[dict], list[str]]:
    """One row per claim: variations held of those run, and the ones that failed."""
    sys.path.insert(0, str(LESSON))
    import claims

    rows, problems = [], []
    for claim in claims.CLAIMS:
        if not any(claim.id in r["held"] for r in results):
            continue  # its experiment was not run (--experiments)
        held, failed = 0, []
        for result in results:
            for seed, ok in result["held"][claim.id].items():
                held += ok
                if not ok:
                    failed.append(f"{result['requested']}/t{result['threads']}/s{seed}")
        total = sum(len(r["held"][claim.id]) for r in results)
        rows.append(
            {
                "id": claim.id,
                "slide": claim.slide,
                "claim": claim.text,
                "qualified": claim.qualified,
                "held": held,
                "of": total,
                "failed": failed,
            }
        )
        if failed and not claim.qualified:
            problems.append(f"{claim.id}: {claim.text} fails at {', '.join(failed)}")
    return rows, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-5", help="seeds, e.g. 0-5 or 0,3,7 (default 0-5)")
    parser.add_argument("--threads", default="1,2", help="math-library threads (default 1,2)")
    parser.add_argument(
        "--capabilities",
        default=None,
        help="ATEN_CPU_CAPABILITY values (default: every one this CPU supports)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel single-thread processes")
    parser.add_argument("--json", type=Path, help="write the rows and every result here")
    parser.add_argument(
        "--ci",
        action="store_true",
        help=f"the test suite's scope: threads 1 on seeds {CI_SEEDS[1]}, threads 2 on seeds "
        f"{CI_SEEDS[2]}, every capability this CPU has",
    )
    parser.add_argument(
        "--experiments", default="", help="a comma list of claims.EXPERIMENTS (default all)"
    )
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        only = args.worker[2].split(",") if len(args.worker) > 2 else None
        print(json.dumps(worker(int(args.worker[0]), seed_list(args.worker[1]), only)))
        return 0

    seeds = seed_list(args.seeds)
    threads = [int(t) for t in args.threads.split(",")]
    plan = {t: seeds for t in threads}
    if args.ci:
        plan = {t: seed_list(s) for t, s in CI_SEEDS.items()}
    here = capabilities_here()
    capabilities = args.capabilities.split(",") if args.capabilities else here
    skipped = [c for c in capabilities if c not in here]
    capabilities = [c for c in capabilities if c in here]
    started = time.perf_counter()
    results = run_all(capabilities, plan, args.jobs, args.experiments)
    elapsed = time.perf_counter() - started
    rows, problems = report(results)

    ran = sorted({r["capability"] for r in results})
    print(
        f"Robustness of the lesson's training claims: torch capabilities {', '.join(ran)}"
        f" (this CPU supports {', '.join(here)}); "
        + "; ".join(f"threads {t}: seeds {','.join(map(str, s))}" for t, s in plan.items())
        + ":"
        f" {len(results)} processes, {elapsed:.0f} s"
    )
    if skipped:
        print(f"not on this CPU, not run: {', '.join(skipped)}")
    width = max(len(row["id"]) for row in rows)
    for row in rows:
        mark = "ok  " if not row["failed"] else ("some" if row["qualified"] else "FAIL")
        print(f"{mark} {row['id']:<{width}} {row['held']:>3}/{row['of']:<3} {row['claim']}")
        if row["failed"]:
            print(f"     {'':<{width}} fails at: {', '.join(row['failed'])}")
    per_experiment: dict[str, float] = {}
    for result in results:
        for name, s in result["seconds"].items():
            per_experiment[name] = per_experiment.get(name, 0.0) + s
    costs = ", ".join(f"{k} {v:.0f}" for k, v in per_experiment.items())
    print(f"cpu seconds per experiment: {costs}")
    if args.json:
        data = {"rows": rows, "results": results}
        args.json.write_text(json.dumps(data, ensure_ascii=False, indent=1))
    if problems:
        print(f"{len(problems)} claim(s) stated without a qualifier do not hold everywhere:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
