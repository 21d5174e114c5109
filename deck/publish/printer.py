"""What the PDFs are printed with, as part of their reuse key: the Chromium version and the
installed fonts. An upgrade of either reprints the PDFs.

Both are cheap enough for the no-change check (no Playwright import, no browser start): the
version comes from `chromium --version`, run once per executable and cached in the build
cache under the executable's identity (path, size, mtime, ctime, inode: a package upgrade
writes new files); the fonts are a digest of the paths, sizes, mtimes, ctimes and inodes of
every file under fontconfig's folders and its configuration (`/etc/fonts`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

CACHE_FILE = "printer.json"  # in the build cache: the version of each executable seen
FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.fonts",
    "~/.local/share/fonts",
    "/etc/fonts",  # the configuration decides which face stands in for a missing glyph
)
CONF_DIR = re.compile(r"<dir\b[^>]*>\s*([^<]+?)\s*</dir>")


def chromium_executable() -> str | None:
    """The Chromium the PDFs are printed with: as `deck.publish.pdf.chromium_path` finds it."""
    return os.environ.get("DECK_CHROMIUM") or shutil.which("chromium") or None


def _identity(path: Path) -> list[object]:
    try:
        st = path.stat()
    except OSError:
        return [str(path), None]
    return [str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def chromium_version(cache: Path) -> str:
    """`chromium --version` of the executable PDFs are printed with (or Playwright's own
    browser, pinned by its version), cached in `cache` while the executable is unchanged."""
    exe = chromium_executable()
    if exe is None:
        from importlib import metadata

        try:
            return f"playwright {metadata.version('playwright')} bundled chromium"
        except metadata.PackageNotFoundError:
            return "no chromium"
    real = Path(exe).resolve()
    # Debian's /usr/bin/chromium is a script starting /usr/lib/chromium/chromium
    key = [_identity(real), _identity(real.parent.parent / "lib/chromium/chromium")]
    stored = cache / CACHE_FILE
    try:
        known = json.loads(stored.read_text("utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    entry = known.get(str(real))
    if isinstance(entry, dict) and entry.get("key") == key and entry.get("version"):
        return str(entry["version"])
    try:
        ran = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({type(exc).__name__})"  # not cached: asked again next build
    version = ran.stdout.strip()
    if ran.returncode != 0 or not version:
        return f"unknown (exit {ran.returncode})"  # (not cached either)
    known[str(real)] = {"key": key, "version": version}
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = stored.with_name(f"{CACHE_FILE}.{os.getpid()}")
        tmp.write_text(json.dumps(known, indent=1), "utf-8")
        os.replace(tmp, stored)
    except OSError:
        pass  # asked again next time
    return version


def font_dirs() -> list[Path]:
    """fontconfig's usual folders and the `<dir>`s its main configuration names."""
    found = [Path(d).expanduser() for d in FONT_DIRS]
    data_home = os.environ.get("XDG_DATA_HOME")
    if data_home:
        found.append(Path(data_home) / "fonts")
    try:
        conf = Path("/etc/fonts/fonts.conf").read_text("utf-8", "replace")
    except OSError:
        conf = ""
    found += [Path(d).expanduser() for d in CONF_DIR.findall(conf) if d.startswith(("/", "~"))]
    return sorted(set(found))


def fonts_digest() -> str:
    """A digest of every font and fontconfig file's path, size, mtime, ctime and inode."""
    h = hashlib.sha256()
    for folder in font_dirs():
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                h.update(json.dumps(_identity(Path(root) / name)).encode())
    return h.hexdigest()


def printer_key(cache: Path) -> str:
    """What a PDF is printed with, for its reuse key and the no-change check."""
    return f"{chromium_version(cache)}\0fonts {fonts_digest()}"
