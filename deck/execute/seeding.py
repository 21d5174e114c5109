"""Seeding numpy and torch in the worker right after their first import, so sections that do
not use them never load them (and do not depend on them)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from typing import Any

SEEDERS = {
    "torch": lambda module, seed: module.manual_seed(seed),
    "numpy": lambda module, seed: module.random.seed(seed),
}


class SeedOnImport(importlib.abc.MetaPathFinder):
    """Seeds numpy and torch right after their first import, so sections that do not use
    them never load them (and do not depend on them)."""

    def __init__(self, seed: int):
        self.seed = seed
        self.pending = set(SEEDERS)

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in self.pending:
            return None
        self.pending.discard(name)
        if not self.pending:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader, seed, seeder = spec.loader, self.seed, SEEDERS[name]

        class Seeding(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: Any) -> None:
                loader.exec_module(module)
                seeder(module, seed)

        spec.loader = Seeding()
        return spec
