"""The build host as `values.json` records it (and cells may ask, `deck.show.build_host`): CPU
model, cores, Python and the versions of the heavy libraries, read without importing them."""

from __future__ import annotations

import os
import platform
from typing import Any

HOST_LIBRARIES = ("numpy", "torch", "matplotlib")


def build_host() -> dict[str, Any]:
    """The machine the build runs on, for labelling timings as measured there (`values.json`
    records it under `"build_host"`): the CPU model (`/proc/cpuinfo`), its logical cores
    (`os.cpu_count()`) and those this process may use (its affinity), the Python version, and
    the installed versions of numpy, torch and matplotlib (read from their metadata, never
    imported; None when one is not installed)."""
    from importlib import metadata

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
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    libraries: dict[str, str | None] = {}
    for name in HOST_LIBRARIES:
        try:
            libraries[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            libraries[name] = None
    return {
        "cpu": cpu or platform.processor() or None,
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "python": platform.python_version(),
        "libraries": libraries,
    }
