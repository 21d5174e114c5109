"""The build host as `values.json` records it (and cells may ask, `deck.show.build_host`): CPU
model, cores, Python and the versions of the heavy libraries, read without importing them; and
what decided the floating-point kernels, as each section worker saw it (`kernels`)."""

from __future__ import annotations

import functools
import os
import platform
import sys
from typing import Any

HOST_LIBRARIES = ("numpy", "torch", "matplotlib")
# What chooses or sizes the math libraries' kernels, as set for the cells: torch's CPU dispatch
# level, the thread pools (deck.execute.worker sets the thread counts unless the user did), MKL's
# instruction set and reproducibility mode, OpenBLAS's core type, numpy's disabled SIMD targets.
KERNEL_VARIABLES = (
    "ATEN_CPU_CAPABILITY",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_CBWR",
    "OPENBLAS_CORETYPE",
    "NPY_DISABLE_CPU_FEATURES",
)


def kernel_selectors() -> dict[str, str | None]:
    """What chooses the math kernels before any cell runs, for the cache keys: a section, or a
    no-change build, computed on another CPU or under another `ATEN_CPU_CAPABILITY` is not
    reused. The CPU (its model and instruction-set flags, `/proc/cpuinfo`) and each of
    KERNEL_VARIABLES as the build's environment sets it (the thread counts the worker picks
    from `--jobs` when the user sets none are not among them: values.json's `kernels` says
    which a section's run used)."""
    import hashlib

    cpu: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "flags") and key not in cpu:
                    cpu[key] = value.strip()
                if len(cpu) == 2:
                    break
    except OSError:
        pass
    flags = " ".join(sorted(cpu.get("flags", "").split()))
    return {
        "cpu": cpu.get("model name") or platform.processor() or None,
        "cpu_flags": hashlib.sha256(flags.encode()).hexdigest()[:16] if flags else None,
        **{name: os.environ.get(name) for name in KERNEL_VARIABLES},
    }


def build_host() -> dict[str, Any]:
    """The machine the build runs on, for labelling timings as measured there (`values.json`
    records it under `"build_host"`): the CPU model (`/proc/cpuinfo`), its logical cores
    (`os.cpu_count()`) and those this process may use (its affinity), the Python version, and
    the installed versions of numpy, torch and matplotlib (read from their metadata, never
    imported; None when one is not installed)."""
    cpu = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    cpu = value.strip()
                    break
    except OSError:
        pass
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "cpu": cpu or platform.processor() or None,
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "python": platform.python_version(),
        "libraries": dict(library_versions()),
    }


@functools.cache
def library_versions() -> tuple[tuple[str, str | None], ...]:
    """The installed versions of HOST_LIBRARIES (None: not installed), read once a process:
    the warm build service reads them before its builds, and its key covers what is installed
    (`deck.buildd.service_key`)."""
    from importlib import metadata

    found: list[tuple[str, str | None]] = []
    for name in HOST_LIBRARIES:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, None))
    return tuple(found)


def kernels() -> dict[str, Any]:
    """What decides the floating-point kernels in this process, for the libraries it has
    already imported (never imports one; {} when neither torch nor numpy is loaded). Called by
    the section worker once the cells ran, so it describes the run that computed the values:

    - "torch": its version, CPU `capability` (the kernels ATen dispatches to, e.g. "AVX2"),
      intra-op `threads`, and the `blas` / `lapack` it was built with (`torch.__config__`);
    - "numpy": its version, its BLAS (`blas`, `blas_version`) and the SIMD targets it found
      on this CPU (`simd`), from `numpy.__config__.CONFIG`;
    - "environment": each of KERNEL_VARIABLES as the cells left it (None: not set).

    A fact that cannot be read (an older or unusual build) is None."""
    found: dict[str, Any] = {}
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "get_num_threads"):  # (not a half-imported one)
        found["torch"] = _torch_kernels(torch)
    numpy = sys.modules.get("numpy")
    if numpy is not None and hasattr(numpy, "__version__"):
        found["numpy"] = _numpy_kernels(numpy)
    if found:
        found["environment"] = {name: os.environ.get(name) for name in KERNEL_VARIABLES}
    return found


def _torch_kernels(torch: Any) -> dict[str, Any]:
    def read(fn: Any) -> Any:
        try:
            return fn()
        except Exception:  # noqa: BLE001 - a fact this torch does not offer
            return None

    config = read(lambda: torch.__config__.show()) or ""
    settings = dict(
        item.strip().partition("=")[::2]
        for line in config.splitlines()
        if "Build settings:" in line
        for item in line.partition("Build settings:")[2].split(",")
    )
    return {
        "version": str(getattr(torch, "__version__", "")) or None,
        "capability": read(lambda: torch.backends.cpu.get_cpu_capability()),
        "threads": read(torch.get_num_threads),
        "blas": settings.get("BLAS_INFO") or None,
        "lapack": settings.get("LAPACK_INFO") or None,
    }


def _numpy_kernels(numpy: Any) -> dict[str, Any]:
    config = getattr(getattr(numpy, "__config__", None), "CONFIG", None)
    config = config if isinstance(config, dict) else {}
    blas = config.get("Build Dependencies", {}).get("blas", {})
    simd = config.get("SIMD Extensions", {}).get("found")
    return {
        "version": str(numpy.__version__),
        "blas": blas.get("name"),
        "blas_version": blas.get("version"),
        "simd": list(simd) if isinstance(simd, list | tuple) else None,
    }


def kernel_record(by_section: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The `kernels` of `values.json`'s build host, from each section's own record (sections
    that imported neither library have none): each part ("torch", "numpy", "environment") as
    every section that recorded it saw it. Should sections disagree on a part (a section kept
    in the cache from a build with other thread counts, or run on another machine), that part
    is instead a list of its distinct records in lesson order, each naming its `sections`."""
    seen: dict[str, list[tuple[list[str], Any]]] = {}
    for section, facts in by_section.items():
        for part, value in facts.items():
            distinct = seen.setdefault(part, [])
            same = next((names for names, known in distinct if known == value), None)
            if same is not None:
                same.append(section)
            else:
                distinct.append(([section], value))
    return {
        part: distinct[0][1]
        if len(distinct) == 1
        else [{"sections": names, **value} for names, value in distinct]
        for part, distinct in seen.items()
    }
