"""The comparison side of the benchmark: `jupyter nbconvert --to slides --execute` in bench/.venv
(made by bench/setup.sh), and Playwright printing its slides to one PDF.

nbconvert's slides load require.js, jQuery, reveal.js and MathJax from CDNs. This machine has no
such network, so the browser is served the same packages (at the versions nbconvert names, from
bench/.venv/web) for those addresses, and any other request fails at once; the HTML file itself
is exactly what nbconvert wrote.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
VENV = BENCH / ".venv"
WEB = VENV / "web" / "node_modules"
SETUP = "bash bench/setup.sh"

# CDN address → file under bench/.venv/web/node_modules ("{path}": the rest of the address).
CDNJS = r"https://cdnjs\.cloudflare\.com/ajax/libs/"
ASSETS = [
    (CDNJS + r"require\.js/[^/]+/require\.min\.js", "requirejs/require.js"),
    (CDNJS + r"jquery/[^/]+/jquery\.min\.js", "jquery/dist/jquery.min.js"),
    (CDNJS + r"mathjax/[^/]+/(?P<path>[^?]+)", "mathjax/{path}"),
    (r"https://unpkg\.com/reveal\.js@[^/]+/(?P<path>[^?]+)", "reveal.js/{path}"),
]
MIME = {
    ".js": "application/javascript",
    ".css": "text/css",
    ".woff": "font/woff",
    ".otf": "font/otf",
    ".eot": "application/vnd.ms-fontobject",
    ".svg": "image/svg+xml",
}

PDF_READY = """() => new Promise(resolve => {
  if (document.querySelector('.pdf-page')) return resolve(true);
  document.addEventListener('pdf-ready', () => resolve(true), {once: true});
})"""
MATH_DONE = """() => new Promise(resolve => {
  if (!window.MathJax || !MathJax.Hub) return resolve(false);
  MathJax.Hub.Queue(() => resolve(true));
})"""
SETTLED = """async () => {
  await document.fonts.ready;
  await Promise.all([...document.images].map(img => img.decode().catch(() => null)));
  return document.querySelectorAll('.pdf-page').length;
}"""


def missing() -> str | None:
    """Why the comparison cannot run, or None."""
    if not (VENV / "bin" / "jupyter").is_file():
        return f"no bench/.venv: run `{SETUP}` once"
    if not (WEB / "reveal.js" / "dist" / "reveal.js").is_file():
        return f"bench/.venv/web is incomplete: run `{SETUP}` again"
    return None


def environment(home: Path) -> dict[str, str]:
    """nbconvert's environment: Jupyter's and IPython's folders under `home`, so that no user
    kernel or configuration of this machine takes part."""
    env = dict(os.environ)
    for name in ("CONFIG", "DATA", "RUNTIME"):
        env[f"JUPYTER_{name}_DIR"] = str(home / name.lower())
    env["IPYTHONDIR"] = str(home / "ipython")
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    env.pop("MPLBACKEND", None)
    return env


def to_notebook_command(qmd: Path, notebook: Path) -> list[str]:
    return [str(VENV / "bin" / "python"), str(BENCH / "notebook.py"), str(qmd), str(notebook)]


def nbconvert_command(notebook: Path, out: Path) -> list[str]:
    """`jupyter nbconvert --to slides --execute`, with the deck's 1280×720 slide size and the
    inputs of `echo: false` cells left out (as the Quarto deck shows them)."""
    return [
        str(VENV / "bin" / "jupyter"), "nbconvert", "--to", "slides", "--execute",
        str(notebook), "--output-dir", str(out),
        "--ExecutePreprocessor.timeout=1200",
        "--TagRemovePreprocessor.enabled=True",
        "--TagRemovePreprocessor.remove_input_tags=remove_input",
        "--SlidesExporter.reveal_width=1280",
        "--SlidesExporter.reveal_height=720",
    ]  # fmt: skip


def local_file(url: str) -> Path | None:
    for pattern, target in ASSETS:
        match = re.match(pattern, url)
        if match:
            path = WEB / target.format(**match.groupdict())
            return path if path.is_file() else None
    return None


def print_pdf(html: Path, pdf: Path) -> tuple[float, int, list[str]]:
    """Launch Chromium, open `html?print-pdf`, wait for reveal's print layout, the typeset math,
    fonts and images, print one PDF. Returns (seconds for all of it, pages, refused addresses).
    """
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(BENCH.parent))
    from deck.publish.pdf import launch

    refused: list[str] = []

    def serve(route) -> None:  # noqa: ANN001 - Playwright's Route
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
            return
        path = local_file(url)
        if path is None:
            refused.append(url)
            route.abort()
            return
        route.fulfill(path=str(path), content_type=MIME.get(path.suffix, "text/plain"))

    start = time.perf_counter()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.route("**/*", serve)
            page.goto(html.resolve().as_uri() + "?print-pdf", wait_until="load")
            page.evaluate(PDF_READY)
            if not page.evaluate(MATH_DONE):
                refused.append("(MathJax did not load: formulas printed as TeX)")
            pages = page.evaluate(SETTLED)
            page.pdf(path=str(pdf), print_background=True, prefer_css_page_size=True)
        finally:
            browser.close()
    return time.perf_counter() - start, pages, refused
