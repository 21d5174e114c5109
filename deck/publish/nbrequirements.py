"""`code/requirements.txt` beside the student notebook: the installed packages the lesson's
code imports (its cells and its own modules), pinned at the versions the build ran with, so a
student knows what to install before running the notebook.

Read from what the sections recorded while they ran (`Dependency` kinds "installed": a
top-level module from site-packages, and "dist": its distribution's RECORD; for a result computed
elsewhere, "module" and "version": its distribution and version), never from a scan
of the environment: a package the lesson imports only through another is not listed (pip
installs it with the first), and the standard library never is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deck.publish.exporter import Built

IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import|import\s+([^#\n]+))", re.M)
# a package reached by name: importlib.resources.files("pkg"), importlib.import_module("pkg")
BY_NAME = re.compile(r"\b(?:files|import_module|find_spec)\(\s*[\"']([A-Za-z_]\w*)")
DIST_INFO = re.compile(r"^(.+?)-([^-]+)\.dist-info$")
HEADER = (
    "# The packages this lesson's notebook imports, at the versions its build ran with:\n"
    "#   python -m pip install -r requirements.txt\n"
    "# (and Jupyter to open the notebook: python -m pip install notebook)\n"
)


def imported_names(code: str) -> set[str]:
    """The top-level modules a piece of code imports (`import a.b, c as d`, `from e.f import
    g`, or by name: `importlib.resources.files("h")`); relative imports are the lesson's own."""
    names = set(BY_NAME.findall(code))
    for m in IMPORT.finditer(code):
        if m.group(1):
            names.add(m.group(1))
        else:
            for part in m.group(2).split(","):
                name = part.strip().split(" ")[0].split(".")[0]
                if name.isidentifier():
                    names.add(name)
    return names


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def top_levels(dist_info: Path) -> set[str]:
    """The top-level modules a distribution installs: its top_level.txt, else its RECORD."""
    listed = dist_info / "top_level.txt"
    if listed.is_file():
        return {line.strip() for line in listed.read_text("utf-8").split("\n") if line.strip()}
    found = set()
    record = dist_info / "RECORD"
    if record.is_file():
        for line in record.read_text("utf-8").split("\n"):
            first = line.split(",", 1)[0].split("/", 1)[0]
            found.add(first.removesuffix(".py"))
    return found


def requirements(built: Built) -> str:
    """The requirements file's text; "" when the lesson imports no installed package."""
    code = [c.code for s in built.lesson.sections for c in s.cells()]
    folder = built.lesson.path if built.lesson.path.is_dir() else built.lesson.path.parent
    code += [p.read_text("utf-8", "replace") for p in sorted(folder.glob("*.py"))]
    wanted: set[str] = set()
    for text in code:
        wanted |= imported_names(text)
    installed: set[str] = set()
    dists: dict[str, tuple[str, str, Path]] = {}  # normal name → (name, version, dist-info)
    owned: dict[str, str] = {}  # a result computed elsewhere: module → its distribution
    versions: dict[str, str] = {}  # … and that distribution's version
    for result in built.results.values():
        for dep in result.deps:
            if dep.kind == "module":
                installed.add(dep.name)
                owned[dep.name] = dep.path
            elif dep.kind == "version":
                versions[dep.path] = dep.sha256
            elif dep.kind == "installed":
                installed.add(dep.name)
            elif dep.kind == "dist":
                info = Path(dep.path).parent
                m = DIST_INFO.match(info.name)
                if m:
                    dists[normal(m.group(1))] = (dep.name.rpartition(" ")[0], m.group(2), info)
    pins = {}
    for module in sorted(wanted & installed):
        if module == "deck":
            continue  # (shipped in code/ itself)
        if module in owned and owned[module] in versions:
            dist = owned[module]
            pins[normal(dist)] = f"{dist}=={versions[dist]}"
            continue
        owner = dists.get(normal(module))
        if owner is None:  # a module named otherwise than its distribution (PIL: pillow)
            owner = next((d for d in dists.values() if module in top_levels(d[2])), None)
        if owner is not None:
            pins[normal(owner[0])] = f"{owner[0]}=={owner[1]}"
    if not pins:
        return ""
    return HEADER + "".join(f"{pins[k]}\n" for k in sorted(pins))
