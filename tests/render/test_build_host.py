"""`values.json` records the build host (CPU model, cores, Python, library versions) under
`"build_host"`, the same on every render on one machine; and under `"kernels"` what decided the
floating-point kernels of the values (torch's CPU capability and threads, the BLAS, the thread
variables), as the section workers that imported torch or numpy saw it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from test_render import stand_in_results

from catalogue import write_lesson
from deck.host import KERNEL_VARIABLES, build_host
from deck.model import SectionResult
from deck.render.deck import render_lesson
from deck.source.folder import load_lesson
from fixture_build import ROOT

TORCH_FACTS = {"version", "capability", "threads", "blas", "lapack"}
NUMPY_FACTS = {"version", "blas", "blas_version", "simd"}


def test_values_record_the_build_host(tmp_path: Path):
    lesson = load_lesson(write_lesson(tmp_path, {"01-a.md": "## A\n\ntext\n"}))
    first = render_lesson(lesson, stand_in_results(lesson)).values
    second = render_lesson(lesson, stand_in_results(lesson)).values
    host = first["build_host"]
    assert {k: v for k, v in host.items() if k != "kernels"} == build_host()
    assert set(host) == {"cpu", "cores", "cores_usable", "python", "libraries", "kernels"}
    assert host["kernels"] == {}  # no section imported torch or numpy
    assert set(host["libraries"]) == {"numpy", "torch", "matplotlib"}
    assert isinstance(host["cores"], int) and 1 <= host["cores_usable"] <= host["cores"]
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def facts(capability: str, threads: int) -> dict[str, dict[str, object]]:
    return {
        "torch": {"version": "2.0", "capability": capability, "threads": threads},
        "environment": {"OMP_NUM_THREADS": str(threads)},
    }


def test_kernels_merge_across_sections_and_list_a_disagreement(tmp_path: Path):
    files = {f"0{k}-s.md": f"## S{k}\n\ntext\n" for k in (1, 2, 3)}
    lesson = load_lesson(write_lesson(tmp_path, files))
    names = [s.name for s in lesson.sections]
    results = stand_in_results(lesson)
    numpy_only = {"numpy": {"version": "2.1", "blas": "openblas"}}
    results[names[0]] = replace(results[names[0]], kernels=facts("AVX2", 2))
    results[names[1]] = replace(results[names[1]], kernels=numpy_only)  # no torch in this one
    agreed = render_lesson(lesson, results).values["build_host"]["kernels"]
    assert agreed == {**facts("AVX2", 2), **numpy_only}
    # a third section from another run (other threads): torch and environment list both
    results[names[2]] = replace(results[names[2]], kernels=facts("AVX2", 1))
    mixed = render_lesson(lesson, results).values["build_host"]["kernels"]
    assert mixed["numpy"] == numpy_only["numpy"]
    assert mixed["torch"] == [
        {"sections": [names[0]], **facts("AVX2", 2)["torch"]},
        {"sections": [names[2]], **facts("AVX2", 1)["torch"]},
    ]
    assert [e["sections"] for e in mixed["environment"]] == [[names[0]], [names[2]]]


def test_a_section_result_keeps_its_kernels_through_the_cache_form():
    result = SectionResult(key="k", cells=(), inline={}, seconds=0.0, kernels=facts("AVX2", 2))
    data = json.loads(json.dumps(result.to_json()))
    assert SectionResult.from_json(data).kernels == facts("AVX2", 2)
    older = {k: v for k, v in data.items() if k != "kernels"}  # a cache entry from before
    assert SectionResult.from_json(older).kernels == {}
    assert "kernels" not in replace(result, kernels={}).to_json()  # as entries always were


BUILD_AND_LOOK = (
    "import json, sys; from deck.cli import main; code = main(sys.argv[1:]); "
    "print(json.dumps([code, sorted(m for m in ('torch', 'numpy') if m in sys.modules)]))"
)


@pytest.mark.slow
def test_the_workers_record_the_kernels_the_build_never_imports_torch(tmp_path: Path):
    """A real build (its own process, as `build.py` runs): the lesson whose cell imports torch
    gets torch's and numpy's kernel facts as the worker saw them, the lesson that imports
    nothing gets none, and the build process itself imported neither library."""
    torch_cell = "## T\n\n```{python}\nimport torch\nx = torch.ones(2) @ torch.ones(2)\n```\n"
    write_lesson(tmp_path, {"01-t.md": torch_cell}, name="tk")
    write_lesson(tmp_path, {"01-p.md": "## P\n\n```{python}\ny = 1 + 1\n```\n"}, name="plain")
    # (without the caller's kernel variables: the worker sets its own thread counts)
    env = {k: v for k, v in os.environ.items() if k not in KERNEL_VARIABLES}
    env.update(PYTHONPATH=str(ROOT), DECK_LAYOUT_CHECK="0")
    args = ["tk", "plain", "--to", "html", "--jobs", "1", "-q"]
    proc = subprocess.run(
        [sys.executable, "-c", BUILD_AND_LOOK, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    code, imported = json.loads(proc.stdout.splitlines()[-1])
    assert code == 0, proc.stderr
    assert imported == []  # the kernels came from the worker: the build never loaded torch
    plain = json.loads((tmp_path / "dist/plain/values.json").read_text("utf-8"))
    assert plain["build_host"]["kernels"] == {}
    kernels = json.loads((tmp_path / "dist/tk/values.json").read_text("utf-8"))["build_host"][
        "kernels"
    ]
    assert set(kernels) == {"torch", "numpy", "environment"}
    assert set(kernels["torch"]) == TORCH_FACTS and set(kernels["numpy"]) == NUMPY_FACTS
    import torch

    assert kernels["torch"]["version"] == torch.__version__
    assert kernels["torch"]["capability"] == torch.backends.cpu.get_cpu_capability()
    threads = kernels["torch"]["threads"]
    assert isinstance(threads, int) and threads >= 1
    assert set(kernels["environment"]) == set(KERNEL_VARIABLES)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        assert kernels["environment"][name] == str(threads)  # as the worker set them
    assert kernels["environment"]["ATEN_CPU_CAPABILITY"] is None
