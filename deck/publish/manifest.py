"""The manifest of a lesson's last good build: what went in and what came out, by hash.

A build whose inputs (lesson files, engine, assets, installed packages, options, cache
entries) and outputs (every published file) hash as recorded has nothing to do: it returns
without loading the renderer, let alone torch. Files are hashed by content; a file whose
size, mtime, ctime and inode are all unchanged reuses its recorded hash (as git's index
does; the ctime catches a same-size edit whose mtime was set back with `touch -r` or
`cp -p`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.source.registry import SKIP_PARTS, Source
from deck.store.files import RACY_SECONDS, content_hash, identity, write_atomic
from deck.theme import ENGINE, ROOT

SCHEMA = 1


@dataclass
class Hasher:
    """sha256 of files, reusing a previous hash when size, mtime, ctime and inode match."""

    known: dict[str, list[Any]] = field(default_factory=dict)
    seen: dict[str, list[Any]] = field(default_factory=dict)

    def file(self, path: str | Path) -> str:
        key = os.fspath(path)
        try:
            st = os.stat(key)
        except OSError:
            return "missing"
        old = self.known.get(key)
        now = list(identity(st))
        if old and len(old) == len(now) + 1 and old[:-1] == now:
            digest = old[-1]
        else:
            digest = content_hash(path)
        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_SECONDS * 1e9:
            now[1] = -1  # changed a moment ago: it may change again unseen; hash it next time
        self.seen[key] = [*now, digest]
        return digest

    def tree_digest(self, folder: Path) -> str:
        return hashlib.sha256(json.dumps(self.tree(folder), sort_keys=True).encode()).hexdigest()

    def tree(self, folder: Path) -> dict[str, str]:
        """relative path → hash for every file under `folder` (sorted)."""
        if not folder.is_dir():
            return {}
        out = {}
        top = os.fspath(folder)
        for dirpath, dirnames, filenames in os.walk(top):  # (os.path: hundreds of files)
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_PARTS)
            rel = os.path.relpath(dirpath, top).replace(os.sep, "/")
            prefix = "" if rel == "." else f"{rel}/"
            for name in sorted(filenames):
                out[prefix + name] = self.file(os.path.join(dirpath, name))
        return out


def _site_packages_state() -> list[Any]:
    """Installing, upgrading or removing a package changes its site-packages folder."""
    state: list[Any] = [sys.version, sys.executable]
    for entry in sys.path:
        if entry.endswith("-packages") and os.path.isdir(entry):
            state.append([entry, os.stat(entry).st_mtime_ns])
    return state


def inputs_digest(hasher: Hasher, source: Source, options: dict[str, Any]) -> str:
    """One hash of the sources a build of the lesson reads (its cache entries apart)."""
    from deck.publish.assets import asset_sources  # light: paths only

    h = hashlib.sha256(json.dumps([SCHEMA, options, _site_packages_state()]).encode())

    def add(label: str, files: dict[str, str]) -> None:
        h.update(label.encode() + b"\0" + json.dumps(files, sort_keys=True).encode())

    add("lesson", source.inputs(hasher))
    add("engine", hasher.tree(ENGINE))
    add("build.py", {"build.py": hasher.file(ROOT / "build.py")})
    add("assets", {dest: hasher.file(src) for dest, src in asset_sources()})
    katex = ROOT / "node_modules" / "katex" / "package.json"
    add("katex", {"package.json": hasher.file(katex)})
    return h.hexdigest()


def outputs_digest(hasher: Hasher, folders: list[Path]) -> str:
    h = hashlib.sha256()
    for folder in folders:
        h.update(str(folder).encode() + b"\0")
        if folder.is_file():
            h.update(hasher.file(folder).encode())
        else:
            h.update(json.dumps(hasher.tree(folder), sort_keys=True).encode())
    return h.hexdigest()


@dataclass
class Manifest:
    path: Path
    data: dict[str, Any]

    @staticmethod
    def load(path: Path) -> Manifest:
        try:
            data = json.loads(path.read_text("utf-8"))
            if not isinstance(data, dict) or data.get("schema") != SCHEMA:
                data = {}
        except (OSError, ValueError):
            data = {}
        return Manifest(path, data)

    def hasher(self) -> Hasher:
        files = self.data.get("files")
        return Hasher(known=files if isinstance(files, dict) else {})

    def refresh(self, hasher: Hasher) -> None:
        """After a no-change check: keep the stats of files hashed again and found unchanged
        (written moments before the last build ended, they were too recent to trust then), so
        the next check need not hash them again. Best effort."""
        if not self.data or hasher.seen == hasher.known:
            return
        try:
            self.save(self.data["inputs"], self.data["outputs"], hasher, self.data["report"])
        except (OSError, KeyError):
            pass

    def save(self, inputs: list[str], outputs: str, hasher: Hasher, report: dict[str, Any]) -> None:
        data = {
            "schema": SCHEMA,
            "inputs": inputs,
            "outputs": outputs,
            "files": hasher.seen,
            "report": report,
        }
        write_atomic(self.path, json.dumps(data, ensure_ascii=False).encode("utf-8"))
