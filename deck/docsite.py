"""The documentation site: `python build.py docs` builds `docs/` with MkDocs into `dist/docs/`.

Its reference pages are written from the code while MkDocs builds (`docs/hooks.py` calls
`deck.reference`). The site is built into a folder beside the output and then moved into place,
so a failed build leaves the last good site as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def docs_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="build.py docs",
        description="Build the documentation site (docs/, mkdocs.yml) offline into OUT/docs/: "
        "open OUT/docs/index.html from disk.",
    )
    p.add_argument("--out", type=Path, default=Path("dist"), help="output folder (default dist)")
    return p


def build_site(out: Path, root: Path = ROOT) -> Path:
    """Build the site into `out/docs/`, whole or not at all; return that folder."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    target = out / "docs"
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".docs-", dir=out))
    try:
        # (from the project's folder: the snippets' base paths are relative to it)
        with contextlib.chdir(root):
            config = load_config(str(root / "mkdocs.yml"), site_dir=str(staging / "site"))
            try:
                build(config)
            except MkDocsException as exc:
                raise SystemExit(f"build.py docs: {exc}") from None
        if target.exists():
            old = staging / "old"
            target.rename(old)
        (staging / "site").rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def main(argv: list[str]) -> int:
    args = docs_parser().parse_args(argv)
    site = build_site(args.out.resolve())
    print(f"  wrote   {site / 'index.html'} (the documentation site)", file=sys.stderr)
    return 0
